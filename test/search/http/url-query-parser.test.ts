import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseUrlQuery } from '../../../src/search/http/url-query-parser.js';

describe('parseUrlQuery', () => {
  it('keeps the last value of a repeated name', () => {
    expect(parseUrlQuery('from=0&size=3&from=1&from=2')).toEqual({ from: '2', size: '3' });
  });

  it('decodes as Fastify did (plus is a space, a bad escape stays as written, a bare name is empty)', () => {
    expect(parseUrlQuery('q=a+b%3Ac&x=%zz&pretty')).toEqual({ q: 'a b:c', x: '%zz', pretty: '' });
    expect(parseUrlQuery('')).toEqual({});
  });

  it('gives every name present its last value, always a string', () => {
    const name = fc.constantFrom('a', 'b', 'from', 'size', '_source');
    const value = fc.stringMatching(/^[a-z0-9]{0,4}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 8 }), (pairs) => {
        const parsed = parseUrlQuery(pairs.map(([k, v]) => `${k}=${v}`).join('&'));
        const last = new Map(pairs);
        expect(Object.keys(parsed).sort()).toEqual([...last.keys()].sort());
        for (const [k, v] of last) expect(parsed[k]).toBe(v);
      }),
    );
  });
});
