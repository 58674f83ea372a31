/**
 * The request bodies of the typo-tolerance, prefix, highlight and aggregation benchmark (search-fuzzy-bench.ts),
 * shared with its in-process probe (search-fuzzy-probe.ts) so both time the same requests.
 */

export const TYPOS = ['pyton', 'libary', 'dokumentation', 'kernal', 'grapical', 'utlity', 'databse', 'netwrok', 'editr', 'serer'];
export const PREFIXES = ['pyth', 'lib', 'doc', 'kern', 'gra', 'util', 'datab', 'netw', 'edit', 'serv'];
const WORDS = ['python library', 'web server', 'perl module', 'documentation', 'development files', 'linux kernel', 'image editor', 'database client', 'command line utility', 'audio player'];

/** The cases: a name and its request bodies. */
export const FUZZY_CASES: [string, Record<string, unknown>[]][] = [
  ['match fuzziness AUTO', TYPOS.map((t) => ({ query: { match: { description: { query: t, fuzziness: 'AUTO' } } } }))],
  ['match 2 typos AUTO', TYPOS.slice(0, 5).map((t, i) => ({ query: { match: { description: { query: `${t} ${TYPOS[i + 5] as string}`, fuzziness: 'AUTO' } } } }))],
  ['fuzzy query', TYPOS.map((t) => ({ query: { fuzzy: { summary: { value: t } } } }))],
  ['prefix', PREFIXES.map((p) => ({ query: { prefix: { description: p } } }))],
  ['wildcard', ['pyth*n', 'li?rary', 'doc*ation', 'k*nel', 'gra*al', 'util*', 'dat?base', 'net*k', 'edi*', 'ser?er'].map((w) => ({ query: { wildcard: { description: w } } }))],
  ['regexp', ['pyth.n.*', 'lib[a-z]{3}', 'doc.*', 'kern(el|al)', 'gr.*cal', 'util.*', 'data(base)?', 'net.*', 'edit(or)?s?', 'serv.*'].map((r) => ({ query: { regexp: { description: r } } }))],
  ['match_phrase_prefix', ['python lib', 'development fi', 'shared lib', 'command line t', 'web ser', 'perl mod', 'header fi', 'java lib', 'the gn', 'data fo'].map((t) => ({ query: { match_phrase_prefix: { description: t } } }))],
  ['term suggester', TYPOS.map((t) => ({ size: 0, suggest: { s: { text: `${t} ${PREFIXES[0] as string}`, term: { field: 'description' } } } }))],
  ['highlight description', WORDS.map((w) => ({ query: { match: { description: w } }, highlight: { fields: { description: {} } } }))],
  ['highlight 2 fields', WORDS.map((w) => ({ query: { multi_match: { query: w, fields: ['summary', 'description'] } }, highlight: { fields: { summary: {}, description: { fragment_size: 80, number_of_fragments: 2 } } } }))],
];

/** Aggregations over the corpus with the side-by-side mappings (section and priority keyword, installed_size long). */
export const AGG_CASES: [string, Record<string, unknown>[]][] = [
  ['terms section (all docs)', [{ size: 0, aggs: { s: { terms: { field: 'section', size: 10 } } } }]],
  ['terms priority (all docs)', [{ size: 0, aggs: { s: { terms: { field: 'priority' } } } }]],
  ['terms section + avg', [{ size: 0, aggs: { s: { terms: { field: 'section', size: 20 }, aggs: { a: { avg: { field: 'installed_size' } } } } } }]],
  ['histogram installed_size', [{ size: 0, aggs: { h: { histogram: { field: 'installed_size', interval: 10_000, min_doc_count: 1 } } } }]],
  ['match + terms', WORDS.map((w) => ({ size: 0, query: { match: { description: w } }, aggs: { s: { terms: { field: 'section' } } } }))],
  ['stats installed_size', [{ size: 0, aggs: { s: { stats: { field: 'installed_size' } } } }]],
  ['hits + terms + highlight', WORDS.map((w) => ({ query: { match: { description: w } }, aggs: { s: { terms: { field: 'section' } }, p: { terms: { field: 'priority' } } }, highlight: { fields: { description: {} } } }))],
];

/** The case whose median must also stay under 20 ms (issue 22). */
export const WHOLE_CORPUS_TERMS = 'terms section (all docs)';
