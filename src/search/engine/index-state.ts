import { InvertedIndex } from '../index/inverted-index.js';
import type { Mappings } from '../mapping/mapping.js';
import { ScratchArena } from '../query/scratch-arena.js';
import type { IndexSettings } from './index-settings.js';

/**
 * One index as the engine holds it: its settings and mappings, the in-memory index over its
 * documents, and per document the version and sequence number of the live write. Its own module
 * because everything in engine/ reads it (searches, scrolls, writes) while the registry
 * (index-registry.ts) alone makes them.
 */
export interface IndexState {
  readonly name: string;
  readonly uuid: string;
  readonly createdMs: number;
  /** Replaced when the index is closed or opened (`index.verified_before_close`). */
  settings: IndexSettings;
  mappings: Mappings;
  readonly index: InvertedIndex;
  /** Per ordinal: version and sequence number of the live document. */
  readonly versions: number[];
  readonly seqNos: number[];
  nextSeqNo: number;
  /** Scratch memory reused by every query on this index (see scratch-arena.ts). */
  readonly arena: ScratchArena;
}

/** A fresh state with no documents (or over `index`, restored from a snapshot). */
export function newIndexState(name: string, uuid: string, createdMs: number, settings: IndexSettings, mappings: Mappings, index = new InvertedIndex()): IndexState {
  return { name, uuid, createdMs, settings, mappings, index, versions: [], seqNos: [], nextSeqNo: 0, arena: new ScratchArena() };
}
