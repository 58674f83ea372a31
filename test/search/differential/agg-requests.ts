/**
 * Generated aggregation requests for the side-by-side suite (aggs-differential.int.test.ts): every
 * aggregation type Portico computes, with its options drawn at random over the generated corpus's
 * fields (keyword, integer, double, date, boolean, a keyword in an object) and the Debian slice's
 * (section, priority, installed_size), nested up to three levels, beside a random query, a
 * post_filter and `size` 0 or not. And how two `aggregations` members are compared: the same
 * structure and values, numbers within 1e-9 relative (sums are compensated in both servers, but
 * their order of addition may differ in the last bit).
 */
import { isDeepStrictEqual } from 'node:util';
import { Rng, TAGS } from './corpus.js';

export interface AggRequest {
  readonly index: string;
  readonly body: Record<string, unknown>;
  /** The query string (`typed_keys=true`), or undefined. */
  readonly params?: string;
}

const GEN_KEYWORDS = ['tags', 'owner.name'];
const GEN_NUMBERS = ['n', 'price', 'owner.level'];
const DEBIAN_KEYWORDS = ['section', 'priority'];

function order(rng: Rng, subMetric: string | undefined): Record<string, string> | Record<string, string>[] | undefined {
  const dir = rng.pick(['asc', 'desc']);
  const r = rng.next();
  if (r < 0.4) return undefined;
  if (r < 0.6) return { _count: dir };
  if (r < 0.8 || subMetric === undefined) return { _key: dir };
  return [{ [subMetric]: dir }, { _key: 'asc' }];
}

function metric(rng: Rng, gen: boolean): [string, Record<string, unknown>] {
  const numbers = gen ? [...GEN_NUMBERS, 'created', 'flag'] : ['installed_size'];
  const type = rng.pick(['min', 'max', 'avg', 'sum', 'stats', 'value_count', 'cardinality']);
  const field = type === 'value_count' ? rng.pick([...numbers, ...(gen ? GEN_KEYWORDS : DEBIAN_KEYWORDS)]) : type === 'cardinality' ? rng.pick(gen ? ['tags', 'owner.name', 'n', 'flag', 'owner.level'] : DEBIAN_KEYWORDS) : rng.pick(numbers);
  const body: Record<string, unknown> = { field };
  if (rng.chance(0.15) && type !== 'cardinality') body.missing = field === 'created' ? '2021-06-01' : field === 'flag' ? true : GEN_KEYWORDS.includes(field) || DEBIAN_KEYWORDS.includes(field) ? 'none' : 7;
  return [type, body];
}

function termsBody(rng: Rng, gen: boolean): Record<string, unknown> {
  const field = gen ? rng.pick([...GEN_KEYWORDS, 'n', 'flag', 'owner.level', 'created']) : rng.pick([...DEBIAN_KEYWORDS, 'installed_size']);
  const body: Record<string, unknown> = { field, size: rng.pick([1, 3, 5, 10, 50]) };
  if (rng.chance(0.2)) body.min_doc_count = rng.pick([0, 2, 5]);
  if (rng.chance(0.15) && (field === 'tags' || field === 'section')) body.missing = 'N/A';
  if (rng.chance(0.2) && field === 'tags') body.include = rng.pick(['r.*|b.*', '[a-z]+', 'x-.*']);
  if (rng.chance(0.2) && field === 'tags') body.exclude = [rng.pick(TAGS), rng.pick(TAGS)];
  if (rng.chance(0.1)) body.shard_size = 100;
  return body;
}

function histogramBody(rng: Rng, gen: boolean): [string, Record<string, unknown>] {
  if (gen && rng.chance(0.5)) {
    const body: Record<string, unknown> = { field: 'created' };
    if (rng.chance(0.5)) body.calendar_interval = rng.pick(['month', 'quarter', 'year', '1w', 'day']);
    else body.fixed_interval = rng.pick(['30d', '7d', '1000h']);
    if (rng.chance(0.3)) body.time_zone = rng.pick(['+02:00', 'Europe/Paris', 'America/New_York', 'UTC']);
    if (rng.chance(0.3)) body.min_doc_count = 1;
    if (rng.chance(0.2)) body.format = rng.pick(['yyyy-MM-dd', 'yyyy-MM']);
    if (rng.chance(0.2)) body.extended_bounds = { min: '2019-06-01', max: '2024-12-01' };
    return ['date_histogram', body];
  }
  const field = gen ? rng.pick(['n', 'price']) : 'installed_size';
  const body: Record<string, unknown> = { field, interval: gen ? rng.pick([50, 100, 250.5]) : rng.pick([10_000, 50_000]) };
  if (rng.chance(0.3)) body.min_doc_count = rng.pick([0, 1, 3]);
  if (rng.chance(0.2)) body.extended_bounds = { min: -500, max: 2000 };
  if (rng.chance(0.2)) body.offset = 5;
  return ['histogram', body];
}

