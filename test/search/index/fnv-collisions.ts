/**
 * Values crafted against plain FNV-1a (from the fixed offset basis), the hash the keyword-term and
 * text-term tables once probed by: the flood tests of inverted-index.test.ts and
 * term-dictionary.test.ts feed them to the tables and count the probe runs they make.
 */

export const FNV_PRIME = 0x01000193;
export const FNV_BASIS = 0x811c9dc5 | 0;

/** Plain (unkeyed) FNV-1a over UTF-16 units from state `h`. */
export function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h | 0;
}

export interface CollisionSearch {
  /** The characters of the 5-character blocks. */
  readonly alphabet: string;
  /** The seed of the block generator (an LCG), so that a set is the same on every run. */
  readonly seed: number;
  /** What every value starts with. */
  readonly prefix?: string;
  /** Which bits of the generator's output pick a character. */
  readonly draw?: (r: number) => number;
}

/**
 * 2^rounds distinct values with one plain FNV-1a hash: FNV-1a is iterated, so per round a
 * birthday search (about 2^16 hashes) finds two blocks taking the current state to the same
 * state, and every value so far is extended by either block.
 */
export function fnvCollisions(rounds: number, { alphabet, seed, prefix = '', draw = (r) => r }: CollisionSearch): string[] {
  const rnd = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  let h = fnv(FNV_BASIS, prefix);
  let values = [prefix];
  for (let r = 0; r < rounds; r++) {
    const seen = new Map<number, string>();
    for (;;) {
      let b = '';
      for (let i = 0; i < 5; i++) b += alphabet[draw(rnd()) % alphabet.length];
      const x = fnv(h, b);
      const o = seen.get(x);
      if (o !== undefined && o !== b) {
        values = values.flatMap((v) => [v + o, v + b]);
        h = x;
        break;
      }
      seen.set(x, b);
    }
  }
  return values;
}
