import { errors } from '../errors.js';
import { murmur3x86_32 } from '../query/id-slice.js';

/**
 * Which shard of an index a document lives on, as Elasticsearch 7+ and OpenSearch place it:
 * the routing value (the document's `_routing` when it has one, else its `_id`) is hashed with
 * Murmur3 (x86, 32 bits, seed 0) over its UTF-16 code units, each written as two bytes, low byte
 * first; the signed hash is taken modulo `index.number_of_routing_shards` (the remainder of a
 * floored division, never negative) and divided by the routing factor (routing shards per shard).
 * The byte order and the default number of routing shards were checked against the OpenSearch
 * node (test/search/engine/shard-routing.test.ts holds the placements it answered).
 */

/** The hash of a routing value: Murmur3 of its UTF-16 code units, two bytes each, low byte first. */
export function routingHash(routing: string): number {
  const bytes = new Uint8Array(routing.length * 2);
  for (let i = 0; i < routing.length; i++) {
    const c = routing.charCodeAt(i);
    bytes[2 * i] = c & 0xff;
    bytes[2 * i + 1] = c >>> 8;
  }
  return murmur3x86_32(bytes, 0);
}

/** The most routing shards an index gets by default: 1024 (2^10). */
const LOG2_MAX_ROUTING_SHARDS = 10;

/**
 * The default `index.number_of_routing_shards`: `shards` times the largest power of two that keeps
 * the product within 1024, and at least `shards` × 2 (an index can always be split once).
 */
export function defaultRoutingShards(shards: number): number {
  // ceil(log2(shards)): the bits needed to write shards - 1.
  const log2Shards = shards <= 1 ? 0 : 32 - Math.clz32(shards - 1);
  const splits = Math.max(1, LOG2_MAX_ROUTING_SHARDS - log2Shards);
  return shards * 2 ** splits;
}

/**
 * `index.number_of_routing_shards` as given at creation, checked as the node checks it: at least
 * the shard count and a multiple of it (any multiple: 9 routing shards for 3 shards is taken).
 */
export function checkRoutingShards(shards: number, routingShards: number): void {
  if (routingShards < shards) {
    throw errors.illegalArgument(`index.number_of_routing_shards [${routingShards}] must be >= index.number_of_shards [${shards}]`);
  }
  if (routingShards % shards !== 0) throw errors.illegalArgument(`the number of source shards [${shards}] must be a factor of [${routingShards}]`);
}

/** The shard (0-based) a routing value goes to. */
export function shardOf(routing: string, shards: number, routingShards: number): number {
  if (shards === 1) return 0;
  const h = routingHash(routing);
  // floorMod: the remainder of a floored division, never negative for a positive divisor.
  const m = ((h % routingShards) + routingShards) % routingShards;
  return Math.floor(m / (routingShards / shards));
}
