/**
 * The hosts a router rule matches, as Traefik 3.7's `httpmuxer.ParseDomains` finds them: the rule
 * parsed by its predicate grammar (Go expression syntax: matcher calls with string arguments,
 * `&&`, `||`, `!` and parentheses), then the values of every `Host` matcher that is not negated,
 * lower-cased. Used to resolve TLS options per entry point (tls-conflicts.ts). Pure.
 *
 * Only what ParseDomains needs: whether the rule parses and its positive `Host` values. A rule
 * that does not parse gives `undefined` (Traefik skips such routers there and reports the rule's
 * error when it builds them).
 */

/** Traefik's v3 and v2 HTTP matchers (`httpFuncs`, `httpFuncsV2`): the functions a rule may call. */
const MATCHERS = [
  'ClientIP', 'Method', 'Host', 'HostRegexp', 'Path', 'PathPrefix', 'PathRegexp', 'Header', 'HeaderRegexp', 'Query', 'QueryRegexp',
  'Headers', 'HeadersRegexp', 'HostHeader',
];

/** Each matcher under the four spellings Traefik's parser accepts (as given, lower, UPPER, Title). */
const SPELLINGS = new Map<string, string>();
for (const m of MATCHERS) {
  const lower = m.toLowerCase();
  for (const s of [m, lower, m.toUpperCase(), lower.charAt(0).toUpperCase() + lower.slice(1)]) SPELLINGS.set(s, m);
}

type Token = { kind: 'ident' | 'string' | 'op'; text: string };

const GO_ESCAPES = new Map([['a', '\x07'], ['b', '\b'], ['f', '\f'], ['n', '\n'], ['r', '\r'], ['t', '\t'], ['v', '\v'], ['\\', '\\'], ['"', '"']]);

/** A Go interpreted string literal's value from `"`; throws on what Go's scanner refuses. */
function quoted(rule: string, start: number): [string, number] {
  let out = '';
  let i = start + 1;
  for (;;) {
    const c = rule[i];
    if (c === undefined || c === '\n') throw new Error('string literal not terminated');
    if (c === '"') return [out, i + 1];
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = rule[i + 1] ?? '';
    const simple = GO_ESCAPES.get(e);
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : /[0-7]/.test(e) ? 3 : 0;
    const digits = e === 'x' || e === 'u' || e === 'U' ? rule.slice(i + 2, i + 2 + width) : rule.slice(i + 1, i + 1 + width);
    if (width === 0 || digits.length !== width || !(e >= '0' && e <= '7' ? /^[0-7]+$/ : /^[0-9a-fA-F]+$/).test(digits)) throw new Error('unknown escape sequence');
    const code = parseInt(digits, e >= '0' && e <= '7' ? 8 : 16);
    if (code > 0x10ffff || (e >= '0' && e <= '7' && code > 255)) throw new Error('escape sequence is invalid Unicode code point');
    out += String.fromCodePoint(code);
    i += e >= '0' && e <= '7' ? 1 + width : 2 + width;
  }
}

function tokens(rule: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < rule.length) {
    const c = rule[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '`') {
      const end = rule.indexOf('`', i + 1);
      if (end === -1) throw new Error('raw string literal not terminated');
      out.push({ kind: 'string', text: rule.slice(i + 1, end).replace(/\r/g, '') });
      i = end + 1;
    } else if (c === '"') {
      const [text, next] = quoted(rule, i);
      out.push({ kind: 'string', text });
      i = next;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rule.slice(i)) as RegExpExecArray;
      out.push({ kind: 'ident', text: m[0] });
      i += m[0].length;
    } else if (rule.startsWith('&&', i) || rule.startsWith('||', i)) {
      out.push({ kind: 'op', text: rule.slice(i, i + 2) });
      i += 2;
    } else if ('!(),'.includes(c)) {
      out.push({ kind: 'op', text: c });
      i++;
    } else {
      throw new Error(`unexpected ${c}`);
    }
  }
  return out;
}

/** Recursive descent over the tokens; collects positive Host values as it goes. */
class Parser {
  private at = 0;
  readonly hosts: string[] = [];
  constructor(private readonly toks: readonly Token[]) {}

  parse(): void {
    this.or(false);
    if (this.at !== this.toks.length) throw new Error('unexpected token');
  }

  private peek(text: string): boolean {
    const t = this.toks[this.at];
    return t !== undefined && t.kind === 'op' && t.text === text;
  }

  private expect(text: string): void {
    if (!this.peek(text)) throw new Error(`expected ${text}`);
    this.at++;
  }

  private or(negated: boolean): void {
    this.and(negated);
    while (this.peek('||')) {
      this.at++;
      this.and(negated);
    }
  }

  private and(negated: boolean): void {
    this.unary(negated);
    while (this.peek('&&')) {
      this.at++;
      this.unary(negated);
    }
  }

  private unary(negated: boolean): void {
    if (this.peek('!')) {
      this.at++;
      this.unary(!negated);
    } else if (this.peek('(')) {
      this.at++;
      this.or(negated);
      this.expect(')');
    } else {
      this.call(negated);
    }
  }

  private call(negated: boolean): void {
    const name = this.toks[this.at];
    const matcher = name?.kind === 'ident' ? SPELLINGS.get(name.text) : undefined;
    if (matcher === undefined) throw new Error('unsupported function');
    this.at++;
    this.expect('(');
    const values: string[] = [];
    if (!this.peek(')')) {
      for (;;) {
        const v = this.toks[this.at];
        if (v?.kind !== 'string') throw new Error('expected a string');
        values.push(v.text);
        this.at++;
        if (!this.peek(',')) break;
        this.at++;
      }
    }
    this.expect(')');
    if (matcher === 'Host' && !negated) for (const v of values) this.hosts.push(v.toLowerCase());
  }
}

/** The positive `Host` values of a rule, lower-cased; `undefined` when the rule does not parse. */
export function ruleDomains(rule: string): string[] | undefined {
  try {
    const p = new Parser(tokens(rule));
    p.parse();
    return p.hosts;
  } catch {
    return undefined;
  }
}
