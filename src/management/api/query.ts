/**
 * Traefik's list query rules (`pkg/api/criterion.go`, `sort.go`): the `search`, `status`,
 * `serviceName` and `middlewareName` filters, `sortBy`/`direction`, and `page`/`per_page` with
 * the `X-Next-Page` value. Pure: takes URLSearchParams, returns a page or Traefik's 400 message.
 */
import type { KindView, ViewEntry } from '../view/kind-view.js';

export const DEFAULT_PER_PAGE = 100;

export interface Criterion {
  readonly search: string;
  readonly status: string;
  readonly serviceName: string;
  readonly middlewareName: string;
}

/** Null when no filter is set (empty values count as absent, as in Traefik). */
export function parseCriterion(query: URLSearchParams): Criterion | null {
  const search = query.get('search') ?? '';
  const status = query.get('status') ?? '';
  const serviceName = query.get('serviceName') ?? '';
  const middlewareName = query.get('middlewareName') ?? '';
  if (search === '' && status === '' && serviceName === '' && middlewareName === '') return null;
  return { search, status, serviceName, middlewareName };
}

function filterService(c: Criterion, service: string | undefined): boolean {
  if (c.serviceName === '') return true;
  const name = service ?? '';
  if (name.includes('@')) return c.serviceName === name;
  const at = c.serviceName.indexOf('@');
  return (at === -1 ? c.serviceName : c.serviceName.slice(0, at)) === name;
}

/** A router's service and middleware filters. */
function keepRouter(entry: ViewEntry, c: Criterion, filtersMiddlewares: boolean): boolean {
  if (!filterService(c, entry.service)) return false;
  return !filtersMiddlewares || c.middlewareName === '' || entry.middlewares.includes(c.middlewareName);
}

/**
 * The entries of the view's `ascending(sortBy)` that pass the criterion, in that order: `status`
 * and `search` through the view's filter index (KindView.filtered); routers then also check the
 * service filter, and HTTP/TCP routers the middleware filter, on those entries only.
 */
function select(view: KindView, sortBy: string, c: Criterion): readonly ViewEntry[] {
  // Only routers are filtered by service and middleware, and only when asked: an entry is not
  // read (a memory access per record, the main cost at 50,000) unless needed.
  const byReference = view.kind === 'routers' && (c.serviceName !== '' || (view.filtersMiddlewares && c.middlewareName !== ''));
  return view.filtered(sortBy, c.status, c.search.toLowerCase(), byReference ? (e) => keepRouter(e, c, view.filtersMiddlewares) : undefined);
}

const MAX_INT64 = 9223372036854775807n;
const MIN_INT64 = -9223372036854775808n;

/**
 * Go's `strconv.Atoi` as Traefik's getIntParam uses it: on a syntax error the value is 0, on
 * overflow it is clamped; either error, or a value ≤ 0, is refused with the value in the message.
 */
export function parseIntParam(query: URLSearchParams, key: string, defaultValue: number): { value: bigint } | { error: string } {
  const raw = query.get(key) ?? '';
  if (raw === '') return { value: BigInt(defaultValue) };
  if (!/^[+-]?\d+$/.test(raw)) return { error: `invalid request: ${key}: 0` };
  const v = BigInt(raw);
  if (v > MAX_INT64) return { error: `invalid request: ${key}: ${MAX_INT64}` };
  if (v < MIN_INT64) return { error: `invalid request: ${key}: ${MIN_INT64}` };
  if (v <= 0n) return { error: `invalid request: ${key}: ${v}` };
  return { value: v };
}

export interface PageInfo {
  readonly start: number;
  readonly end: number;
  readonly nextPage: string;
}

/** Traefik's pagination(): `per_page` is read before `page`, so its error wins. */
export function paginate(query: URLSearchParams, total: number): PageInfo | { error: string } {
  const perPage = parseIntParam(query, 'per_page', DEFAULT_PER_PAGE);
  if ('error' in perPage) return perPage;
  const page = parseIntParam(query, 'page', 1);
  if ('error' in page) return page;
  const max = BigInt(total);
  const start = (page.value - 1n) * perPage.value;
  if (start !== 0n && start >= max) return { error: `invalid request: page: ${page.value}, per_page: ${perPage.value}` };
  let end = start + perPage.value;
  if (end >= max) end = max;
  const nextPage = page.value * perPage.value < max ? page.value + 1n : 1n;
  return { start: Number(start), end: Number(end), nextPage: nextPage.toString() };
}

export interface ListPage {
  /** JSON array text with Go's trailing newline (json.Encoder), ready to send. */
  readonly body: string;
  readonly nextPage: string;
  readonly total: number;
}

/** Filters, sorts and pages one kind's entries; `{error}` is Traefik's 400 message. */
export function listPage(view: KindView, query: URLSearchParams): ListPage | { error: string } {
  const criterion = parseCriterion(query);
  const sortBy = query.get('sortBy') ?? '';
  const ascending = view.ascending(sortBy);
  const direction = query.get('direction') ?? '';
  const descending = direction !== '' && direction !== 'asc';
  const selected = criterion === null ? ascending : select(view, sortBy, criterion);
  const total = selected.length;
  const page = paginate(query, total);
  if ('error' in page) return page;
  const parts: string[] = [];
  for (let i = page.start; i < page.end; i++) {
    const entry = descending ? selected[total - 1 - i] : selected[i];
    if (entry !== undefined) parts.push(entry.json);
  }
  return { body: arrayText(parts), nextPage: page.nextPage, total };
}

/**
 * `[a,b,…]` and a newline from the records' texts, made as one flat string by one join: the
 * brackets go onto the first and last parts. `[${parts.join(',')}]\n` made a cons string that
 * Buffer.from then flattened into a second copy, a page's size more garbage per request (issue 25:
 * each scavenge lands on a request, and these pages were most of what the server allocated).
 */
function arrayText(parts: string[]): string {
  if (parts.length === 0) return '[]\n';
  parts[0] = `[${parts[0] as string}`;
  parts[parts.length - 1] = `${parts[parts.length - 1] as string}]\n`;
  return parts.join(',');
}

/** Pages a name-sorted list with no filter or sort (entry points). */
export function simplePage(entries: readonly { json: string }[], query: URLSearchParams): ListPage | { error: string } {
  const page = paginate(query, entries.length);
  if ('error' in page) return page;
  const parts = entries.slice(page.start, page.end).map((e) => e.json);
  return { body: arrayText(parts), nextPage: page.nextPage, total: entries.length };
}
