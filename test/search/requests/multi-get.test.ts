import { describe, expect, it } from 'vitest';
import { searchFailure } from '../harness.js';
import { SearchError } from '../../../src/search/errors.js';
import { parseMultiGet } from '../../../src/search/requests/multi-get.js';
import fc from 'fast-check';

/**
 * parseMultiGet (requests/multi-get.ts): docs and ids, and JSON nulls and boolean strings as ES
 * reads them.
 */

/**
 * `_mget` bodies with JSON nulls and boolean strings, read as ES 8's
 * MultiGetRequest reads them. Its parser acts only on tokens that are values (`isValue()`), and
 * VALUE_NULL is not one: a null `_id`, `_index`, `_source`, `routing` or unknown field is skipped,
 * a null among `ids` is refused; `_source: "false"` is the boolean (isBooleanValue), not a pattern.
 */

const failure = (body: unknown, index?: string) => searchFailure(() => parseMultiGet(body, index));

describe('_mget nulls and boolean strings', () => {
  it('a null _id is no id: "id is missing" (ES), not the document whose id is "null"', () => {
    expect(failure({ docs: [{ _index: 'p', _id: null }] })).toEqual({
      status: 400,
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: id is missing for doc 0;',
    });
    expect(failure({ docs: [{ _index: null, _id: '1' }] }).reason).toBe('Validation Failed: 1: index is missing for doc 0;');
  });

  it('a null in ids is refused', () => {
    expect(failure({ ids: [null] }, 'p')).toEqual({ status: 400, type: 'illegal_argument_exception', reason: 'ids array element should only contain ids' });
  });

  it('skips a null _source, routing or unknown field', () => {
    const [item] = parseMultiGet({ docs: [{ _id: '1', _source: null, routing: null, whatever: null, stored_fields: null }] }, 'p');
    expect(item?.source).toBeUndefined();
    expect(item?.storedFields).toBeUndefined();
  });

  it('reads _source "false" and "true" as booleans', () => {
    const items = parseMultiGet({ docs: [{ _id: '1', _source: 'false' }, { _id: '2', _source: 'true' }, { _id: '3', _source: 'title' }] }, 'p');
    expect(items.map((i) => i.source)).toEqual([
      { fetch: false, includes: [], excludes: [] },
      { fetch: true, includes: [], excludes: [] },
      { fetch: true, includes: ['title'], excludes: [] },
    ]);
  });
});

describe('parseMultiGet', () => {
  it('reads docs and ids, with the URL index as default', () => {
    const items = parseMultiGet({ docs: [{ _index: 'a', _id: 1 }, { _id: 'x', _source: false }], ids: ['y'] }, 'd');
    expect(items.map((i) => [i.index, i.id])).toEqual([
      ['a', '1'],
      ['d', 'x'],
      ['d', 'y'],
    ]);
    expect(items[1]?.source).toEqual({ fetch: false, includes: [], excludes: [] });
  });

  it('throws only SearchErrors, whatever the body (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.option(fc.string(), { nil: undefined }), (body, index) => {
        try {
          parseMultiGet(body, index);
        } catch (e) {
          expect(e).toBeInstanceOf(SearchError);
        }
      }),
    );
  });
});
