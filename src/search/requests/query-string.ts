import { SearchError } from '../errors.js';
import type { FuzzySpec } from './fuzziness.js';

/**
 * Lucene's classic query syntax, read as Elasticsearch's `query_string` and `q=` read it (Lucene's
 * QueryParser with split_on_whitespace off): terms, "phrases" with `~slop`, `field:` and
 * `field:(group)`, parentheses, `+`/`-`/`!`/`NOT`, `AND`/`&&`, `OR`/`||`, `^boost`, ranges
 * (`[a TO b]`, `{a TO *]`, and ES's `>`, `>=`, `<`, `<=` before a value), `*` and `?` wildcards,
 * `_exists_:field` and `*:*`. Operators combine clauses as QueryParserBase.addClause does, and a
 * run of plain words ("data module") is one text, analyzed as a whole. Fuzzy terms (`term~`) and
 * regular expressions (`/re/`) are refused: Portico does not run them.
 *
 * The tree names fields and texts only; query-dsl.ts turns it into queries over the fields.
 *
 * Also the type of a clause of simple_query_string's tree (simple-query-string.ts).
 */

export type Occur = 'must' | 'should' | 'must_not' | 'default';

/** A term or phrase of simple_query_string, searched over the query's fields. */
export interface QsClause {
  readonly occur: Occur;
  /** Field named in the query, or undefined for the default fields. */
  readonly field: string | undefined;
  readonly text: string;
  readonly phrase: boolean;
  /** A phrase's slop; 0 when absent. */
  readonly slop?: number;
  /** simple_query_string's `x*`: a prefix query on each field (the text lower-cased on text fields). */
  readonly prefix?: boolean;
  /** simple_query_string's `x~N`: a fuzzy query on each field. */
  readonly fuzzy?: FuzzySpec;
}

export type LqOccur = 'must' | 'should' | 'must_not';

export type LqNode =
  | { readonly kind: 'bool'; readonly clauses: readonly { readonly occur: LqOccur; readonly node: LqNode }[]; readonly boost: number }
  /** `run`: several plain words read as one text (addMultiTermClauses). */
  | { readonly kind: 'text'; readonly field: string | undefined; readonly text: string; readonly phrase: boolean; readonly slop: number | undefined; readonly boost: number }
  | { readonly kind: 'range'; readonly field: string | undefined; readonly from: string | undefined; readonly to: string | undefined; readonly includeLower: boolean; readonly includeUpper: boolean; readonly boost: number }
  | { readonly kind: 'wildcard'; readonly field: string | undefined; readonly pattern: string; readonly boost: number }
  | { readonly kind: 'exists'; readonly field: string; readonly boost: number }
  | { readonly kind: 'match_all'; readonly boost: number };

type Tok =
  | { t: 'TERM'; text: string; wild: boolean }
  | { t: 'QUOTED'; text: string }
  | { t: 'RANGE'; from: string | undefined; to: string | undefined; incLo: boolean; incHi: boolean }
  | { t: 'COLON' | 'LPAREN' | 'RPAREN' | 'AND' | 'OR' | 'NOT' | 'PLUS' | 'MINUS' | 'STAR' | 'EOF' }
  | { t: 'CARAT'; value: number }
  | { t: 'FUZZY'; value: number | undefined };

/** ES's answer to a query text Lucene's parser cannot read (a query_shard_exception in the shard failure). */
export function unparsable(query: string, why: string): SearchError {
  const shard = { type: 'query_shard_exception', reason: `Failed to parse query [${query}]`, causedBy: { type: 'parse_exception', reason: `Cannot parse '${query}': ${why}` } };
  return new SearchError(400, { type: 'search_phase_execution_exception', reason: 'all shards failed', meta: { phase: 'query', grouped: true }, causedBy: shard }, [
    { type: 'query_shard_exception', reason: shard.reason },
  ]);
}

function refused(what: string): SearchError {
  return new SearchError(400, { type: 'parsing_exception', reason: `query [${what}] is not supported by this server` });
}

const SPECIAL = new Set([...' \t\n\r\u3000+-!():^[]"{}~*?\\/']);
const TERM_START_EXCLUDED = new Set([...' \t\n\r\u3000+-!():^[]"{}~\\/']);

