import { describe, expect, it } from 'vitest';
import { METADATA_FIELDS } from '../../../src/search/engine/field-caps.js';
import { esCalls, searchForEach, type EsBody } from '../harness.js';

/**
 * `_field_caps` (src/search/routes/field-caps-routes.ts, engine/field-caps.ts): each index's
 * fields merged as ES 8 merges them, the parameters and body, the errors. Side by side with the
 * node: test/search/differential/field-caps.int.test.ts.
 */

const h = searchForEach();
const { call, ok } = esCalls(h);

async function setup(): Promise<void> {
  await ok('PUT', '/logs-a', {
    mappings: {
      properties: {
        title: { type: 'text', fields: { raw: { type: 'keyword', ignore_above: 10 } }, meta: { unit: 'words' } },
        tag: { type: 'keyword', index: false },
        n: { type: 'long' },
        when: { type: 'date' },
        flag: { type: 'boolean' },
        user: { properties: { name: { type: 'keyword' }, address: { properties: { city: { type: 'text', fielddata: true } } } } },
      },
    },
  });
  await ok('PUT', '/logs-b', {
    mappings: {
      properties: {
        title: { type: 'keyword', meta: { unit: 'chars' } },
        tag: { type: 'keyword' },
        n: { type: 'integer' },
        when: { type: 'date' },
        user: { properties: { name: { type: 'text', index: false } } },
      },
    },
  });
  await ok('PUT', '/other', { mappings: { properties: { n: { type: 'long' } } } });
}

