import { describe, expect, it } from 'vitest';
import { addCandidates, bestCorrections, correctionsAllowed, inputScore, joinCorrection, MAX_PATHS, pathCount, WordScorer, type Candidate, type CandidateSet, type FieldFreqs } from '../../../src/search/query/phrase-suggester.js';

/** A field's frequencies from a table of term → total term frequency (docFreq = ttf). */
function freqs(table: Record<string, number>, sumTtf: number, numTerms: number): FieldFreqs {
  return { sumTtf, numTerms, stats: (t) => ({ docFreq: table[t] ?? 0, ttf: table[t] ?? 0 }) };
}

function cand(term: string, ttf: number, distance: number, userInput = false): Candidate {
  return { term, docFreq: ttf, ttf, distance, score: distance * ttf, userInput };
}

describe('the phrase suggester language models', () => {
  const table = { gnu: 10, compiler: 4, collection: 6, 'gnu compiler': 3, 'compiler collection': 2, 'gnu compiler collection': 2, 'compiler gnu': 1 };
  const f = freqs(table, 100, 50);
  const gnu = cand('gnu', 10, 1, true);
  const compiler = cand('compiler', 4, 0.75);
  const collection = cand('collection', 6, 1, true);

  it('scores a unigram as (1 + tf) / (vocabulary + terms), the channel as the distance or the real-word likelihood', () => {
    const s = new WordScorer(f, 0.95, ' ', { kind: 'stupid_backoff', discount: 0.4 });
    expect(s.unigram(compiler)).toBeCloseTo(5 / 150, 15);
    expect(s.score([compiler], 0, 3)).toBeCloseTo(Math.log10(0.75 * (5 / 150)), 12);
    expect(s.score([gnu], 0, 1)).toBeCloseTo(Math.log10(0.95 * (11 / 150)), 12);
  });

  it('stupid backoff: the bigram ratio when the bigram is known, else the discounted unigram', () => {
    const s = new WordScorer(f, 0.95, ' ', { kind: 'stupid_backoff', discount: 0.4 });
    // "gnu compiler" occurs 3 times, "gnu" 10 times.
    expect(s.bigram(compiler, gnu)).toBeCloseTo(3 / 10, 9);
    // "collection gnu" is unknown: 0.4 × (1 + 10) / 150.
    expect(s.bigram(gnu, collection)).toBeCloseTo(0.4 * (11 / 150), 12);
    // The known trigram over its bigram.
    expect(s.trigram(collection, compiler, gnu)).toBeCloseTo(2 / 2, 9);
    // gram_size 2 never reads trigrams.
    expect(s.score([gnu, compiler, collection], 2, 2)).toBeCloseTo(Math.log10(0.95 * (2 / 4)), 9);
  });

  it('laplace: counts plus alpha over the context count plus alpha times the number of terms', () => {
    const s = new WordScorer(f, 0.95, ' ', { kind: 'laplace', alpha: 0.5 });
    expect(s.unigram(gnu)).toBeCloseTo(10.5 / (100 + 25), 12);
    expect(s.bigram(compiler, gnu)).toBeCloseTo(3.5 / (10 + 25), 12);
    expect(s.trigram(collection, compiler, gnu)).toBeCloseTo(2.5 / (2 + 25), 12);
  });

  it('linear interpolation: normalized lambdas, and the trigram looked up in the order ES looks it up (w w-1 w-2)', () => {
    const s = new WordScorer(f, 0.95, ' ', { kind: 'linear', trigramLambda: 2, bigramLambda: 1, unigramLambda: 1 });
    const uni = 5 / 150;
    expect(s.bigram(compiler, gnu)).toBeCloseTo(0.25 * (3 / 10.5) + 0.25 * uni, 12);
    // "compiler gnu" (w w-1) is known once: the reversed trigram "compiler gnu x" is not, so the bigram alone.
    const x = cand('x', 0, 0.5);
    expect(s.trigram(compiler, gnu, x)).toBeCloseTo(s.bigram(compiler, gnu), 15);
  });

  it('joins n-grams with the separator', () => {
    const s = new WordScorer(freqs({ gnu: 10, gnu_compiler: 5 }, 100, 50), 0.95, '_', { kind: 'stupid_backoff', discount: 0.4 });
    expect(s.bigram(compiler, gnu)).toBeCloseTo(5 / 10, 9);
  });
});

