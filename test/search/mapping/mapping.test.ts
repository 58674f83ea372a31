import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { startSearch, type SearchHarness } from '../harness.js';

/** Mappings (mapping/mapping.ts): parsing, saving, dynamic additions, and a field named __proto__. */

describe('Mappings', () => {
  it('shows date_detection: false in GET _mapping and keeps it through a save and load', () => {
    const m = Mappings.parse({ date_detection: false, properties: { t: { type: 'text' } } });
    expect(m.toJSON()).toEqual({ date_detection: false, properties: { t: { type: 'text' } } });
    const reloaded = Mappings.parse(JSON.parse(JSON.stringify(m.toJSON())));
    expect(reloaded.dateDetection).toBe(false);
    // The default (on) is not shown, as in Elasticsearch.
    expect(Mappings.parse({ properties: {} }).toJSON()).toEqual({ properties: {} });
  });
});

/**
 * Dynamic mapping and a field named `__proto__`: a document
 * with a field named `__proto__` went through `props[key] ??= { properties: {} }` in
 * Mappings.withAdditions, which found Object.prototype there and wrote `properties` onto it: every
 * object of the process had a `properties` field from then on, the document was refused (mapping
 * depth over 20, from the loop the inherited field makes) and every later `_search` failed with
 * "contains unrecognized parameter: [properties]" until a restart.
 */

const json = { 'content-type': 'application/json' };

describe('a field named __proto__', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => {
    // Leave the process as it was for the other tests of this worker, whatever happened.
    delete (Object.prototype as Record<string, unknown>).properties;
    await h.close();
  });

  it('is indexed like any other field and pollutes nothing', async () => {
    const put = await h.app.inject({ method: 'PUT', url: '/p/_doc/1?refresh=true', headers: json, payload: '{"__proto__":{"x":1},"a":1}' });
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(put.statusCode).toBe(201);
    const search = await h.app.inject({ method: 'POST', url: '/p/_search', headers: json, payload: '{"query":{"term":{"__proto__.x":1}}}' });
    expect(search.statusCode).toBe(200);
    expect((JSON.parse(search.body) as { hits: { total: { value: number } } }).hits.total.value).toBe(1);
    const mapping = await h.app.inject({ method: 'GET', url: '/p/_mapping' });
    expect(mapping.body).toBe('{"p":{"mappings":{"properties":{"__proto__":{"properties":{"x":{"type":"long"}}},"a":{"type":"long"}}}}}');
  });

  it('survives _source filtering (the get API and _search), as it survives filter_path', async () => {
    // filterSource wrote `out[k] = v`, which for __proto__ set the prototype and lost the field.
    const get = await h.app.inject({ method: 'GET', url: '/p/_doc/1?_source_includes=__proto__,a' });
    expect(get.statusCode).toBe(200);
    expect(JSON.parse(get.body)._source).toEqual(JSON.parse('{"__proto__":{"x":1},"a":1}'));
    expect(Object.keys(JSON.parse(get.body)._source as object)).toEqual(['__proto__', 'a']);
    const search = await h.app.inject({ method: 'POST', url: '/p/_search', headers: json, payload: '{"_source":["__proto__.*"]}' });
    expect(search.body).toContain('"_source":{"__proto__":{"x":1}}');
  });
});
