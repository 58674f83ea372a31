/**
 * The requests of the differential suite: for every load, every `/api/*` endpoint, each record's
 * own path (and one missing), and list parameters drawn from a seeded generator: search, status,
 * serviceName, middlewareName, sortBy, direction, page and per_page, alone and combined, valid and
 * not.
 */
import fc from 'fast-check';

export const KINDS = [
  'http/routers', 'http/services', 'http/middlewares', 'tcp/routers', 'tcp/services', 'tcp/middlewares', 'udp/routers', 'udp/services',
] as const;
export type Kind = (typeof KINDS)[number];

const SORT_KEYS: Record<string, string[]> = {
  routers: ['name', 'provider', 'priority', 'status', 'rule', 'service', 'entryPoints', 'tls'],
  services: ['name', 'type', 'servers', 'provider', 'status'],
  middlewares: ['name', 'type', 'provider', 'status'],
};

const STATUS = ['enabled', 'warning', 'disabled', 'DISABLED', 'Enabled', 'bogus'];
const PAGES = [
  'per_page=3', 'per_page=3&page=2', 'per_page=2&page=3', 'page=2', 'per_page=1&page=1', 'per_page=5&page=1000',
  'page=0', 'per_page=0', 'per_page=-2', 'page=x', 'per_page=1.5', 'per_page=99999999999999999999', 'page=+2', 'per_page=', 'page=%202',
];

export interface KindRecords {
  readonly names: readonly string[];
  readonly services: readonly string[];
  readonly middlewares: readonly string[];
}

/** List queries of one kind, `count` of them, drawn with the seed from the records it holds. */
export function listQueries(kind: Kind, recs: KindRecords, count: number, seed: number): string[] {
  const resource = kind.split('/')[1] as string;
  const words = ['c0', 'svc', 'SVC', 'r1', 'a.test', 'HOST', '@internal', 'file', '`', 'marker', 'nothing-matches'];
  for (const n of recs.names.slice(0, 6)) words.push(n.slice(0, Math.max(1, n.indexOf('@'))));
  const serviceNames = [...recs.services, ...recs.services.map((s) => s.split('@')[0] as string), 'missing@file', 'noop@internal'];
  const middlewareNames = [...recs.middlewares, 'missing@file', 'dashboard_redirect@internal'];
  const part = fc.oneof(
    fc.constantFrom(...words).map((w) => `search=${encodeURIComponent(w)}`),
    fc.constantFrom(...STATUS).map((s) => `status=${s}`),
    fc.constantFrom(...serviceNames).map((s) => `serviceName=${encodeURIComponent(s)}`),
    fc.constantFrom(...middlewareNames).map((s) => `middlewareName=${encodeURIComponent(s)}`),
    fc.constantFrom(...(SORT_KEYS[resource] ?? ['name']), 'bogus', 'NAME').map((s) => `sortBy=${s}`),
    fc.constantFrom('asc', 'desc', 'DESC', 'x').map((d) => `direction=${d}`),
    fc.constantFrom(...PAGES),
  );
  const query = fc.uniqueArray(part, { minLength: 1, maxLength: 4, selector: (p) => p.split('=')[0] }).map((ps) => ps.join('&'));
  const fixed = ['', 'sortBy=name&direction=desc', 'sortBy=priority', 'sortBy=status&direction=desc&per_page=4', 'status=disabled', 'search=c'];
  return [...fixed, ...fc.sample(query, { seed, numRuns: count })];
}
