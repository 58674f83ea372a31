import { grow, INITIAL, nanArray } from './grow.js';

/** A numeric, date or boolean field: the smallest value per document plus all values when several. */
export class NumericField {
  min = new Float64Array(INITIAL).fill(Number.NaN);
  max = new Float64Array(INITIAL).fill(Number.NaN);
  multi = new Map<number, readonly number[]>();
  /**
   * The smallest and largest value ever added (Infinity and -Infinity before any): bounds of every
   * value the field holds, never narrowed when one goes (a histogram sizes its counts by them).
   */
  lo = Infinity;
  hi = -Infinity;

  add(ord: number, values: readonly number[]): void {
    this.min = grow(this.min, ord + 1, nanArray);
    this.max = grow(this.max, ord + 1, nanArray);
    if (values.length === 0) return;
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of values) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    this.min[ord] = lo;
    this.max[ord] = hi;
    if (lo < this.lo) this.lo = lo;
    if (hi > this.hi) this.hi = hi;
    if (values.length > 1) this.multi.set(ord, values);
  }

  /**
   * Forgets a dead ordinal's values, unless `keep`: a frozen view taken before it died still reads
   * them (see InvertedIndex.frozenView; every reader checks the index's live set).
   */
  remove(ord: number, keep = false): void {
    if (keep) return;
    if (ord < this.min.length) {
      this.min[ord] = Number.NaN;
      this.max[ord] = Number.NaN;
    }
    this.multi.delete(ord);
  }

  /** Drops the values of dead ordinals (see InvertedIndex.releaseView). */
  dropDead(live: Uint8Array): void {
    for (const ord of this.multi.keys()) if (live[ord] !== 1) this.multi.delete(ord);
  }

  snapshot(): unknown {
    return { min: this.min, max: this.max, multi: this.multi };
  }

  static restore(data: unknown): NumericField {
    const d = data as { min: Float64Array<ArrayBuffer>; max: Float64Array<ArrayBuffer>; multi: Map<number, number[]> };
    const field = new NumericField();
    field.min = d.min;
    field.max = d.max;
    for (let i = 0; i < d.min.length; i++) {
      const lo = d.min[i] as number;
      const hi = d.max[i] as number;
      if (lo < field.lo) field.lo = lo;
      if (hi > field.hi) field.hi = hi;
    }
    for (const [k, v] of d.multi) field.multi.set(k, v);
    return field;
  }

  /** Every value of a document (empty when it has none). */
  valuesOf(ord: number): readonly number[] {
    const m = this.multi.get(ord);
    if (m !== undefined) return m;
    const v = this.min[ord];
    return v === undefined || Number.isNaN(v) ? [] : [v];
  }
}
