import { errors, SearchError } from '../errors.js';
import { isJsonObject } from '../syntax/json-members.js';
import { TOKENIZERS, type TokenChain, type TokenFilter, type TokenizerName } from '../index/token-chain.js';

/**
 * A chain of parts as `_analyze` names them (`tokenizer`, `filter`), with ES's errors: a part it
 * does not know is "failed to find global … under [x]"; one it knows and Portico does not build is
 * refused as not supported by this server.
 */

/** Tokenizers and filters of ES 8 (and its analysis-common module) that Portico does not build. */
const ES_TOKENIZERS = new Set(['classic', 'edge_ngram', 'char_group', 'lowercase', 'ngram', 'path_hierarchy', 'pattern', 'simple_pattern', 'simple_pattern_split', 'thai', 'uax_url_email']);
const ES_FILTERS = new Set([
  'apostrophe', 'asciifolding', 'cjk_bigram', 'cjk_width', 'classic', 'common_grams', 'condition', 'decimal_digit', 'delimited_payload',
  'dictionary_decompounder', 'edge_ngram', 'elision', 'fingerprint', 'flatten_graph', 'hunspell', 'hyphenation_decompounder', 'keep',
  'keep_types', 'keyword_marker', 'keyword_repeat', 'kstem', 'length', 'limit', 'min_hash', 'multiplexer', 'ngram', 'pattern_capture',
  'pattern_replace', 'porter_stem', 'predicate_token_filter', 'remove_duplicates', 'reverse', 'snowball', 'stemmer', 'stemmer_override',
  'stop', 'synonym', 'synonym_graph', 'trim', 'truncate', 'unique', 'uppercase', 'word_delimiter', 'word_delimiter_graph',
]);

/** ES's index.max_shingle_diff default (a global `_analyze`'s; an index's `_analyze` reads the index's setting). */
export const MAX_SHINGLE_DIFF = 3;

function tokenizerOf(raw: unknown): TokenizerName {
  let name: unknown = raw;
  if (isJsonObject(raw)) {
    if (raw.type === undefined) throw errors.illegalArgument(`Missing [type] setting for anonymous tokenizer: ${JSON.stringify(raw)}`);
    const extra = Object.keys(raw).filter((k) => k !== 'type');
    if (extra.length > 0) throw errors.contextUnsupported(`tokenizer setting [${extra[0]}] in _analyze`);
    name = raw.type;
  }
  const n = String(name);
  if ((TOKENIZERS as readonly string[]).includes(n)) return n as TokenizerName;
  if (ES_TOKENIZERS.has(n)) throw errors.contextUnsupported(`tokenizer [${n}]`);
  throw errors.illegalArgument(`failed to find global tokenizer under [${n}]`);
}

/** An int setting of a filter, as ES's Settings.getAsInt reads it (a 500 settings_exception when it does not parse). */
function intSetting(o: Record<string, unknown>, key: string, dflt: number): number {
  const v = o[key];
  if (v === undefined || v === null) return dflt;
  const n = typeof v === 'number' ? v : /^[+-]?\d+$/.test(String(v)) ? Number(v) : NaN;
  if (!Number.isInteger(n)) {
    throw new SearchError(500, { type: 'settings_exception', reason: `Failed to parse int setting [${key}] with value [${String(v)}]`, causedBy: { type: 'number_format_exception', reason: `For input string: "${String(v)}"` } });
  }
  return n;
}

function boolSetting(o: Record<string, unknown>, key: string, dflt: boolean): boolean {
  const v = o[key];
  if (v === undefined || v === null) return dflt;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw errors.notBoolean(String(v));
}

/** ShingleTokenFilterFactory's settings and checks, then Lucene's ShingleFilter's. */
export function shingleFilter(o: Record<string, unknown>, maxShingleDiff = MAX_SHINGLE_DIFF): TokenFilter {
  const maxShingleSize = intSetting(o, 'max_shingle_size', 2);
  const minShingleSize = intSetting(o, 'min_shingle_size', 2);
  const outputUnigrams = boolSetting(o, 'output_unigrams', true);
  const diff = maxShingleSize - minShingleSize + (outputUnigrams ? 1 : 0);
  if (diff > maxShingleDiff) {
    throw errors.illegalArgument(
      `In Shingle TokenFilter the difference between max_shingle_size and min_shingle_size (and +1 if outputting unigrams) must be less than or equal to: [${maxShingleDiff}] but was [${diff}]. This limit can be set by changing the [index.max_shingle_diff] index level setting.`,
    );
  }
  const outputUnigramsIfNoShingles = boolSetting(o, 'output_unigrams_if_no_shingles', false);
  if (maxShingleSize < 2) throw errors.illegalArgument('Max shingle size must be >= 2');
  if (minShingleSize < 2) throw errors.illegalArgument('Min shingle size must be >= 2');
  if (minShingleSize > maxShingleSize) throw errors.illegalArgument('Min shingle size must be <= max shingle size');
  const sep = o.token_separator;
  return { kind: 'shingle', minShingleSize, maxShingleSize, outputUnigrams, outputUnigramsIfNoShingles, tokenSeparator: sep === undefined || sep === null ? ' ' : String(sep) };
}

function filterOf(raw: unknown, maxShingleDiff: number): TokenFilter {
  if (isJsonObject(raw)) {
    if (raw.type === undefined) throw errors.illegalArgument(`Missing [type] setting for anonymous filter: ${JSON.stringify(raw)}`);
    const type = String(raw.type);
    if (type === 'shingle') return shingleFilter(raw, maxShingleDiff);
    if (type === 'lowercase') {
      if (raw.language !== undefined) throw errors.contextUnsupported('lowercase filter setting [language]');
      return { kind: 'lowercase' };
    }
    return filterOf(type, maxShingleDiff);
  }
  const name = String(raw);
  if (name === 'lowercase') return { kind: 'lowercase' };
  if (name === 'shingle') return shingleFilter({}, maxShingleDiff);
  if (ES_FILTERS.has(name)) throw errors.contextUnsupported(`token filter [${name}]`);
  throw errors.illegalArgument(`failed to find global filter under [${name}]`);
}

/**
 * The chain of an `_analyze` body's `tokenizer` and `filter`s. Filters without a tokenizer are a
 * normalizer (the keyword tokenizer), which takes no filter that changes the tokens' number.
 */
export function tokenChainOf(tokenizer: unknown, filters: readonly unknown[], maxShingleDiff = MAX_SHINGLE_DIFF): TokenChain & { normalizer: boolean } {
  const fs = filters.map((f) => filterOf(f, maxShingleDiff));
  if (tokenizer === undefined) {
    if (fs.some((f) => f.kind === 'shingle')) throw errors.illegalArgument('Custom normalizer may not use filter [shingle]');
    return { tokenizer: 'keyword', filters: fs, normalizer: true };
  }
  return { tokenizer: tokenizerOf(tokenizer), filters: fs, normalizer: false };
}
