import { beforeAll, describe, expect, it } from 'vitest';
import { esCalls, searchForAll, type EsBody } from '../harness.js';

/**
 * Never silently wrong: every key of Elasticsearch 8's search body, every option of each query
 * type and every URL parameter of `_search` that ES acts on is either acted on by Portico (or
 * changes nothing here, said so below), or refused with the error ES gives for a key it does not
 * know. Written from ES 8's search API and query DSL reference (SearchSourceBuilder and each
 * query builder's fields), each with a value that makes ES do something. An entry marked `done`
 * or `no-op` must answer 200; one marked `refused` must answer ES's error, so a key accepted and
 * ignored cannot hide here: it would answer 200 where the table says refused.
 */

type Outcome = 'done' | 'no-op' | 'refused';

/** ES 8's search body keys (SearchSourceBuilder), each with a value that asks for something. */
const BODY: [string, unknown, Outcome][] = [
  ['from', 1, 'done'],
  ['size', 1, 'done'],
  ['timeout', '10s', 'no-op'], // a search here never stops early, so it never times out
  ['terminate_after', 1, 'done'],
  ['query', { match_all: {} }, 'done'],
  ['post_filter', { match_all: {} }, 'done'],
  ['knn', { field: 'v', query_vector: [1], k: 1, num_candidates: 1 }, 'refused'],
  ['rank', { rrf: {} }, 'refused'],
  ['retriever', { standard: { query: { match_all: {} } } }, 'refused'],
  ['sub_searches', [{ query: { match_all: {} } }], 'refused'],
  ['min_score', 0.1, 'done'],
  ['version', true, 'done'],
  ['seq_no_primary_term', true, 'done'],
  ['explain', true, 'refused'],
  ['_source', false, 'done'],
  ['stored_fields', ['n'], 'done'],
  ['docvalue_fields', ['n'], 'done'],
  ['fields', ['n'], 'done'],
  ['script_fields', { x: { script: '1' } }, 'refused'],
  ['sort', [{ n: 'desc' }], 'done'],
  ['track_scores', true, 'done'],
  ['track_total_hits', true, 'done'],
  ['indices_boost', [{ t: 2 }], 'done'],
  ['highlight', { fields: { body: {} } }, 'done'],
  ['suggest', { s: { text: 'pyton', term: { field: 'body' } } }, 'done'],
  ['suggest', { s: { text: 'pyton', phrase: { field: 'body' } } }, 'done'],
  ['rescore', { query: { rescore_query: { match_all: {} } } }, 'done'],
  ['stats', ['group'], 'no-op'], // statistics groups of the index stats API, which Portico does not have
  ['ext', { x: {} }, 'refused'],
  ['profile', true, 'refused'],
  ['search_after', [1], 'done'],
  ['slice', { id: 0, max: 2 }, 'done'], // on a scroll (below): a plain search refuses it as ES's validation does
  ['collapse', { field: 'k' }, 'done'],
  ['aggs', { a: { terms: { field: 'k' } } }, 'done'],
  ['aggregations', { a: { terms: { field: 'k' } } }, 'done'],
  ['runtime_mappings', { r: { type: 'long' } }, 'refused'],
];

/**
 * ES 8's aggregation types (the search module's and the x-pack analytics ones a default
 * distribution has), each with a body: computed, or refused as not supported (never read as an
 * unknown type, which would tell the client it does not exist).
 */
