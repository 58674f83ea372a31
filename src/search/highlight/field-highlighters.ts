import { analyzeWith } from '../index/analysis.js';
import { marks, type FieldTerms } from './highlight-terms.js';
import { Boundaries, BoundedValueSentences, sentenceBoundaries, VALUE_SEPARATOR, wordBoundaries } from './text-breaks.js';

/**
 * The `unified` and `plain` highlighters of Elasticsearch over one field of one document, written
 * from how they behave (the side-by-side suite compares their fragments with OpenSearch's):
 * - unified (Lucene's UnifiedHighlighter as ES configures it): the field's values joined by
 *   U+0000, cut into passages of sentences bounded to `fragment_size`, each scored as a small
 *   BM25 document (Lucene's PassageScorer: k1 1.2, b 0.75, pivot 87, and a boost for passages
 *   near the start); the best `number_of_fragments` kept, in text order unless `order: score`;
 *   a phrase is marked as one span (ES 8's weight matches);
 * - plain (Lucene's Highlighter with its span fragmenter): each value cut at the first token
 *   ending past each multiple of `fragment_size`, a fragment scored by the distinct terms it
 *   holds, the best ones in score order.
 */

export interface HighlightOptions {
  readonly preTag: string;
  readonly postTag: string;
  readonly fragmentSize: number;
  readonly numberOfFragments: number;
  readonly noMatchSize: number;
  readonly scoreOrder: boolean;
  readonly encodeHtml: boolean;
}

export interface Fragment {
  readonly text: string;
  readonly score: number;
}

/** One marked span of the content and the term it counts as. */
interface Match {
  readonly start: number;
  readonly end: number;
  readonly term: string;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '/': '&#x2F;' };

