import type { FastifyInstance } from 'fastify';
import { parseAllDocuments } from 'yaml';

/**
 * A small runner for test files in the style of Elasticsearch's YAML REST tests
 * (rest-api-spec/test/README.asciidoc): `setup`, `teardown` and named sections of steps; `do`
 * calls an API by name with params and body, optionally expecting `catch`; `match`, `length`,
 * `is_true`, `is_false`, `gt`/`gte`/`lt`/`lte`, `exists` and `set` assert on the response.
 */

type Step = Record<string, unknown>;

export interface RestTest {
  readonly file: string;
  readonly name: string;
  readonly setup: Step[];
  readonly teardown: Step[];
  readonly steps: Step[];
}

export function loadRestTests(file: string, text: string): RestTest[] {
  const docs = parseAllDocuments(text).map((d) => d.toJS() as Record<string, Step[]> | null);
  let setup: Step[] = [];
  let teardown: Step[] = [];
  const tests: RestTest[] = [];
  for (const doc of docs) {
    if (doc === null) continue;
    for (const [name, steps] of Object.entries(doc)) {
      if (name === 'setup') setup = steps;
      else if (name === 'teardown') teardown = steps;
      else tests.push({ file, name, setup: [], teardown: [], steps });
    }
  }
  return tests.map((t) => ({ ...t, setup, teardown }));
}

interface Api {
  readonly method: string;
  readonly path: (p: Record<string, unknown>) => string;
  readonly parts: readonly string[];
  readonly ndjson?: boolean;
}

const enc = (v: unknown) => encodeURIComponent(Array.isArray(v) ? v.join(',') : String(v));

/** The API names we use, mapped as rest-api-spec/api/*.json maps them. */
const APIS: Record<string, Api> = {
  info: { method: 'GET', path: () => '/', parts: [] },
  ping: { method: 'HEAD', path: () => '/', parts: [] },
  'indices.create': { method: 'PUT', path: (p) => `/${enc(p.index)}`, parts: ['index'] },
  'indices.delete': { method: 'DELETE', path: (p) => `/${enc(p.index)}`, parts: ['index'] },
  'indices.exists': { method: 'HEAD', path: (p) => `/${enc(p.index)}`, parts: ['index'] },
  'indices.get': { method: 'GET', path: (p) => `/${enc(p.index)}`, parts: ['index'] },
  'indices.get_mapping': { method: 'GET', path: (p) => (p.index === undefined ? '/_mapping' : `/${enc(p.index)}/_mapping`), parts: ['index'] },
  'indices.get_settings': { method: 'GET', path: (p) => (p.index === undefined ? '/_settings' : `/${enc(p.index)}/_settings`), parts: ['index'] },
  'indices.put_mapping': { method: 'PUT', path: (p) => `/${enc(p.index)}/_mapping`, parts: ['index'] },
  'indices.stats': { method: 'GET', path: (p) => (p.index === undefined ? '/_stats' : `/${enc(p.index)}/_stats`), parts: ['index'] },
  'indices.put_settings': { method: 'PUT', path: (p) => (p.index === undefined ? '/_settings' : `/${enc(p.index)}/_settings`), parts: ['index'] },
  mget: { method: 'POST', path: (p) => (p.index === undefined ? '/_mget' : `/${enc(p.index)}/_mget`), parts: ['index'] },
  'indices.refresh': { method: 'POST', path: (p) => (p.index === undefined ? '/_refresh' : `/${enc(p.index)}/_refresh`), parts: ['index'] },
  index: { method: 'PUT', path: (p) => (p.id === undefined ? `/${enc(p.index)}/_doc` : `/${enc(p.index)}/_doc/${enc(p.id)}`), parts: ['index', 'id'] },
  create: { method: 'PUT', path: (p) => `/${enc(p.index)}/_create/${enc(p.id)}`, parts: ['index', 'id'] },
  get: { method: 'GET', path: (p) => `/${enc(p.index)}/_doc/${enc(p.id)}`, parts: ['index', 'id'] },
  get_source: { method: 'GET', path: (p) => `/${enc(p.index)}/_source/${enc(p.id)}`, parts: ['index', 'id'] },
  exists_source: { method: 'HEAD', path: (p) => `/${enc(p.index)}/_source/${enc(p.id)}`, parts: ['index', 'id'] },
  exists: { method: 'HEAD', path: (p) => `/${enc(p.index)}/_doc/${enc(p.id)}`, parts: ['index', 'id'] },
  delete: { method: 'DELETE', path: (p) => `/${enc(p.index)}/_doc/${enc(p.id)}`, parts: ['index', 'id'] },
  update: { method: 'POST', path: (p) => `/${enc(p.index)}/_update/${enc(p.id)}`, parts: ['index', 'id'] },
  bulk: { method: 'POST', path: (p) => (p.index === undefined ? '/_bulk' : `/${enc(p.index)}/_bulk`), parts: ['index'], ndjson: true },
  search: { method: 'POST', path: (p) => (p.index === undefined ? '/_search' : `/${enc(p.index)}/_search`), parts: ['index'] },
  count: { method: 'POST', path: (p) => (p.index === undefined ? '/_count' : `/${enc(p.index)}/_count`), parts: ['index'] },
  field_caps: { method: 'POST', path: (p) => (p.index === undefined ? '/_field_caps' : `/${enc(p.index)}/_field_caps`), parts: ['index'] },
  'cat.indices': { method: 'GET', path: (p) => (p.index === undefined ? '/_cat/indices' : `/_cat/indices/${enc(p.index)}`), parts: ['index'] },
};

