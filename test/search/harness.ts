import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { serveFlags, type ServeConfig } from '../../src/flag-groups.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildSearchApp } from '../../src/search/app.js';
import { SearchError } from '../../src/search/errors.js';

/** A search app on a fresh temporary data directory. */
export interface SearchHarness {
  readonly app: FastifyInstance;
  readonly dataDir: string;
  /** Closes the app (and its store) and builds a new one on the same data directory. */
  restart(): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export function searchConfig(dataDir: string, extra: string[] = []): ServeConfig {
  return loadConfig(serveFlags, {
    // No indexing warm-up (about half a second per app): tests that want it pass the flag in `extra`.
    argv: ['--data.dir', dataDir, '--search.durability', 'async', '--search.warmup-docs', '0', ...extra],
    env: {},
    readFile: () => '',
  });
}

/** What a test may change of the app's surroundings. */
export interface SearchOptions {
  /** The app's clock (scroll and point-in-time expiry), Date.now unless given. */
  readonly now?: () => number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely in tests
export type EsBody = Record<string, any>;

export async function startSearch(extra: string[] = [], options: SearchOptions = {}): Promise<SearchHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-search-'));
  const deps = { logger: pino({ level: 'silent' }), now: options.now ?? Date.now, requestShutdown: () => undefined };
  let app = await buildSearchApp(searchConfig(dataDir, extra), deps);
  return {
    get app() {
      return app;
    },
    dataDir,
    async restart() {
      await app.close();
      app = await buildSearchApp(searchConfig(dataDir, extra), deps);
      return app;
    },
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A search hit as the tests read it. */
export interface EsHit {
  _id: string;
  _score: number | null;
  _source: Record<string, unknown>;
  sort?: unknown[];
}

/**
 * `call` (method, URL and JSON body: status and parsed answer) and `ok` (the same, expecting
 * success: a status below 300, or exactly `status` when given) on `h`'s app.
 */
export function esCalls(h: SearchHarness, status?: number) {
  type Method = 'GET' | 'POST' | 'DELETE' | 'PUT';
  const call = (method: Method, url: string, body?: unknown) => injectJson<EsBody>(h.app, method, url, body);
  const ok = async (method: Method, url: string, body?: unknown): Promise<EsBody> => {
    const res = await call(method, url, body);
    if (status === undefined) expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    else expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  };
  return { call, ok };
}

/**
 * Memory in use after `gc` ran (a full collection): the JS heap plus what lives outside it of the
 * kind `outside` names (typed arrays: arrayBuffers; external strings: external).
 */
export function heldAfter(gc: () => void, outside: 'arrayBuffers' | 'external'): () => number {
  return () => {
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m[outside];
  };
}

/** A harness that forwards to the one `current` gives (started by a hook before any test uses it). */
function follow(current: () => SearchHarness | undefined): SearchHarness {
  const h = (): SearchHarness => {
    const c = current();
    if (c === undefined) throw new Error('the search app is used outside a test');
    return c;
  };
  return {
    get app() {
      return h().app;
    },
    get dataDir() {
      return h().dataDir;
    },
    restart: () => h().restart(),
    close: () => h().close(),
  };
}

/** A search app started by `before` and closed by `after`, through a harness that follows it. */
function searchBetween(before: typeof beforeAll, after: typeof afterAll, extra: string[], options: SearchOptions): SearchHarness {
  let h: SearchHarness | undefined;
  before(async () => {
    h = await startSearch(extra, options);
  });
  after(async () => h?.close());
  return follow(() => h);
}

/** A search app started before the tests of the enclosing describe (or file) and closed after them. */
export function searchForAll(extra: string[] = [], options: SearchOptions = {}): SearchHarness {
  return searchBetween(beforeAll, afterAll, extra, options);
}

/** A search app on a fresh data directory for each test of the enclosing describe (or file). */
export function searchForEach(extra: string[] = [], options: SearchOptions = {}): SearchHarness {
  return searchBetween(beforeEach, afterEach, extra, options);
}

/**
 * What `parse` refuses with (a SearchError, as status, type and reason); anything else it throws
 * is rethrown, and a parse that succeeds fails the test.
 */
export function searchFailure(parse: () => unknown): { status: number; type: string; reason: string } {
  try {
    parse();
  } catch (e) {
    if (!(e instanceof SearchError)) throw e;
    const b = e.toBody() as { error: { type: string; reason: string }; status: number };
    return { status: b.status, type: b.error.type, reason: b.error.reason };
  }
  throw new Error('parsed');
}

/** The base URL of `h`'s app, listening on a free port of the loopback interface. */
export async function listenSearch(h: SearchHarness): Promise<string> {
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = h.app.server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return `http://127.0.0.1:${addr.port}`;
}

/** A listening search app and a client `make` builds for its URL, both for the tests of the enclosing describe. */
export function clientForAll<C extends { close(): Promise<unknown> }>(make: (node: string) => C, extra: string[] = []): { readonly h: SearchHarness; readonly client: C } {
  let h: SearchHarness | undefined;
  let client: C | undefined;
  beforeAll(async () => {
    h = await startSearch(extra);
    client = make(await listenSearch(h));
  });
  afterAll(async () => {
    await client?.close();
    await h?.close();
  });
  return {
    get h() {
      return follow(() => h);
    },
    get client() {
      if (client === undefined) throw new Error('the client is used outside a test');
      return client;
    },
  };
}

/** `method url` with `payload` sent as written (so that repeated keys reach the server): the status and the parsed answer. */
export async function sendText(app: FastifyInstance, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload: string, contentType = 'application/json'): Promise<{ status: number; body: EsBody }> {
  const res = await app.inject({ method, url, payload, headers: { 'content-type': contentType } });
  return { status: res.statusCode, body: res.json() as EsBody };
}

/** Writes `docs` (id to source) into `index` with one `_bulk?refresh=true`, expecting no item to fail. */
export async function bulkIndex(app: FastifyInstance, index: string, docs: Iterable<readonly [string, unknown]>): Promise<void> {
  let body = '';
  for (const [id, source] of docs) body += `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify(source)}\n`;
  const res = await app.inject({ method: 'POST', url: `/${index}/_bulk?refresh=true`, payload: body, headers: { 'content-type': 'application/x-ndjson' } });
  expect(res.json()).toMatchObject({ errors: false });
}

/**
 * `POST <url>` with a JSON body, expecting 200; the answer's text with `took` left out, so that two
 * answers can be compared byte for byte.
 */
export async function searchText(h: SearchHarness, url: string, body: unknown): Promise<string> {
  const res = await h.app.inject({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(res.statusCode).toBe(200);
  return res.body.replace(/^\{"took":\d+,/, '{');
}

/**
 * `method url` on `app` with `body` (none when undefined; a string is sent as NDJSON, anything else
 * as JSON): the status and the parsed answer.
 */
export async function injectJson<B = Record<string, unknown>>(app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown): Promise<{ status: number; body: B }> {
  const res = await app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' } }),
  });
  return { status: res.statusCode, body: res.json() as B };
}