const AGGREGATIONS: [string, unknown, 'done' | 'refused'][] = [
  ['terms', { field: 'k' }, 'done'], ['range', { field: 'n', ranges: [{ to: 1 }] }, 'done'], ['date_range', { field: 'd', ranges: [{ to: 'now' }] }, 'done'],
  ['histogram', { field: 'n', interval: 1 }, 'done'], ['date_histogram', { field: 'd', calendar_interval: 'day' }, 'done'],
  ['filter', { term: { k: 'x' } }, 'done'], ['filters', { filters: { a: { term: { k: 'x' } } } }, 'done'], ['missing', { field: 'k' }, 'done'],
  ['min', { field: 'n' }, 'done'], ['max', { field: 'n' }, 'done'], ['avg', { field: 'n' }, 'done'], ['sum', { field: 'n' }, 'done'],
  ['stats', { field: 'n' }, 'done'], ['value_count', { field: 'k' }, 'done'], ['cardinality', { field: 'k' }, 'done'], ['top_hits', { size: 1 }, 'done'],
  ...['adjacency_matrix', 'auto_date_histogram', 'composite', 'extended_stats', 'global', 'nested', 'percentiles', 'percentile_ranks', 'rare_terms',
    'reverse_nested', 'sampler', 'significant_terms', 'significant_text', 'scripted_metric', 'geo_bounds', 'weighted_avg', 'median_absolute_deviation',
    'multi_terms', 'top_metrics', 'boxplot', 'string_stats', 'rate', 'variable_width_histogram', 'ip_range', 'geo_distance', 'geohash_grid',
    'geotile_grid', 'diversified_sampler', 'matrix_stats', 'avg_bucket', 'bucket_script', 'bucket_selector', 'bucket_sort', 'cumulative_sum',
    'derivative', 'max_bucket', 'min_bucket', 'moving_fn', 'serial_diff', 'stats_bucket', 'sum_bucket', 'percentiles_bucket', 'categorize_text',
    'random_sampler', 'frequent_item_sets', 'children', 'parent', 'geo_centroid', 'geo_line', 't_test', 'ip_prefix', 'inference',
    'extended_stats_bucket', 'cumulative_cardinality', 'moving_percentiles', 'normalize'].map((t): [string, unknown, 'refused'] => [t, { field: 'n' }, 'refused']),
];

/** The terms aggregation's options, each with a value that asks for something. */
const AGG_OPTIONS: [string, unknown, Outcome][] = [
  ['size', 3, 'done'], ['shard_size', 30, 'done'], ['min_doc_count', 0, 'done'], ['shard_min_doc_count', 1, 'done'],
  ['order', { _key: 'asc' }, 'done'], ['missing', 'x', 'done'], ['include', 'a.*', 'done'], ['exclude', ['a'], 'done'],
  ['execution_hint', 'map', 'no-op'], ['collect_mode', 'breadth_first', 'no-op'], ['show_term_doc_count_error', true, 'done'],
  ['script', { source: '1' }, 'refused'], ['value_type', 'string', 'refused'], ['include', { partition: 0, num_partitions: 2 }, 'refused'],
];

