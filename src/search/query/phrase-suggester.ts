import { errors, SearchError } from '../errors.js';
import { analyzeWith, ANALYZERS, type AnalyzerName } from '../index/analysis.js';
import { FREQ_BITS } from '../index/posting-store.js';
import { compareTerms, lowerBound } from '../index/sorted-terms.js';
import { float32ForJson } from './bm25.js';
import { suggestToken, type SpellSettings } from './term-suggester.js';
import { liveTerm, termField, type TermContext, type TermField } from './term-expansion.js';
import { defaultGenerator, suggestModeOf, type DirectGenerator, type PhraseSuggestion, type Smoothing } from '../requests/phrase-suggest-request.js';

/**
 * The `phrase` suggester, as Elasticsearch runs it (PhraseSuggester, NoisyChannelSpellChecker):
 * the text is analyzed into tokens; each token's candidates are drawn by the direct generators
 * (DirectSpellChecker on their fields, the term suggester's suggestToken), each scored by its
 * string distance times its smoothed frequency, and the best `shard_size` kept; then every
 * combination with at most `max_errors` corrected tokens is scored by a noisy channel: the sum over
 * its tokens of log10(channel × language model), where the channel is the candidate's string
 * distance (`real_word_error_likelihood` for a token left as written) and the language model is the
 * smoothing model's n-gram probability from the suggest field's frequencies (unigrams; bigrams and
 * trigrams are looked up as `w1<separator>w2` terms, which only a shingle field holds). A
 * combination's score is e to that sum (ES exponentiates its log10 sum: same order, and the scores
 * ES returns), kept when above the input phrase's score × `confidence`; the best `shard_size`, by
 * score then the lower terms, become the options.
 *
 * Statistics are the live documents' (Portico's index is one segment without deleted documents:
 * a Lucene index after a force merge), as the term suggester's.
 */

/** A candidate term for one position: DirectCandidateGenerator.Candidate. */
export interface Candidate {
  readonly term: string;
  readonly docFreq: number;
  /** Total term frequency in the generator's field. */
  readonly ttf: number;
  /** The channel score: the string distance, 1 for the token as written. */
  readonly distance: number;
  /** distance × (ttf + 1) / (sumTotalTermFreq + 1): how candidates of a position are ranked. */
  readonly score: number;
  readonly userInput: boolean;
}

export interface CandidateSet {
  readonly original: Candidate;
  candidates: Candidate[];
}

export interface Correction {
  score: number;
  path: Candidate[];
}

/** The frequencies the scorer reads of a field: total term frequencies of live documents, their sum, the number of terms. */
export interface FieldFreqs {
  readonly sumTtf: number;
  readonly numTerms: number;
  stats(term: string): { docFreq: number; ttf: number };
}

/** A field's frequencies (cached per term for one request). */
function fieldFreqs(ctx: TermContext, field: TermField, path: string): FieldFreqs {
  const cache = new Map<string, { docFreq: number; ttf: number }>();
  const live = ctx.index.live;
  const keyword = field.def.kind === 'keyword';
  let sumTtf = 0;
  if (keyword) sumTtf = ctx.index.keyword.get(path)?.sumDocFreq ?? 0;
  else sumTtf = ctx.index.text.get(path)?.sumTotalTermFreq ?? 0;
  let numTerms = 0;
  for (let at = 0; at < field.view.texts.length; at++) if (liveTerm(field, at)) numTerms++;
  let scratch = new Int32Array(64);
  return {
    sumTtf,
    numTerms,
    stats(term) {
      const held = cache.get(term);
      if (held !== undefined) return held;
      let out = { docFreq: 0, ttf: 0 };
      const at = lowerBound(field.view, term);
      if (field.view.texts[at] === term && liveTerm(field, at)) {
        const id = field.view.ids[at] as number;
        const docFreq = field.postings.docFreq(id);
        let ttf = docFreq;
        if (!keyword) {
          // Keyword fields index no frequencies: Lucene's totalTermFreq is then the docFreq.
          const n = field.postings.count(id);
          if (scratch.length < n) scratch = new Int32Array(n);
          field.postings.copyTo(id, scratch);
          ttf = 0;
          for (let i = 0; i < n; i++) {
            const p = scratch[i] as number;
            if (live[p >>> FREQ_BITS] === 1) ttf += field.postings.freqOf(id, p);
          }
        }
        out = { docFreq, ttf };
      }
      cache.set(term, out);
      return out;
    },
  };
}

