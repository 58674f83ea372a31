/**
 * The `phrase` suggest requests of the side-by-side suite (phrase-suggester.int.test.ts): phrases
 * cut from real summaries, with misspelled words (a letter dropped, doubled, swapped or replaced)
 * and real-word errors (a word replaced by another word of the field one edit away), sent with
 * seeded combinations of the suggester's options; then one request per error ES gives.
 */
import { tokens } from '../../../src/search/index/analyzer.js';
import { Rng } from './corpus.js';

export interface PhraseRequest {
  /** `phrase` (options compared) or `error` (status and type compared). */
  readonly kind: 'phrase' | 'error';
  /** What the request exercises, for the summary line. */
  readonly tags: readonly string[];
  readonly body: Record<string, unknown>;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** One typing error in a word of at least 4 letters. */
function misspell(rng: Rng, word: string): string {
  const i = rng.int(1, word.length - 2);
  switch (rng.int(0, 3)) {
    case 0:
      return word.slice(0, i) + word.slice(i + 1);
    case 1:
      return word.slice(0, i) + (word[i] as string) + word.slice(i);
    case 2:
      return word.slice(0, i) + (word[i + 1] as string) + (word[i] as string) + word.slice(i + 2);
    default:
      return word.slice(0, i) + rng.pick([...LETTERS]) + word.slice(i + 1);
  }
}

/** A word of `vocabulary` one substitution away from `word` (a real-word error), if any. */
function realWordError(rng: Rng, word: string, vocabulary: ReadonlySet<string>): string | undefined {
  const found: string[] = [];
  for (let i = 1; i < word.length; i++) {
    for (const c of LETTERS) {
      const w = word.slice(0, i) + c + word.slice(i + 1);
      if (w !== word && vocabulary.has(w)) found.push(w);
    }
  }
  return found.length === 0 ? undefined : rng.pick(found);
}

/** The options drawn for one request, with a tag for each kind of option set. */
function options(rng: Rng, tags: string[]): Record<string, unknown> {
  const o: Record<string, unknown> = { field: rng.chance(0.85) ? 'summary' : 'description' };
  const maybe = (p: number, tag: string, key: string, values: readonly unknown[]) => {
    if (!rng.chance(p)) return;
    o[key] = rng.pick(values);
    tags.push(tag);
  };
  maybe(0.35, 'confidence', 'confidence', [0, 0, 0.5, 1, 1.5]);
  maybe(0.35, 'max_errors', 'max_errors', [0.3, 0.5, 1, 2, 3]);
  maybe(0.25, 'size', 'size', [1, 2, 3, 10]);
  maybe(0.15, 'shard_size', 'shard_size', [1, 3, 8]);
  maybe(0.3, 'gram_size', 'gram_size', [1, 2, 3]);
  maybe(0.2, 'real_word_error_likelihood', 'real_word_error_likelihood', [0.5, 0.8, 0.99]);
  maybe(0.1, 'token_limit', 'token_limit', [2, 3, 4]);
  maybe(0.1, 'separator', 'separator', ['_', ' ']);
  maybe(0.1, 'analyzer', 'analyzer', ['whitespace', 'simple', 'standard']);
  maybe(0.1, 'force_unigrams', 'force_unigrams', [true, false]);
  if (rng.chance(0.3)) {
    o.highlight = { pre_tag: '<em>', post_tag: '</em>' };
    tags.push('highlight');
  }
  if (rng.chance(0.45)) {
    const kind = rng.pick(['stupid_backoff', 'laplace', 'linear']);
    o.smoothing =
      kind === 'stupid_backoff'
        ? { stupid_backoff: rng.chance(0.5) ? {} : { discount: rng.pick([0.1, 0.4, 0.7]) } }
        : kind === 'laplace'
          ? { laplace: rng.chance(0.5) ? {} : { alpha: rng.pick([0.1, 0.5, 1, 2]) } }
          : { linear: rng.pick([{ trigram_lambda: 0.5, bigram_lambda: 0.3, unigram_lambda: 0.2 }, { trigram_lambda: 0.1, bigram_lambda: 0.1, unigram_lambda: 0.8 }]) };
    tags.push(`smoothing:${kind}`);
  }
  if (rng.chance(0.35)) {
    const generators: Record<string, unknown>[] = [];
    for (let n = rng.int(1, 2); n > 0; n--) {
      const g: Record<string, unknown> = { field: rng.chance(0.75) ? o.field : rng.pick(['summary', 'description']) };
      const opt = (p: number, key: string, values: readonly unknown[]) => {
        if (rng.chance(p)) g[key] = rng.pick(values);
      };
      opt(0.3, 'suggest_mode', ['missing', 'popular', 'always']);
      opt(0.2, 'max_edits', [1, 2]);
      opt(0.2, 'prefix_length', [0, 1, 2]);
      opt(0.2, 'min_word_length', [2, 3, 5]);
      opt(0.15, 'min_doc_freq', [0, 2, 0.01]);
      opt(0.15, 'max_term_freq', [0.5, 3, 0.01]);
      opt(0.2, 'size', [1, 3, 10]);
      opt(0.1, 'max_inspections', [1, 3]);
      opt(0.1, 'accuracy', [0.3, 0.7]);
      opt(0.1, 'sort', ['score', 'frequency']);
      opt(0.1, 'pre_filter', ['simple', 'whitespace']);
      opt(0.1, 'post_filter', ['simple', 'whitespace']);
      generators.push(g);
    }
    o.direct_generator = generators;
    tags.push('direct_generator');
  }
  return o;
}

/** `count` phrase requests over the documents' summaries, from `seed`. */
export function phraseRequests(count: number, seed: number, docs: readonly [string, Record<string, unknown>][]): PhraseRequest[] {
  const rng = new Rng(seed);
  const summaries = docs.map(([, d]) => tokens(String(d.summary ?? ''))).filter((t) => t.length >= 2);
  const vocabulary = new Set(summaries.flat());
  const out: PhraseRequest[] = [];
  while (out.length < count) {
    const words = rng.pick(summaries);
    const length = Math.min(words.length, rng.int(2, 6));
    const from = rng.int(0, words.length - length);
    const phrase = words.slice(from, from + length);
    const tags: string[] = [];
    const long = phrase.map((w, i) => (w.length >= 4 && /^[a-z]+$/.test(w) ? i : -1)).filter((i) => i >= 0);
    if (long.length === 0) continue;
    const errorsWanted = rng.int(1, Math.min(2, long.length));
    for (let e = 0; e < errorsWanted; e++) {
      const at = rng.pick(long);
      const real = rng.chance(0.4) ? realWordError(rng, phrase[at] as string, vocabulary) : undefined;
      phrase[at] = real ?? misspell(rng, phrase[at] as string);
      tags.push(real === undefined ? 'misspelling' : 'real-word error');
    }
    // Sometimes written with capitals: the field's analyzer lowercases them.
    const text = rng.chance(0.15) ? phrase.map((w) => (w[0] as string).toUpperCase() + w.slice(1)).join(' ') : phrase.join(' ');
    const phraseOptions = options(rng, tags);
    const suggestion = rng.chance(0.2) ? { s: { phrase: phraseOptions }, text } : { s: { text, phrase: phraseOptions } };
    out.push({ kind: 'phrase', tags, body: { size: 0, suggest: suggestion } });
  }
  return out;
}

/** One request per error the suggester gives: while parsing (the request) and on the shard (the index's field, an analyzer, a script). */
export function phraseErrorRequests(): PhraseRequest[] {
  const bad: [string, Record<string, unknown>][] = [
    ['missing field', {}],
    ['unknown option', { field: 'summary', nope: 1 }],
    ['unmapped field', { field: 'nofield' }],
    ['gram_size 0', { field: 'summary', gram_size: 0 }],
    ['max_errors 0', { field: 'summary', max_errors: 0 }],
    ['confidence < 0', { field: 'summary', confidence: -1 }],
    ['real_word_error_likelihood 0', { field: 'summary', real_word_error_likelihood: 0 }],
    ['token_limit 0', { field: 'summary', token_limit: 0 }],
    ['size 0', { field: 'summary', size: 0 }],
    ['shard_size 0', { field: 'summary', shard_size: 0 }],
    ['max_errors not a number', { field: 'summary', max_errors: 'abc' }],
    ['force_unigrams not a boolean', { field: 'summary', force_unigrams: 'x' }],
    ['unknown smoothing', { field: 'summary', smoothing: { nope: {} } }],
    ['smoothing not an object', { field: 'summary', smoothing: { laplace: 1 } }],
    ['linear lambdas', { field: 'summary', smoothing: { linear: { trigram_lambda: 0.5 } } }],
    ['linear unknown parameter', { field: 'summary', smoothing: { linear: { trigram_lambda: 0.5, bigram_lambda: 0.3, unigram_lambda: 0.2, x: 1 } } }],
    ['laplace alpha not a number', { field: 'summary', smoothing: { laplace: { alpha: 'x' } } }],
    ['one highlight tag', { field: 'summary', highlight: { pre_tag: '<a>' } }],
    ['unknown highlight option', { field: 'summary', highlight: { pre_tag: '<a>', post_tag: '</a>', x: 1 } }],
    ['generator without field', { field: 'summary', direct_generator: [{}] }],
    ['generator unknown option', { field: 'summary', direct_generator: [{ field: 'summary', nope: 1 }] }],
    ['generator suggest_mode', { field: 'summary', direct_generator: [{ field: 'summary', suggest_mode: 'x' }] }],
    ['generator max_edits 3', { field: 'summary', direct_generator: [{ field: 'summary', max_edits: 3 }] }],
    ['generator size 0', { field: 'summary', direct_generator: [{ field: 'summary', size: 0 }] }],
    ['generator unknown pre_filter', { field: 'summary', direct_generator: [{ field: 'summary', pre_filter: 'nope' }] }],
    ['direct_generator not an array', { field: 'summary', direct_generator: { field: 'summary' } }],
    ['unknown analyzer', { field: 'summary', analyzer: 'nope' }],
    ['separator null', { field: 'summary', separator: null }],
    ['highlight not an object', { field: 'summary', highlight: 'x' }],
    ['collate with a template', { field: 'summary', collate: { query: { source: { match: { summary: '{{suggestion}}' } } } } }],
    ['collate prune not a boolean', { field: 'summary', collate: { query: { source: 'x' }, prune: 1 } }],
    ['collate unknown option', { field: 'summary', collate: { nope: 1 } }],
  ];
  const out: PhraseRequest[] = bad.map(([tag, phrase]) => ({ kind: 'error', tags: [tag], body: { size: 0, suggest: { s: { text: 'libary for pyton', phrase } } } }));
  out.push({ kind: 'error', tags: ['no text'], body: { size: 0, suggest: { s: { phrase: { field: 'summary' } } } } });
  return out;
}

/** Requests at the edges that answer without error: fields without terms or of another type, no tokens, too many tokens. */
export function phraseEdgeRequests(): PhraseRequest[] {
  const edge: [string, string, Record<string, unknown>][] = [
    ['numeric field', 'libary', { field: 'installed_size' }],
    ['keyword field', 'libreoffice-cor', { field: 'package', confidence: 0 }],
    ['generator on an unmapped field', 'libary', { field: 'summary', direct_generator: [{ field: 'nofield' }] }],
    ['empty text', '', { field: 'summary' }],
    ['no tokens', '!!! ???', { field: 'summary' }],
    ['ten tokens (token_limit)', 'a libary for the pyton and perl modul of the gnu', { field: 'summary', confidence: 0 }],
    ['nine tokens', 'libary for the pyton and perl modul of gnu', { field: 'summary', confidence: 0, max_errors: 0.5 }],
    ['collate params only', 'libary', { field: 'summary', collate: { params: { a: 1 } } }],
    ['empty smoothing', 'libary for pyton', { field: 'summary', smoothing: {} }],
    ['last smoothing wins', 'libary for pyton', { field: 'summary', smoothing: { laplace: {}, stupid_backoff: { discount: 0.2 } } }],
    ['laplace unknown parameter', 'libary for pyton', { field: 'summary', smoothing: { laplace: { beta: 1 } } }],
    ['negative alpha', 'libary for pyton', { field: 'summary', smoothing: { laplace: { alpha: -1 } } }],
    ['empty generator list', 'libary for pyton', { field: 'summary', direct_generator: [] }],
    ['numbers as strings', 'libary for pyton', { field: 'summary', size: '3', confidence: '0', max_errors: '2' }],
    ['every word right', 'library for python', { field: 'summary', confidence: 0 }],
    ['every word right, always mode', 'library for python', { field: 'summary', confidence: 0, direct_generator: [{ field: 'summary', suggest_mode: 'always' }] }],
  ];
  return edge.map(([tag, text, phrase]) => ({ kind: 'phrase', tags: [tag], body: { size: 0, suggest: { s: { text, phrase } } } }));
}
