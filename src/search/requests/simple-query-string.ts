/**
 * simple_query_string's syntax as Lucene's SimpleQueryParser reads it, which Elasticsearch uses:
 * `+` is an AND between its neighbours, `|` an OR, `-` negates what follows (a NOT joined to its
 * neighbours by the default operator, so "a -b" with OR is a OR NOT b), `"…"` is a phrase and
 * `( … )` a group, `x*` a prefix, `x~N` a fuzzy term, `"…"~N` a phrase with a slop, `\` an escape.
 * Operators are left-associative with no precedence: each new operator wraps what was read so
 * far. Only the tree is built here; query-dsl.ts turns it into queries.
 */

/**
 * A term or phrase searched over the query's fields, a negation, or a boolean of children. A term
 * may be a prefix (`qu*`) or fuzzy (`dg~1`, `dog~` for 2 edits); a phrase may have a slop
 * (`"quick fox"~2`).
 */
export type SqsNode =
  | { readonly kind: 'text'; readonly text: string; readonly phrase: boolean; readonly prefix?: boolean; readonly fuzzy?: number; readonly slop?: number }
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

/**
 * A term from `s.i` to the end of its token, as Lucene's SimpleQueryParser reads one: `\` takes the
 * next character as it is; an unescaped `~` after at least one character ends the text and
 * starts a fuzziness (the term is fuzzy unless it reads 0); an unescaped `*` as the last character
 * makes a prefix of what comes before it.
 */
function readTerm(s: State): SqsNode {
  const { input } = s;
  let text = '';
  let prefix = false;
  let escaped = false;
  while (s.i < input.length) {
    const c = input[s.i] as string;
    if (!escaped) {
      if (c === '\\') {
        escaped = true;
        s.i++;
        continue;
      }
      if (TOKEN_END.has(c)) break;
      if (c === '~' && text !== '') {
        const edits = readEdits(s);
        return edits > 0 ? { kind: 'text', text, phrase: false, fuzzy: edits } : { kind: 'text', text, phrase: false };
      }
      prefix = c === '*';
    } else prefix = false;
    escaped = false;
    text += c;
    s.i++;
  }
  return prefix ? { kind: 'text', text: text.slice(0, -1), phrase: false, prefix: true } : { kind: 'text', text, phrase: false };
}

/**
 * The number after a `~` at `s.i`, to the end of the token: 2 when there is none, 0 when it is not
 * a whole number (Lucene swallows the error) or negative, at most 2 (the most edits Lucene's
 * automata allow).
 */
function readEdits(s: State): number {
  const { input } = s;
  let j = s.i + 1;
  while (j < input.length && !TOKEN_END.has(input[j] as string)) j++;
  const digits = input.slice(s.i + 1, j);
  s.i = j;
  if (digits === '') return 2;
  if (!/^[+-]?\d+$/.test(digits)) return 0;
  return Math.min(2, Math.max(0, Number(digits)));
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
      // `"…"~N`: the phrase's slop (NEAR), read as a fuzziness is; a `~` ending the input is no slop.
      let slop: number | undefined;
      if (close !== -1 && input[s.i] === '~') {
        if (s.i + 1 < n) slop = readEdits(s);
        else s.i++;
      }
      if (text.trim() !== '') add(s, { kind: 'text', text, phrase: true, ...(slop !== undefined && slop > 0 && { slop }) }, defaultOccur);
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
      add(s, readTerm(s), defaultOccur);
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
