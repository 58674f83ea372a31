import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJson } from '../../src/management/go-json.js';

describe('Go-compatible JSON', () => {
  it('escapes HTML characters and line separators as Go does', () => {
    expect(goJson({ rule: 'Host(`a`) && Path(`/<x>`)', s: '\u2028\u2029' })).toBe('{"rule":"Host(`a`) \\u0026\\u0026 Path(`/\\u003cx\\u003e`)","s":"\\u2028\\u2029"}');
  });

  it('writes BigInt values as exact integers', () => {
    expect(goJson({ p: 9223372036854775807n, n: -1n, list: [9223372036854775805n] })).toBe('{"p":9223372036854775807,"n":-1,"list":[9223372036854775805]}');
  });

  it('does not mistake a string for a BigInt marker', () => {
    expect(JSON.parse(goJson({ s: '\u0000bigint:12' }))).toEqual({ s: '\u0000bigint:12' });
  });

  it('round-trips any JSON value (property)', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      expect(JSON.parse(goJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
    }), { numRuns: 300 });
  });
});
