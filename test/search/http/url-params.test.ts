import { describe, expect, it, beforeEach } from 'vitest';
import { checkParams, preferenceIncludes, SEARCH_PARAMS } from '../../../src/search/http/url-params.js';
import { searchForEach } from '../harness.js';

/**
 * URL parameters (http/url-params.ts): the check of unknown and misspelled parameters, and a
 * parameter given twice.
 */

const message = (params: Record<string, string>): string => {
  try {
    checkParams('/i/_search', params, SEARCH_PARAMS);
    return 'ok';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('URL parameter check', () => {
  it('accepts what the handler reads', () => {
    expect(message({ q: 'x', size: '1', pretty: 'true', _source_includes: 'a' })).toBe('ok');
  });

  it('names unknown parameters, with the close known names best first', () => {
    expect(message({ zzz_unknown: '1' })).toBe('request [/i/_search] contains unrecognized parameter: [zzz_unknown]');
    expect(message({ sise: '1' })).toBe('request [/i/_search] contains unrecognized parameter: [sise] -> did you mean [size]?');
    expect(message({ zzz: '1', fromm: '1' })).toBe('request [/i/_search] contains unrecognized parameters: [fromm] -> did you mean [from]?, [zzz]');
    expect(message({ timeou: '1' })).toMatch(/^request \[\/i\/_search\] contains unrecognized parameter: \[timeou\] -> did you mean \[timeout\]\?$/);
  });
});

describe('a repeated query parameter', () => {
  /**
   * A query parameter given twice (`?from=1&from=2`): ES keeps the last value (RestUtils
   * decodeQueryString puts each into a map). Fastify hands it over as an array, which the
   * parameter readers once answered with a 500.
   */
  const h = searchForEach();
  beforeEach(async () => {
    await h.app.inject({ method: 'PUT', url: '/t/_doc/1?refresh=true', payload: { a: 'x y', n: 1 } });
    await h.app.inject({ method: 'PUT', url: '/t/_doc/2?refresh=true', payload: { a: 'x', n: 2 } });
  });

  describe('a repeated query parameter', () => {
    it.each([
      ['GET', '/t/_search?from=0&from=1'],
      ['GET', '/t/_search?size=5&size=1'],
      ['GET', '/t/_search?q=a:y&q=a:x'],
      ['GET', '/t/_doc/1?_source=a&_source=n'],
    ] as const)('%s %s is not a 500', async (method, url) => {
      const res = await h.app.inject({ method, url });
      expect(res.statusCode, res.body).toBeLessThan(500);
    });

    it('keeps the last value, as ES does', async () => {
      const hits = async (url: string) => ((await h.app.inject({ method: 'GET', url })).json() as { hits: { hits: { _id: string }[] } }).hits.hits.map((x) => x._id);
      expect(await hits('/t/_search?size=5&size=1&sort=n')).toEqual(['1']);
      expect(await hits('/t/_search?from=5&from=1&sort=n')).toEqual(['2']);
      expect(await hits('/t/_search?q=a:x&q=a:y')).toEqual(['1']);
      const doc = (await h.app.inject({ method: 'GET', url: '/t/_doc/1?_source=a&_source=n' })).json() as { _source: unknown };
      expect(doc._source).toEqual({ n: 1 });
      const upd = await h.app.inject({ method: 'POST', url: '/t/_update/1?retry_on_conflict=1&retry_on_conflict=x', payload: { doc: { n: 3 } } });
      expect(upd.json()).toMatchObject({ error: { reason: 'Failed to parse int parameter [retry_on_conflict] with value [x]' } });
    });
  });
});

describe('preference', () => {
  it('searches shard 0 unless _shards names no shard 0, reading the ids as Integer.parseInt until 0 is found', () => {
    for (const p of [undefined, '', 'session-1', '_local', '_only_local', '_prefer_nodes:a', '_shards:0', '_shards:1,0', '_shards:+0', '_shards:00', '_shards:0,', '_shards:0,abc', '_shards:0|_local', '_shards:0|']) {
      expect(preferenceIncludes(p, 0)).toBe(true);
    }
    for (const p of ['_shards:1', '_shards:1,2', '_shards:-1', '_shards:', '_shards:,', '_shards:1|_local', '_shards:1|abc']) expect(preferenceIncludes(p, 0)).toBe(false);
    const refusal = (p: string) => {
      try {
        preferenceIncludes(p, 0);
      } catch (e) {
        return (e as { toBody(): { error: { type: string; reason: string } } }).toBody().error;
      }
      return undefined;
    };
    expect(refusal('_shards:abc,0')).toMatchObject({ type: 'number_format_exception', reason: 'For input string: "abc"' });
    expect(refusal('_shards:1,,0')).toMatchObject({ type: 'number_format_exception', reason: 'For input string: ""' });
    expect(refusal('_shards: 1')).toMatchObject({ type: 'number_format_exception', reason: 'For input string: " 1"' });
    expect(refusal('_shards:2147483648')).toMatchObject({ type: 'number_format_exception' });
    expect(refusal('_shards:0|abc')).toMatchObject({ type: 'illegal_argument_exception', reason: 'no Preference for [abc]' });
    expect(refusal('_primary')).toMatchObject({ type: 'illegal_argument_exception', reason: 'no Preference for [_primary]' });
  });

  it('names any shard by number, each shard reading the ids until its own is found', () => {
    const shards = (p: string | undefined, n: number) => Array.from({ length: n }, (_, k) => k).filter((k) => preferenceIncludes(p, k));
    expect(shards('_shards:2,0', 4)).toEqual([0, 2]);
    expect(shards('_shards:3|_local', 4)).toEqual([3]);
    expect(shards('_shards:7', 4)).toEqual([]);
    expect(shards(undefined, 3)).toEqual([0, 1, 2]);
    expect(shards('custom', 3)).toEqual([0, 1, 2]);
    // Shard 1 is found before the bad id; shard 0 reads on and fails there.
    expect(preferenceIncludes('_shards:1,x', 1)).toBe(true);
    expect(() => preferenceIncludes('_shards:1,x', 0)).toThrow();
  });
});
