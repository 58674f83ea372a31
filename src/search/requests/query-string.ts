/**
 * A small parser for Lucene query-string syntax as used by `q=` and `query_string`: plain terms,
 * "quoted phrases", `field:term`, `field:"phrase"`, `+must`, `-must_not`, `AND` / `OR` / `NOT`
 * (`&&`, `||`, `!`). Parentheses, wildcards, fuzziness and ranges are not interpreted (their
 * characters are analyzed away). `simple` reads `|` as OR and no field names; simple_query_string
 * itself is read by simple-query-string.ts, as Lucene's SimpleQueryParser reads it.
 */

export type Occur = 'must' | 'should' | 'must_not' | 'default';

export interface QsClause {
  readonly occur: Occur;
  /** Field named in the query (`title:foo`), or undefined for the default fields. */
  readonly field: string | undefined;
  readonly text: string;
  readonly phrase: boolean;
  /** A phrase's slop (`"a b"~2`, or the query's `phrase_slop`); 0 when absent. */
  readonly slop?: number;
}

interface Token {
  kind: 'term' | 'and' | 'or' | 'not';
  prefix?: '+' | '-';
  field?: string;
  text?: string;
  phrase?: boolean;
}

// eslint-disable-next-line complexity -- a lexer: one branch per operator and escape of Lucene's query-string syntax and of simple_query_string's
function lex(input: string, simple: boolean): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    const c = input[i] as string;
    if (/\s/.test(c) || c === '(' || c === ')') {
      i++;
      continue;
    }
    if (!simple && (input.startsWith('&&', i) || input.startsWith('||', i))) {
      out.push({ kind: input[i] === '&' ? 'and' : 'or' });
      i += 2;
      continue;
    }
    if (simple && c === '|') {
      out.push({ kind: 'or' });
      i++;
      continue;
    }
    let prefix: '+' | '-' | undefined;
    if (c === '+' || c === '-' || (c === '!' && !simple)) {
      prefix = c === '+' ? '+' : '-';
      i++;
    }
    let field: string | undefined;
    if (!simple) {
      const m = /^([A-Za-z_@][\w.@*-]*):(?!\/)/.exec(input.slice(i));
      if (m) {
        field = m[1];
        i += m[0].length;
      }
    }
    if (input[i] === '"') {
      const end = input.indexOf('"', i + 1);
      const text = input.slice(i + 1, end === -1 ? n : end);
      i = end === -1 ? n : end + 1;
      out.push({ kind: 'term', prefix, field, text, phrase: true });
      continue;
    }
    let j = i;
    while (j < n && !/\s/.test(input[j] as string) && input[j] !== ')' && input[j] !== '(' && !(simple && input[j] === '|')) j++;
    const word = input.slice(i, j);
    i = j;
    if (!simple && prefix === undefined && field === undefined) {
      if (word === 'AND') {
        out.push({ kind: 'and' });
        continue;
      }
      if (word === 'OR') {
        out.push({ kind: 'or' });
        continue;
      }
      if (word === 'NOT') {
        out.push({ kind: 'not' });
        continue;
      }
    }
    if (word.length > 0) out.push({ kind: 'term', prefix, field, text: word, phrase: false });
  }
  return out;
}

/** Parses a query string into flat clauses; `default` occur is resolved by the default operator. */
export function parseQueryString(input: string, simple: boolean): QsClause[] {
  const tokens = lex(input, simple);
  const clauses: { occur: Occur; field: string | undefined; text: string; phrase: boolean }[] = [];
  let pendingNot = false;
  let pendingAnd = false;
  let pendingOr = false;
  for (const t of tokens) {
    if (t.kind === 'not') {
      pendingNot = true;
      continue;
    }
    if (t.kind === 'and') {
      pendingAnd = true;
      const prev = clauses[clauses.length - 1];
      if (prev && prev.occur === 'default') prev.occur = 'must';
      continue;
    }
    if (t.kind === 'or') {
      const prev = clauses[clauses.length - 1];
      if (prev && prev.occur === 'default') prev.occur = 'should';
      pendingAnd = false;
      pendingOr = true;
      continue;
    }
    let occur: Occur = t.prefix === '+' ? 'must' : t.prefix === '-' ? 'must_not' : 'default';
    if (pendingNot) occur = 'must_not';
    else if (pendingAnd && occur === 'default') occur = 'must';
    else if (pendingOr && occur === 'default') occur = 'should';
    pendingNot = false;
    pendingAnd = false;
    pendingOr = false;
    clauses.push({ occur, field: t.field, text: t.text ?? '', phrase: t.phrase ?? false });
  }
  return clauses;
}