const INT_MAX = 2147483647;

/** Java's Math.round(double), clamped to an int at least 0 (DirectCandidateGenerator.thresholdTermFrequency). */
function roundToNonNegativeInt(x: number): number {
  if (Number.isNaN(x) || x === -Infinity) return 0;
  if (x === Infinity) return INT_MAX;
  return Math.min(Math.max(0, Math.floor(x + 0.5)), INT_MAX);
}

/** One direct generator on a field that holds terms (DirectCandidateGenerator). */
export class Generator {
  private readonly plateau: number;
  constructor(
    private readonly field: TermField,
    readonly freqs: FieldFreqs,
    private readonly settings: SpellSettings,
    private readonly maxDoc: number,
    private readonly nonErrorLikelihood: number,
    private readonly preFilter: AnalyzerName | undefined,
    private readonly postFilter: AnalyzerName | undefined,
  ) {
    const t = settings.minDocFreq;
    this.plateau = t >= 1 ? Math.trunc(t) : Math.trunc(Math.fround(maxDoc * t));
  }

  /** The last token the pre-filter makes of a term (the term itself when it makes none). */
  private filtered(term: string): string {
    if (this.preFilter === undefined) return term;
    let out = term;
    analyzeWith(this.preFilter, term, (t) => (out = t.token));
    return out;
  }

  createCandidate(term: string, stats: { docFreq: number; ttf: number }, distance: number, userInput: boolean): Candidate {
    return { term, docFreq: stats.docFreq, ttf: stats.ttf, distance, score: distance * ((stats.ttf + 1) / (this.freqs.sumTtf + 1)), userInput };
  }

  /** The statistics of a term of the text, through the pre-filter. */
  termStats(term: string): { docFreq: number; ttf: number } {
    return this.freqs.stats(this.filtered(term));
  }

  /** A frequent term's correction must be more frequent still, by a margin that grows with its frequency. */
  thresholdTermFrequency(docFreq: number): number {
    if (docFreq <= 0) return 0;
    return roundToNonNegativeInt(docFreq * (Math.log10(docFreq - this.plateau) * (1.0 / Math.log10(5))) + 1);
  }

  /** Adds this generator's candidates for the set's token (DirectCandidateGenerator.drawCandidates). */
  draw(set: CandidateSet): void {
    const term = this.filtered(set.original.term);
    let minDocFreq = this.settings.minDocFreq;
    if (this.settings.suggestMode !== 'always') {
      const threshold = this.thresholdTermFrequency(set.original.docFreq);
      if (threshold === INT_MAX) return;
      if (minDocFreq < threshold) minDocFreq = threshold;
    }
    const words = suggestToken(this.field, term, { ...this.settings, minDocFreq }, this.maxDoc);
    const found: Candidate[] = [];
    for (const w of words) {
      const c = this.createCandidate(w.text, this.freqs.stats(w.text), w.score, false);
      if (this.postFilter === undefined) found.push(c);
      else this.postFiltered(c, found);
    }
    addCandidates(set, found);
  }

  /** The post-filter's tokens of a candidate: the candidate itself when unchanged, else a token at the real-word likelihood. */
  private postFiltered(c: Candidate, out: Candidate[]): void {
    analyzeWith(this.postFilter as AnalyzerName, c.term, (t) => {
      if (t.token === c.term) out.push({ ...this.createCandidate(t.token, this.freqs.stats(t.token), c.distance, false), score: c.score });
      else out.push({ ...c, term: t.token, distance: this.nonErrorLikelihood });
    });
  }
}

/** Candidates by score, then the lower term first (the reverse of Candidate.compareTo). */
function byScore(a: Candidate, b: Candidate): number {
  return b.score - a.score || compareTerms(a.term, b.term);
}

/** CandidateSet.addCandidates: the union by term (a new candidate replaces an old one of the same term), sorted. */
export function addCandidates(set: CandidateSet, found: readonly Candidate[]): void {
  const byTerm = new Map<string, Candidate>();
  for (const c of set.candidates) byTerm.set(c.term, c);
  for (const c of found) byTerm.set(c.term, c);
  set.candidates = [...byTerm.values()].sort(byScore);
}

