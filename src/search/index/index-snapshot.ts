import { deserialize, serialize } from 'node:v8';
import { InvertedIndex } from './inverted-index.js';

/**
 * The in-memory indices as one buffer, saved by the document store at a clean shutdown and read
 * back at start instead of re-indexing every stored document (see SqliteDocumentStore.loadSnapshot
 * for when a snapshot is trusted). The index classes hand out their typed arrays and plain data
 * (`snapshot()`), and v8's serializer writes them without per-element work.
 */

/**
 * Version of the layout (the index classes' snapshot()); a snapshot of another one is ignored.
 * 2: a posting list's record keeps its write position and block end instead of tail and fill.
 * 3: a term dictionary slot holds the term id and, when short, the term (4 int32 instead of 2);
 *    date values honour the field's mapping format (a format-2 snapshot holds them as ISO 8601 or
 *    epoch millis read them, e.g. epoch_second values as millis): rebuilt from the documents once.
 * 4: a term dictionary saves its terms without its table, whose token hashes are now keyed per
 *    process (TermDictionary.restore rebuilds it); a format-3 reader would take this format's
 *    missing table for an error, and a format-3 table's hashes mean nothing to this process.
 */
export const SNAPSHOT_FORMAT = 4;

/** What a snapshot holds per index besides settings and mappings (those come from the store). */
export interface IndexSnapshotState {
  readonly name: string;
  readonly index: InvertedIndex;
  /** Per ordinal: version and sequence number of the live document. */
  readonly versions: number[];
  readonly seqNos: number[];
  readonly nextSeqNo: number;
}

export function saveIndices(states: readonly IndexSnapshotState[]): Buffer {
  const indices = states.map((s) => ({ name: s.name, index: s.index.snapshot(), versions: s.versions, seqNos: s.seqNos, nextSeqNo: s.nextSeqNo }));
  return serialize({ format: SNAPSHOT_FORMAT, indices });
}

/**
 * The indices of a snapshot by name; undefined when it is of another format or does not hold
 * exactly the indices named (then the caller rebuilds from the documents).
 */
export function restoreIndices(buf: Buffer, names: readonly string[]): Map<string, IndexSnapshotState> | undefined {
  const data = deserialize(buf) as { format: number; indices: { name: string; index: unknown; versions: number[]; seqNos: number[]; nextSeqNo: number }[] };
  if (data.format !== SNAPSHOT_FORMAT) return undefined;
  const byName = new Map(data.indices.map((d) => [d.name, d]));
  if (names.length !== byName.size || names.some((n) => !byName.has(n))) return undefined;
  const out = new Map<string, IndexSnapshotState>();
  for (const d of data.indices) out.set(d.name, { name: d.name, index: InvertedIndex.restore(d.index), versions: d.versions, seqNos: d.seqNos, nextSeqNo: d.nextSeqNo });
  return out;
}
