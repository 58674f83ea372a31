import { beforeAll, describe, expect, it } from 'vitest';
import { searchForAll } from '../harness.js';

/** GET and _mget with `?stored_fields` over HTTP (routes/document-routes.ts). */

// ES's get API with `?stored_fields` (RestGetAction, ShardGetService; rest-api-spec get/20_stored_fields
// and get/70_source_filtering): the values of `store: true` fields in `fields` (always lists, left
// out when none has a value), no `_source` unless `_source` is among the names or asked for, and
// 400 "field [x] isn't a leaf field" for an object. `_mget` gives the same per document.
describe('GET /<index>/_doc/<id>?stored_fields', () => {
  const h = searchForAll();
  const json = { 'content-type': 'application/json' };
  beforeAll(async () => {
    const mappings = { properties: { foo: { type: 'keyword', store: true }, count: { type: 'integer', store: true }, plain: { type: 'keyword' }, obj: { properties: { x: { type: 'keyword', store: true } } } } };
    await h.app.inject({ method: 'PUT', url: '/i', payload: JSON.stringify({ mappings }), headers: json });
    await h.app.inject({ method: 'PUT', url: '/i/_doc/1?refresh=true', payload: '{"foo":"bar","count":1,"plain":"p","obj":{"x":"y"}}', headers: json });
  });

  const get = async (query: string) => h.app.inject({ method: 'GET', url: `/i/_doc/1?${query}` });
  const head = { _index: 'i', _id: '1', _version: 1, _seq_no: 0, _primary_term: 1, found: true };

  it('returns the stored fields as lists and leaves _source out', async () => {
    const res = await get('stored_fields=foo,count');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(JSON.stringify({ ...head, fields: { foo: ['bar'], count: [1] } }));
  });

  it('keeps _source when it is among the names or asked for', async () => {
    const source = { foo: 'bar', count: 1, plain: 'p', obj: { x: 'y' } };
    expect((await get('stored_fields=foo,count,_source')).json()).toEqual({ ...head, _source: source, fields: { foo: ['bar'], count: [1] } });
    expect((await get('stored_fields=count&_source=true')).json()).toEqual({ ...head, _source: source, fields: { count: [1] } });
    expect((await get('stored_fields=count&_source_includes=foo')).json()).toEqual({ ...head, _source: { foo: 'bar' }, fields: { count: [1] } });
    // Object dotted names reach stored sub-fields.
    expect((await get('stored_fields=obj.x')).json()).toEqual({ ...head, fields: { 'obj.x': ['y'] } });
  });

  it('leaves out fields that are not stored, not mapped, and _none_; no fields member when none is left', async () => {
    expect(await (await get('stored_fields=plain,nope')).json()).toEqual(head);
    expect(await (await get('stored_fields=_none_')).json()).toEqual(head);
  });

  it('takes an empty stored_fields as a list naming nothing: no _source, on GET and in _mget', async () => {
    // RestGetAction / RestMultiGetAction split the value with Strings.splitStringByCommaToArray,
    // which gives an empty array (not null) for ""; normalizeFetchSourceContent then finds no
    // `_source` among the names and fetches none. A body's `stored_fields: []` is the same array.
    expect((await get('stored_fields=')).json()).toEqual(head);
    expect((await get('stored_fields=,')).json()).toEqual(head);
    expect((await get('stored_fields=&_source=true')).json()._source).toEqual({ foo: 'bar', count: 1, plain: 'p', obj: { x: 'y' } });
    const byUrl = await h.app.inject({ method: 'POST', url: '/i/_mget?stored_fields=', payload: '{"ids":["1"]}', headers: json });
    expect(byUrl.json().docs).toEqual([head]);
    const byBody = await h.app.inject({ method: 'POST', url: '/_mget', payload: '{"docs":[{"_index":"i","_id":"1","stored_fields":[]}]}', headers: json });
    expect(byBody.json().docs).toEqual([head]);
  });

  it('refuses an object field with 400 "isn\'t a leaf field", on GET and HEAD, and not for a missing document', async () => {
    const res = await get('stored_fields=foo,obj');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ type: 'illegal_argument_exception', reason: "field [obj] isn't a leaf field" });
    expect(res.json().error.root_cause[0]).toEqual({ type: 'illegal_argument_exception', reason: "field [obj] isn't a leaf field" });
    const headRes = await h.app.inject({ method: 'HEAD', url: '/i/_doc/1?stored_fields=obj' });
    expect(headRes.statusCode).toBe(400);
    expect(headRes.body).toBe('');
    expect((await h.app.inject({ method: 'HEAD', url: '/i/_doc/1?stored_fields=foo' })).statusCode).toBe(200);
    const missing = await h.app.inject({ method: 'GET', url: '/i/_doc/2?stored_fields=obj' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ _index: 'i', _id: '2', found: false });
  });

  it('_mget fails only the item that names an object field', async () => {
    await h.app.inject({ method: 'PUT', url: '/i/_doc/2?refresh=true', payload: '{"foo":"baz"}', headers: json });
    const res = await h.app.inject({ method: 'POST', url: '/_mget', payload: JSON.stringify({ docs: [{ _index: 'i', _id: '1', stored_fields: ['obj'] }, { _index: 'i', _id: '2', stored_fields: ['foo'] }] }), headers: json });
    expect(res.statusCode).toBe(200);
    const [first, second] = res.json().docs;
    expect(first).toMatchObject({ _index: 'i', _id: '1', error: { type: 'illegal_argument_exception', reason: "field [obj] isn't a leaf field" } });
    expect(second).toEqual({ _index: 'i', _id: '2', _version: 1, _seq_no: 1, _primary_term: 1, found: true, fields: { foo: ['baz'] } });
  });
});