/** The n-gram language model of a smoothing (WordScorer and its three subclasses) over the suggest field's frequencies. */
export class WordScorer {
  private readonly vocabulary: number;
  private readonly numTerms: number;
  constructor(
    private readonly freqs: FieldFreqs,
    private readonly realWordLikelihood: number,
    private readonly separator: string,
    private readonly model: Smoothing,
  ) {
    this.vocabulary = freqs.sumTtf;
    this.numTerms = freqs.numTerms;
  }

  private frequency(...terms: string[]): number {
    return this.freqs.stats(terms.join(this.separator)).ttf;
  }

  private channel(c: Candidate): number {
    return c.distance === 1 ? this.realWordLikelihood : c.distance;
  }

  /** log10 of the channel times the language model at position `at` of the path. */
  score(path: readonly Candidate[], at: number, gramSize: number): number {
    const w = path[at] as Candidate;
    if (at === 0 || gramSize === 1) return Math.log10(this.channel(w) * this.unigram(w));
    if (at === 1 || gramSize === 2) return Math.log10(this.channel(w) * this.bigram(w, path[at - 1] as Candidate));
    return Math.log10(this.channel(w) * this.trigram(w, path[at - 1] as Candidate, path[at - 2] as Candidate));
  }

  unigram(w: Candidate): number {
    if (this.model.kind === 'laplace') return (this.model.alpha + this.frequency(w.term)) / (this.vocabulary + this.model.alpha * this.numTerms);
    return (1.0 + this.frequency(w.term)) / (this.vocabulary + this.numTerms);
  }

  bigram(w: Candidate, w1: Candidate): number {
    const m = this.model;
    const count = this.frequency(w1.term, w.term);
    if (m.kind === 'laplace') return (m.alpha + count) / (w1.ttf + m.alpha * this.numTerms);
    if (m.kind === 'stupid_backoff') return count < 1 ? m.discount * this.unigram(w) : count / (w1.ttf + 0.00000000001);
    const sum = m.unigramLambda + m.bigramLambda + m.trigramLambda;
    if (count < 1) return (m.unigramLambda / sum) * this.unigram(w);
    return (m.bigramLambda / sum) * (count / (0.5 + w1.ttf)) + (m.unigramLambda / sum) * this.unigram(w);
  }

  trigram(w: Candidate, w1: Candidate, w2: Candidate): number {
    const m = this.model;
    if (m.kind === 'laplace') return (m.alpha + this.frequency(w2.term, w1.term, w.term)) / (this.frequency(w1.term, w.term) + m.alpha * this.numTerms);
    if (m.kind === 'stupid_backoff') {
      const bigramCount = this.frequency(w1.term, w.term);
      if (bigramCount < 1) return m.discount * this.unigram(w);
      const trigramCount = this.frequency(w2.term, w1.term, w.term);
      if (trigramCount < 1) return m.discount * (bigramCount / (w1.ttf + 0.00000000001));
      return trigramCount / (bigramCount + 0.00000000001);
    }
    // LinearInterpolatingScorer looks the trigram and its bigram up in reverse order (w w1 w2, w w1): so does this.
    const count = this.frequency(w.term, w1.term, w2.term);
    if (count < 1) return this.bigram(w, w1);
    const sum = m.unigramLambda + m.bigramLambda + m.trigramLambda;
    return (m.trigramLambda / sum) * (count / (1.0 + this.frequency(w.term, w1.term))) + this.bigram(w, w1);
  }
}

/** How many positions a path may correct: `max_errors` as a count from 1, else as a fraction of the positions (rounded), at least 1. */
export function correctionsAllowed(positions: number, maxErrors: number): number {
  return Math.max(1, maxErrors >= 1 ? Math.trunc(maxErrors) : Math.floor(Math.fround(maxErrors * positions) + 0.5));
}

/** The number of paths bestCorrections scores: the ways to correct at most `allowed` positions, each with one of its candidates. */
export function pathCount(sets: readonly CandidateSet[], allowed: number): number {
  // ways[j]: the paths so far with j corrections.
  let ways = [1];
  for (const set of sets) {
    const next = new Array<number>(Math.min(ways.length + 1, allowed + 1)).fill(0);
    ways.forEach((w, j) => {
      next[j] = (next[j] as number) + w;
      if (j < allowed) next[j + 1] = (next[j + 1] as number) + w * set.candidates.length;
    });
    ways = next;
  }
  return ways.reduce((a, b) => a + b, 0);
}

