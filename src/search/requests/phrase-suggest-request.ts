import { errors, SearchError } from '../errors.js';
import { isJsonObject } from '../syntax/json-members.js';

/**
 * The options of the `phrase` suggester (PhraseSuggestionBuilder's), with its defaults and its
 * errors. What ES checks while parsing fails here; what it checks on the shard (an unknown
 * analyzer, a bad suggest mode, `shard_size`, a collate script it cannot compile) is kept and
 * thrown by phrase-suggester.ts as a shard failure, as the node answers it.
 */

/** The smoothing model: its name and parameters (a model's defaults are its class's, see `smoothing`). */
export type Smoothing =
  | { readonly kind: 'stupid_backoff'; readonly discount: number }
  | { readonly kind: 'laplace'; readonly alpha: number }
  | { readonly kind: 'linear'; readonly trigramLambda: number; readonly bigramLambda: number; readonly unigramLambda: number };

/** Lucene's DirectSpellChecker settings, which the `term` suggester and each `direct_generator` take. */
export interface SpellCheckerSettings {
  readonly accuracy: number;
  readonly maxEdits: number;
  readonly maxInspections: number;
  readonly maxTermFreq: number;
  readonly prefixLength: number;
  readonly minWordLength: number;
  readonly minDocFreq: number;
}

/** One `direct_generator`: DirectSpellChecker's settings on a field (PhraseSuggestionContext.DirectCandidateGenerator). */
export interface DirectGenerator extends SpellCheckerSettings {
  readonly field: string;
  readonly size: number;
  /** Raw: an unknown mode fails on the shard (`Illegal suggest mode x`). */
  readonly suggestMode: string;
  readonly sort: string;
  readonly preFilter: string | undefined;
  readonly postFilter: string | undefined;
}

export interface PhraseSuggestion {
  readonly kind: 'phrase';
  readonly name: string;
  /** Undefined: no text here nor global, which fails on the shard. */
  readonly text: string | undefined;
  readonly field: string;
  readonly analyzer: string | undefined;
  readonly size: number;
  /** Undefined: max(size, 5), as SuggestionBuilder's default. */
  readonly shardSize: number | undefined;
  /** Undefined: read from the analyzer's shingle filter, which Portico has none of: 1. */
  readonly gramSize: number | undefined;
  readonly realWordErrorLikelihood: number;
  readonly confidence: number;
  readonly maxErrors: number;
  readonly separator: string;
  readonly forceUnigrams: boolean;
  readonly tokenLimit: number;
  readonly preTag: string | undefined;
  readonly postTag: string | undefined;
  /** The collate query's script language when one is given: this server runs no template language. */
  readonly collateLang: string | undefined;
  readonly collatePrune: boolean;
  /** Undefined: StupidBackoff with a discount of 0.4f (PhraseSuggestionContext's DEFAULT_SCORER, a float). */
  readonly smoothing: Smoothing | undefined;
  /** Empty: one generator on `field` with the defaults. */
  readonly generators: readonly DirectGenerator[];
}

/** Jackson's floatValue()/intValue() of a value: a number, or a string holding one. */
function num(v: unknown, integer: boolean): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (Number.isNaN(n)) throw errors.numberFormat(String(v));
  return integer ? Math.trunc(n) : Math.fround(n);
}

/** parser.doubleValue(): the smoothing parameters are doubles. */
function dbl(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (Number.isNaN(n)) throw errors.numberFormat(String(v));
  return n;
}

function bool(v: unknown): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw errors.notBoolean(String(v));
}

const isScalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** SmoothingModel.fromXContent: each named model replaces the one before; unknown names fail. */
function smoothing(raw: Record<string, unknown>): Smoothing | undefined {
  let model: Smoothing | undefined;
  for (const [name, body] of Object.entries(raw)) {
    if (!isJsonObject(body)) {
      const token = typeof body === 'number' ? 'VALUE_NUMBER' : typeof body === 'string' ? 'VALUE_STRING' : typeof body === 'boolean' ? 'VALUE_BOOLEAN' : Array.isArray(body) ? 'START_ARRAY' : 'VALUE_NULL';
      throw errors.parsing(`[smoothing] unknown token [${token}] after [${name}]`);
    }
    if (name === 'stupid_backoff') {
      // Unknown parameters are skipped by StupidBackoff's parser, as by Laplace's.
      model = { kind: 'stupid_backoff', discount: body.discount === undefined ? 0.4 : dbl(body.discount) };
    } else if (name === 'laplace') {
      model = { kind: 'laplace', alpha: body.alpha === undefined ? 0.5 : dbl(body.alpha) };
    } else if (name === 'linear') {
      const l = { trigram_lambda: 0, bigram_lambda: 0, unigram_lambda: 0 };
      for (const [k, v] of Object.entries(body)) {
        if (!(k in l)) throw errors.illegalArgument(`suggester[phrase][smoothing][linear] doesn't support field [${k}]`);
        l[k as keyof typeof l] = dbl(v);
      }
      if (Math.abs(l.trigram_lambda + l.bigram_lambda + l.unigram_lambda - 1.0) > 0.001) throw errors.illegalArgument('linear smoothing lambdas must sum to 1');
      model = { kind: 'linear', trigramLambda: l.trigram_lambda, bigramLambda: l.bigram_lambda, unigramLambda: l.unigram_lambda };
    } else {
      throw errors.illegalArgument(`suggester[phrase] doesn't support object field [${name}]`);
    }
  }
  return model;
}

const GENERATOR_OPTIONS = new Set([
  'field', 'size', 'suggest_mode', 'sort', 'string_distance', 'accuracy', 'max_edits', 'max_inspections', 'max_term_freq',
  'prefix_length', 'min_word_length', 'min_doc_freq', 'pre_filter', 'post_filter',
]);

/** DirectCandidateGeneratorBuilder.PARSER: an object parser, so its errors are x_content_parse_exception. */
function generator(raw: unknown): DirectGenerator {
  if (!isJsonObject(raw)) throw errors.xContentParse(1, 1, '[direct_generator] expected an object');
  for (const k of Object.keys(raw)) if (!GENERATOR_OPTIONS.has(k)) throw errors.xContentParse(1, 1, `[direct_generator] unknown field [${k}]`);
  if (raw.field === undefined || raw.field === null) throw errors.illegalArgument('Required [field]');
  const failed = (field: string, reason: string) =>
    new SearchError(400, { type: 'x_content_parse_exception', reason: `[1:1] [direct_generator] failed to parse field [${field}]`, causedBy: { type: 'illegal_argument_exception', reason } });
  const size = raw.size === undefined ? 5 : num(raw.size, true);
  if (size <= 0) throw failed('size', 'Size must be positive');
  const maxEdits = raw.max_edits === undefined ? 2 : num(raw.max_edits, true);
  if (maxEdits < 1 || maxEdits > 2) throw failed('max_edits', `Illegal max_edits value ${maxEdits}`);
  // Only the distance Lucene's fuzzy enumeration computes, as for the term suggester.
  if (raw.string_distance !== undefined && String(raw.string_distance).toLowerCase() !== 'internal') {
    throw errors.illegalArgument(`string_distance [${String(raw.string_distance)}] is not supported by this server`);
  }
  const opt = (v: unknown, d: number, integer: boolean) => (v === undefined ? d : num(v, integer));
  return {
    field: String(raw.field),
    size,
    suggestMode: String(raw.suggest_mode ?? 'missing'),
    sort: String(raw.sort ?? 'score'),
    accuracy: opt(raw.accuracy, Math.fround(0.5), false),
    maxEdits,
    maxInspections: opt(raw.max_inspections, 5, true),
    maxTermFreq: opt(raw.max_term_freq, Math.fround(0.01), false),
    prefixLength: opt(raw.prefix_length, 1, true),
    minWordLength: opt(raw.min_word_length, 4, true),
    minDocFreq: opt(raw.min_doc_freq, 0, false),
    preFilter: raw.pre_filter === undefined ? undefined : String(raw.pre_filter),
    postFilter: raw.post_filter === undefined ? undefined : String(raw.post_filter),
  };
}

function highlight(raw: Record<string, unknown>): [string | undefined, string | undefined] {
  let pre: string | undefined;
  let post: string | undefined;
  for (const [k, v] of Object.entries(raw)) {
    if (!isScalar(v)) continue;
    if (k === 'pre_tag') pre = String(v);
    else if (k === 'post_tag') post = String(v);
    else throw errors.parsing(`suggester[phrase][highlight] doesn't support field [${k}]`);
  }
  if ((pre === undefined) !== (post === undefined)) throw errors.illegalArgument('Pre and post tag must both be null or both not be null.');
  return [pre, post];
}

