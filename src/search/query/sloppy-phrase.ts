/**
 * The frequency of a sloppy phrase (`match_phrase` with `slop` > 0) in one document, as Lucene's
 * SloppyPhraseMatcher computes it, so that Portico finds and scores the same documents as
 * Elasticsearch: each match found contributes 1 / (1 + its distance), and the sum goes into BM25
 * in place of the term frequency.
 *
 * The matcher walks the terms' positions with a queue ordered by "phrase position" (a position
 * minus the term's place in the query), always moving the least one on: it does not find every
 * valid combination (a document "a b c b a" scores differently for "a b c"~4 and "c b a"~4), and
 * that is the behaviour to reproduce, not to improve. A term the query repeats ("a b a"~2) forms a
 * group whose members may never stand on the same document position; Lucene resolves a collision
 * by moving the lesser of the two on.
 */

interface PhrasePosition {
  /** The document positions of this query term, ascending. */
  readonly positions: readonly number[];
  /** The term's place in the query. */
  readonly offset: number;
  /** Its index among the query's terms (the last tiebreak of the queue). */
  readonly ord: number;
  /** Next index in `positions`. */
  next: number;
  /** The current document position minus `offset`. */
  position: number;
  /** The group of query terms that repeat this one (-1: none). */
  group: number;
}

function lessThan(a: PhrasePosition, b: PhrasePosition): boolean {
  if (a.position !== b.position) return a.position < b.position;
  if (a.offset !== b.offset) return a.offset < b.offset;
  return a.ord < b.ord;
}

function advance(pp: PhrasePosition): boolean {
  const p = pp.positions[pp.next];
  if (p === undefined) return false;
  pp.next++;
  pp.position = p - pp.offset;
  return true;
}

/** A queue of a handful of entries: a linear scan is cheaper than a heap and stays right when positions move in place. */
class PhraseQueue {
  readonly items: PhrasePosition[] = [];

  add(pp: PhrasePosition): void {
    this.items.push(pp);
  }

  private leastIndex(): number {
    let best = 0;
    for (let i = 1; i < this.items.length; i++) if (lessThan(this.items[i] as PhrasePosition, this.items[best] as PhrasePosition)) best = i;
    return best;
  }

  top(): PhrasePosition {
    return this.items[this.leastIndex()] as PhrasePosition;
  }

  pop(): PhrasePosition {
    const i = this.leastIndex();
    const pp = this.items[i] as PhrasePosition;
    this.items.splice(i, 1);
    return pp;
  }
}

class SloppyMatcher {
  private end = Number.MIN_SAFE_INTEGER;
  private readonly queue = new PhraseQueue();
  private readonly groups: PhrasePosition[][];
  private positioned: boolean;
  matchLength = Number.MAX_SAFE_INTEGER;

  constructor(private readonly pps: PhrasePosition[], terms: readonly string[], private readonly slop: number) {
    const byTerm = new Map<string, PhrasePosition[]>();
    pps.forEach((pp, i) => {
      const t = terms[i] as string;
      byTerm.set(t, [...(byTerm.get(t) ?? []), pp]);
    });
    this.groups = [...byTerm.values()].filter((g) => g.length > 1).map((g) => g.sort((a, b) => a.offset - b.offset));
    this.groups.forEach((g, gi) => g.forEach((pp) => (pp.group = gi)));
    this.positioned = this.init();
  }

  private init(): boolean {
    for (const pp of this.pps) if (!advance(pp)) return false;
    // The members of a repeat group start apart: the j-th (by offset) is moved on j times.
    for (const g of this.groups) {
      for (let j = 1; j < g.length; j++) for (let k = 0; k < j; k++) if (!advance(g[j] as PhrasePosition)) return false;
    }
    for (const pp of this.pps) {
      if (pp.position > this.end) this.end = pp.position;
      this.queue.add(pp);
    }
    return true;
  }