const CATCH_STATUS: Record<string, number> = { bad_request: 400, unauthorized: 401, forbidden: 403, missing: 404, request_timeout: 408, conflict: 409, unavailable: 503 };

export interface Response {
  status: number;
  body: unknown;
  text: string;
  headers: Record<string, unknown>;
}

function resolvePath(value: unknown, path: string, stash: Map<string, unknown>): unknown {
  if (path === '' || path === '$body') return value;
  const parts = path.split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, '.'));
  let cur: unknown = value;
  for (let part of parts) {
    if (part.startsWith('$')) part = String(stash.get(part.slice(1)));
    if (cur === null || cur === undefined) return undefined;
    cur = Array.isArray(cur) ? cur[Number(part)] : (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function substitute(v: unknown, stash: Map<string, unknown>): unknown {
  if (typeof v === 'string' && v.startsWith('$') && stash.has(v.slice(1))) return stash.get(v.slice(1));
  if (Array.isArray(v)) return v.map((x) => substitute(x, stash));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, stash)]));
  return v;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) < 1e-7 * Math.max(1, Math.abs(b));
  return JSON.stringify(a) === JSON.stringify(b);
}

function isRegex(v: unknown): v is string {
  return typeof v === 'string' && v.trim().startsWith('/') && v.trim().endsWith('/') && v.trim().length > 1;
}

function regexOf(v: string): RegExp {
  const inner = v.trim().slice(1, -1);
  // The x-flag style of the upstream tests: whitespace is insignificant.
  return new RegExp(inner.replace(/\s+/g, (m) => (m.includes('\n') ? '' : m)).replace(/\\ /g, ' '), 's');
}

export class RestRunner {
  private last: Response = { status: 0, body: undefined, text: '', headers: {} };
  private readonly stash = new Map<string, unknown>();

  constructor(private readonly app: () => FastifyInstance) {}

  async run(steps: readonly Step[]): Promise<void> {
    for (const step of steps) await this.step(step);
  }

