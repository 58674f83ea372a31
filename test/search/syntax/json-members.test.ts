import fc from 'fast-check';
import { describe, expect, it, beforeAll } from 'vitest';
import { findDuplicateKey, readInTextOrder, textLocation } from '../../../src/search/syntax/json-members.js';
import { searchForAll } from '../harness.js';
import { errors, SearchError } from '../../../src/search/errors.js';

/**
 * Repeated JSON keys: findDuplicateKey and readInTextOrder (syntax/json-members.ts), and every
 * request body and line that goes through them (_search, _count, _mget, _msearch, _bulk), answered
 * in ES's order.
 */

// findDuplicateKey scans every `_search`/`_count`/`_mget` body, `_msearch` line
// and update body (`_bulk` update lines included). Checked here against a plain recursive-descent
// reading of the same text: the first key, in text order, that repeats one of its object's, and
// the offset just past its closing quote.

/** The reference: reads `text` (valid JSON) value by value, keeping each object's keys. */
function reference(text: string): { key: string; at: number } | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): { key: string; at: number } | undefined => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const keys = new Set<string>();
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        const key = str();
        if (keys.has(key)) return { key, at: i };
        keys.add(key);
        ws();
        i++; // :
        const found = value();
        if (found !== undefined) return found;
        ws();
        if (text[i++] === '}') return undefined;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        const found = value();
        if (found !== undefined) return found;
        ws();
        if (text[i++] === ']') return undefined;
      }
    }
    if (c === '"') return void str();
    while (i < text.length && !' \t\n\r,]}'.includes(text[i] as string)) i++;
    return undefined;
  };
  return value();
}

// Keys from a small set (so objects often repeat one), some written with escapes that decode to
// another's text, and strings that look like JSON.
const KEYS = ['a', 'b', '\\u0061', 'é', '\\u00e9', '\\"', '\\\\', 'a\\\\', '{\\"a\\":1}', ':', '', '😀', '\\ud83d\\ude00'];
const space = fc.constantFrom('', ' ', '\n', '\t', ' \r\n ');
const text = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('1', '-2.5e3', 'true', 'null', '"x"', '"a\\\\"', '"\\"a\\":1"', '"{\\"a\\":[}"', '""'),
    fc.array(fc.tuple(space, tie('value'), space), { maxLength: 4 }).map((xs) => `[${xs.map(([s, v, t]) => s + v + t).join(',')}]`),
    fc
      .array(fc.tuple(space, fc.constantFrom(...KEYS), space, tie('value')), { maxLength: 5 })
      .map((ms) => `{${ms.map(([s, k, t, v]) => `${s}"${k}"${t}:${s}${v}${t}`).join(',')}}`),
  ),
})).value;