function encoder(html: boolean): (s: string) => string {
  return html ? (s) => s.replace(/[&<>"'/]/g, (c) => HTML_ESCAPES[c] as string) : (s) => s;
}

/**
 * The index of the last token of a phrase occurrence starting at token `i` (its terms in order,
 * within `terms.length + slop` tokens), or -1.
 */
function phraseEnd(toks: readonly { token: string }[], i: number, terms: readonly string[], slop: number): number {
  if (toks[i]?.token !== terms[0]) return -1;
  const limit = Math.min(toks.length, i + terms.length + slop);
  let k = i;
  for (let j = 1; j < terms.length; j++) {
    let m = k + 1;
    while (m < limit && toks[m]?.token !== terms[j]) m++;
    if (m >= limit) return -1;
    k = m;
  }
  return k;
}

/** The marked spans of `content` (values joined by VALUE_SEPARATOR), in text order. */
function findMatches(content: string, keyword: boolean, t: FieldTerms): Match[] {
  const out: Match[] = [];
  let base = 0;
  for (const value of content.split(VALUE_SEPARATOR)) {
    const toks: { token: string; start: number; end: number }[] = [];
    analyzeWith(keyword ? 'keyword' : 'standard', value, (tok) => toks.push(tok));
    const taken = new Uint8Array(toks.length);
    // Phrases first: their tokens are one span each, and are not marked again alone.
    for (const p of t.phrases) {
      for (let i = 0; i + p.terms.length <= toks.length; i++) {
        const k = phraseEnd(toks, i, p.terms, p.slop);
        if (k === -1) continue;
        out.push({ start: base + (toks[i]?.start ?? 0), end: base + (toks[k]?.end ?? 0), term: p.terms.join(' ') });
        for (let m = i; m <= k; m++) taken[m] = 1;
      }
    }
    toks.forEach((tok, i) => {
      if (taken[i] === 0 && marks(t, tok.token)) out.push({ start: base + tok.start, end: base + tok.end, term: tok.token });
    });
    base += value.length + 1;
  }
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Lucene's PassageScorer: norm(start) × Σ weight(term) × tf(freq in passage, passage length). */
function passageScore(matches: readonly Match[], start: number, end: number, contentLength: number, docFreq: ReadonlyMap<string, number>): number {
  const pivot = 87;
  const numDocs = Math.fround(1 + Math.fround(contentLength / pivot));
  const inPassage = new Map<string, number>();
  for (const m of matches) inPassage.set(m.term, (inPassage.get(m.term) ?? 0) + 1);
  let score = 0;
  for (const [term, freq] of inPassage) {
    const weight = Math.fround(2.2 * Math.fround(Math.log(1 + (numDocs + 0.5) / ((docFreq.get(term) ?? 1) + 0.5))));
    const norm = Math.fround(1.2 * Math.fround(0.25 + 0.75 * Math.fround((end - start) / pivot)));
    score += Math.fround(freq / (freq + norm)) * weight;
  }
  return Math.fround(score * Math.fround(1 + 1 / Math.fround(Math.log(pivot + start))));
}

interface Passage {
  start: number;
  end: number;
  matches: Match[];
  score: number;
}

/** Where each value starts (after the separator before it), with 0 and the end: Lucene's CustomSeparatorBreakIterator. */
function valueBoundaries(content: string): number[] {
  const out = [0];
  for (let i = content.indexOf(VALUE_SEPARATOR); i !== -1; i = content.indexOf(VALUE_SEPARATOR, i + 1)) out.push(i + 1);
  if (out[out.length - 1] !== content.length) out.push(content.length);
  return out;
}

/** Lucene's passage loop: each match opens a passage at the break before it, unless inside the last one. */
function passages(content: string, matches: readonly Match[], opts: HighlightOptions, keyword: boolean): Passage[] {
  const docFreq = new Map<string, number>();
  for (const m of matches) docFreq.set(m.term, (docFreq.get(m.term) ?? 0) + 1);
  const whole = opts.numberOfFragments === 0 || keyword;
  const values = new Boundaries(valueBoundaries(content));
  const bounded = whole || opts.fragmentSize <= 0 ? undefined : new BoundedValueSentences(content, opts.fragmentSize);
  const sentences = bounded === undefined && !whole ? new Boundaries(sentenceBoundaries(content)) : undefined;
  const max = whole ? Number.MAX_SAFE_INTEGER : opts.numberOfFragments;
  const kept: Passage[] = [];
  let current: Passage | undefined;
  let lastEnd = 0;
  const close = () => {
    if (current === undefined) return;
    current.score = passageScore(current.matches, current.start, current.end, content.length, docFreq);
    kept.push(current);
    // Lucene's queue: the lowest score leaves first, and of equal scores the earliest passage.
    if (kept.length > max) {
      let worst = 0;
      for (let i = 1; i < kept.length; i++) {
        const a = kept[i] as Passage;
        const w = kept[worst] as Passage;
        if (a.score < w.score || (a.score === w.score && a.start < w.start)) worst = i;
      }
      kept.splice(worst, 1);
    }
    current = undefined;
  };
  for (const m of matches) {
    if (current === undefined || m.start >= current.end) {
      close();
      let start: number;
      let end: number;
      if (bounded !== undefined) {
        start = bounded.preceding(m.start + 1);
        end = bounded.following();
      } else {
        const b = sentences ?? values;
        start = b.preceding(m.start + 1);
        end = b.following(m.start);
      }
      current = { start: Math.max(start, lastEnd), end: Math.min(end, content.length), matches: [], score: 0 };
      lastEnd = current.end;
    }
    current.matches.push(m);
  }
  close();
  return kept.sort((a, b) => a.start - b.start);
}

/** The unified highlighter's fragments of `content`; empty when nothing matched and no_match_size is 0. */
export function unifiedFragments(content: string, keyword: boolean, t: FieldTerms, opts: HighlightOptions): Fragment[] {
  if (content.length === 0) return [];
  const matches = findMatches(content, keyword, t);
  const enc = encoder(opts.encodeHtml);
  if (matches.length === 0) return noMatch(content, opts, enc);
  const out: Fragment[] = passages(content, matches, opts, keyword).map((p) => {
    let text = '';
    let pos = p.start;
    for (let i = 0; i < p.matches.length; i++) {
      const m = p.matches[i] as Match;
      let end = m.end;
      while (i + 1 < p.matches.length && (p.matches[i + 1] as Match).start < end) end = Math.max(end, (p.matches[++i] as Match).end);
      end = Math.min(end, p.end);
      text += enc(content.slice(pos, m.start)) + opts.preTag + enc(content.slice(m.start, end)) + opts.postTag;
      pos = end;
    }
    text += enc(content.slice(pos, Math.max(pos, p.end)));
    if (text.endsWith(VALUE_SEPARATOR) || text.endsWith('\u2029')) text = text.slice(0, -1);
    return { text: opts.numberOfFragments === 0 ? text : text.trim(), score: p.score };
  });
  const shown = out.filter((f) => f.text.trim() !== '');
  return opts.scoreOrder ? shown.sort((a, b) => b.score - a.score) : shown;
}

/** ES's summary when nothing matched: the first value, cut at the first word boundary after no_match_size. */
function noMatch(content: string, opts: HighlightOptions, enc: (s: string) => string): Fragment[] {
  if (opts.noMatchSize <= 0) return [];
  let pos = 0;
  while (pos < content.length && content[pos] === VALUE_SEPARATOR) pos++;
  if (pos >= content.length) return [];
  let end = content.indexOf(VALUE_SEPARATOR, pos);
  if (end === -1) end = content.length;
  if (opts.noMatchSize + pos < end) end = new Boundaries(wordBoundaries(content)).following(opts.noMatchSize + pos);
  // Trimmed whatever number_of_fragments says, as the reference node answers.
  return [{ text: enc(content.slice(pos, end)).trim(), score: Number.NaN }];
}

/** The plain highlighter's fragments of a field's values. */
export function plainFragments(values: readonly string[], keyword: boolean, t: FieldTerms, opts: HighlightOptions): Fragment[] {
  const enc = encoder(opts.encodeHtml);
  const all: { text: string; score: number; num: number }[] = [];
  let num = 0;
  for (const value of values) {
    const matches = findMatches(value, keyword, t);
    if (matches.length === 0) continue;
    const frags = plainValue(value, keyword, matches, opts, enc).map((f) => ({ ...f, num: num++ }));
    const best = frags.filter((f) => f.score > 0).sort((a, b) => b.score - a.score || a.num - b.num);
    all.push(...(opts.numberOfFragments === 0 ? best : best.slice(0, opts.numberOfFragments)));
  }
  if (all.length === 0) {
    if (opts.noMatchSize <= 0 || values.length === 0) return [];
    // The first value up to the last token that ends within no_match_size.
    const first = values[0] as string;
    let end = 0;
    analyzeWith(keyword ? 'keyword' : 'standard', first, (tok) => {
      if (tok.end <= opts.noMatchSize) end = tok.end;
    });
    return end === 0 ? [] : [{ text: enc(first.slice(0, end)), score: 0 }];
  }
  if (opts.scoreOrder) all.sort((a, b) => b.score - a.score);
  const n = opts.numberOfFragments === 0 ? all.length : Math.min(all.length, opts.numberOfFragments);
  return all.slice(0, n).map((f) => ({ text: f.text, score: f.score }));
}

/** One value cut into fragments at the first token ending past each multiple of fragment_size (whole with 0 fragments). */
function plainValue(value: string, keyword: boolean, matches: readonly Match[], opts: HighlightOptions, enc: (s: string) => string): Fragment[] {
  const toks: { start: number; end: number }[] = [];
  analyzeWith(keyword ? 'keyword' : 'standard', value, (tok) => toks.push(tok));
  const cuts: number[] = [];
  let frags = 1;
  for (let i = 1; i < toks.length && opts.numberOfFragments !== 0; i++) {
    const tok = toks[i] as { start: number; end: number };
    if (tok.end >= opts.fragmentSize * frags && value.length - tok.end >= opts.fragmentSize >>> 1) {
      frags++;
      cuts.push((toks[i - 1] as { end: number }).end);
    }
  }
  cuts.push(value.length);
  const out: Fragment[] = [];
  let from = 0;
  for (const to of cuts) {
    const inside = matches.filter((m) => m.start >= from && m.end <= to);
    let text = '';
    let pos = from;
    for (const m of inside) {
      text += enc(value.slice(pos, m.start)) + opts.preTag + enc(value.slice(m.start, m.end)) + opts.postTag;
      pos = m.end;
    }
    text += enc(value.slice(pos, to));
    out.push({ text, score: new Set(inside.map((m) => m.term)).size });
    from = to;
  }
  return out;
}