  private async step(step: Step): Promise<void> {
    const [kind, arg] = Object.entries(step)[0] ?? [];
    switch (kind) {
      case 'do':
        return this.do(arg as Record<string, unknown>);
      case 'match':
        for (const [path, expected] of Object.entries(arg as Record<string, unknown>)) {
          const actual = resolvePath(path === '$body' ? this.last.text : this.last.body, path, this.stash);
          const want = substitute(expected, this.stash);
          if (isRegex(want)) {
            if (!regexOf(want).test(String(typeof actual === 'string' ? actual : JSON.stringify(actual)))) {
              throw new Error(`match ${path}: ${JSON.stringify(actual)} does not match ${want}`);
            }
          } else if (!deepEqual(actual, want)) {
            throw new Error(`match ${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(actual)}\nbody: ${this.last.text.slice(0, 800)}`);
          }
        }
        return;
      case 'length':
        for (const [path, n] of Object.entries(arg as Record<string, unknown>)) {
          const v = resolvePath(this.last.body, path, this.stash);
          const len = Array.isArray(v) || typeof v === 'string' ? v.length : v !== null && typeof v === 'object' ? Object.keys(v).length : -1;
          if (len !== n) throw new Error(`length ${path}: expected ${String(n)}, got ${len}\nbody: ${this.last.text.slice(0, 800)}`);
        }
        return;
      case 'is_true':
      case 'is_false': {
        const v = resolvePath(this.last.body, String(arg), this.stash);
        const truthy = v !== undefined && v !== null && v !== false && v !== 0 && v !== '' && v !== 'false';
        if (truthy !== (kind === 'is_true')) throw new Error(`${kind} ${String(arg)}: got ${JSON.stringify(v)}\nbody: ${this.last.text.slice(0, 800)}`);
        return;
      }
      case 'exists':
        if (resolvePath(this.last.body, String(arg), this.stash) === undefined) throw new Error(`exists ${String(arg)}: missing`);
        return;
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        for (const [path, bound] of Object.entries(arg as Record<string, number>)) {
          const v = Number(resolvePath(this.last.body, path, this.stash));
          const ok = kind === 'gt' ? v > bound : kind === 'gte' ? v >= bound : kind === 'lt' ? v < bound : v <= bound;
          if (!ok) throw new Error(`${kind} ${path}: ${v} vs ${bound}`);
        }
        return;
      case 'set':
        for (const [path, name] of Object.entries(arg as Record<string, string>)) this.stash.set(name, resolvePath(this.last.body, path, this.stash));
        return;
      case 'skip':
      case 'requires':
        return;
      default:
        throw new Error(`unsupported step ${String(kind)}`);
    }
  }

  private async do(spec: Record<string, unknown>): Promise<void> {
    const { catch: expectCatch, headers, warnings: _w, allowed_warnings: _aw, ...rest } = spec;
    const [apiName, rawParams] = Object.entries(rest)[0] ?? [];
    const api = APIS[apiName as string];
    if (api === undefined) throw new Error(`unknown api ${String(apiName)}`);
    const params = substitute(rawParams ?? {}, this.stash) as Record<string, unknown>;
    const { body, ignore, ...others } = params;
    const query = Object.entries(others)
      .filter(([k]) => !api.parts.includes(k))
      .map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`)
      .join('&');
    const url = api.path(params) + (query === '' ? '' : `?${query}`);
    let payload: string | undefined;
    let contentType = 'application/json';
    if (body !== undefined) {
      if (api.ndjson) {
        contentType = 'application/x-ndjson';
        payload = typeof body === 'string' ? body : `${(body as unknown[]).map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;
      } else payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const method = apiName === 'index' && params.id === undefined ? 'POST' : api.method;
    const res = await this.app().inject({
      method: method as 'GET',
      url,
      payload,
      headers: { ...(payload === undefined ? {} : { 'content-type': contentType }), ...((headers as Record<string, string>) ?? {}) },
    });
    let parsed: unknown;
    try {
      parsed = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      parsed = res.body;
    }
    this.last = { status: res.statusCode, body: parsed, text: res.body, headers: res.headers };
    if (api.method === 'HEAD') this.last.body = res.statusCode === 200;
    const ignored = ignore === undefined ? [] : (Array.isArray(ignore) ? ignore : [ignore]).map(Number);
    if (expectCatch === undefined) {
      if (res.statusCode >= 400 && !ignored.includes(res.statusCode) && api.method !== 'HEAD') {
        throw new Error(`${api.method} ${url} failed: ${res.statusCode} ${res.body.slice(0, 800)}`);
      }
      return;
    }
    const c = String(expectCatch);
    if (res.statusCode < 400) throw new Error(`${api.method} ${url}: expected ${c}, got ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (c in CATCH_STATUS) {
      if (res.statusCode !== CATCH_STATUS[c]) throw new Error(`${api.method} ${url}: expected ${c} (${CATCH_STATUS[c]}), got ${res.statusCode} ${res.body}`);
    } else if (isRegex(c)) {
      if (!regexOf(c).test(res.body)) throw new Error(`${api.method} ${url}: error ${res.body} does not match ${c}`);
    } else if (c !== 'request') throw new Error(`unsupported catch ${c}`);
  }
}
