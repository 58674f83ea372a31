import { describe, expect, it, beforeAll } from 'vitest';
import { searchForAll, searchForEach } from '../harness.js';

/**
 * _bulk over HTTP (routes/document-routes.ts): validation of items and of the whole request, and
 * update lines.
 */

describe('_bulk validation', () => {
  /**
   * How `_bulk` (and the single-document write) validate items as ES 8 does: which problems fail
   * the whole request before anything is applied (BulkRequest.validate gathers every item's
   * ActionRequestValidationException into one), which fail one item (IndexRouting's empty-id check),
   * and where `forced_refresh` goes in a write result (DocWriteResponse: after `result`).
   */

  const h = searchForEach();

  const ndjson = (lines: readonly string[]): string => lines.join('\n') + '\n';

  async function bulk(url: string, lines: readonly string[]) {
    const res = await h.app.inject({ method: 'POST', url, payload: ndjson(lines), headers: { 'content-type': 'application/x-ndjson' } });
    return { status: res.statusCode, body: res.json() as Record<string, unknown>, text: res.body };
  }

  /** The documents of `index` once refreshed (what the bulk wrote), undefined when it does not exist. */
  async function count(index: string): Promise<number | undefined> {
    await h.app.inject({ method: 'POST', url: `/${index}/_refresh` });
    const res = await h.app.inject({ method: 'GET', url: `/${index}/_count` });
    return res.statusCode === 200 ? (res.json() as { count: number }).count : undefined;
  }

  const validation = (reason: string) => ({
    error: {
      root_cause: [{ type: 'action_request_validation_exception', reason }],
      type: 'action_request_validation_exception',
      reason,
    },
    status: 400,
  });

  describe('_bulk: an empty _id fails its item (IndexRouting)', () => {
    for (const op of ['index', 'create']) {
      it(`${op}: compact and spaced action lines, the other items applied`, async () => {
        const r = await bulk('/test/_bulk', [
          `{"${op}":{"_id":""}}`,
          '{"f":1}',
          `{ "${op}": { "_index": "test", "_id": "" } }`,
          '{"f":2}',
          `{"${op}":{"_id":"id"}}`,
          '{"f":3}',
          `{"${op}":{}}`,
          '{"f":4}',
        ]);
        expect(r.status).toBe(200);
        expect(r.body.errors).toBe(true);
        const items = r.body.items as Record<string, Record<string, unknown>>[];
        const failed = { _index: 'test', _id: '', status: 400, error: { type: 'illegal_argument_exception', reason: 'if _id is specified it must not be empty' } };
        expect(items[0]).toEqual({ [op]: failed });
        expect(items[1]).toEqual({ [op]: failed });
        expect(items[2]?.[op]?.result).toBe('created');
        expect(items[3]?.[op]?.result).toBe('created');
        expect(await count('test')).toBe(2);
      });
    }

    it('the empty-id check comes before the source is read (a malformed source does not matter)', async () => {
      const r = await bulk('/test/_bulk', ['{"index":{"_id":""}}', '{"f":']);
      expect((r.body.items as unknown[])[0]).toEqual({
        index: { _index: 'test', _id: '', status: 400, error: { type: 'illegal_argument_exception', reason: 'if _id is specified it must not be empty' } },
      });
    });
  });

  describe('_bulk: problems that fail the whole request, all of them named, nothing applied', () => {
    it('an _id longer than 512 bytes (UTF-8), on the compact and the general action line', async () => {
      const long = 'a'.repeat(513);
      const wide = 'é'.repeat(257);
      const r = await bulk('/test/_bulk', [
        '{"index":{"_id":"ok"}}',
        '{"f":1}',
        `{"index":{"_id":"${long}"}}`,
        '{"f":2}',
        `{ "create": { "_id": "${wide}" } }`,
        '{"f":3}',
      ]);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(
        validation(
          `Validation Failed: 1: id [${long}] is too long, must be no longer than 512 bytes but was: 513;` +
            `2: id [${wide}] is too long, must be no longer than 512 bytes but was: 514;`,
        ),
      );
      expect(await count('test')).toBeUndefined();
    });

    it('an _id of exactly 512 bytes is fine', async () => {
      const r = await bulk('/test/_bulk', [`{"index":{"_id":"${'a'.repeat(512)}"}}`, '{"f":1}', `{"index":{"_id":"${'é'.repeat(256)}"}}`, '{"f":1}']);
      expect(r.status).toBe(200);
      expect(r.body.errors).toBe(false);
    });

    it('no index in the action line and none in the path', async () => {
      const r = await bulk('/_bulk', ['{"index":{"_index":"test","_id":"1"}}', '{"f":1}', '{"index":{"_id":"2"}}', '{"f":2}', '{"delete":{"_id":"3"}}']);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(validation('Validation Failed: 1: index is missing;2: index is missing;'));
      expect(await count('test')).toBeUndefined();
    });

    it('delete and update without an _id, or with an empty one', async () => {
      await bulk('/test/_bulk', ['{"index":{"_id":"1"}}', '{"f":1}']);
      const r = await bulk('/test/_bulk', [
        '{"index":{"_id":"2"}}',
        '{"f":2}',
        '{"delete":{"_id":""}}',
        '{"delete":{}}',
        '{"update":{"_id":""}}',
        '{"doc":{"f":3}}',
        '{"update":{}}',
        '{"doc":{"f":3}}',
      ]);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(validation('Validation Failed: 1: id is missing;2: id is missing;3: id is missing;4: id is missing;'));
      expect(await count('test')).toBe(1);
    });

    it('an update without doc (or script)', async () => {
      await bulk('/test/_bulk', ['{"index":{"_id":"1"}}', '{"f":1}']);
      const r = await bulk('/test/_bulk', ['{"update":{"_id":"1"}}', '{"doc_as_upsert":false}']);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(validation('Validation Failed: 1: script or doc is missing;'));
    });

    it('a malformed line after a validation problem: the parse error wins (ES parses the body first)', async () => {
      const r = await bulk('/_bulk', ['{"index":{"_id":"1"}}', '{"f":1}', '{"bogus":{}}', '{"f":1}']);
      expect(r.status).toBe(400);
      expect((r.body.error as Record<string, unknown>).reason).toBe('Malformed action/metadata line [3], expected field [create], [delete], [index] or [update] but found [bogus]');
    });
  });

  describe('_bulk: an action line without its source line at the end of the body', () => {
    it('is dropped (the body is terminated by a newline), the other items applied', async () => {
      const r = await bulk('/test/_bulk', ['{"index":{"_id":"1"}}', '{"f":1}', '{"index":{"_id":"2"}}']);
      expect(r.status).toBe(200);
      expect((r.body.items as unknown[]).length).toBe(1);
      expect(await count('test')).toBe(1);
    });

    it('alone, leaves no requests', async () => {
      const r = await bulk('/test/_bulk', ['{"index":{"_id":"1"}}']);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(validation('Validation Failed: 1: no requests added;'));
    });

    it('a blank line right after an action line is that action\'s (empty) source, not skipped', async () => {
      const r = await bulk('/test/_bulk', ['{"index":{"_id":"1"}}', '', '{"index":{"_id":"2"}}', '{"f":2}']);
      expect(r.status).toBe(200);
      const items = r.body.items as Record<string, Record<string, unknown>>[];
      expect(items.length).toBe(2);
      expect(items[0]?.index?.status).toBe(400);
      expect(items[1]?.index?.result).toBe('created');
    });
  });

  describe('single-document writes: an _id longer than 512 bytes', () => {
    for (const [method, path] of [['PUT', '_doc'], ['POST', '_doc'], ['PUT', '_create'], ['POST', '_create']] as const) {
      it(`${method} /<index>/${path}/<id> answers 400 and creates nothing`, async () => {
        const id = 'é'.repeat(300);
        const res = await h.app.inject({ method, url: `/test/${path}/${encodeURIComponent(id)}`, payload: '{"f":1}', headers: { 'content-type': 'application/json' } });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual(validation(`Validation Failed: 1: id [${id}] is too long, must be no longer than 512 bytes but was: 600;`));
        expect(await count('test')).toBeUndefined();
      });
    }
  });

  describe('forced_refresh follows result (DocWriteResponse), also in bulk items', () => {
    it('bulk items with ?refresh=true, every op', async () => {
      await bulk('/test/_bulk', ['{"index":{"_id":"u"}}', '{"f":1}', '{"index":{"_id":"d"}}', '{"f":1}']);
      const r = await bulk('/test/_bulk?refresh=true', ['{"index":{"_id":"1"}}', '{"f":1}', '{"update":{"_id":"u"}}', '{"doc":{"f":2}}', '{"update":{"_id":"u"}}', '{"doc":{"f":2}}', '{"delete":{"_id":"d"}}']);
      expect(r.status).toBe(200);
      const order = ['_index', '_id', '_version', 'result', 'forced_refresh', '_shards', '_seq_no', '_primary_term', 'status'];
      for (const item of r.body.items as Record<string, Record<string, unknown>>[]) {
        const body = Object.values(item)[0] as Record<string, unknown>;
        expect(Object.keys(body)).toEqual(order);
        expect(body.forced_refresh).toBe(true);
      }
    });

    it('single-document index, update and delete with ?refresh', async () => {
      const order = ['_index', '_id', '_version', 'result', 'forced_refresh', '_shards', '_seq_no', '_primary_term'];
      const put = await h.app.inject({ method: 'PUT', url: '/test/_doc/1?refresh=true', payload: '{"f":1}', headers: { 'content-type': 'application/json' } });
      expect(Object.keys(put.json() as object)).toEqual(order);
      const upd = await h.app.inject({ method: 'POST', url: '/test/_update/1?refresh', payload: '{"doc":{"f":2}}', headers: { 'content-type': 'application/json' } });
      expect(Object.keys(upd.json() as object)).toEqual(order);
      const del = await h.app.inject({ method: 'DELETE', url: '/test/_doc/1?refresh=true' });
      expect(Object.keys(del.json() as object)).toEqual(order);
    });

    it('without refresh there is no forced_refresh', async () => {
      const r = await bulk('/test/_bulk', ['{"index":{"_id":"1"}}', '{"f":1}']);
      const body = (r.body.items as Record<string, Record<string, unknown>>[])[0]?.index as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['_index', '_id', '_version', 'result', '_shards', '_seq_no', '_primary_term', 'status']);
    });
  });

  describe('_bulk: malformed source lines', () => {
    it('an index/create source fails its item, which names its op, index and id; an invalid index name comes first', async () => {
      const r = await bulk('/test/_bulk', ['{"create":{"_id":"7"}}', '{"f":', '{"index":{"_index":"Bad","_id":"8"}}', '{"f":']);
      expect(r.status).toBe(200);
      const items = r.body.items as Record<string, Record<string, unknown>>[];
      expect(items[0]?.create).toMatchObject({ _index: 'test', _id: '7', status: 400 });
      expect(items[1]?.index).toMatchObject({ _index: 'Bad', _id: '8', status: 400, error: { type: 'invalid_index_name_exception' } });
    });

    it('an update source fails the whole request (ES parses it with the action line), nothing applied', async () => {
      const r = await bulk('/test/_bulk', ['{"index":{"_id":"1"}}', '{"f":1}', '{"update":{"_id":"1"}}', '{"doc":']);
      expect(r.status).toBe(400);
      expect((r.body.error as Record<string, unknown>).type).toBe('x_content_parse_exception');
      expect(await count('test')).toBeUndefined();
    });
  });

  describe('require_alias: there are no aliases, so such a write fails (its item, in a bulk) and creates nothing', () => {
    const notAlias = (index: string) => ({
      type: 'index_not_found_exception',
      reason: `no such index [${index}] and [require_alias] request flag is [true] and [${index}] is not an alias`,
      'resource.type': 'index_or_alias',
      'resource.id': index,
      index_uuid: '_na_',
      index,
    });

    it('in an action line, or for the whole bulk from the URL (deletes do not use it)', async () => {
      await bulk('/other/_bulk', ['{"index":{"_id":"1"}}', '{"f":1}']);
      const r = await bulk('/test/_bulk', ['{"index":{"_id":"1","require_alias":true}}', '{"f":1}', '{"create":{"_id":"2","require_alias":"false"}}', '{"f":2}']);
      const items = r.body.items as Record<string, Record<string, unknown>>[];
      expect(items[0]).toEqual({ index: { _index: 'test', _id: '1', status: 404, error: notAlias('test') } });
      expect(items[1]?.create?.result).toBe('created');
      const all = await bulk('/test/_bulk?require_alias', ['{"index":{"_id":"3"}}', '{"f":3}', '{"update":{"_id":"2"}}', '{"doc":{"f":4}}', '{"delete":{"_index":"other","_id":"1"}}', '{"index":{"_id":"4","require_alias":false}}', '{"f":4}']);
      const got = (all.body.items as Record<string, Record<string, unknown>>[]).map((it) => Object.values(it)[0]?.status);
      expect(got).toEqual([404, 404, 200, 201]);
      const bad = await bulk('/test/_bulk', ['{"index":{"_id":"5","require_alias":"yes"}}', '{"f":5}']);
      expect((bad.body.error as Record<string, unknown>).reason).toBe('Failed to parse value [yes] as only [true] or [false] are allowed.');
    });

    it('on the document APIs', async () => {
      const put = await h.app.inject({ method: 'PUT', url: '/fresh/_doc/1?require_alias=true', payload: '{"f":1}', headers: { 'content-type': 'application/json' } });
      expect(put.statusCode).toBe(404);
      expect((put.json() as { error: unknown }).error).toMatchObject(notAlias('fresh'));
      expect(await count('fresh')).toBeUndefined();
      const upd = await h.app.inject({ method: 'POST', url: '/fresh/_update/1?require_alias', payload: '{"doc":{"f":1},"doc_as_upsert":true}', headers: { 'content-type': 'application/json' } });
      expect(upd.statusCode).toBe(404);
      expect(await count('fresh')).toBeUndefined();
    });
  });
});

