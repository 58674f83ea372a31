import { describe, expect, it } from 'vitest';
import { parseSimpleQueryString, type SqsNode } from '../../../src/search/requests/simple-query-string.js';

/** A compact rendering of the tree: +(…) for AND, |(…) for OR, -x for NOT, "…" for a phrase. */
function show(n: SqsNode | undefined): string {
  if (n === undefined) return '∅';
  if (n.kind === 'text') {
    const mark = `${n.prefix === true ? '*' : ''}${n.fuzzy !== undefined ? `~${n.fuzzy}` : ''}${n.slop !== undefined ? `~${n.slop}` : ''}`;
    return `${n.phrase ? `"${n.text}"` : n.text}${mark === '' ? '' : `[${mark}]`}`;
  }
  if (n.kind === 'not') return `-${show(n.child)}`;
  return `${n.occur === 'must' ? '+' : '|'}(${n.children.map(show).join(' ')})`;
}

// Each case was checked against OpenSearch's simple_query_string (Lucene's SimpleQueryParser) by
// the differential suite (test/search/differential/), in hit counts and scores.
describe('simple_query_string syntax', () => {
  it('joins words with the default operator and + and | between neighbours', () => {
    expect(show(parseSimpleQueryString('dog cat', 'or'))).toBe('|(dog cat)');
    expect(show(parseSimpleQueryString('dog cat', 'and'))).toBe('+(dog cat)');
    expect(show(parseSimpleQueryString('dog +alpha', 'or'))).toBe('+(dog alpha)');
    expect(show(parseSimpleQueryString('a | b', 'and'))).toBe('|(a b)');
  });

  it('wraps what came before when the operator changes, left to right with no precedence', () => {
    expect(show(parseSimpleQueryString('a b +c', 'or'))).toBe('+(|(a b) c)');
    expect(show(parseSimpleQueryString('a +b c', 'or'))).toBe('|(+(a b) c)');
  });

  it('negates what follows a minus, joined by the default operator; a leading + is no operator', () => {
    expect(show(parseSimpleQueryString('+alpha -query', 'or'))).toBe('|(alpha -query)');
    expect(show(parseSimpleQueryString('a --b', 'or'))).toBe('|(a b)');
    expect(show(parseSimpleQueryString('a - b', 'or'))).toBe('|(a b)');
  });

  it('reads the prefix, fuzzy and slop operators and escapes, as ES’s default flags (ALL) do', () => {
    expect(show(parseSimpleQueryString('qu* lazy', 'or'))).toBe('|(qu[*] lazy)');
    expect(show(parseSimpleQueryString('*', 'or'))).toBe('[*]');
    expect(show(parseSimpleQueryString('d\\* a*b', 'or'))).toBe('|(d* a*b)');
    expect(show(parseSimpleQueryString('dg~1 dog~ dog~3 dog~x d1~0', 'or'))).toBe('|(dg[~1] dog[~2] dog[~2] dog d1)');
    expect(show(parseSimpleQueryString('fo*~1 ~x f\\~1', 'or'))).toBe('|(fo*[~1] ~x f~1)');
    expect(show(parseSimpleQueryString('"quick fox"~2 "a b"~', 'or'))).toBe('|("quick fox"[~2] "a b")');
  });

  it('reads phrases and groups, and nothing from an empty text', () => {
    expect(show(parseSimpleQueryString('"quick fox" +(a | b)', 'or'))).toBe('+("quick fox" |(a b))');
    expect(show(parseSimpleQueryString('  ', 'or'))).toBe('∅');
    expect(show(parseSimpleQueryString('""', 'or'))).toBe('∅');
  });
});
