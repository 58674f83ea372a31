import { describe, expect, it } from 'vitest';
import { searchFailure } from '../harness.js';
import { SearchError } from '../../../src/search/errors.js';
import { parseMultiSearch } from '../../../src/search/engine/multi-search.js';
import fc from 'fast-check';

/**
 * parseMultiSearch (engine/multi-search.ts): header and body lines, blank lines and the URL
 * search_type.
 */

const ndjson = (...lines: unknown[]) => `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;

/**
 * An `_msearch` body line is always parsed as a search source
 * (MultiSearchRequest.readMultiLineFormat hands every body slice, even an empty one, to
 * SearchSourceBuilder.parseXContent), so a blank body line fails the whole request with
 * parsing_exception "Expected [START_OBJECT] but found [null]". It is not a match_all search (only
 * `_search` without a body is); a blank *header* line does take the defaults.
 */

const failure = (text: string) => searchFailure(() => parseMultiSearch(text, undefined, {}));

describe('_msearch blank body line', () => {
  it('fails the request as ES does', () => {
    const expected = { status: 400, type: 'parsing_exception', reason: 'Expected [START_OBJECT] but found [null]' };
    expect(failure('{"index":"p"}\n\n')).toEqual(expected);
    expect(failure('{}\n{}\n{}\n  \n')).toEqual(expected);
    expect(failure('{}\r\n\r\n')).toEqual(expected);
  });

  it('a blank header line still takes the defaults', () => {
    expect(parseMultiSearch('\n{}\n', 'p', {})).toHaveLength(1);
  });
});

describe('_msearch URL search_type', () => {
  it('is checked as a header search_type is (ES sets it on every search it reads)', () => {
    let caught: unknown;
    try {
      parseMultiSearch('{}\n{}\n', undefined, { search_type: 'bogus' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SearchError);
    expect((caught as SearchError).toBody()).toMatchObject({ error: { type: 'illegal_argument_exception', reason: 'No search type for [bogus]' }, status: 400 });
    expect(parseMultiSearch('{}\n{}\n', undefined, { search_type: 'dfs_query_then_fetch' })).toHaveLength(1);
  });
});

describe('parseMultiSearch', () => {
  it('pairs headers with bodies; an empty header line takes the defaults', () => {
    const items = parseMultiSearch(ndjson({ index: 'a' }, { size: 1 }, '', {}, { index: ['b', 'c'], ignore_unavailable: true }, {}), 'd', {});
    expect(items.map((i) => [i.index, i.ignoreUnavailable, i.request.size])).toEqual([
      ['a', false, 1],
      ['d', false, 10],
      ['b,c', true, 10],
    ]);
  });

  it('drops a header that has no body line after it', () => {
    expect(parseMultiSearch(ndjson({}, {}, { index: 'x' }), undefined, {})).toHaveLength(1);
  });

  it('throws only SearchErrors, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v)))), fc.boolean(), (lines, terminated) => {
        try {
          parseMultiSearch(lines.join('\n') + (terminated ? '\n' : ''), undefined, {});
        } catch (e) {
          expect(e).toBeInstanceOf(SearchError);
        }
      }),
    );
  });
});