// Update lines and action lines of `_bulk` (requests/bulk.ts): ES answers an update
// line's `_source` with `get` in the item as `_update` does (BulkResponseItem.get), and its JSON
// parser (strict duplicate detection) refuses an action line that repeats a key for the whole request.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('_bulk update lines: get and repeated keys', () => {
  const h = searchForAll();
  const bulk = async (payload: string): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url: '/_bulk', payload, headers: { 'content-type': 'application/x-ndjson' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/bg/_doc/1', payload: '{"a":1,"b":2}', headers: { 'content-type': 'application/json' } });
  });

  it('adds get to an update item whose line asks for _source', async () => {
    const res = await bulk('{"update":{"_index":"bg","_id":"1"}}\n{"doc":{"a":3},"_source":"a"}\n');
    expect(res.status).toBe(200);
    expect(res.body.items[0].update.get).toMatchObject({ found: true, _source: { a: 3 } });
  });

  it('refuses an action line that repeats a key, changing nothing', async () => {
    const res = await bulk('{"update":{"_index":"bg","_id":"1","_id":"2"}}\n{"doc":{"a":4}}\n');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("Duplicate field '_id'");
  });

  it('writes get after _primary_term, takes the action line\'s _source over the body\'s, and none for _source false', async () => {
    const res = await bulk(
      '{"update":{"_index":"bg","_id":"1","_source":"b"}}\n{"doc":{"a":5},"_source":"a"}\n' +
        '{"update":{"_index":"bg","_id":"1"}}\n{"doc":{"a":6},"_source":false}\n' +
        '{"update":{"_index":"bg","_id":"404"}}\n{"doc":{"a":6},"_source":true}\n',
    );
    expect(Object.keys(res.body.items[0].update).slice(-3)).toEqual(['_primary_term', 'get', 'status']);
    expect(res.body.items[0].update.get._source).toEqual({ b: 2 });
    expect(res.body.items[1].update.get).toBeUndefined();
    expect(res.body.items[2].update.status).toBe(404);
    expect(res.body.items[2].update.get).toBeUndefined();
  });

  it('takes the URL\'s _source as the default, over the update line\'s and under the action line\'s', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/_bulk?_source=b',
      payload: '{"update":{"_index":"bg","_id":"1"}}\n{"doc":{"a":7},"_source":"a"}\n{"update":{"_index":"bg","_id":"1","_source":"a"}}\n{"doc":{"a":8}}\n',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    const items = (res.json() as Body).items;
    expect(items[0].update.get._source).toEqual({ b: 2 });
    expect(items[1].update.get._source).toEqual({ a: 8 });
  });

  it('answers an unknown parameter met before the repeated key, and the repeated key met first', async () => {
    const unknown = await bulk('{"update":{"_index":"bg","x":1,"_id":"1","_id":"2"}}\n{"doc":{"a":4}}\n');
    expect(unknown.body.error.reason).toBe('Action/metadata line [1] contains an unknown parameter [x]');
    const dup = await bulk('{"index":{"_id":"1","_id":"2","x":1}}\n{"a":4}\n');
    expect(dup.body.error.reason).toBe("[1:26] Duplicate field '_id'");
  });
});