function collate(raw: Record<string, unknown>): { lang: string | undefined; prune: boolean } {
  let lang: string | undefined;
  let prune = false;
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'query') {
      // Script.parse: a string is a template's source; an object names its `lang` (mustache unless told).
      lang = isJsonObject(v) && typeof v.lang === 'string' ? v.lang : 'mustache';
    } else if (k === 'params') {
      continue;
    } else if (k === 'prune') {
      if (typeof v !== 'boolean') throw errors.parsing(`suggester[phrase][collate] prune must be either 'true' or 'false'`);
      prune = v;
    } else {
      throw errors.parsing(`suggester[phrase][collate] doesn't support field [${k}]`);
    }
  }
  return { lang, prune };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One `phrase` suggestion's options (PhraseSuggestionBuilder.fromXContent, then its setters' checks). */
export function phraseSuggestion(name: string, text: string | undefined, o: Record<string, unknown>): PhraseSuggestion {
  const s: Mutable<PhraseSuggestion> = {
    kind: 'phrase', name, text, field: '', analyzer: undefined, size: 5, shardSize: undefined, gramSize: undefined,
    realWordErrorLikelihood: Math.fround(0.95), confidence: 1, maxErrors: Math.fround(0.5), separator: ' ', forceUnigrams: true,
    tokenLimit: 10, preTag: undefined, postTag: undefined, collateLang: undefined, collatePrune: false, smoothing: undefined, generators: [],
  };
  let field: string | undefined;
  const generators: DirectGenerator[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (isScalar(v)) {
      switch (k) {
        case 'analyzer': s.analyzer = String(v); break;
        case 'field': field = String(v); break;
        case 'size': s.size = num(v, true); if (s.size <= 0) throw errors.illegalArgument('size must be positive'); break;
        case 'shard_size': s.shardSize = num(v, true); break;
        case 'real_word_error_likelihood': s.realWordErrorLikelihood = num(v, false); if (s.realWordErrorLikelihood <= 0) throw errors.illegalArgument('real_word_error_likelihood must be > 0.0'); break;
        case 'confidence': s.confidence = num(v, false); if (s.confidence < 0) throw errors.illegalArgument('confidence must be >= 0.0'); break;
        case 'separator': s.separator = String(v); break;
        case 'max_errors': s.maxErrors = num(v, false); if (s.maxErrors <= 0) throw errors.illegalArgument('max_error must be > 0.0'); break;
        case 'gram_size': s.gramSize = num(v, true); if (s.gramSize < 1) throw errors.illegalArgument('gramSize must be >= 1'); break;
        case 'force_unigrams': s.forceUnigrams = bool(v); break;
        case 'token_limit': s.tokenLimit = num(v, true); if (s.tokenLimit <= 0) throw errors.illegalArgument('token_limit must be >= 1'); break;
        default: throw errors.parsing(`suggester[phrase] doesn't support field [${k}]`);
      }
    } else if (Array.isArray(v)) {
      if (k !== 'direct_generator') throw errors.parsing(`suggester[phrase]  doesn't support array field [${k}]`);
      for (const g of v) {
        // The parser reads objects until the first other token.
        if (!isJsonObject(g)) break;
        generators.push(generator(g));
      }
    } else if (isJsonObject(v)) {
      if (k === 'smoothing') s.smoothing = smoothing(v);
      else if (k === 'highlight') [s.preTag, s.postTag] = highlight(v);
      else if (k === 'collate') ({ lang: s.collateLang, prune: s.collatePrune } = collate(v));
      else throw errors.parsing(`suggester[phrase]  doesn't support array field [${k}]`);
    } else {
      throw errors.parsing(`suggester[phrase] doesn't support field [${k}]`);
    }
  }
  if (field === undefined) throw errors.parse('the required field option [field] is missing');
  s.field = field;
  s.generators = generators;
  return s;
}

/** The settings of the default generator: one on the suggestion's field. */
export function defaultGenerator(field: string): DirectGenerator {
  return generator({ field });
}

/** The DirectSpellChecker mode of a generator, or the shard's error for an unknown one. */
export function suggestModeOf(g: DirectGenerator): 'missing' | 'popular' | 'always' {
  const mode = g.suggestMode.toLowerCase();
  if (mode !== 'missing' && mode !== 'popular' && mode !== 'always') throw errors.illegalArgument(`Illegal suggest mode ${mode}`);
  return mode;
}