/** Each query type's options (ES 8's builders), with a value that asks for something. */
const QUERY_OPTIONS: Record<string, { base: Record<string, unknown>; field?: string; options: [string, unknown, Outcome][] }> = {
  match: {
    field: 'body',
    base: { query: 'quick' },
    options: [
      ['operator', 'and', 'done'], ['minimum_should_match', '1', 'done'], ['zero_terms_query', 'all', 'done'], ['boost', 2, 'done'],
      ['lenient', true, 'done'], ['analyzer', 'whitespace', 'refused'], ['fuzziness', 'AUTO', 'done'], ['_name', 'n', 'refused'],
      // Fuzzy tuning without fuzziness, synonyms without a synonym filter: nothing for ES to do either.
      ['prefix_length', 1, 'no-op'], ['max_expansions', 10, 'no-op'], ['fuzzy_transpositions', false, 'no-op'],
      ['fuzzy_rewrite', 'top_terms_10', 'no-op'], ['auto_generate_synonyms_phrase_query', false, 'no-op'],
    ],
  },
  match_phrase: {
    field: 'body',
    base: { query: 'quick fox' },
    options: [['slop', 2, 'done'], ['zero_terms_query', 'all', 'done'], ['boost', 2, 'done'], ['analyzer', 'whitespace', 'refused'], ['_name', 'n', 'refused']],
  },
  match_phrase_prefix: {
    field: 'body',
    base: { query: 'quick f' },
    options: [
      ['slop', 1, 'done'], ['max_expansions', 10, 'done'], ['zero_terms_query', 'all', 'done'], ['boost', 2, 'done'],
      ['analyzer', 'whitespace', 'refused'], ['_name', 'n', 'refused'],
    ],
  },
  match_bool_prefix: {
    field: 'body',
    base: { query: 'quick f' },
    options: [
      ['operator', 'and', 'done'], ['minimum_should_match', 1, 'done'], ['fuzziness', 'AUTO', 'done'], ['prefix_length', 1, 'done'],
      ['max_expansions', 10, 'done'], ['fuzzy_transpositions', false, 'done'], ['boost', 2, 'done'], ['analyzer', 'whitespace', 'refused'],
      ['_name', 'n', 'refused'],
    ],
  },
  fuzzy: {
    field: 'body',
    base: { value: 'quik' },
    options: [
      ['fuzziness', 2, 'done'], ['prefix_length', 1, 'done'], ['max_expansions', 10, 'done'], ['transpositions', false, 'done'],
      ['boost', 2, 'done'], ['rewrite', 'top_terms_blended_freqs_50', 'no-op'], ['rewrite', 'constant_score', 'refused'], ['_name', 'n', 'refused'],
    ],
  },
  regexp: {
    field: 'body',
    base: { value: 'qu.*' },
    options: [
      ['flags', 'INTERSECTION|COMPLEMENT', 'done'], ['flags_value', 3, 'done'], ['case_insensitive', true, 'done'],
      ['max_determinized_states', 100, 'no-op'], ['rewrite', 'constant_score', 'no-op'], ['rewrite', 'scoring_boolean', 'refused'],
      ['boost', 2, 'done'], ['_name', 'n', 'refused'],
    ],
  },
  wildcard: {
    field: 'k',
    base: { value: 'a*' },
    options: [['boost', 2, 'done'], ['case_insensitive', true, 'done'], ['rewrite', 'constant_score', 'no-op'], ['rewrite', 'top_terms_5', 'refused'], ['_name', 'n', 'refused']],
  },
  multi_match: {
    base: { query: 'quick', fields: ['body'] },
    options: [
      ['type', 'most_fields', 'done'], ['type', 'phrase', 'done'], ['type', 'cross_fields', 'done'], ['type', 'phrase_prefix', 'done'],
      ['type', 'bool_prefix', 'done'], ['operator', 'and', 'done'], ['minimum_should_match', 1, 'done'], ['tie_breaker', 0.3, 'done'],
      ['slop', 1, 'done'], ['boost', 2, 'done'], ['lenient', true, 'done'], ['analyzer', 'whitespace', 'refused'],
      ['fuzziness', 'AUTO', 'done'], ['zero_terms_query', 'all', 'refused'], ['_name', 'n', 'refused'], ['prefix_length', 1, 'no-op'],
      ['max_expansions', 10, 'no-op'], ['fuzzy_transpositions', false, 'no-op'], ['fuzzy_rewrite', 'top_terms_10', 'no-op'],
      ['auto_generate_synonyms_phrase_query', false, 'no-op'],
    ],
  },
  term: { field: 'k', base: { value: 'a' }, options: [['boost', 2, 'done'], ['case_insensitive', true, 'done'], ['_name', 'n', 'refused']] },
  prefix: {
    field: 'k',
    base: { value: 'a' },
    options: [['boost', 2, 'done'], ['case_insensitive', true, 'done'], ['rewrite', 'constant_score', 'no-op'], ['rewrite', 'scoring_boolean', 'refused'], ['_name', 'n', 'refused']],
  },
  range: {
    field: 'n',
    base: { gte: 1 },
    options: [
      ['lt', 5, 'done'], ['format', 'epoch_millis', 'done'], ['time_zone', '+01:00', 'done'], ['boost', 2, 'done'],
      ['relation', 'within', 'refused'], ['_name', 'n', 'refused'],
    ],
  },
  exists: { base: { field: 'n' }, options: [['boost', 2, 'done'], ['_name', 'n', 'refused']] },
  ids: { base: { values: ['1'] }, options: [['boost', 2, 'done'], ['_name', 'n', 'refused']] },
  terms: { base: { k: ['a'] }, options: [['boost', 2, 'done'], ['_name', 'n', 'refused']] },
  match_all: { base: {}, options: [['boost', 2, 'done'], ['_name', 'n', 'refused']] },
  match_none: { base: {}, options: [['boost', 2, 'no-op'], ['_name', 'n', 'refused']] },
  constant_score: { base: { filter: { match_all: {} } }, options: [['boost', 2, 'done'], ['_name', 'n', 'refused']] },
  dis_max: { base: { queries: [{ match_all: {} }] }, options: [['tie_breaker', 0.5, 'done'], ['boost', 2, 'done'], ['_name', 'n', 'refused']] },
  bool: {
    base: { must: { match_all: {} } },
    options: [['minimum_should_match', 1, 'done'], ['boost', 2, 'done'], ['adjust_pure_negative', false, 'refused'], ['_name', 'n', 'refused']],
  },
  query_string: {
    base: { query: 'quick' },
    options: [
      ['default_field', 'body', 'done'], ['fields', ['body'], 'done'], ['default_operator', 'and', 'done'], ['boost', 2, 'done'],
      ['phrase_slop', 1, 'done'], ['tie_breaker', 0.3, 'done'], ['analyzer', 'whitespace', 'refused'], ['quote_analyzer', 'whitespace', 'refused'],
      ['allow_leading_wildcard', false, 'refused'], ['enable_position_increments', false, 'refused'], ['escape', true, 'refused'],
      ['type', 'most_fields', 'refused'], ['minimum_should_match', 1, 'refused'], ['quote_field_suffix', '.exact', 'refused'],
      ['_name', 'n', 'refused'], ['fuzziness', 'AUTO', 'no-op'], ['fuzzy_max_expansions', 10, 'no-op'], ['fuzzy_prefix_length', 1, 'no-op'],
      ['fuzzy_transpositions', false, 'no-op'], ['analyze_wildcard', true, 'no-op'], ['max_determinized_states', 100, 'no-op'],
      ['rewrite', 'constant_score', 'no-op'], ['auto_generate_synonyms_phrase_query', false, 'no-op'], ['lenient', true, 'no-op'],
      ['time_zone', '+01:00', 'no-op'],
    ],
  },
  simple_query_string: {
    base: { query: 'quick' },
    options: [
      ['fields', ['body'], 'done'], ['default_operator', 'and', 'done'], ['boost', 2, 'done'], ['analyzer', 'whitespace', 'refused'],
      ['flags', 'AND|OR', 'refused'], ['minimum_should_match', 1, 'refused'], ['quote_field_suffix', '.exact', 'refused'],
      ['analyze_wildcard', true, 'refused'], ['_name', 'n', 'refused'], ['lenient', true, 'no-op'], ['fuzzy_max_expansions', 10, 'no-op'],
      ['fuzzy_prefix_length', 1, 'no-op'], ['fuzzy_transpositions', false, 'no-op'], ['auto_generate_synonyms_phrase_query', false, 'no-op'],
    ],
  },
};

