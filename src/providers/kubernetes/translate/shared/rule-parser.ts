/**
 * A checker for Traefik v3 router rules (`Host(`a`) && (PathPrefix(`/b`) || !Method(`POST`))`).
 * The operator only validates: a rule that does not parse still becomes a record (Traefik's runtime
 * would show it disabled), but the object's status says why, so the user sees it in `kubectl`.
 */

export type RuleKind = 'http' | 'tcp';

/** Matchers and how many arguments each takes (min, max), per Traefik v3's default syntax. */
const MATCHERS: Record<RuleKind, Record<string, readonly [number, number]>> = {
  http: {
    Host: [1, 1], HostRegexp: [1, 1], Path: [1, 1], PathPrefix: [1, 1], PathRegexp: [1, 1],
    Method: [1, 1], Header: [2, 2], HeaderRegexp: [2, 2], Query: [1, 2], QueryRegexp: [1, 2], ClientIP: [1, 1],
  },
  tcp: { HostSNI: [1, 1], HostSNIRegexp: [1, 1], ClientIP: [1, 1], ALPN: [1, 1] },
};

export type RuleCheck = { readonly ok: true } | { readonly ok: false; readonly error: string };

type Token =
  | { t: 'ident'; v: string; at: number }
  | { t: 'string'; v: string; at: number }
  | { t: '(' | ')' | ',' | '&&' | '||' | '!' | 'end'; at: number };

class RuleSyntaxError extends Error {}

function tokenize(rule: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < rule.length) {
    const c = rule[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '(' || c === ')' || c === ',' || c === '!') {
      out.push({ t: c, at: i });
      i++;
    } else if (c === '&' || c === '|') {
      if (rule[i + 1] !== c) throw new RuleSyntaxError(`unexpected "${c}" at ${i}`);
      out.push({ t: c === '&' ? '&&' : '||', at: i });
      i += 2;
    } else if (c === '`') {
      const end = rule.indexOf('`', i + 1);
      if (end < 0) throw new RuleSyntaxError(`unterminated string at ${i}`);
      out.push({ t: 'string', v: rule.slice(i + 1, end), at: i });
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let value = '';
      for (; j < rule.length && rule[j] !== '"'; j++) {
        if (rule[j] === '\\') j++;
        value += rule[j] ?? '';
      }
      if (j >= rule.length) throw new RuleSyntaxError(`unterminated string at ${i}`);
      out.push({ t: 'string', v: value, at: i });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < rule.length && /[A-Za-z0-9_]/.test(rule[j] as string)) j++;
      out.push({ t: 'ident', v: rule.slice(i, j), at: i });
      i = j;
    } else {
      throw new RuleSyntaxError(`unexpected "${c}" at ${i}`);
    }
  }
  out.push({ t: 'end', at: rule.length });
  return out;
}

/** Recursive descent: or := and ('||' and)*; and := unary ('&&' unary)*; unary := '!' unary | primary. */
class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[], private readonly matchers: Record<string, readonly [number, number]>) {}

  private peek(): Token {
    return this.tokens[this.pos] as Token;
  }

  private take(): Token {
    return this.tokens[this.pos++] as Token;
  }

  parse(): void {
    this.or();
    const t = this.peek();
    if (t.t !== 'end') throw new RuleSyntaxError(`unexpected ${describe(t)} at ${t.at}`);
  }

  private or(): void {
    this.and();
    while (this.peek().t === '||') {
      this.take();
      this.and();
    }
  }

  private and(): void {
    this.unary();
    while (this.peek().t === '&&') {
      this.take();
      this.unary();
    }
  }

  private unary(): void {
    const t = this.take();
    if (t.t === '!') return this.unary();
    if (t.t === '(') {
      this.or();
      const close = this.take();
      if (close.t !== ')') throw new RuleSyntaxError(`expected ")" at ${close.at}, got ${describe(close)}`);
      return;
    }
    if (t.t !== 'ident') throw new RuleSyntaxError(`expected a matcher at ${t.at}, got ${describe(t)}`);
    const arity = this.matchers[t.v];
    if (!arity) throw new RuleSyntaxError(`unsupported function: ${t.v}`);
    const open = this.take();
    if (open.t !== '(') throw new RuleSyntaxError(`expected "(" after ${t.v}`);
    let args = 0;
    if (this.peek().t !== ')') {
      for (;;) {
        const arg = this.take();
        if (arg.t !== 'string') throw new RuleSyntaxError(`expected a string argument to ${t.v} at ${arg.at}, got ${describe(arg)}`);
        args++;
        const sep = this.take();
        if (sep.t === ')') break;
        if (sep.t !== ',') throw new RuleSyntaxError(`expected "," or ")" at ${sep.at}, got ${describe(sep)}`);
      }
    } else {
      this.take();
    }
    const [min, max] = arity;
    if (args < min || args > max) {
      throw new RuleSyntaxError(`unexpected number of parameters; got ${args}, expected ${min === max ? min : `${min} to ${max}`} for ${t.v}`);
    }
  }
}

function describe(t: Token): string {
  if (t.t === 'end') return 'end of rule';
  if (t.t === 'ident') return `"${t.v}"`;
  if (t.t === 'string') return 'a string';
  return `"${t.t}"`;
}

/** Checks a rule; the error names the problem and where (a character offset). */
export function checkRule(rule: string, kind: RuleKind): RuleCheck {
  if (rule.trim() === '') return { ok: false, error: 'empty rule' };
  try {
    new Parser(tokenize(rule), MATCHERS[kind]).parse();
    return { ok: true };
  } catch (err) {
    if (err instanceof RuleSyntaxError) return { ok: false, error: `error while parsing rule ${rule}: ${err.message}` };
    throw err;
  }
}