class Lexer {
  private i = 0;
  constructor(private readonly s: string) {}

  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i] as string)) this.i++;
  }

  /** A term's characters from here (escapes kept unescaped; `*` and `?` kept): stops at whitespace and specials but `-`, `+`, `*`, `?` inside. */
  private term(): { text: string; wild: boolean } {
    let text = '';
    let wild = false;
    while (this.i < this.s.length) {
      const c = this.s[this.i] as string;
      if (c === '\\' && this.i + 1 < this.s.length) {
        text += this.s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (c === '*' || c === '?') wild = true;
      else if (SPECIAL.has(c) && c !== '-' && c !== '+') break;
      text += c;
      this.i++;
    }
    return { text, wild };
  }

  private quoted(): string {
    let text = '';
    this.i++;
    while (this.i < this.s.length && this.s[this.i] !== '"') {
      if (this.s[this.i] === '\\' && this.i + 1 < this.s.length) this.i++;
      text += this.s[this.i];
      this.i++;
    }
    if (this.i >= this.s.length) throw unparsable(this.s, 'Lexical error: unterminated quoted string');
    this.i++;
    return text;
  }

  private number(): string {
    const m = /^\d+(\.\d+)?/.exec(this.s.slice(this.i));
    this.i += m === null ? 0 : m[0].length;
    return m === null ? '' : m[0];
  }

  private range(inclusive: boolean): Tok {
    this.i++;
    const bound = (): string | undefined => {
      this.ws();
      let v: string;
      if (this.s[this.i] === '"') v = this.quoted();
      else {
        const start = this.i;
        while (this.i < this.s.length && !/[\s\]}]/.test(this.s[this.i] as string)) this.i++;
        v = this.s.slice(start, this.i);
      }
      return v === '*' ? undefined : v;
    };
    const from = bound();
    this.ws();
    if (!this.s.startsWith('TO', this.i)) throw unparsable(this.s, 'Encountered a range without TO');
    this.i += 2;
    const to = bound();
    this.ws();
    const close = this.s[this.i];
    if (close !== ']' && close !== '}') throw unparsable(this.s, 'Encountered an unterminated range');
    this.i++;
    return { t: 'RANGE', from, to, incLo: inclusive, incHi: close === ']' };
  }

  next(): Tok {
    this.ws();
    const s = this.s;
    const c = s[this.i];
    if (c === undefined) return { t: 'EOF' };
    const two = s.slice(this.i, this.i + 2);
    if (two === '&&' || two === '||') {
      this.i += 2;
      return { t: two === '&&' ? 'AND' : 'OR' };
    }
    const simple: Record<string, Tok['t']> = { ':': 'COLON', '(': 'LPAREN', ')': 'RPAREN', '+': 'PLUS', '-': 'MINUS', '!': 'NOT' };
    const kind = simple[c];
    if (kind !== undefined) {
      this.i++;
      return { t: kind } as Tok;
    }
    if (c === '"') return { t: 'QUOTED', text: this.quoted() };
    if (c === '[' || c === '{') return this.range(c === '[');
    if (c === '^') {
      this.i++;
      const n = this.number();
      if (n === '') throw unparsable(s, 'Encountered "^" without a boost');
      return { t: 'CARAT', value: Number(n) };
    }
    if (c === '~') {
      this.i++;
      const n = this.number();
      return { t: 'FUZZY', value: n === '' ? undefined : Number(n) };
    }
    if (c === '/') throw refused('regexp');
    if (c === '*' && (s[this.i + 1] === undefined || /[\s:)]/.test(s[this.i + 1] as string))) {
      this.i++;
      return { t: 'STAR' };
    }
    if (TERM_START_EXCLUDED.has(c) && c !== '*' && c !== '?' && c !== '\\') throw unparsable(s, `Encountered "${c}"`);
    const { text, wild } = this.term();
    if (text === '') throw unparsable(s, `Encountered "${c}"`);
    if (!wild && (text === 'AND' || text === 'OR' || text === 'NOT')) return { t: text };
    return { t: 'TERM', text, wild };
  }
}

/** Lucene's QueryParserBase.addClause: how a conjunction and a modifier place a clause, and what an AND or OR does to the one before. */
type Conj = 'none' | 'and' | 'or';
type Mods = 'none' | 'req' | 'not';

class Parser {
  private readonly toks: Tok[] = [];
  private p = 0;

  constructor(
    private readonly text: string,
    private readonly and: boolean,
    private readonly phraseSlop: number,
  ) {
    const lexer = new Lexer(text);
    for (let t = lexer.next(); ; t = lexer.next()) {
      this.toks.push(t);
      if (t.t === 'EOF') break;
    }
  }

  private peek(k = 0): Tok {
    return this.toks[Math.min(this.p + k, this.toks.length - 1)] as Tok;
  }

  private take(): Tok {
    const t = this.peek();
    this.p++;
    return t;
  }

  private addClause(clauses: { occur: LqOccur; node: LqNode }[], conj: Conj, mods: Mods, node: LqNode | undefined): void {
    const last = clauses[clauses.length - 1];
    if (last !== undefined && conj === 'and' && last.occur !== 'must_not') last.occur = 'must';
    if (last !== undefined && this.and && conj === 'or' && last.occur !== 'must_not') last.occur = 'should';
    if (node === undefined) return;
    const prohibited = mods === 'not';
    const required = this.and ? !prohibited && conj !== 'or' : mods === 'req' || (conj === 'and' && !prohibited);
    clauses.push({ occur: prohibited ? 'must_not' : required ? 'must' : 'should', node });
  }

