/**
 * simple_query_string's syntax as Lucene's SimpleQueryParser reads it, which Elasticsearch uses:
 * `+` is an AND between its neighbours, `|` an OR, `-` negates what follows (a NOT joined to its
 * neighbours by the default operator, so "a -b" with OR is a OR NOT b), `"…"` is a phrase and
 * `( … )` a group. Operators are left-associative with no precedence: each new operator wraps what
 * was read so far. Only the tree is built here; query-dsl.ts turns it into queries.
 */

/** A term or phrase searched over the query's fields, a negation, or a boolean of children. */
export type SqsNode =
  | { readonly kind: 'text'; readonly text: string; readonly phrase: boolean }
  | { readonly kind: 'not'; readonly child: SqsNode }
  | { readonly kind: 'bool'; readonly occur: 'must' | 'should'; readonly children: readonly SqsNode[] };

interface State {
  readonly input: string;
  i: number;
  top: SqsNode | undefined;
  current: 'must' | 'should' | undefined;
  previous: 'must' | 'should' | undefined;
  not: number;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const TOKEN_END = new Set([...WHITESPACE, '"', '|', '+', '(', ')']);

function add(s: State, branch: SqsNode, defaultOccur: 'must' | 'should'): void {
  const b: SqsNode = s.not % 2 === 1 ? { kind: 'not', child: branch } : branch;
  if (s.top === undefined) s.top = b;
  else {
    const occur = s.current ?? defaultOccur;
    // A new operator wraps what was read so far; the same one again adds to it.
    const top = s.previous !== occur || s.top.kind !== 'bool' ? { kind: 'bool' as const, occur, children: [s.top] } : s.top;
    s.top = { kind: 'bool', occur, children: [...top.children, b] };
    s.previous = occur;
  }
  s.current = undefined;
}

function parseGroup(input: string, start: number, defaultOccur: 'must' | 'should'): { node: SqsNode | undefined; end: number } {
  const s: State = { input, i: start, top: undefined, current: undefined, previous: undefined, not: 0 };
  const n = input.length;
  while (s.i < n) {
    const c = input[s.i] as string;
    if (c === '(') {
      const sub = parseGroup(input, s.i + 1, defaultOccur);
      s.i = sub.end;
      if (sub.node !== undefined) add(s, sub.node, defaultOccur);
    } else if (c === ')') {
      s.i++;
      break;
    } else if (c === '"') {
      const close = input.indexOf('"', s.i + 1);
      const end = close === -1 ? n : close;
      const text = input.slice(s.i + 1, end);
      s.i = end + 1;
      if (text.trim() !== '') add(s, { kind: 'text', text, phrase: true }, defaultOccur);
    } else if (c === '+' || c === '|') {
      // An operator counts only after a term, phrase or group.
      if (s.current === undefined && s.top !== undefined) s.current = c === '+' ? 'must' : 'should';
      s.i++;
    } else if (c === '-') {
      s.not++;
      s.i++;
      continue;
    } else if (WHITESPACE.has(c)) {
      s.i++;
    } else {
      let j = s.i;
      while (j < n && !TOKEN_END.has(input[j] as string)) j++;
      add(s, { kind: 'text', text: input.slice(s.i, j), phrase: false }, defaultOccur);
      s.i = j;
    }
    // A negation applies to what follows it directly, not across anything else.
    s.not = 0;
  }
  return { node: s.top, end: s.i };
}

/** The tree of `input`, or undefined when it holds no term (ES then matches nothing). */
export function parseSimpleQueryString(input: string, defaultOperator: 'and' | 'or'): SqsNode | undefined {
  return parseGroup(input, 0, defaultOperator === 'and' ? 'must' : 'should').node;
}