/** Whether correction `a` ranks above `b`: a higher score, then the lower term at the first position they differ. */
function ranksAbove(score: number, path: readonly Candidate[], b: Correction): boolean {
  if (score !== b.score) return score > b.score;
  const n = Math.min(path.length, b.path.length);
  for (let i = 0; i < n; i++) {
    const cmp = compareTerms((path[i] as Candidate).term, (b.path[i] as Candidate).term);
    if (cmp !== 0) return cmp < 0;
  }
  return path.length > b.path.length;
}

/**
 * CandidateScorer.findBestCandiates: every path through the sets with at most `maxErrors`
 * corrected positions (a count when at least 1, else a fraction of the positions, rounded; at
 * least one), the best `keep` above `cutoff`, best first.
 */
export function bestCorrections(sets: readonly CandidateSet[], scorer: WordScorer, gramSize: number, maxErrors: number, keep: number, cutoff: number): Correction[] {
  if (sets.length === 0) return [];
  const errorsAllowed = correctionsAllowed(sets.length, maxErrors);
  const top: Correction[] = [];
  const path: Candidate[] = new Array<Candidate>(sets.length);
  // A position's score depends on its candidate and the gram_size − 1 before it: computed once per
  // such tuple (by their indices, 0 for the token as written), the same number every time.
  const dims = sets.map((s) => s.candidates.length + 1);
  const chosen = new Int32Array(sets.length);
  const memo = sets.map(() => new Map<number, number>());
  const local = (ord: number): number => {
    let key = chosen[ord] as number;
    if (ord > 0 && gramSize > 1) key = key * (dims[ord - 1] as number) + (chosen[ord - 1] as number);
    if (ord > 1 && gramSize > 2) key = key * (dims[ord - 2] as number) + (chosen[ord - 2] as number);
    const m = memo[ord] as Map<number, number>;
    let v = m.get(key);
    if (v === undefined) m.set(key, (v = scorer.score(path, ord, gramSize)));
    return v;
  };
  const offer = (logScore: number) => {
    const score = Math.exp(logScore);
    if (!(score > cutoff)) return;
    if (top.length === keep && !ranksAbove(score, path, top[top.length - 1] as Correction)) return;
    let at = top.length;
    while (at > 0 && ranksAbove(score, path, top[at - 1] as Correction)) at--;
    top.splice(at, 0, { score, path: path.slice() });
    if (top.length > keep) top.pop();
  };
  const walk = (ord: number, left: number, pathScore: number) => {
    const set = sets[ord] as CandidateSet;
    const last = ord === sets.length - 1;
    path[ord] = set.original;
    chosen[ord] = 0;
    const here = pathScore + local(ord);
    if (last) offer(here);
    else walk(ord + 1, left, here);
    if (left <= 0) return;
    for (let i = 0; i < set.candidates.length; i++) {
      path[ord] = set.candidates[i] as Candidate;
      chosen[ord] = i + 1;
      const s = pathScore + local(ord);
      if (last) offer(s);
      else walk(ord + 1, left - 1, s);
    }
  };
  walk(0, errorsAllowed, 0.0);
  return top;
}

/** The score of the text as written: e to the sum of its positions' scores. */
export function inputScore(sets: readonly CandidateSet[], scorer: WordScorer, gramSize: number): number {
  const path = sets.map((s) => s.original);
  let sum = 0.0;
  for (let i = 0; i < path.length; i++) sum += scorer.score(path, i, gramSize);
  return Math.exp(sum);
}

/** Correction.join: the terms with the separator; with tags, each run of corrected terms between one pre and one post tag. */
export function joinCorrection(path: readonly Candidate[], preTag?: string, postTag?: string): string {
  return path
    .map((c, i) => {
      if (preTag === undefined || c.userInput) return c.term;
      const open = i === 0 || (path[i - 1] as Candidate).userInput ? preTag : '';
      const close = i === path.length - 1 || (path[i + 1] as Candidate).userInput ? (postTag as string) : '';
      return open + c.term + close;
    })
    .join(' ');
}

