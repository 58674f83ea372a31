import { InvertedIndex } from '../index/inverted-index.js';
import type { Mappings } from '../mapping/mapping.js';
import { ScratchArena } from '../query/scratch-arena.js';
import type { IndexSettings } from './index-settings.js';
import { shardOf } from './shard-routing.js';

/**
 * One shard of an index as the engine holds it: the index's settings and mappings, the in-memory
 * index over the shard's documents, and per document the version and sequence number of the live
 * write (sequence numbers count per shard, as in ES). An index of one shard is that shard; an
 * index of several is its shard 0, which the registry hands out for the index, with the others in
 * `shards` (they share its settings and mappings: setting them on any sets them for all). Its own
 * module because everything in engine/ reads it (searches, scrolls, writes) while the registry
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
  /** This shard's number (0 for the index's first, the state the registry hands out). */
  readonly shard: number;
  /** Every shard of the index, in shard order (`[this]` for an index of one shard). */
  readonly shards: readonly IndexState[];
}

/** What a shard is restored with from a snapshot (index-snapshot.ts). */
export interface RestoredShard {
  readonly index: InvertedIndex;
  readonly versions: number[];
  readonly seqNos: number[];
  readonly nextSeqNo: number;
}

/**
 * A fresh index with no documents of `settings.numberOfShards` shards (or over `restored`, one per
 * shard, from a snapshot): its shard 0.
 */
export function newIndexState(name: string, uuid: string, createdMs: number, settings: IndexSettings, mappings: Mappings, restored?: readonly RestoredShard[]): IndexState {
  const shards: IndexState[] = [];
  const shardState = (shard: number): IndexState => {
    const r = restored?.[shard];
    return { name, uuid, createdMs, settings, mappings, index: r?.index ?? new InvertedIndex(), versions: r?.versions ?? [], seqNos: r?.seqNos ?? [], nextSeqNo: r?.nextSeqNo ?? 0, arena: new ScratchArena(), shard, shards };
  };
  const first = shardState(0);
  shards.push(first);
  for (let k = 1; k < settings.numberOfShards; k++) {
    const s = shardState(k);
    // The index's settings and mappings are the first shard's: changed on one, changed on all.
    Object.defineProperty(s, 'settings', { enumerable: true, get: () => first.settings, set: (v: IndexSettings) => (first.settings = v) });
    Object.defineProperty(s, 'mappings', { enumerable: true, get: () => first.mappings, set: (v: Mappings) => (first.mappings = v) });
    shards.push(s);
  }
  return first;
}

/** The shard of `state`'s index that routing value `routing` (a document's `_routing`, else its `_id`) goes to. */
export function shardFor(state: IndexState, routing: string): IndexState {
  const { shards } = state;
  if (shards.length === 1) return state;
  return shards[shardOf(routing, shards.length, state.settings.numberOfRoutingShards)] as IndexState;
}

/** ES's broadcast `_shards` (`_refresh`, `_stats`, `_cache/clear`) over indices on one node: every copy counted, the primaries answering. */
export function broadcastShards(states: readonly IndexState[]): { total: number; successful: number; failed: number } {
  let total = 0;
  let successful = 0;
  for (const s of states) {
    total += s.settings.numberOfShards * (1 + s.settings.numberOfReplicas);
    successful += s.settings.numberOfShards;
  }
  return { total, successful, failed: 0 };
}
