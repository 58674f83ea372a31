import { describe, expect, it } from 'vitest';
import { checkRoutingShards, defaultRoutingShards, routingHash, shardOf } from '../../../src/search/engine/shard-routing.js';
import { murmur3x86_32 } from '../../../src/search/query/id-slice.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('murmur3x86_32', () => {
  it('gives the algorithm’s published values (seed 0)', () => {
    // The reference vectors of Murmur3 x86_32 (SMHasher's MurmurHash3_x86_32), as unsigned hex.
    const hex = (b: Uint8Array) => (murmur3x86_32(b, 0) >>> 0).toString(16);
    expect(hex(utf8(''))).toBe('0');
    expect(hex(utf8('hello'))).toBe('248bfa47');
    expect(hex(utf8('The quick brown fox jumps over the lazy dog'))).toBe('2e4ff723');
    // One, two and three trailing bytes after the 4-byte blocks.
    expect(hex(utf8('a'))).toBe('3c2569b2');
    expect(hex(utf8('abc'))).toBe('b3dd93fa');
    expect(murmur3x86_32(utf8('hello'), 1) >>> 0).toBe(0xbb4abcad);
  });

  it('is a signed 32-bit integer', () => {
    for (const s of ['hello', 'abc', '1', '2', '3', 'x😀y']) {
      const h = routingHash(s);
      expect(Number.isInteger(h) && h >= -(2 ** 31) && h < 2 ** 31).toBe(true);
    }
  });
});

describe('defaultRoutingShards', () => {
  it('multiplies the shards by the largest power of two within 1024, at least by 2', () => {
    const got = [1, 2, 3, 4, 5, 7, 8, 16, 100, 512, 513, 1000, 1024].map(defaultRoutingShards);
    expect(got).toEqual([1024, 1024, 768, 1024, 640, 896, 1024, 1024, 800, 1024, 1026, 2000, 2048]);
  });
});

describe('checkRoutingShards', () => {
  it('takes any multiple of the shards and refuses anything else, as the node does', () => {
    // Taken by the node: 12 and 9 routing shards for 3 shards, 2048 for 2, 3 and 5000 for 1.
    for (const [shards, routing] of [[3, 12], [3, 9], [3, 3], [2, 2048], [1, 1], [1, 3], [1, 5000]] as const) expect(() => checkRoutingShards(shards, routing)).not.toThrow();
    // Refused by the node with these reasons.
    expect(() => checkRoutingShards(3, 10)).toThrow('the number of source shards [3] must be a factor of [10]');
    expect(() => checkRoutingShards(2, 3)).toThrow('the number of source shards [2] must be a factor of [3]');
    expect(() => checkRoutingShards(4, 2)).toThrow('index.number_of_routing_shards [2] must be >= index.number_of_shards [4]');
  });
});

/**
 * Where the OpenSearch 2.19.6 node of the differential tests put documents (each id, or custom
 * routing value, searched with `preference=_shards:N` on an index of that many shards, replicas 0),
 * collected on 2026-11-29 by a probe run beside test/search/differential/shards.int.test.ts, which
 * checks 2,400 placements against the node on every run: [shards, number_of_routing_shards (the
 * node's default, or given), routing value → shard]. The non-ASCII values pin how the hash is fed:
 * UTF-16 code units, not UTF-8 bytes.
 */
const NODE_PLACEMENTS: [number, number, Record<string, number>][] = [
  [2, 1024, { '0': 1, '9': 0, '27': 1, '99': 1, a: 0, abc: 1, abcde: 1, é: 0, ü: 1, 日本語: 0, '😀': 1, 'x😀y': 0, 'Zürich-🚀': 1, AQAAAAAAAAAB: 0, alice: 0, bob: 1, 'tenant/42': 0, Ω: 1, 'key-7': 0 }],
  [3, 768, { '0': 1, '9': 2, '27': 2, '99': 1, a: 0, abc: 0, abcde: 0, é: 1, ü: 1, 日本語: 2, '😀': 0, 'x😀y': 1, 'Zürich-🚀': 2, AQAAAAAAAAAB: 0, alice: 2, bob: 2, 'tenant/42': 0, Ω: 2, 'key-7': 1 }],
  [5, 640, { '0': 3, '9': 0, '27': 2, '99': 1, a: 1, abc: 4, abcde: 1, é: 4, ü: 0, 日本語: 2, '😀': 2, 'x😀y': 4, 'Zürich-🚀': 2, AQAAAAAAAAAB: 3, alice: 4, bob: 3, 'tenant/42': 0, Ω: 1, 'key-7': 0 }],
  [7, 896, { '0': 1, '9': 4, '27': 2, '99': 1, a: 4, abc: 2, abcde: 4, é: 4, ü: 0, 日本語: 2, '😀': 6, 'x😀y': 5, 'Zürich-🚀': 4, AQAAAAAAAAAB: 5, alice: 1, bob: 3, 'tenant/42': 6, Ω: 1, 'key-7': 4 }],
  [16, 1024, { '0': 11, '9': 3, '27': 9, '99': 11, a: 4, abc: 11, abcde: 9, é: 7, ü: 15, 日本語: 0, '😀': 8, 'x😀y': 1, 'Zürich-🚀': 12, AQAAAAAAAAAB: 0, alice: 6, bob: 15, 'tenant/42': 6, Ω: 12, 'key-7': 3 }],
  [3, 12, { '0': 0, '9': 0, '27': 0, '99': 1, a: 0, abc: 0, abcde: 0, é: 1, ü: 2, 日本語: 0, '😀': 2, 'x😀y': 1, 'Zürich-🚀': 0, AQAAAAAAAAAB: 0, alice: 0, bob: 2, 'tenant/42': 2, Ω: 0, 'key-7': 0 }],
  [4, 64, { '0': 2, '9': 2, '27': 0, '99': 0, a: 1, abc: 0, abcde: 3, é: 3, ü: 0, 日本語: 0, '😀': 3, 'x😀y': 1, 'Zürich-🚀': 2, AQAAAAAAAAAB: 0, alice: 2, bob: 0, 'tenant/42': 0, Ω: 1, 'key-7': 2 }],
];

describe('shardOf', () => {
  it('puts each routing value on the node’s shard', () => {
    for (const [shards, routingShards, placed] of NODE_PLACEMENTS) {
      for (const [routing, shard] of Object.entries(placed)) expect([shards, routing, shardOf(routing, shards, routingShards)]).toEqual([shards, routing, shard]);
    }
  });

  it('would put some elsewhere if the hash were fed UTF-8 (the fixtures pin the byte order)', () => {
    const utf8Shard = (r: string, shards: number, rs: number) => Math.floor((((murmur3x86_32(utf8(r), 0) % rs) + rs) % rs) / (rs / shards));
    const moved = NODE_PLACEMENTS.flatMap(([shards, rs, placed]) => Object.entries(placed).filter(([r, shard]) => utf8Shard(r, shards, rs) !== shard));
    expect(moved.length).toBeGreaterThan(20);
  });

  it('puts everything on shard 0 of a one-shard index', () => {
    for (const r of ['a', 'b', '17', '😀']) expect(shardOf(r, 1, 1024)).toBe(0);
  });

  it('stays within the shards and spreads routings over all of them', () => {
    for (const shards of [2, 3, 5, 7, 16]) {
      const seen = new Set<number>();
      for (let i = 0; i < 500; i++) {
        const s = shardOf(String(i), shards, defaultRoutingShards(shards));
        expect(s >= 0 && s < shards).toBe(true);
        seen.add(s);
      }
      expect(seen.size).toBe(shards);
    }
  });
});
