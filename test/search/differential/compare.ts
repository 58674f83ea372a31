/**
 * How the differential suite compares two answers to the same search: the same status; for an
 * error, the same error type (texts differ between Elasticsearch and OpenSearch, so they are not
 * compared); for a success, the same total, the same hit ids in the same order, the same sources
 * and sort values, and scores equal within 1e-5 relative.
 */
import { isDeepStrictEqual } from 'node:util';
import type { SearchHarness } from '../harness.js';

/** An answer as both servers give it: the status and the parsed body. */
export interface Answer {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- ES answers, read loosely
}

export const SCORE_TOLERANCE = 1e-5;

function closeScore(a: unknown, b: unknown): boolean {
  if (a === null || b === null || a === undefined || b === undefined) return a === b;
  if (typeof a !== 'number' || typeof b !== 'number') return false;
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return Math.abs(a - b) <= SCORE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);
}

interface Hit {
  _id: string;
  _score: number | null;
  _source?: unknown;
  sort?: unknown[];
}

/** The positions of `_score` in a request's `sort` (their values are scores, compared within the tolerance). */
export function scorePositions(sort: unknown): number[] {
  if (sort === undefined) return [];
  const keys = Array.isArray(sort) ? sort : [sort];
  return keys.flatMap((k, i) => (k === '_score' || (typeof k === 'object' && k !== null && '_score' in k) ? [i] : []));
}

function sameSort(p: unknown[] | undefined, r: unknown[] | undefined, scoreAt: readonly number[]): boolean {
  if (p === undefined || r === undefined || p.length !== r.length) return isDeepStrictEqual(p, r);
  return r.every((v, i) => (scoreAt.includes(i) ? closeScore(p[i], v) : isDeepStrictEqual(p[i], v)));
}

/**
 * The first way `portico` differs from `reference` (OpenSearch), or undefined when they agree.
 * `scoreAt`: the positions of `_score` in the sort values (scorePositions).
 */
export function difference(portico: Answer, reference: Answer, scoreAt: readonly number[] = []): string | undefined {
  if (portico.status !== reference.status) {
    return `status ${portico.status} (${portico.body?.error?.type ?? 'ok'}) vs ${reference.status} (${reference.body?.error?.type ?? 'ok'}: ${reference.body?.error?.reason ?? ''})`;
  }
  if (reference.status >= 300) {
    const a = portico.body?.error?.type;
    const b = reference.body?.error?.type;
    return a === b ? undefined : `error type ${a} vs ${b} (${reference.body?.error?.reason ?? ''})`;
  }
  const pt = portico.body?.hits?.total;
  const rt = reference.body?.hits?.total;
  if (!isDeepStrictEqual(pt, rt)) return `total ${JSON.stringify(pt)} vs ${JSON.stringify(rt)}`;
  const ph = (portico.body?.hits?.hits ?? []) as Hit[];
  const rh = (reference.body?.hits?.hits ?? []) as Hit[];
  const ids = (hs: Hit[]) => hs.map((h) => h._id).join(',');
  if (ids(ph) !== ids(rh)) return `ids [${ids(ph).slice(0, 300)}] vs [${ids(rh).slice(0, 300)}]`;
  if (!closeScore(portico.body.hits.max_score, reference.body.hits.max_score)) {
    return `max_score ${portico.body.hits.max_score} vs ${reference.body.hits.max_score}`;
  }
  for (let i = 0; i < rh.length; i++) {
    const p = ph[i] as Hit;
    const r = rh[i] as Hit;
    if (!closeScore(p._score, r._score)) return `hit ${i} (${r._id}) score ${p._score} vs ${r._score}`;
    if (!isDeepStrictEqual(p._source, r._source)) return `hit ${i} (${r._id}) _source ${JSON.stringify(p._source)} vs ${JSON.stringify(r._source)}`;
    if (!sameSort(p.sort, r.sort, scoreAt)) return `hit ${i} (${r._id}) sort ${JSON.stringify(p.sort)} vs ${JSON.stringify(r.sort)}`;
  }
  return undefined;
}

/** A request to the in-process Portico (inject), answered as the node's `call` answers: the status and the parsed body. */
export async function injectCall(portico: SearchHarness | undefined, method: string, path: string, body?: unknown): Promise<Answer> {
  if (portico === undefined) throw new Error('Portico is not started');
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'application/x-ndjson' : 'application/json';
  const res = await portico.app.inject({ method: method as 'POST', url: path, payload, headers: payload === undefined ? {} : { 'content-type': contentType } });
  return { status: res.statusCode, body: res.body === '' ? null : JSON.parse(res.body) };
}
