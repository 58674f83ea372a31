/**
 * Search requests generated from the query grammar Portico supports, with a fixed seed: match with
 * its options, match_phrase, multi_match, bool nesting, term/terms/range/exists/ids/prefix,
 * query_string and simple_query_string, sorts on fields and score, from/size at several depths,
 * search_after, _source filtering, track_total_hits, and requests both servers must refuse.
 */
import { DEBIAN_SECTIONS, DEBIAN_WORDS, Rng, TAGS, WORDS } from './corpus.js';

/** One request of the suite: `POST /<index>/_search?<params>` with `body`. */
export interface DiffRequest {
  readonly index: 'debian' | 'gen';
  readonly body: Record<string, unknown>;
  readonly params?: string;
  /** What generated it, for the figures: match, bool, sort, error, .... */
  readonly kind: string;
}

type Q = Record<string, unknown>;

interface Fields {
  readonly text: readonly string[];
  readonly words: readonly string[];
  readonly keyword: readonly string[];
  readonly keywordValues: (rng: Rng) => string;
  readonly numeric: readonly string[];
  readonly numberValue: (rng: Rng) => number;
  readonly sortable: readonly string[];
  readonly all: readonly string[];
}

const DEBIAN: Fields = {
  text: ['summary', 'description', 'maintainer'],
  words: DEBIAN_WORDS,
  keyword: ['section', 'priority', 'package', 'maintainer.raw'],
  keywordValues: (rng) => (rng.chance(0.7) ? rng.pick(DEBIAN_SECTIONS) : rng.pick(['optional', 'required', 'extra', 'standard', 'important', '0ad', 'zsh'])),
  numeric: ['installed_size'],
  numberValue: (rng) => rng.pick([0, 10, 100, 500, 1000, 5000, 20_000, 100_000, 1_000_000]),
  sortable: ['installed_size', 'section', 'package', 'priority', 'version'],
  all: ['summary', 'description', 'maintainer', 'section', 'priority', 'package', 'installed_size', 'homepage', 'version'],
};

const GENERATED: Fields = {
  text: ['title', 'body'],
  words: [...WORDS, 'missingword'],
  keyword: ['tags', 'owner.name'],
  keywordValues: (rng) => (rng.chance(0.85) ? rng.pick(TAGS) : rng.pick(['ann', 'bob', 'cy', 'dee', 'nobody'])),
  numeric: ['n', 'price', 'owner.level'],
  numberValue: (rng) => rng.pick([-10, 0, 1, 5, 50, 100, 250.5, 500, 999, 1000]),
  sortable: ['n', 'price', 'created', 'tags', 'flag', 'owner.name', 'owner.level'],
  all: ['title', 'body', 'tags', 'n', 'price', 'created', 'flag', 'owner.name', 'owner.level'],
};

function words(rng: Rng, f: Fields, lo: number, hi: number): string {
  return Array.from({ length: rng.int(lo, hi) }, () => rng.zipf(f.words)).join(' ');
}

function msm(rng: Rng): unknown {
  return rng.pick([1, 2, '2', '-1', '75%', '-25%', '100%', '2<75%', 3]);
}

function matchQuery(rng: Rng, f: Fields): Q {
  const field = rng.pick(f.text);
  const query = words(rng, f, 1, 4);
  if (rng.chance(0.4)) return { match: { [field]: query } };
  const opts: Q = { query };
  if (rng.chance(0.5)) opts.operator = rng.pick(['and', 'or', 'AND', 'Or']);
  if (rng.chance(0.4)) opts.minimum_should_match = msm(rng);
  if (rng.chance(0.2)) opts.boost = rng.pick([0.5, 2, 3.5]);
  if (rng.chance(0.15)) {
    opts.query = rng.pick(['', '  ', '!!!']);
    opts.zero_terms_query = rng.pick(['none', 'all']);
  }
  return { match: { [field]: opts } };
}