export interface PhraseOption {
  readonly text: string;
  readonly highlighted: string | undefined;
  readonly score: number;
}

/** One index's answer: its options (best first) and the cutoff they passed. */
export interface PhraseEntry {
  readonly options: PhraseOption[];
  readonly cutoff: number;
}

const EMPTY: PhraseEntry = { options: [], cutoff: Number.MIN_VALUE };

/**
 * The most corrections one suggestion scores: 6^9, what ES's defaults allow at most (a text of 9
 * tokens, token_limit 10, each with the token and shard_size 5 candidates, max_errors 9). The
 * number of paths grows exponentially with the tokens and candidates; ES scores them all, on a
 * search thread; here the scoring would hold the one event loop (about 0.6 s for 6^9 on the
 * reference machine, minutes beyond), so a larger one is refused before it starts.
 */
export const MAX_PATHS = 6 ** 9;

function analyzerNamed(name: string, what: (n: string) => string): AnalyzerName {
  if (!(ANALYZERS as readonly string[]).includes(name)) throw errors.illegalArgument(what(name));
  return name as AnalyzerName;
}

/** The settings of a generator as DirectSpellChecker takes them (lowercase_terms off, as PhraseSuggester sets it). */
function spellSettings(g: DirectGenerator): SpellSettings {
  const sort = g.sort.toLowerCase();
  if (sort !== 'score' && sort !== 'frequency') throw errors.illegalArgument(`Illegal suggest sort ${g.sort}`);
  return {
    shardSize: g.size, sort, suggestMode: suggestModeOf(g), accuracy: g.accuracy, maxEdits: g.maxEdits, maxInspections: g.maxInspections,
    maxTermFreq: g.maxTermFreq, prefixLength: g.prefixLength, minWordLength: g.minWordLength, minDocFreq: g.minDocFreq, lowercaseTerms: false,
  };
}

/** The checks ES makes on the shard (SuggestionBuilder.build and the generators' build), as illegal_argument_exception. */
function shardChecks(ctx: TermContext, s: PhraseSuggestion): { analyzer: AnalyzerName; shardSize: number; generators: { g: DirectGenerator; settings: SpellSettings; pre?: AnalyzerName; post?: AnalyzerName }[] } {
  const def = ctx.mappings.field(s.field);
  if (def === undefined) throw errors.illegalArgument(`no mapping found for field [${s.field}]`);
  const analyzer = s.analyzer === undefined ? (def.kind === 'keyword' ? 'keyword' : 'standard') : analyzerNamed(s.analyzer, (n) => `analyzer [${n}] doesn't exists`);
  const shardSize = s.shardSize ?? Math.max(s.size, 5);
  if (shardSize <= 0) throw errors.illegalArgument(`ShardSize must be positive but was: ${shardSize}`);
  const gens = s.generators.length > 0 ? s.generators : [defaultGenerator(s.field)];
  const generators = gens.map((g) => ({
    g,
    pre: g.preFilter === undefined ? undefined : analyzerNamed(g.preFilter, (n) => `Analyzer [${n}] doesn't exists`),
    post: g.postFilter === undefined ? undefined : analyzerNamed(g.postFilter, (n) => `Analyzer [${n}] doesn't exists`),
    settings: spellSettings(g),
  }));
  if (s.collateLang !== undefined) throw errors.illegalArgument(`script_lang not supported [${s.collateLang}]`);
  if (s.text === undefined) throw errors.illegalArgument('The required text option is missing');
  return { analyzer, shardSize, generators };
}