  private advancePP(pp: PhrasePosition): boolean {
    if (!advance(pp)) return false;
    if (pp.position > this.end) this.end = pp.position;
    return true;
  }

  /** The member of pp's group standing on the same document position, if any. */
  private collide(pp: PhrasePosition): PhrasePosition | undefined {
    const at = pp.position + pp.offset;
    for (const other of this.groups[pp.group] ?? []) if (other !== pp && other.position + other.offset === at) return other;
    return undefined;
  }

  /** After pp moved: moves the lesser of each colliding pair on until none collide; false when positions run out. */
  private advanceRepeats(pp: PhrasePosition): boolean {
    if (pp.group < 0) return true;
    let moving = pp;
    for (let other = this.collide(moving); other !== undefined; other = this.collide(moving)) {
      const lesser = moving.position < other.position || (moving.position === other.position && moving.offset < other.offset) ? moving : other;
      if (!this.advancePP(lesser)) return false;
      moving = lesser;
    }
    return true;
  }

  nextMatch(): boolean {
    if (!this.positioned) return false;
    let pp = this.queue.pop();
    this.matchLength = this.end - pp.position;
    let next = this.queue.top().position;
    while (this.advancePP(pp)) {
      if (!this.advanceRepeats(pp)) break;
      if (pp.position > next) {
        this.queue.add(pp);
        if (this.matchLength <= this.slop) return true;
        pp = this.queue.pop();
        next = this.queue.top().position;
        this.matchLength = this.end - pp.position;
      } else if (this.end - pp.position < this.matchLength) {
        this.matchLength = this.end - pp.position;
      }
    }
    this.positioned = false;
    return this.matchLength <= this.slop;
  }
}

/**
 * The sloppy frequency of the phrase `terms` (analyzed, in query order, at least two) within
 * `slop` in a document whose tokens are `docTokens` (positions are the indexes; values of a
 * multi-valued field separated as the caller placed them). 0 when the phrase does not match.
 */
export function sloppyPhraseFreq(docTokens: ReadonlyMap<string, readonly number[]>, terms: readonly string[], slop: number): number {
  const pps: PhrasePosition[] = [];
  for (let i = 0; i < terms.length; i++) {
    const positions = docTokens.get(terms[i] as string);
    if (positions === undefined || positions.length === 0) return 0;
    pps.push({ positions, offset: i, ord: i, next: 0, position: 0, group: -1 });
  }
  const matcher = new SloppyMatcher(pps, terms, slop);
  let freq = 0;
  // Lucene sums the weights in a float.
  while (matcher.nextMatch()) freq = Math.fround(freq + Math.fround(1 / (1 + matcher.matchLength)));
  return freq;
}

/**
 * The positions of each token of a field's values, as Lucene indexes them: one after the other
 * within a value, and `gap` (the field's position_increment_gap, 100 by default) more between two
 * values.
 */
export function tokenPositions(values: readonly string[], analyze: (text: string, emit: (token: string) => void) => void, gap: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  let position = -1;
  values.forEach((v, i) => {
    if (i > 0) position += gap;
    analyze(v, (t) => {
      position++;
      const list = out.get(t);
      if (list === undefined) out.set(t, [position]);
      else list.push(position);
    });
  });
  return out;
}

/**
 * The exact (slop 0) frequency of the phrase `terms` in `docTokens` (see tokenPositions): the
 * positions where each term follows the one before, overlapping matches counted, as Lucene's
 * ExactPhraseMatcher counts them. For values close enough (position_increment_gap) to share one.
 */
export function exactPhraseFreq(docTokens: ReadonlyMap<string, readonly number[]>, terms: readonly string[]): number {
  const lists = terms.map((t) => new Set(docTokens.get(t) ?? []));
  let freq = 0;
  for (const p of docTokens.get(terms[0] as string) ?? []) if (lists.every((set, j) => set.has(p + j))) freq++;
  return freq;
}