function leafQuery(rng: Rng, f: Fields): Q {
  const r = rng.int(0, 13);
  switch (r) {
    case 0:
    case 1:
      return matchQuery(rng, f);
    case 2:
      return { match_phrase: { [rng.pick(f.text)]: rng.chance(0.5) ? words(rng, f, 2, 2) : { query: words(rng, f, 2, 3), slop: rng.int(0, 3) } } };
    case 3: {
      const fields = f.text.filter(() => rng.chance(0.7));
      const q: Q = { query: words(rng, f, 1, 3), fields: (fields.length > 0 ? fields : [f.text[0]]).map((x) => (rng.chance(0.3) ? `${x}^${rng.pick([2, 3])}` : x)) };
      if (rng.chance(0.5)) q.type = rng.pick(['best_fields', 'most_fields']);
      if (rng.chance(0.3)) q.tie_breaker = rng.pick([0, 0.3, 1]);
      if (rng.chance(0.3)) q.operator = 'and';
      return { multi_match: q };
    }
    case 4:
      return { term: { [rng.pick(f.keyword)]: rng.chance(0.7) ? f.keywordValues(rng) : { value: f.keywordValues(rng), boost: 2 } } };
    case 5:
      return { terms: { [rng.pick(f.keyword)]: Array.from({ length: rng.int(1, 4) }, () => f.keywordValues(rng)) } };
    case 6: {
      const field = rng.pick(f.numeric);
      const a = f.numberValue(rng);
      const b = a + f.numberValue(rng) + 1;
      const q: Q = {};
      q[rng.pick(['gt', 'gte'])] = a;
      if (rng.chance(0.7)) q[rng.pick(['lt', 'lte'])] = b;
      return { range: { [field]: q } };
    }
    case 7:
      return { exists: { field: rng.pick(f.all) } };
    case 8:
      return { term: { [rng.pick(f.text)]: rng.zipf(f.words) } };
    case 9:
      return { prefix: { [rng.pick(f.keyword)]: f.keywordValues(rng).slice(0, rng.int(1, 2)) } };
    case 10:
      return { query_string: queryString(rng, f) };
    case 11:
      return { simple_query_string: simpleQueryString(rng, f) };
    case 12:
      return rng.chance(0.5) ? { match_all: {} } : { constant_score: { filter: leafQuery(rng, f), boost: rng.pick([1, 1.5]) } };
    default:
      return { dis_max: { queries: [matchQuery(rng, f), matchQuery(rng, f)], ...(rng.chance(0.5) ? { tie_breaker: 0.7 } : {}) } };
  }
}

function queryString(rng: Rng, f: Fields): Q {
  const w = () => rng.zipf(f.words);
  const forms = [
    () => `${w()} ${w()}`,
    () => `${w()} AND ${w()}`,
    () => `${w()} OR ${w()} NOT ${w()}`,
    () => `+${w()} -${w()}`,
    () => `"${w()} ${w()}"`,
    () => `${rng.pick(f.text)}:${w()}`,
    () => `${rng.pick(f.keyword)}:${f.keywordValues(rng).replace(/[ -]/g, '')}`,
    () => `(${w()} OR ${w()}) AND ${w()}`,
    // Lucene's syntax beyond the basics (issue 21's second part).
    () => `"${w()} ${w()}"~${rng.int(1, 3)}`,
    () => `${w()}^2 ${w()}`,
    () => `${w().slice(0, 3)}*`,
    () => `${rng.pick(f.text)}:(${w()} OR ${w()}) -${w()}`,
    () => `NOT ${w()}`,
    () => `${rng.pick(f.numeric)}:[${f.numberValue(rng)} TO ${rng.chance(0.3) ? '*' : f.numberValue(rng)}}`,
    () => `_exists_:${rng.pick(f.all)} ${w()}`,
  ];
  const q: Q = { query: rng.pick(forms)() };
  if (rng.chance(0.6)) q.default_field = rng.pick(f.text);
  else if (rng.chance(0.5)) q.fields = f.text.slice(0, rng.int(1, f.text.length));
  if (rng.chance(0.3)) q.default_operator = rng.pick(['AND', 'OR']);
  if (rng.chance(0.1)) q.phrase_slop = rng.int(1, 2);
  if (q.fields !== undefined && rng.chance(0.2)) q.tie_breaker = 0.3;
  return q;
}

function simpleQueryString(rng: Rng, f: Fields): Q {
  const w = () => rng.zipf(f.words);
  const forms = [() => `${w()} ${w()}`, () => `${w()} | ${w()}`, () => `+${w()} -${w()}`, () => `"${w()} ${w()}"`, () => `${w()} +${w()}`];
  const q: Q = { query: rng.pick(forms)(), fields: f.text.slice(0, rng.int(1, f.text.length)) };
  if (rng.chance(0.3)) q.default_operator = rng.pick(['and', 'or']);
  return q;
}

function boolQuery(rng: Rng, f: Fields, depth: number): Q {
  const clause = () => (depth < 3 && rng.chance(0.25) ? boolQuery(rng, f, depth + 1) : leafQuery(rng, f));
  const b: Q = {};
  for (const occur of ['must', 'should', 'filter', 'must_not']) {
    if (!rng.chance(occur === 'should' ? 0.6 : 0.4)) continue;
    const n = rng.int(1, 3);
    b[occur] = n === 1 && rng.chance(0.5) ? clause() : Array.from({ length: n }, clause);
  }
  if (rng.chance(0.25)) b.minimum_should_match = rng.pick([1, 2, '50%']);
  if (rng.chance(0.1)) b.boost = 2;
  return { bool: b };
}