/** One index's phrase suggestion (PhraseSuggester.innerExecute). */
export function phraseSuggest(ctx: TermContext, s: PhraseSuggestion): PhraseEntry {
  let checked: ReturnType<typeof shardChecks>;
  try {
    checked = shardChecks(ctx, s);
  } catch (err) {
    if (err instanceof SearchError) throw errors.shardFailure(ctx.indexName, { type: err.type, reason: err.message });
    throw err;
  }
  // An index without documents answers before anything is read (Suggester.execute).
  if (ctx.index.liveCount === 0) return EMPTY;
  const maxDoc = ctx.index.liveCount;
  const rwel = s.realWordErrorLikelihood;
  // Each field's frequencies are read once per request (a generator and the scorer often share a field).
  const freqsByPath = new Map<string, FieldFreqs>();
  const freqsOf = (field: TermField, path: string): FieldFreqs => {
    let f = freqsByPath.get(path);
    if (f === undefined) freqsByPath.set(path, (f = fieldFreqs(ctx, field, path)));
    return f;
  };
  const generators: Generator[] = [];
  for (const { g, settings, pre, post } of checked.generators) {
    const field = termField(ctx, g.field);
    // A generator on a field without terms is left out, as one on a field no document has.
    if (field === undefined || field.view.texts.length === 0) continue;
    generators.push(new Generator(field, freqsOf(field, g.field), settings, maxDoc, rwel, pre, post));
  }
  const suggestField = termField(ctx, s.field);
  const first = generators[0];
  if (first === undefined || suggestField === undefined || suggestField.view.texts.length === 0) return EMPTY;
  const sets: CandidateSet[] = [];
  analyzeWith(checked.analyzer, s.text as string, (t) => sets.push({ original: first.createCandidate(t.token, first.termStats(t.token), 1.0, true), candidates: [] }));
  if (sets.length === 0 || sets.length >= s.tokenLimit) return EMPTY;
  for (const set of sets) {
    for (const g of generators) g.draw(set);
    // MultiCandidateGeneratorWrapper.reduce: the best shard_size (a stable sort by score).
    if (set.candidates.length > checked.shardSize) set.candidates = set.candidates.slice().sort((a, b) => b.score - a.score).slice(0, checked.shardSize);
  }
  const model: Smoothing = s.smoothing ?? { kind: 'stupid_backoff', discount: Math.fround(0.4) };
  const scorer = new WordScorer(freqsOf(suggestField, s.field), rwel, s.separator, model);
  const gramSize = s.gramSize ?? 1;
  const cutoff = s.confidence > 0 ? inputScore(sets, scorer, gramSize) * s.confidence : Number.MIN_VALUE;
  const paths = pathCount(sets, correctionsAllowed(sets.length, s.maxErrors));
  if (paths > MAX_PATHS) {
    throw errors.shardFailure(ctx.indexName, {
      type: 'illegal_argument_exception',
      reason: `a phrase suggestion scoring ${paths} corrections (more than ${MAX_PATHS}) is not supported by this server: lower max_errors, token_limit or the generators' size`,
    });
  }
  const corrections = bestCorrections(sets, scorer, gramSize, s.maxErrors, checked.shardSize, cutoff);
  const options: PhraseOption[] = [];
  for (const c of corrections) {
    // PhraseSuggestion.Entry.addOption compares the option's float score with the cutoff.
    if (!(Math.fround(c.score) > cutoff)) continue;
    options.push({ text: joinCorrection(c.path), highlighted: s.preTag === undefined ? undefined : joinCorrection(c.path, s.preTag, s.postTag), score: c.score });
  }
  return { options, cutoff };
}

function renderOption(o: PhraseOption): Record<string, unknown> {
  const out: Record<string, unknown> = { text: o.text };
  if (o.highlighted !== undefined) out.highlighted = o.highlighted;
  out.score = float32ForJson(o.score);
  return out;
}

/**
 * The suggestion's one entry over every index: one index's options as they are; several indices'
 * merged as ES reduces shards (an option found in several keeps its best score, the highest cutoff
 * applies), sorted by score then text; cut to `size`.
 */
export function mergePhrase(perIndex: readonly PhraseEntry[], s: PhraseSuggestion): Record<string, unknown>[] {
  const text = s.text ?? '';
  let options: PhraseOption[];
  if (perIndex.length === 1) {
    options = (perIndex[0] as PhraseEntry).options;
  } else {
    const cutoff = Math.max(...perIndex.map((e) => e.cutoff));
    const byText = new Map<string, PhraseOption>();
    for (const e of perIndex) {
      for (const o of e.options) {
        const held = byText.get(o.text);
        byText.set(o.text, held === undefined ? o : { ...held, score: Math.max(held.score, o.score) });
      }
    }
    options = [...byText.values()]
      .filter((o) => Math.fround(o.score) > cutoff)
      .sort((a, b) => Math.fround(b.score) - Math.fround(a.score) || compareTerms(a.text, b.text));
  }
  return [{ text, offset: 0, length: text.length, options: options.slice(0, s.size).map(renderOption) }];
}
