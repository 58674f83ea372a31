/**
 * The per-document typed arrays of the index's fields grow by doubling, from INITIAL slots; one
 * helper for every field kind (text-field.ts, keyword-field.ts, numeric-field.ts) and the index.
 */

export const INITIAL = 4;

export function grow<T extends Uint8Array | Float64Array | Int32Array>(arr: T, need: number, make: (n: number) => T): T {
  if (need <= arr.length) return arr;
  const next = make(Math.max(need, arr.length * 2));
  next.set(arr);
  return next;
}

export const byteArray = (n: number): Uint8Array<ArrayBuffer> => new Uint8Array(n);
export const nanArray = (n: number): Float64Array<ArrayBuffer> => new Float64Array(n).fill(Number.NaN);