/** ES 8's query types this server does not run: refused by name. */
const QUERIES_NOT_RUN = [
  'boosting', 'combined_fields', 'distance_feature', 'function_score', 'geo_bounding_box', 'geo_distance', 'geo_shape',
  'has_child', 'has_parent', 'intervals', 'knn', 'more_like_this', 'nested', 'parent_id', 'percolate', 'pinned', 'rank_feature',
  'script', 'script_score', 'shape', 'span_containing', 'span_first', 'span_multi', 'span_near', 'span_not', 'span_or',
  'span_term', 'span_within', 'terms_set', 'wrapper',
];

/** ES 8's `_search` URL parameters that ask for something, with such a value. */
const URL_PARAMS: [string, string, Outcome][] = [
  ['explain', 'true', 'refused'], ['analyzer', 'whitespace', 'refused'], ['analyze_wildcard', 'true', 'refused'],
  ['terminate_after', '1', 'done'], ['stored_fields', 'n', 'done'], ['docvalue_fields', 'n', 'done'],
  ['suggest_field', 'body', 'refused'], ['suggest_text', 'x', 'refused'], ['force_synthetic_source', 'true', 'refused'],
  ['q', 'quick', 'done'], ['df', 'body', 'done'], ['default_operator', 'AND', 'done'], ['from', '1', 'done'], ['size', '1', 'done'],
  ['sort', 'n:desc', 'done'], ['track_scores', 'true', 'done'], ['track_total_hits', 'true', 'done'], ['version', 'true', 'done'],
  ['seq_no_primary_term', 'true', 'done'], ['_source', 'false', 'done'], ['timeout', '10s', 'no-op'], ['routing', 'r', 'no-op'],
  ['preference', '_local', 'no-op'], ['request_cache', 'true', 'done'], ['search_type', 'dfs_query_then_fetch', 'no-op'],
];

