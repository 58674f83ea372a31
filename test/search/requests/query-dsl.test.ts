import { describe, expect, it } from 'vitest';
import type { SearchError } from '../../../src/search/errors.js';
import { parseQuery, resolveMinimumShouldMatch } from '../../../src/search/requests/query-dsl.js';

describe('query DSL', () => {
  it('resolves minimum_should_match in all of ES forms', () => {
    expect(resolveMinimumShouldMatch(3, 5)).toBe(3);
    expect(resolveMinimumShouldMatch('-2', 5)).toBe(3);
    expect(resolveMinimumShouldMatch('75%', 3)).toBe(2);
    expect(resolveMinimumShouldMatch('-25%', 3)).toBe(3);
    expect(resolveMinimumShouldMatch('3<90%', 3)).toBe(3);
    expect(resolveMinimumShouldMatch('3<90%', 10)).toBe(9);
    expect(resolveMinimumShouldMatch('2<-25% 9<-3', 12)).toBe(9);
    expect(resolveMinimumShouldMatch('2<-25% 9<-3', 8)).toBe(6);
    // More than there are: kept, so that nothing matches (as in ES, checked against OpenSearch).
    expect(resolveMinimumShouldMatch(3, 2)).toBe(3);
  });

  it('suggests close query names like ES', () => {
    const reason = (q: unknown) => {
      try {
        parseQuery(q);
      } catch (e) {
        return (e as SearchError).message;
      }
      return '';
    };
    expect(reason({ boool: {} })).toBe('unknown query [boool] did you mean [bool]?');
    expect(reason({ match_: {} })).toBe('unknown query [match_] did you mean any of [match, match_all, match_none]?');
    expect(reason({ zzzzzz: {} })).toBe('unknown query [zzzzzz]');
  });

  it('parses the short and long forms of match and term', () => {
    expect(parseQuery({ match: { title: 'a b' } })).toMatchObject({ kind: 'match', field: 'title', text: 'a b', operator: 'or' });
    expect(parseQuery({ match: { title: { query: 'a', operator: 'AND', boost: 2 } } })).toMatchObject({ operator: 'and', boost: 2 });
    expect(parseQuery({ term: { tag: { value: 'x' } } })).toMatchObject({ kind: 'term', value: 'x' });
  });
});