function rangeBody(rng: Rng, gen: boolean): [string, Record<string, unknown>] {
  if (gen && rng.chance(0.4)) {
    const ranges = [{ to: '2021-01-01' }, { from: '2021-01-01', to: '2022-06-15' }, { from: '2022-06-15', key: 'late' }];
    return ['date_range', { field: 'created', ranges: rng.chance(0.5) ? ranges : ranges.slice(0, 2), ...(rng.chance(0.3) ? { keyed: true } : {}), ...(rng.chance(0.3) ? { format: 'yyyy-MM-dd' } : {}) }];
  }
  const field = gen ? rng.pick(['n', 'price']) : 'installed_size';
  const cuts = [rng.int(0, 300), rng.int(300, 700), rng.int(700, 1200)].map((c) => (gen ? c : c * 100));
  const ranges = [{ to: cuts[0] }, { from: cuts[0], to: cuts[1] }, { from: cuts[2] }, { from: cuts[1], to: cuts[2], key: 'k' }];
  return ['range', { field, ranges: rng.chance(0.5) ? ranges : ranges.slice(1), ...(rng.chance(0.3) ? { keyed: true } : {}) }];
}

function filterQuery(rng: Rng, gen: boolean): Record<string, unknown> {
  if (!gen) return rng.pick([{ term: { priority: 'optional' } }, { match: { description: 'library' } }, { range: { installed_size: { gte: 1000 } } }]);
  return rng.pick([{ term: { tags: rng.pick(TAGS) } }, { range: { n: { gte: rng.int(0, 900) } } }, { match: { title: rng.pick(['alpha', 'search', 'fox']) } }, { term: { flag: true } }]);
}

/** A bucket aggregation with (sometimes) sub-aggregations down to `depth`. */
function bucketAgg(rng: Rng, gen: boolean, depth: number): Record<string, unknown> {
  const subs: Record<string, unknown> = {};
  let subMetric: string | undefined;
  if (depth > 0 && rng.chance(0.5)) {
    const [t, b] = metric(rng, gen);
    subs.m = { [t]: b };
    subMetric = t === 'stats' ? 'm.avg' : 'm';
    if (rng.chance(0.3)) subs.inner = bucketAgg(rng, gen, depth - 1);
    if (rng.chance(0.15)) subs.top = { top_hits: { size: rng.int(1, 3), ...(rng.chance(0.5) && gen ? { sort: [{ n: 'desc' }], _source: ['n', 'tags'] } : { _source: false }) } };
  }
  const kind = rng.pick(['terms', 'terms', 'histogram', 'range', 'filter', 'filters', 'missing']);
  let agg: Record<string, unknown>;
  if (kind === 'terms') {
    const body = termsBody(rng, gen);
    const o = order(rng, subMetric);
    if (o !== undefined) body.order = o;
    agg = { terms: body };
  } else if (kind === 'histogram') {
    const [t, b] = histogramBody(rng, gen);
    agg = { [t]: b };
  } else if (kind === 'range') {
    const [t, b] = rangeBody(rng, gen);
    agg = { [t]: b };
  } else if (kind === 'filter') agg = { filter: filterQuery(rng, gen) };
  else if (kind === 'filters') {
    const named = rng.chance(0.5);
    const qs = [filterQuery(rng, gen), filterQuery(rng, gen)];
    agg = { filters: { filters: named ? { b: qs[0], a: qs[1] } : qs, ...(rng.chance(0.5) ? { other_bucket: true } : {}) } };
  } else agg = { missing: { field: gen ? rng.pick(['tags', 'n', 'created', 'owner.name']) : 'installed_size' } };
  if (Object.keys(subs).length > 0) agg.aggs = subs;
  return agg;
}