describe('findDuplicateKey against a recursive-descent reading', () => {
  it('agrees with a recursive-descent reading on generated JSON', () => {
    fc.assert(
      fc.property(text, (t) => {
        JSON.parse(t); // the generator makes valid JSON only
        expect(findDuplicateKey(t)).toEqual(reference(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds repeats written with escapes, and none inside strings or across sibling objects', () => {
    expect(findDuplicateKey('{"a":1,"\\u0061":2}')).toEqual({ key: 'a', at: 15 });
    expect(findDuplicateKey('{"k":"\\\\","k":1}')).toEqual({ key: 'k', at: 13 });
    expect(findDuplicateKey('{"k":"\\"k\\":1,\\"k\\":2"}')).toBeUndefined();
    expect(findDuplicateKey('[{"a":1},{"a":1}]')).toBeUndefined();
    expect(findDuplicateKey('{"a":{"b":1},"b":{"a":1}}')).toBeUndefined();
  });
});

describe('findDuplicateKey', () => {
  it('finds the first repeated key of an object, at any depth, just past its closing quote', () => {
    expect(findDuplicateKey('{"a":1,"b":2}')).toBeUndefined();
    expect(findDuplicateKey('{"a":1,"a":2}')).toEqual({ key: 'a', at: 10 });
    expect(findDuplicateKey('{"a":{"x":1},"b":{"x":2}}')).toBeUndefined();
    expect(findDuplicateKey('{"a":[{"x":1,"y":"x"},{"x":2}],"d":{"k":1,"k":2}}')).toEqual({ key: 'k', at: 45 });
    expect(findDuplicateKey('{"a\\u0062":1,"ab":2}')).toEqual({ key: 'ab', at: 17 });
    expect(findDuplicateKey('["a","a"]')).toBeUndefined();
  });
});

// ES 8 parses request bodies with Jackson's strict duplicate detection on, so a key that
// repeats one of its object's fails the request: x_content_parse_exception "[line:col] Duplicate
// field 'k'" (caused by json_parse_exception), the location just past the repeated key. Here for
// `_search`, `_count` and `_mget` bodies (update bodies and `_msearch` lines: their own tests).

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('duplicate keys in request bodies', () => {
  const h = searchForAll();
  const post = async (url: string, payload: string): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    await post('/d/_doc/1?refresh=true', '{"t":"fox"}');
  });

  it('refuses a repeated key in a search or count body, at any depth', async () => {
    const top = await post('/d/_search', '{"size":1,"size":2}');
    expect(top.status).toBe(400);
    expect(top.body.error).toMatchObject({ type: 'x_content_parse_exception', reason: "[1:17] Duplicate field 'size'" });
    expect(top.body.error.caused_by.type).toBe('json_parse_exception');
    const nested = await post('/d/_search', '{\n"query": {"match": {"t": "fox", "t": "dog"}}\n}');
    expect(nested.body.error.reason).toBe("[2:36] Duplicate field 't'");
    expect((await post('/d/_count', '{"query":{"match_all":{}},"query":{"match_all":{}}}')).body.error.reason).toBe("[1:34] Duplicate field 'query'");
  });

  it('refuses a repeated key in an _mget body or one of its docs', async () => {
    expect((await post('/d/_mget', '{"ids":["1"],"ids":["2"]}')).body.error.reason).toBe("[1:19] Duplicate field 'ids'");
    const doc = await post('/_mget', '{"docs":[{"_index":"d","_id":"1","_id":"2"}]}');
    expect(doc.status).toBe(400);
    expect(doc.body.error.reason).toBe("[1:39] Duplicate field '_id'");
  });

  it('accepts the same key in sibling objects', async () => {
    const res = await post('/d/_search', '{"query":{"bool":{"must":[{"match":{"t":"fox"}},{"match":{"t":"fox"}}]}}}');
    expect(res.status).toBe(200);
    expect(res.body.hits.total.value).toBe(1);
    expect((await post('/_mget', '{"docs":[{"_index":"d","_id":"1"},{"_index":"d","_id":"1"}]}')).status).toBe(200);
  });
});

describe('a repeated key after another problem', () => {
  // ES reads a search body as a stream, so a problem its parser meets before the repeated key (an
  // unknown query, an unknown field) is what it answers; a check of the whole text for repeated
  // keys before reading the body would answer "Duplicate field" instead. (The update body follows
  // the text order through checkUpdateBody.)

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
  type Body = Record<string, any>;

  describe('a repeated key after another problem', () => {
    const h = searchForAll();
    const post = async (url: string, payload: string): Promise<{ status: number; body: Body }> => {
      const res = await h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
      return { status: res.statusCode, body: res.json() as Body };
    };
    beforeAll(async () => {
      await post('/o/_doc/1?refresh=true', '{"t":"fox"}');
    });

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

  describe('readInTextOrder', () => {
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
});

describe('a repeated key before a check made after reading', () => {
  // readInTextOrder answers an error that both the cut text and the text
  // without the repeated member give, as one met before the repeated key. A check ES makes only once
  // its parser has read the whole body or line (ActionRequest.validate, BulkRequestParser's checks
  // after the action line's object) gives the same error on both texts when it depends only on
  // members before the repeated key, yet ES never reaches it: the parser fails on the key first.

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
  type Body = Record<string, any>;

  describe('a repeated key before a check ES makes after reading', () => {
    const h = searchForAll();
    const post = async (url: string, payload: string, type = 'application/json'): Promise<{ status: number; body: Body }> => {
      const res = await h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': type } });
      return { status: res.statusCode, body: res.json() as Body };
    };
    beforeAll(async () => {
      await post('/o/_doc/1?refresh=true', '{"t":"fox"}');
    });

    it('_search: search_after with a from repeated (validation comes after the parse)', async () => {
      const res = await post('/o/_search', '{"search_after":[1],"from":5,"from":0}');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe("[1:36] Duplicate field 'from'");
    });

    it('_search?scroll: search_after with a repeated size', async () => {
      const res = await post('/o/_search?scroll=1m', '{"search_after":[1],"size":1,"size":2}');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe("[1:36] Duplicate field 'size'");
    });

    it('_search: an unknown key before the repeated one is still answered', async () => {
      const res = await post('/o/_search', '{"bogus":1,"size":1,"size":2}');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toContain('bogus');
    });

    const bulk = (payload: string) => post('/_bulk', payload, 'application/x-ndjson');

    it('_bulk: a delete with dynamic_templates and a repeated _id', async () => {
      const res = await bulk('{"delete":{"_index":"o","_id":"1","dynamic_templates":{"a":"b"},"_id":"2"}}\n');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe("[1:70] Duplicate field '_id'");
    });

    it('_bulk: an update with a version and a repeated _id', async () => {
      const res = await bulk('{"update":{"_index":"o","_id":"1","version":3,"_id":"2"}}\n{"doc":{}}\n');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe("[1:52] Duplicate field '_id'");
    });

    it('_bulk: a negative if_seq_no and a repeated _id', async () => {
      const res = await bulk('{"index":{"_index":"o","_id":"1","if_seq_no":-3,"_id":"2"}}\n{}\n');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe("[1:54] Duplicate field '_id'");
    });

    it('_bulk: the same checks still refuse a line without a repeated key', async () => {
      expect((await bulk('{"delete":{"_index":"o","_id":"1","dynamic_templates":{"a":"b"}}}\n')).body.error.reason).toBe(
        'Delete request in line [1] does not accept dynamic_templates',
      );
      expect((await bulk('{"update":{"_index":"o","_id":"1","version":3}}\n{"doc":{}}\n')).body.error.reason).toContain('Update requests do not support versioning');
      expect((await bulk('{"index":{"_index":"o","_id":"1","if_seq_no":-3}}\n{}\n')).body.error.reason).toBe('sequence numbers must be non negative. got [-3].');
    });

    it('_bulk: an unknown parameter before the repeated key is still answered', async () => {
      const res = await bulk('{"index":{"_index":"o","bogus":1,"_id":"1","_id":"2"}}\n{}\n');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe('Action/metadata line [1] contains an unknown parameter [bogus]');
    });
  });

  describe('_msearch: a repeated key in a header line', () => {
    const h = searchForAll();
    beforeAll(async () => {
      await h.app.inject({ method: 'PUT', url: '/o/_doc/1?refresh=true', payload: '{"t":"fox"}', headers: { 'content-type': 'application/json' } });
    });
    const msearch = async (payload: string): Promise<{ status: number; body: Body }> => {
      const res = await h.app.inject({ method: 'POST', url: '/_msearch', payload, headers: { 'content-type': 'application/x-ndjson' } });
      return { status: res.statusCode, body: res.json() as Body };
    };

    // ES reads the header with parser.map() and only then checks its keys: the repeated key wins
    // over an unsupported key or a bad value earlier in the line.
    it('answers the repeated key, not an unsupported key before it', async () => {
      const res = await msearch('{"bogus":1,"index":"o","index":"o"}\n{}\n');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe("[1:31] Duplicate field 'index'");
    });

    it('answers the repeated key, not a bad search_type before it', async () => {
      const res = await msearch('{"search_type":"nope","index":"o","index":"o"}\n{}\n');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe("[1:42] Duplicate field 'index'");
    });

    it('still refuses an unsupported key alone', async () => {
      const res = await msearch('{"bogus":1,"index":"o"}\n{}\n');
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe('key [bogus] is not supported in the metadata section');
    });
  });

  describe('_bulk: an action line _source that is a number', () => {
    const h = searchForAll();

    // BulkRequestParser hands the value to FetchSourceContext.fromXContent, whose refusal of a
    // number names the tokens it takes (FetchSourceContextTests.testFromXContentException).
    it('is refused as FetchSourceContext.fromXContent refuses it', async () => {
      const res = await h.app.inject({
        method: 'POST',
        url: '/_bulk',
        payload: '{"update":{"_index":"o","_id":"1","_source":5}}\n{"doc":{}}\n',
        headers: { 'content-type': 'application/x-ndjson' },
      });
      expect(res.statusCode).toBe(400);
      const error = (res.json() as Body).error;
      expect(error.type).toBe('parsing_exception');
      expect(error.reason).toBe('Expected one of [VALUE_BOOLEAN, VALUE_STRING, START_ARRAY, START_OBJECT] but found [VALUE_NUMBER]');
    });
  });
});

// RestSearchAction checks rest_total_hits_as_int against track_total_hits only
// after the body is parsed (checkRestTotalHits), so a repeated key anywhere in the body fails the
// request first, and so must readInTextOrder even though the check depends only on a member before
// the repeated key.

describe('rest_total_hits_as_int and a repeated key', () => {
  const h = searchForAll();
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/o/_doc/1?refresh=true', payload: '{"t":"fox"}', headers: { 'content-type': 'application/json' } });
  });

  it('answers the repeated key', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/o/_search?rest_total_hits_as_int=true',
      payload: '{"track_total_hits":false,"size":1,"size":2}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect((res.json() as { error: { reason: string } }).error.reason).toBe("[1:42] Duplicate field 'size'");
  });
});
