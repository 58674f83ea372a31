/**
 * A min-heap of (expiry time, group id). Entries are never updated in place: a group whose expiry
 * moved just gets a new entry, and the store ignores stale ones when they come due.
 */
export class ExpiryQueue {
  private readonly heap: { at: number; id: string }[] = [];

  get size(): number {
    return this.heap.length;
  }

  add(at: number, id: string): void {
    const h = this.heap;
    h.push({ at, id });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((h[p] as { at: number }).at <= at) break;
      [h[p], h[i]] = [h[i] as { at: number; id: string }, h[p] as { at: number; id: string }];
      i = p;
    }
  }

  /** Removes and returns every entry due at `now` (at <= now). */
  *due(now: number): Generator<{ at: number; id: string }> {
    const h = this.heap;
    while (h.length > 0 && (h[0] as { at: number }).at <= now) {
      const top = h[0] as { at: number; id: string };
      const last = h.pop() as { at: number; id: string };
      if (h.length > 0) {
        h[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < h.length && (h[l] as { at: number }).at < (h[m] as { at: number }).at) m = l;
          if (r < h.length && (h[r] as { at: number }).at < (h[m] as { at: number }).at) m = r;
          if (m === i) break;
          [h[m], h[i]] = [h[i] as { at: number; id: string }, h[m] as { at: number; id: string }];
          i = m;
        }
      }
      yield top;
    }
  }

  clear(): void {
    this.heap.length = 0;
  }
}
