/**
 * The request bodies of the typo-tolerance, prefix and highlight benchmark (search-fuzzy-bench.ts),
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