describe('the phrase suggester candidate combination', () => {
  /** A language model where every term is as likely: only the channel (the distance) decides. */
  const flat = new WordScorer(freqs({}, 0, 1), 1, ' ', { kind: 'stupid_backoff', discount: 0.4 });

  function sets(...positions: [string, [string, number][]][]): CandidateSet[] {
    return positions.map(([term, cands]) => ({ original: cand(term, 0, 1, true), candidates: cands.map(([t, d]) => cand(t, 0, d)) }));
  }

  it('keeps paths with at most max_errors corrections, best first', () => {
    const s = sets(['a', [['b', 0.9]]], ['c', [['d', 0.8]]], ['e', [['f', 0.7]]]);
    const texts = (max: number) => bestCorrections(s, flat, 1, max, 100, Number.MIN_VALUE).map((c) => joinCorrection(c.path));
    // One correction at most: the text as written and each single correction.
    expect(texts(1)).toEqual(['a c e', 'b c e', 'a d e', 'a c f']);
    // A fraction of the positions, rounded: 0.5 × 3 → 2.
    expect(texts(0.5)).toHaveLength(1 + 3 + 3);
    expect(texts(3)).toHaveLength(8);
  });

  it('scores a path as e to the sum of its log10 scores, and drops what does not beat the cutoff', () => {
    const s = sets(['a', [['b', 0.5]]], ['c', []]);
    const [best, second] = bestCorrections(s, flat, 1, 1, 10, Number.MIN_VALUE);
    // Each position: log10(distance × (1 + 0) / (0 + 1)).
    expect(best?.score).toBeCloseTo(Math.exp(0), 12);
    expect(second?.score).toBeCloseTo(Math.exp(Math.log10(0.5)), 12);
    expect(inputScore(s, flat, 1)).toBeCloseTo(1, 12);
    // confidence 1: the cutoff is the input's score, which the input itself does not beat.
    expect(bestCorrections(s, flat, 1, 1, 10, inputScore(s, flat, 1))).toEqual([]);
  });

  it('keeps the best shard_size, ties going to the lower terms', () => {
    const s = sets(['a', [['z', 0.5], ['m', 0.5], ['b', 0.5]]]);
    const kept = bestCorrections(s, flat, 1, 1, 2, Number.MIN_VALUE).map((c) => joinCorrection(c.path));
    expect(kept).toEqual(['a', 'b']);
  });

  it('highlights each run of corrected terms once', () => {
    const path = [cand('a', 0, 1, true), cand('b', 0, 0.5), cand('c', 0, 0.5), cand('d', 0, 1, true), cand('e', 0, 0.5)];
    expect(joinCorrection(path, '<em>', '</em>')).toBe('a <em>b c</em> d <em>e</em>');
    expect(joinCorrection(path)).toBe('a b c d e');
  });

  it('merges a generator\'s candidates by term, best score first, then the lower term', () => {
    const set: CandidateSet = { original: cand('x', 0, 1, true), candidates: [cand('b', 2, 1), cand('c', 1, 1)] };
    addCandidates(set, [cand('a', 2, 1), cand('c', 3, 1)]);
    expect(set.candidates.map((c) => `${c.term}:${c.score}`)).toEqual(['c:3', 'a:2', 'b:2']);
  });
});

describe('the phrase suggester path count', () => {
  const set = (n: number): CandidateSet => ({ original: cand('x', 0, 1, true), candidates: Array.from({ length: n }, (_, i) => cand(`c${i}`, 0, 0.5)) });

  it('counts the paths with at most the allowed corrections, as bestCorrections walks them', () => {
    const sets = [set(2), set(0), set(3)];
    // At most one correction: the text as written, 2 at the first position, 3 at the last.
    expect(pathCount(sets, 1)).toBe(1 + 2 + 3);
    expect(pathCount(sets, 2)).toBe(3 * 1 * 4);
    const flat = new WordScorer(freqs({}, 0, 1), 1, ' ', { kind: 'stupid_backoff', discount: 0.4 });
    expect(bestCorrections(sets, flat, 1, 2, 1000, Number.MIN_VALUE)).toHaveLength(pathCount(sets, 2));
    // ES's defaults at their largest: nine tokens, five candidates each, every one correctable.
    expect(pathCount(Array.from({ length: 9 }, () => set(5)), 9)).toBe(MAX_PATHS);
    expect(correctionsAllowed(9, 0.5)).toBe(5);
    expect(correctionsAllowed(3, 0.1)).toBe(1);
    expect(correctionsAllowed(3, 2.7)).toBe(2);
  });
});