function query(rng: Rng, f: Fields): Q {
  return rng.chance(0.4) ? boolQuery(rng, f, 0) : leafQuery(rng, f);
}

function sort(rng: Rng, f: Fields): unknown[] {
  const keys: unknown[] = [];
  for (let i = rng.int(1, 2); i > 0; i--) {
    const field = rng.pick(f.sortable);
    const order = rng.pick(['asc', 'desc']);
    if (rng.chance(0.3)) keys.push(field);
    else if (rng.chance(0.2)) keys.push({ [field]: { order, missing: rng.pick(['_first', '_last']) } });
    else keys.push({ [field]: order });
  }
  if (rng.chance(0.4)) keys.push(rng.chance(0.5) ? '_score' : { _score: rng.pick(['asc', 'desc']) });
  // Ties are broken by document order on both servers, but a tiebreaker key makes the pages comparable field by field.
  keys.push({ [f === DEBIAN ? 'package' : 'n']: 'asc' });
  return keys;
}

function sourceFilter(rng: Rng, f: Fields): unknown {
  return rng.pick<unknown>([false, true, rng.pick(f.all), [rng.pick(f.all), rng.pick(f.all)], { includes: ['owner.*', rng.pick(f.all)] }, { excludes: [rng.pick(f.all)] }]);
}

/** A request both servers must refuse, each with ES's status and error type. */
function errorRequest(rng: Rng, f: Fields): Q {
  const field = rng.pick(f.text);
  return rng.pick<() => Q>([
    () => ({ from: 9_995, size: 10 }),
    () => ({ size: -5 }),
    () => ({ from: -1 }),
    () => ({ query: { no_such_query: {} } }),
    () => ({ query: { match: { [field]: { query: 'x', no_such_option: 1 } } } }),
    () => ({ query: { term: { [field]: ['a', 'b'] } } }),
    () => ({ query: { bool: { must: { match_all: {} }, nope: [] } } }),
    () => ({ sort: [{ [field]: 'asc' }] }),
    () => ({ search_after: [1], from: 5, sort: [{ [rng.pick(f.numeric)]: 'asc' }] }),
    () => ({ query: { match: { [field]: { query: 'a', operator: 'xor' } } } }),
    () => ({ query: { terms: { [rng.pick(f.keyword)]: 'notalist' } } }),
    () => ({ query: { range: { [rng.pick(f.numeric)]: { gte: 'abc' } } } }),
    () => ({ size: 'ten' }),
    () => ({ query: { match: {} } }),
  ])();
}

/** `count` requests, derived from `seed`, against the Debian slice and the generated index. */
export function generateRequests(count: number, seed: number): DiffRequest[] {
  const rng = new Rng(seed);
  const out: DiffRequest[] = [];
  for (let i = 0; i < count; i++) {
    const index = rng.chance(0.5) ? 'debian' : 'gen';
    const f = index === 'debian' ? DEBIAN : GENERATED;
    const r = rng.next();
    if (r < 0.08) {
      out.push({ index, body: errorRequest(rng, f), kind: 'error' });
      continue;
    }
    const body: Q = { query: query(rng, f) };
    let kind = Object.keys(body.query as Q)[0] ?? 'query';
    if (r < 0.35) {
      body.sort = sort(rng, f);
      kind = 'sort';
    }
    const depth = rng.pick([0, 0, 0, 5, 10, 20, 50, 100, 500, 1000]);
    if (depth > 0) body.from = depth;
    if (rng.chance(0.7)) body.size = rng.pick([0, 1, 3, 10, 25, 100]);
    if (rng.chance(0.3)) body._source = sourceFilter(rng, f);
    if (rng.chance(0.15)) body.track_total_hits = rng.pick<unknown>([true, false, 100, 5000]);
    out.push({ index, body, kind });
  }
  return out;
}

/** A search_after walk: the same sorted query, page after page from the last hit's sort values. */
export function searchAfterWalks(count: number, seed: number): { index: 'debian' | 'gen'; body: Q }[] {
  const rng = new Rng(seed);
  return Array.from({ length: count }, () => {
    const index = rng.chance(0.5) ? 'debian' : 'gen';
    const f = index === 'debian' ? DEBIAN : GENERATED;
    return { index, body: { query: query(rng, f), sort: sort(rng, f), size: rng.pick([7, 20, 50]) } };
  });
}
