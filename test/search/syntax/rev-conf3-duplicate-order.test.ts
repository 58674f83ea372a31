import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors, SearchError } from '../../../src/search/errors.js';
import { findDuplicateKey, readInTextOrder, textLocation } from '../../../src/search/syntax/json-members.js';
import { startSearch, type SearchHarness } from '../harness.js';

// Review of s-conf3: ES reads a search body as a stream, so a problem its parser meets before the
// repeated key (an unknown query, an unknown field) is what it answers; the branch checks the
// whole text for repeated keys before reading the body, so it answers "Duplicate field" instead.
// (The update body already follows the text order: checkUpdateBody.)

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('a repeated key after another problem (review)', () => {
  let h: SearchHarness;
  const post = async (url: string, payload: string): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
    await post('/o/_doc/1?refresh=true', '{"t":"fox"}');
  });
  afterAll(async () => h.close());

  it('answers the unknown query met first, not the later repeated size', async () => {
    const res = await post('/o/_search', '{"query":{"matc":{}},"size":1,"size":2}');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).not.toContain('Duplicate field');
    expect(res.body.error.reason).toContain('unknown query [matc]');
  });

  it('answers the repeated key when the problem lies after it', async () => {
    const res = await post('/o/_search', '{"size":1,"size":2,"query":{"matc":{}}}');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe("[1:17] Duplicate field 'size'");
  });

  it('answers a problem in the first of two values, which ES reads before the second', async () => {
    const res = await post('/o/_search', '{"query":{"matc":{}},"query":{"match_all":{}}}');
    expect(res.body.error.reason).toContain('unknown query [matc]');
  });

  it('answers the repeated key, not a member the cut text lacks (ES never reaches the object end)', async () => {
    const res = await post('/o/_search', '{"query":{"match":{"t":{"boost":1,"boost":2,"query":"fox"}}}}');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toContain("Duplicate field 'boost'");
  });

  it('follows the text order in _count and _mget bodies and _msearch lines', async () => {
    expect((await post('/o/_count', '{"query":{"matc":{}},"query":{}}')).body.error.reason).toContain('unknown query [matc]');
    expect((await post('/o/_count', '{"query":{"match_all":{}},"query":{"matc":{}}}')).body.error.reason).toContain("Duplicate field 'query'");
    const mget = await post('/o/_mget', '{"idz":["1"],"ids":["1"],"ids":["2"]}');
    expect(mget.status).toBe(400);
    expect(mget.body.error.reason).not.toContain('Duplicate field');
    expect((await post('/o/_mget', '{"ids":["1"],"ids":["2"]}')).body.error.reason).toContain("Duplicate field 'ids'");
    // The header is parsed whole into a map before its keys are checked (readMultiLineFormat).
    const header = await post('/_msearch', '{"indx":"o","index":"o","index":"o"}\n{}\n');
    expect(header.body.error.reason).toBe("[1:32] Duplicate field 'index'");
    const body = await post('/_msearch', '{}\n{"query":{"matc":{}},"size":1,"size":1}\n');
    expect(body.body.error.reason).toContain('unknown query [matc]');
    expect((await post('/_msearch', '{"index":"o","index":"o"}\n{}\n')).body.error.reason).toBe("[1:21] Duplicate field 'index'");
  });
});

describe('readInTextOrder (fix)', () => {
  const ws = fc.constantFrom('', ' ', '\n', ' \t');
  /** `{"a":A,"o":{…"k":X,…"k":Y…},"z":Z}` with whitespace anywhere: one repeated key, in a nested object. */
  const texts = fc
    .record({ a: fc.jsonValue(), x: fc.jsonValue(), y: fc.jsonValue(), z: fc.jsonValue(), w: fc.array(ws, { minLength: 8, maxLength: 8 }) })
    .map(({ a, x, y, z, w }) => {
      const [w0, w1, w2, w3, w4, w5, w6, w7] = w as [string, string, string, string, string, string, string, string];
      return `{${w0}"a":${JSON.stringify(a)},${w1}"o":${w2}[{"k"${w3}:${w4}${JSON.stringify(x)}${w5},${w6}"k":${JSON.stringify(y)},"m":1}]${w7},"z":${JSON.stringify(z)}}`;
    });
  const dupReason = (t: string): string => {
    const d = findDuplicateKey(t) as { key: string; at: number };
    const { line, col } = textLocation(t, d.at);
    return errors.duplicateField(line, col, d.key).message;
  };
  const reasonOf = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      if (e instanceof SearchError) return e.message;
      throw e;
    }
    return 'none';
  };

  it('answers the repeated key when the reader refuses nothing, or only what lies after it', () => {
    fc.assert(
      fc.property(texts, (t) => {
        expect(reasonOf(() => readInTextOrder(t, JSON.parse(t), () => 1))).toBe(dupReason(t));
        // A check at the end of the object the key repeats in (its "m" member), which ES never reaches.
        const needsM = (v: unknown): number => {
          const o = ((v as { o: unknown[] }).o[0] ?? {}) as Record<string, unknown>;
          if (o.m === undefined) throw errors.parsing('m is missing');
          return 1;
        };
        expect(reasonOf(() => readInTextOrder(t, JSON.parse(t), needsM))).toBe(dupReason(t));
        const refusesZ = (v: unknown): number => {
          if ((v as Record<string, unknown>).z !== undefined) throw errors.parsing('z refused');
          return 1;
        };
        expect(reasonOf(() => readInTextOrder(t, JSON.parse(t), refusesZ))).toBe(dupReason(t));
      }),
    );
  });

  it('answers what the reader refuses before the repeated key', () => {
    fc.assert(
      fc.property(texts, (t) => {
        const refusesA = (): number => {
          throw errors.parsing('a refused');
        };
        expect(reasonOf(() => readInTextOrder(t, JSON.parse(t), refusesA))).toBe('a refused');
      }),
    );
  });
});
