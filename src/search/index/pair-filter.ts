/**
 * Which term follows which anywhere in a text field: every pair of adjacent tokens of one value
 * (term id, next term id), kept in a Bloom filter that grows by adding layers twice as large as
 * the last (a scalable Bloom filter). It answers "never" or "maybe": never wrong about a pair that
 * was added, sometimes "maybe" for one that was not.
 *
 * The index holds no token positions, so a phrase query reads each candidate document's text to
 * check the phrase (multi-term-exec.ts). A `match_phrase_prefix` whose last word expands to terms
 * that never follow the word before it anywhere in the field need not read the documents of those
 * terms at all: on the Debian corpus that is a third of the candidates (`development fi`, `web ser`
 * none at all). The pairs of deleted and overwritten documents stay (they only make "maybe" more
 * common), so compaction keeps the filter; a point in time shares it (later pairs only add maybes).
 *
 * Memory: about one byte per distinct pair, twice over for the layers (the Debian corpus's
 * descriptions: 745,000 pairs, about 2 MiB).
 */

/** Bits probed per pair. */
const PROBES = 4;
/** Bits per pair of a layer's capacity: with 4 probes, about 2 % "maybe" for an absent pair. */
const BITS_PER_PAIR = 8;
/** Pairs the first layer takes (2 KiB). */
const FIRST_CAPACITY = 2048;

interface Layer {
  readonly bits: Uint32Array;
  /** Pairs it takes before the next layer is made. */
  readonly capacity: number;
  count: number;
}

/** The snapshot form (index-snapshot.ts serializes typed arrays as they are). */
interface PairFilterData {
  readonly layers: readonly { readonly bits: Uint32Array; readonly capacity: number; readonly count: number }[];
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

export class PairFilter {
  private layers: Layer[];

  constructor(layers?: Layer[]) {
    this.layers = layers ?? [newLayer(FIRST_CAPACITY)];
  }

  /** Records that term `next` follows term `first` in some value. */
  add(first: number, next: number): void {
    const layer = this.layers[this.layers.length - 1] as Layer;
    const h1 = mix(Math.imul(first, 0x9e3779b1) ^ next);
    const h2 = mix(Math.imul(next, 0x85ebca6b) ^ first) | 1;
    const bits = layer.bits;
    const mask = bits.length * 32 - 1;
    let fresh = false;
    for (let i = 0; i < PROBES; i++) {
      const at = (h1 + Math.imul(i, h2)) & mask;
      const word = at >>> 5;
      const bit = 1 << (at & 31);
      if (((bits[word] as number) & bit) === 0) {
        bits[word] = (bits[word] as number) | bit;
        fresh = true;
      }
    }
    // A pair already in this layer (all its bits set) is not counted again.
    if (fresh && ++layer.count >= layer.capacity) this.layers.push(newLayer(layer.capacity * 2));
  }

  /** False only when term `next` never followed term `first` in a value added so far. */
  mayFollow(first: number, next: number): boolean {
    const h1 = mix(Math.imul(first, 0x9e3779b1) ^ next);
    const h2 = mix(Math.imul(next, 0x85ebca6b) ^ first) | 1;
    for (const layer of this.layers) {
      const bits = layer.bits;
      const mask = bits.length * 32 - 1;
      let all = true;
      for (let i = 0; i < PROBES && all; i++) {
        const at = (h1 + Math.imul(i, h2)) & mask;
        all = ((bits[at >>> 5] as number) & (1 << (at & 31))) !== 0;
      }
      if (all) return true;
    }
    return false;
  }

  /** Bytes its layers take. */
  get bytes(): number {
    return this.layers.reduce((n, l) => n + l.bits.byteLength, 0);
  }

  snapshot(): PairFilterData {
    return { layers: this.layers.map((l) => ({ bits: l.bits, capacity: l.capacity, count: l.count })) };
  }

  /** The filter of a snapshot; undefined when the snapshot has none (one written before filters were kept). */
  static restore(data: unknown): PairFilter | undefined {
    const d = data as PairFilterData | undefined;
    if (d === undefined || !Array.isArray(d.layers) || d.layers.length === 0) return undefined;
    return new PairFilter(d.layers.map((l) => ({ bits: l.bits, capacity: l.capacity, count: l.count })));
  }
}

/** A layer taking `capacity` pairs: a power of two of bits, at least BITS_PER_PAIR per pair. */
function newLayer(capacity: number): Layer {
  let words = 1;
  while (words * 32 < capacity * BITS_PER_PAIR) words *= 2;
  return { bits: new Uint32Array(words), capacity, count: 0 };
}