export function generateAggRequests(count: number, seed: number): AggRequest[] {
  const rng = new Rng(seed);
  const out: AggRequest[] = [];
  for (let i = 0; i < count; i++) {
    const gen = rng.chance(0.7);
    const aggs: Record<string, unknown> = {};
    const n = rng.int(1, 3);
    for (let a = 0; a < n; a++) {
      if (rng.chance(0.25)) {
        const [t, b] = metric(rng, gen);
        aggs[`a${a}`] = { [t]: b };
      } else aggs[`a${a}`] = bucketAgg(rng, gen, 2);
    }
    const body: Record<string, unknown> = { size: rng.chance(0.6) ? 0 : 3, [rng.chance(0.8) ? 'aggs' : 'aggregations']: aggs };
    if (rng.chance(0.5)) body.query = filterQuery(rng, gen);
    if (rng.chance(0.2)) body.post_filter = filterQuery(rng, gen);
    out.push({ index: gen ? 'gen' : 'debian', body, ...(rng.chance(0.1) ? { params: 'typed_keys=true' } : {}) });
  }
  return out;
}

function close(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/** The first place where two `aggregations` members differ (a path and both values), or undefined. */
export function aggDifference(p: unknown, r: unknown, path = 'aggregations'): string | undefined {
  if (typeof p === 'number' && typeof r === 'number') return close(p, r) ? undefined : `${path}: ${p} vs ${r}`;
  if (p === null || r === null || typeof p !== 'object' || typeof r !== 'object') return isDeepStrictEqual(p, r) ? undefined : `${path}: ${JSON.stringify(p)} vs ${JSON.stringify(r)}`;
  if (Array.isArray(p) !== Array.isArray(r)) return `${path}: ${JSON.stringify(p).slice(0, 200)} vs ${JSON.stringify(r).slice(0, 200)}`;
  const pk = Object.keys(p).sort();
  const rk = Object.keys(r).sort();
  if (!isDeepStrictEqual(pk, rk)) return `${path}: keys [${pk.join(',')}] vs [${rk.join(',')}]`;
  for (const k of rk) {
    const d = aggDifference((p as Record<string, unknown>)[k], (r as Record<string, unknown>)[k], `${path}.${k}`);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** Generated `collapse` requests: single-valued keyword and numeric fields, any order and page, inner hits. */
export function generateCollapseRequests(count: number, seed: number): AggRequest[] {
  const rng = new Rng(seed);
  const out: AggRequest[] = [];
  for (let i = 0; i < count; i++) {
    const gen = rng.chance(0.7);
    const field = gen ? rng.pick(['owner.name', 'owner.level']) : rng.pick(['section', 'priority']);
    const collapse: Record<string, unknown> = { field };
    if (rng.chance(0.6)) {
      const inner = (name: string): Record<string, unknown> => ({
        name,
        size: rng.int(1, 3),
        _source: false,
        ...(rng.chance(0.3) ? { from: 1 } : {}),
        ...(rng.chance(0.5) ? { sort: gen ? [{ n: rng.pick(['asc', 'desc']) }, { price: 'asc' }] : [{ installed_size: 'desc' }] } : {}),
      });
      collapse.inner_hits = rng.chance(0.3) ? [inner('a'), inner('b')] : inner('best');
    }
    const body: Record<string, unknown> = { collapse, from: rng.pick([0, 0, 1, 3]), size: rng.int(1, 6), _source: false };
    if (rng.chance(0.6)) body.query = filterQuery(rng, gen);
    if (rng.chance(0.4)) body.sort = gen ? [rng.pick([{ price: 'asc' }, { price: 'desc' }, { n: 'desc' }]), { _doc: 'asc' }] : [{ installed_size: 'desc' }, '_doc'];
    if (rng.chance(0.2)) body.post_filter = filterQuery(rng, gen);
    if (rng.chance(0.2)) body.aggs = { t: { terms: { field: gen ? 'tags' : 'section', size: 3 } } };
    out.push({ index: gen ? 'gen' : 'debian', body });
  }
  return out;
}