describe('_field_caps', () => {
  it('merges each field per type across the indices, with indices only where a field has several types', async () => {
    await setup();
    const b = await ok('GET', '/logs-*/_field_caps?fields=*');
    expect(b.indices).toEqual(['logs-a', 'logs-b']);
    // Two types: each lists its indices; meta is the union of the values.
    expect(b.fields.title).toEqual({
      text: { type: 'text', metadata_field: false, searchable: true, aggregatable: false, indices: ['logs-a'], meta: { unit: ['words'] } },
      keyword: { type: 'keyword', metadata_field: false, searchable: true, aggregatable: true, indices: ['logs-b'], meta: { unit: ['chars'] } },
    });
    expect(b.fields['title.raw']).toEqual({ keyword: { type: 'keyword', metadata_field: false, searchable: true, aggregatable: true } });
    // keyword with index: false is searched through its doc values in ES 8: searchable and aggregatable.
    expect(b.fields.tag).toEqual({ keyword: { type: 'keyword', metadata_field: false, searchable: true, aggregatable: true } });
    expect(b.fields.n).toEqual({
      long: { type: 'long', metadata_field: false, searchable: true, aggregatable: true, indices: ['logs-a'] },
      integer: { type: 'integer', metadata_field: false, searchable: true, aggregatable: true, indices: ['logs-b'] },
    });
    expect(b.fields.when).toEqual({ date: { type: 'date', metadata_field: false, searchable: true, aggregatable: true } });
    expect(b.fields.user).toEqual({ object: { type: 'object', metadata_field: false, searchable: false, aggregatable: false } });
    expect(b.fields['user.address.city']).toEqual({ text: { type: 'text', metadata_field: false, searchable: true, aggregatable: true } });
    expect(b.fields['user.name']).toEqual({
      keyword: { type: 'keyword', metadata_field: false, searchable: true, aggregatable: true, indices: ['logs-a'] },
      text: { type: 'text', metadata_field: false, searchable: false, aggregatable: false, indices: ['logs-b'] },
    });
    // A field in one index only, without include_unmapped: no trace of the other.
    expect(b.fields.flag).toEqual({ boolean: { type: 'boolean', metadata_field: false, searchable: true, aggregatable: true } });
    for (const [name, searchable, aggregatable] of METADATA_FIELDS) {
      expect(b.fields[name], name).toEqual({ [name]: { type: name, metadata_field: true, searchable, aggregatable } });
    }
  });

  it('lists non_searchable_indices and non_aggregatable_indices when only some indices are', async () => {
    await ok('PUT', '/t1', { mappings: { properties: { body: { type: 'text', fielddata: true } } } });
    await ok('PUT', '/t2', { mappings: { properties: { body: { type: 'text', index: false } } } });
    await ok('PUT', '/t3', { mappings: { properties: { body: { type: 'text' } } } });
    const b = await ok('POST', '/t1,t2,t3/_field_caps?fields=body');
    expect(b).toEqual({
      indices: ['t1', 't2', 't3'],
      fields: { body: { text: { type: 'text', metadata_field: false, searchable: false, aggregatable: false, non_searchable_indices: ['t2'], non_aggregatable_indices: ['t2', 't3'] } } },
    });
  });

  it('include_unmapped adds the indices without the field, and makes every type list its indices', async () => {
    await setup();
    const b = await ok('GET', '/_field_caps?fields=flag,user.*&include_unmapped=true');
    expect(b.indices).toEqual(['logs-a', 'logs-b', 'other']);
    expect(b.fields.flag).toEqual({
      boolean: { type: 'boolean', metadata_field: false, searchable: true, aggregatable: true, indices: ['logs-a'] },
      unmapped: { type: 'unmapped', metadata_field: false, searchable: false, aggregatable: false, indices: ['logs-b', 'other'] },
    });
    expect(Object.keys(b.fields.user).sort()).toEqual(['object', 'unmapped']);
    // types filters each index before the merge: an index whose type is left out has the field unmapped.
    const typed = await ok('GET', '/logs-a,logs-b/_field_caps?fields=title&types=keyword&include_unmapped=true');
    expect(typed.fields.title).toEqual({
      keyword: { type: 'keyword', metadata_field: false, searchable: true, aggregatable: true, indices: ['logs-b'], meta: { unit: ['chars'] } },
      unmapped: { type: 'unmapped', metadata_field: false, searchable: false, aggregatable: false, indices: ['logs-a'] },
    });
    expect(b.fields.user.unmapped.indices).toEqual(['other']);
  });

  it('matches patterns, and adds the objects above a matched field unless -parent', async () => {
    await setup();
    const b = await ok('GET', '/logs-a/_field_caps?fields=*.city');
    expect(Object.keys(b.fields).sort()).toEqual(['user', 'user.address', 'user.address.city']);
    const noParent = await ok('GET', '/logs-a/_field_caps?fields=*.city&filters=-parent');
    expect(Object.keys(noParent.fields)).toEqual(['user.address.city']);
    // An object named alone is not a field.
    expect((await ok('GET', '/logs-a/_field_caps?fields=user')).fields).toEqual({});
  });

  it('filters metadata fields, multi-fields and types', async () => {
    await setup();
    const names = async (q: string): Promise<string[]> => Object.keys(((await ok('GET', `/logs-a/_field_caps?fields=*&${q}`)) as EsBody).fields).sort();
    expect(await names('filters=%2Bmetadata')).toEqual(METADATA_FIELDS.map(([n]) => n).sort());
    const noMeta = await names('filters=-metadata');
    expect(noMeta.some((n) => n.startsWith('_'))).toBe(false);
    expect(noMeta).toContain('title.raw');
    expect(await names('filters=-metadata,-multifield')).not.toContain('title.raw');
    expect(await names('types=date,boolean')).toEqual(['flag', 'when']);
    // The parents of a kept field come with it, whatever their type.
    expect(await names('types=text&filters=-metadata')).toEqual(['title', 'user', 'user.address', 'user.address.city']);
    const bad = await call('GET', '/logs-a/_field_caps?fields=*&filters=-foo');
    expect([bad.status, bad.body.error.type, bad.body.error.reason]).toEqual([400, 'illegal_argument_exception', 'Unknown field caps filter [-foo]']);
  });

  it('takes the fields in the body, and refuses them in both places', async () => {
    await setup();
    const b = await ok('POST', '/logs-b/_field_caps', { fields: ['ta*'] });
    expect(Object.keys(b.fields)).toEqual(['tag']);
    const both = await call('POST', '/logs-b/_field_caps?fields=n', { fields: ['tag'] });
    expect([both.status, both.body.error.type]).toEqual([400, 'illegal_argument_exception']);
    expect(both.body.error.reason).toContain("can't specify a request body and [fields]");
  });

  it('answers ES 8’s errors: no fields, empty fields, unknown body keys, runtime_mappings, missing and closed indices', async () => {
    await setup();
    const none = await call('GET', '/logs-a/_field_caps');
    expect([none.status, none.body.error.type, none.body.error.reason]).toEqual([400, 'action_request_validation_exception', 'Validation Failed: 1: no fields specified;']);
    const empty = await call('GET', '/logs-a/_field_caps?fields=');
    expect([empty.status, empty.body.error.reason]).toEqual([400, "specified fields can't be null or empty"]);
    const unknown = await call('POST', '/logs-a/_field_caps', { fields: ['*'], size: 1 });
    expect([unknown.status, unknown.body.error.type, unknown.body.error.reason]).toEqual([400, 'x_content_parse_exception', '[1:17] [field_caps_request] unknown field [size]']);
    const runtime = await call('POST', '/logs-a/_field_caps?fields=*', { runtime_mappings: { x: { type: 'keyword' } } });
    expect(runtime.status).toBe(400);
    const missing = await call('GET', '/nope/_field_caps?fields=*');
    expect([missing.status, missing.body.error.type]).toEqual([404, 'index_not_found_exception']);
    expect((await ok('GET', '/nope,logs-a/_field_caps?fields=n&ignore_unavailable=true')).indices).toEqual(['logs-a']);
    await ok('POST', '/logs-b/_close');
    const closed = await call('GET', '/logs-b/_field_caps?fields=*');
    // ES 8 resolves a closed index named (strictExpandOpen), then its block refuses the read.
    expect([closed.status, closed.body.error.type, closed.body.error.reason]).toEqual([403, 'cluster_block_exception', 'index [logs-b] blocked by: [FORBIDDEN/4/index closed];']);
    expect((await call('GET', '/logs-b,logs-a/_field_caps?fields=*&ignore_unavailable=true')).status).toBe(403);
    // A wildcard leaves the closed index out.
    expect((await ok('GET', '/logs-*/_field_caps?fields=n')).indices).toEqual(['logs-a']);
    expect((await call('GET', '/logs-*/_field_caps?fields=n&expand_wildcards=all')).status).toBe(403);
    expect((await call('GET', '/logs-*/_field_caps?fields=n&expand_wildcards=closed')).body.error.reason).toBe('index [logs-b] blocked by: [FORBIDDEN/4/index closed];');
    expect(await ok('GET', '/logs-*/_field_caps?fields=n&expand_wildcards=none')).toEqual({ indices: [], fields: {} });
    const badExpand = await call('GET', '/logs-*/_field_caps?fields=n&expand_wildcards=foo');
    expect([badExpand.status, badExpand.body.error.reason]).toEqual([400, 'No valid expand wildcard value [foo]']);
    const noIndices = await call('GET', '/zz*/_field_caps?fields=*&allow_no_indices=false');
    expect([noIndices.status, noIndices.body.error.type]).toEqual([404, 'index_not_found_exception']);
    expect(await ok('GET', '/zz*/_field_caps?fields=*')).toEqual({ indices: [], fields: {} });
    const emptyFalse = await call('GET', '/logs-a/_field_caps?fields=*&include_empty_fields=false');
    expect(emptyFalse.status).toBe(400);
  });

  it('keeps the indices an index_filter can match, as ES’s can-match phase decides', async () => {
    await setup();
    const docs = [['logs-a', { when: '2015-01-02', n: 5 }], ['logs-a', { when: '2018-10-02', n: 50 }], ['logs-b', { when: '2019-10-04', n: 7 }]] as const;
    for (const [i, d] of docs) await ok('POST', `/${i}/_doc?refresh=true`, d);
    const kept = async (filter: unknown): Promise<string[]> => (await ok('POST', '/logs-*/_field_caps?fields=n', { index_filter: filter })).indices;
    expect(await kept({ range: { when: { gte: '2019' } } })).toEqual(['logs-b']);
    expect(await kept({ range: { when: { lt: '2019' } } })).toEqual(['logs-a']);
    // Between logs-a's two dates, matching neither: its span meets the range, so it is kept.
    expect(await kept({ range: { when: { gte: '2016', lte: '2017' } } })).toEqual(['logs-a']);
    expect(await kept({ range: { when: { gte: '2030' } } })).toEqual([]);
    // Only dates look at the values: a range on a number keeps every index that maps the field.
    expect(await kept({ range: { n: { gte: 1000 } } })).toEqual(['logs-a', 'logs-b']);
    expect(await kept({ range: { nothere: { gte: 1 } } })).toEqual([]);
    expect(await kept({ term: { _index: 'logs-b' } })).toEqual(['logs-b']);
    expect(await kept({ term: { _index: 'logs-*' } })).toEqual(['logs-a', 'logs-b']);
    expect(await kept({ term: { _id: 'x' } })).toEqual(['logs-a', 'logs-b']);
    expect((await call('POST', '/logs-*/_field_caps?fields=n', { index_filter: { term: { _tier: 'data_hot' } } })).status).toBe(400);
    expect(await kept({ term: { flag: true } })).toEqual(['logs-a']);
    expect(await kept({ match_none: {} })).toEqual([]);
    expect(await kept({ bool: { filter: [{ range: { when: { gte: '2010' } } }, { terms: { _index: ['logs-a', 'x'] } }] } })).toEqual(['logs-a']);
    const refused = await call('POST', '/logs-*/_field_caps?fields=n', { index_filter: { match: { title: 'x' } } });
    expect(refused.status).toBe(400);
  });
});