describe('the search grammar: implemented or refused, never ignored', () => {
  const h = searchForAll();
  const { call, ok } = esCalls(h);
  beforeAll(async () => {
    await ok('PUT', '/t', { mappings: { properties: { body: { type: 'text' }, k: { type: 'keyword' }, n: { type: 'long' } } } });
    await ok('PUT', '/t/_doc/1?refresh=true', { body: 'the quick fox', k: 'a', n: 3 });
  });

  const expectRefused = (res: { status: number; body: EsBody }, type: string, reason: string | RegExp) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.type).toBe(type);
    if (typeof reason === 'string') expect(res.body.error.reason).toBe(reason);
    else expect(res.body.error.reason).toMatch(reason);
  };

  it.each(BODY)('body key %s', async (key, value, outcome) => {
    const body: Record<string, unknown> = { [key]: value };
    if (key === 'search_after') body.sort = [{ n: 'asc' }];
    const res = await call('POST', key === 'slice' ? '/t/_search?scroll=1m' : '/t/_search', body);
    if (outcome === 'refused') {
      const token = Array.isArray(value) ? 'START_ARRAY' : typeof value === 'object' ? 'START_OBJECT' : typeof value === 'boolean' ? 'VALUE_BOOLEAN' : 'VALUE_NUMBER';
      expectRefused(res, 'parsing_exception', `Unknown key for a ${token} in [${key}].`);
    } else {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  it.each(AGGREGATIONS)('aggregation type %s', async (type, body, outcome) => {
    const res = await call('POST', '/t/_search', { size: 0, aggs: { a: { [type]: body } } });
    if (outcome === 'done') expect(res.status, JSON.stringify(res.body)).toBe(200);
    else expectRefused(res, 'illegal_argument_exception', `the [${type}] aggregation is not supported by this server`);
  });

  it('refuses an aggregation type ES does not have with ES\'s error', async () => {
    const res = await call('POST', '/t/_search', { aggs: { a: { nope: {} } } });
    expectRefused(res, 'parsing_exception', 'Unknown aggregation type [nope]');
    expect(res.body.error.caused_by).toEqual({ type: 'named_object_not_found_exception', reason: '[1:22] unknown field [nope]' });
  });

  it.each(AGG_OPTIONS)('terms option %s', async (key, value, outcome) => {
    const res = await call('POST', '/t/_search', { size: 0, aggs: { a: { terms: { field: 'k', [key]: value } } } });
    if (outcome !== 'refused') expect(res.status, JSON.stringify(res.body)).toBe(200);
    else expectRefused(res, 'illegal_argument_exception', /is not supported by this server$/);
  });

  const optionCases = Object.entries(QUERY_OPTIONS).flatMap(([query, { base, field, options }]) => options.map(([k, v, outcome]) => ({ query, base, field, k, v, outcome })));
  it.each(optionCases)('$query option $k: $v', async ({ query, base, field, k, v, outcome }) => {
    const inner = { ...base, [k]: v };
    const res = await call('POST', '/t/_search', { query: { [query]: field === undefined ? inner : { [field]: inner } } });
    if (outcome !== 'refused') {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return;
    }
    if (query === 'bool') expectRefused(res, 'x_content_parse_exception', new RegExp(`^\\[1:\\d+\\] \\[bool\\] unknown field \\[${k}\\]$`));
    else if (query === 'ids' || query === 'match_all') expectRefused(res, 'parsing_exception', new RegExp(`^\\[1:\\d+\\] \\[${query}\\] unknown field \\[${k}\\]$`));
    else if (query === 'multi_match' && k === 'type') expectRefused(res, 'parsing_exception', `[multi_match] query does not support [type] [${String(v)}]`);
    else if (query === 'simple_query_string') expectRefused(res, 'parsing_exception', `[simple_query_string] unsupported field [${k}]`);
    else expectRefused(res, 'parsing_exception', `[${query}] query does not support [${k}]`);
  });

  it.each(QUERIES_NOT_RUN)('query type %s is refused by name', async (name) => {
    expectRefused(await call('POST', '/t/_search', { query: { [name]: {} } }), 'parsing_exception', `query [${name}] is not supported by this server`);
  });

  it('runs the phrase suggester, and refuses its collate query as a node without a template language does', async () => {
    const res = await call('POST', '/t/_search', { size: 0, suggest: { s: { text: 'the quik fox', phrase: { field: 'body', confidence: 0 } } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.suggest.s[0].options.map((o: { text: string }) => o.text)).toContain('the quick fox');
    const collate = await call('POST', '/t/_search', { suggest: { s: { text: 'quik', phrase: { field: 'body', collate: { query: { source: {} } } } } } });
    expect(collate.status).toBe(400);
    expect(collate.body.error.type).toBe('search_phase_execution_exception');
    expect(collate.body.error.root_cause[0]).toMatchObject({ type: 'illegal_argument_exception', reason: 'script_lang not supported [mustache]' });
  });

  it('refuses a fuzzy rewrite other than the default once fuzziness asks for one, and fuzziness on the phrase types', async () => {
    expectRefused(await call('POST', '/t/_search', { query: { match: { body: { query: 'quik', fuzziness: 1, fuzzy_rewrite: 'top_terms_10' } } } }), 'parsing_exception', '[match] query does not support [fuzzy_rewrite]');
    expectRefused(await call('POST', '/t/_search', { query: { multi_match: { query: 'quik', fields: ['body'], type: 'phrase', fuzziness: 1 } } }), 'parsing_exception', 'Fuzziness not allowed for type [phrase]');
  });

  it.each(URL_PARAMS)('URL parameter %s=%s', async (name, value, outcome) => {
    const res = await call('POST', `/t/_search?${name}=${encodeURIComponent(value)}`, {});
    if (outcome === 'refused') expectRefused(res, 'illegal_argument_exception', `request [/t/_search] contains unrecognized parameter: [${name}]`);
    else expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('places an unknown bool key and wraps errors inside a bool clause as ES does', async () => {
    const inBool = await call('POST', '/t/_search', { query: { bool: { must: { match: { body: { query: 'x', nope: 1 } } } } } });
    expect(inBool.body.error).toMatchObject({
      type: 'x_content_parse_exception',
      reason: '[1:63] [bool] failed to parse field [must]',
      caused_by: { type: 'parsing_exception', reason: '[match] query does not support [nope]' },
    });
    expect(inBool.body.error.root_cause[0].type).toBe('parsing_exception');
    const nested = await call('POST', '/t/_search', { query: { bool: { must: [{ bool: { nope: 1 } }] } } });
    expect(nested.body.error).toMatchObject({
      type: 'x_content_parse_exception',
      reason: '[1:43] [bool] failed to parse field [must]',
      caused_by: { type: 'x_content_parse_exception', reason: '[1:36] [bool] unknown field [nope]' },
      root_cause: [{ type: 'x_content_parse_exception', reason: '[1:36] [bool] unknown field [nope]' }],
    });
  });

  it('refuses a negative terminate_after and a timeout that is no time value, as ES does', async () => {
    expectRefused(await call('POST', '/t/_search', { terminate_after: -1 }), 'illegal_argument_exception', 'terminateAfter must be > 0');
    expectRefused(await call('POST', '/t/_search?terminate_after=-1', {}), 'illegal_argument_exception', 'terminateAfter must be > 0');
    expectRefused(await call('POST', '/t/_count?terminate_after=-1', {}), 'illegal_argument_exception', 'terminateAfter must be > 0');
    expectRefused(await call('POST', '/t/_search', { timeout: 'abc' }), 'illegal_argument_exception', 'failed to parse setting [timeout] with value [abc] as a time value: unit is missing or unrecognized');
  });
});
