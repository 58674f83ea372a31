import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseLuceneQuery, type LqNode } from '../../../src/search/requests/query-string.js';
import { SearchError } from '../../../src/search/errors.js';

/** Lucene's classic query syntax as ES's query_string reads it (requests/query-string.ts). */

/** A compact picture of a tree: `+a`, `-a`, `a` (should), `(…)` for groups, `f:` fields, `^2` boosts, `"…"~n` phrases. */
function show(n: LqNode | undefined): string {
  if (n === undefined) return '∅';
  const b = n.boost === 1 ? '' : `^${n.boost}`;
  switch (n.kind) {
    case 'bool':
      return `(${n.clauses.map((c) => (c.occur === 'must' ? '+' : c.occur === 'must_not' ? '-' : '') + show(c.node)).join(' ')})${b}`;
    case 'text':
      return `${n.field === undefined ? '' : `${n.field}:`}${n.phrase ? `"${n.text}"${n.slop === undefined ? '' : `~${n.slop}`}` : `[${n.text}]`}${b}`;
    case 'range':
      return `${n.field ?? ''}:${n.includeLower ? '[' : '{'}${n.from ?? '*'} TO ${n.to ?? '*'}${n.includeUpper ? ']' : '}'}${b}`;
    case 'wildcard':
      return `${n.field ?? ''}:w(${n.pattern})${b}`;
    case 'exists':
      return `exists(${n.field})${b}`;
    case 'match_all':
      return `*:*${b}`;
  }
}

describe('parseLuceneQuery', () => {
  const or = (q: string) => show(parseLuceneQuery(q, false));
  const and = (q: string) => show(parseLuceneQuery(q, true));

  it('reads a run of plain words as one text, as split_on_whitespace false does', () => {
    expect(or('data module')).toBe('[data module]');
    // The run stops before a word followed by `:`: "title" is a field name, not a word.
    expect(or('a b title:c')).toBe('([a b] title:[c])');
    expect(or('a title:c d')).toBe('([a] title:[c] [d])');
    expect(or('a b c AND d')).toBe('([a b] +[c] +[d])');
  });

  it('combines clauses as QueryParserBase.addClause does', () => {
    expect(or('a AND b OR c')).toBe('(+[a] +[b] [c])');
    expect(and('a OR b c')).toBe('([a] [b] +[c])');
    expect(or('+a -b c')).toBe('(+[a] -[b] [c])');
    expect(or('a && !b || c')).toBe('(+[a] -[b] [c])');
    expect(or('NOT a')).toBe('(-[a])');
    expect(and('a -b')).toBe('(+[a] -[b])');
  });

  it('reads groups, fields, boosts and phrases', () => {
    expect(or('(a OR b) AND c')).toBe('(+([a] [b]) +[c])');
    expect(or('title:(a b)^2 "x y"~3')).toBe('(title:[a b]^2 "x y"~3)');
    expect(or('title:a^1.5')).toBe('title:[a]^1.5');
    expect(show(parseLuceneQuery('"x y"', false, 2))).toBe('"x y"~2');
    expect(or('a\\:b')).toBe('[a:b]');
    expect(or('foo-bar')).toBe('[foo-bar]');
  });

  it('reads ranges, wildcards, _exists_ and *:*', () => {
    expect(or('n:[1 TO 5}')).toBe('n:[1 TO 5}');
    expect(or('n:{* TO 5]')).toBe('n:{* TO 5]');
    expect(or('te?t* title:b*')).toBe('(:w(te?t*) title:w(b*))');
    expect(or('_exists_:title')).toBe('exists(title)');
    expect(or('*:*')).toBe('*:*');
    expect(or('title:*')).toBe('exists(title)');
  });

  it('gives nothing for an empty text and refuses what Lucene cannot parse', () => {
    expect(parseLuceneQuery('  ', false)).toBeUndefined();
    for (const bad of ['(a', 'a)', 'a:b:c', '"open', 'n:[1 5]']) {
      expect(() => parseLuceneQuery(bad, false), bad).toThrow(SearchError);
      try {
        parseLuceneQuery(bad, false);
      } catch (e) {
        expect((e as SearchError).type).toBe('search_phase_execution_exception');
      }
    }
  });

  it('refuses fuzzy terms and regular expressions, which Portico does not run', () => {
    expect(() => parseLuceneQuery('pyton~', false)).toThrow('query [fuzzy] is not supported by this server');
    expect(() => parseLuceneQuery('/py.*/', false)).toThrow('query [regexp] is not supported by this server');
  });

  it('answers any text with a tree or a SearchError, never anything else', () => {
    const alphabet = fc.constantFrom(...'ab :()"+-!^~*?[]{}\\/ANDORT1'.split(''), ' AND ', ' OR ', ' NOT ', ' TO ');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 30 }), (parts) => {
        try {
          parseLuceneQuery(parts.join(''), false);
        } catch (e) {
          expect(e).toBeInstanceOf(SearchError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