  /** Whether a run of plain words starts here: a term, then a term not followed by `:`, `*`, `~`, `^`, AND or OR. */
  private runContinues(k: number): boolean {
    const a = this.peek(k);
    const b = this.peek(k + 1);
    return a.t === 'TERM' && !a.wild && !['COLON', 'STAR', 'FUZZY', 'CARAT', 'AND', 'OR'].includes(b.t);
  }

  private multiTerm(field: string | undefined): LqNode | undefined {
    const first = this.peek();
    if (first.t !== 'TERM' || first.wild || !this.runContinues(1)) return undefined;
    const words = [first.text];
    this.p++;
    while (this.runContinues(0)) words.push((this.take() as { text: string }).text);
    return { kind: 'text', field, text: words.join(' '), phrase: false, slop: undefined, boost: 1 };
  }

  private modifiers(): Mods {
    const t = this.peek().t;
    if (t === 'PLUS' || t === 'MINUS' || t === 'NOT') this.p++;
    return t === 'PLUS' ? 'req' : t === 'MINUS' || t === 'NOT' ? 'not' : 'none';
  }

  query(field: string | undefined): LqNode | undefined {
    const clauses: { occur: LqOccur; node: LqNode }[] = [];
    let first: LqNode | undefined;
    let only = true;
    const run = this.multiTerm(field);
    if (run !== undefined) {
      clauses.push({ occur: this.and ? 'must' : 'should', node: run });
      first = run;
    } else {
      const mods = this.modifiers();
      const q = this.clause(field);
      this.addClause(clauses, 'none', mods, q);
      if (mods === 'none') first = q;
    }
    for (;;) {
      const t = this.peek().t;
      if (t === 'EOF' || t === 'RPAREN') break;
      only = false;
      const more = this.multiTerm(field);
      if (more !== undefined) {
        clauses.push({ occur: this.and ? 'must' : 'should', node: more });
        continue;
      }
      const conj: Conj = t === 'AND' ? 'and' : t === 'OR' ? 'or' : 'none';
      if (conj !== 'none') this.p++;
      const mods = this.modifiers();
      this.addClause(clauses, conj, mods, this.clause(field));
    }
    if (only && clauses.length === 1 && first !== undefined) return first;
    if (clauses.length === 0) return undefined;
    return { kind: 'bool', clauses, boost: 1 };
  }

  private boosted(node: LqNode | undefined): LqNode | undefined {
    if (this.peek().t !== 'CARAT' || node === undefined) return node;
    const boost = (this.take() as { value: number }).value;
    return { ...node, boost: node.boost * boost };
  }

  private clause(outer: string | undefined): LqNode | undefined {
    let field = outer;
    const t0 = this.peek();
    if ((t0.t === 'TERM' || t0.t === 'STAR') && this.peek(1).t === 'COLON') {
      field = t0.t === 'TERM' ? t0.text : '*';
      this.p += 2;
    }
    const t = this.take();
    switch (t.t) {
      case 'LPAREN': {
        const inner = this.query(field);
        if (this.take().t !== 'RPAREN') throw unparsable(this.text, 'Encountered "<EOF>" while expecting ")"');
        return this.boosted(inner);
      }
      case 'QUOTED': {
        let slop: number | undefined = this.phraseSlop > 0 ? this.phraseSlop : undefined;
        if (this.peek().t === 'FUZZY') slop = Math.trunc((this.take() as { value: number | undefined }).value ?? 0);
        return this.boosted({ kind: 'text', field, text: t.text, phrase: true, slop, boost: 1 });
      }
      case 'RANGE':
        return this.boosted({ kind: 'range', field, from: t.from, to: t.to, includeLower: t.incLo, includeUpper: t.incHi, boost: 1 });
      case 'STAR':
        return this.boosted(field === undefined || field === '*' ? { kind: 'match_all', boost: 1 } : { kind: 'exists', field, boost: 1 });
      case 'TERM': {
        if (this.peek().t === 'FUZZY') throw refused('fuzzy');
        if (field === '_exists_') return this.boosted({ kind: 'exists', field: t.text, boost: 1 });
        if (t.wild) return this.boosted({ kind: 'wildcard', field, pattern: t.text, boost: 1 });
        return this.boosted({ kind: 'text', field, text: t.text, phrase: false, slop: undefined, boost: 1 });
      }
      default:
        throw unparsable(this.text, `Encountered "${t.t}"`);
    }
  }

  parse(): LqNode | undefined {
    if (this.peek().t === 'EOF') return undefined;
    const q = this.query(undefined);
    if (this.peek().t !== 'EOF') throw unparsable(this.text, 'Encountered ")"');
    return q;
  }
}

/**
 * Parses a query_string text: undefined when it holds no clause. `and` is the default operator
 * AND; `phraseSlop` the slop of phrases that give none.
 */
export function parseLuceneQuery(text: string, and: boolean, phraseSlop = 0): LqNode | undefined {
  return new Parser(text, and, phraseSlop).parse();
}
