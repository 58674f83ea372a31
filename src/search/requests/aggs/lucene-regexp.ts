/**
 * Lucene's regular expression syntax (org.apache.lucene.util.automaton.RegExp), as a terms
 * aggregation's `include`/`exclude` string uses it, compiled to a JavaScript RegExp that must
 * match the whole value. Lucene's expressions are always anchored, `^` and `$` are ordinary
 * characters, `"…"` quotes a literal, `@` is any string and `#` the empty language. Its
 * intersection `&`, complement `~` and numeric interval `<n-m>` have no JavaScript equivalent
 * here and are refused with an Error naming the operator, never read as something else.
 */

const RESERVED = new Set(['.', '?', '+', '*', '|', '{', '}', '[', ']', '(', ')', '"', '\\', '#', '@', '&', '<', '>', '~']);

/** The JS source of one character matched literally. */
function literal(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** The JS source of one character inside a character class. */
function classLiteral(ch: string): string {
  return /[\\\][^-]/.test(ch) ? `\\${ch}` : ch;
}

class Parser {
  private i = 0;
  private readonly chars: string[];

  constructor(readonly text: string) {
    this.chars = [...text];
  }

  private peek(): string | undefined {
    return this.chars[this.i];
  }

  private fail(why: string): never {
    throw new Error(`${why} at position ${this.i} of the regular expression [${this.text}]`);
  }

  parse(): string {
    const out = this.union();
    if (this.i < this.chars.length) this.fail(`unexpected character [${this.peek() ?? ''}]`);
    return out;
  }

  private union(): string {
    const parts = [this.concatenation()];
    while (this.peek() === '|') {
      this.i++;
      parts.push(this.concatenation());
    }
    return parts.length === 1 ? (parts[0] as string) : parts.map((p) => `(?:${p})`).join('|');
  }

  private concatenation(): string {
    let out = '';
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      if (c === '&') this.fail('the intersection operator [&] is not supported');
      out += this.repeated();
    }
    return out;
  }

  private repeated(): string {
    let atom = this.atom();
    for (;;) {
      const c = this.peek();
      if (c === '*' || c === '+' || c === '?') {
        this.i++;
        atom = `(?:${atom})${c}`;
      } else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.chars.slice(this.i).join(''));
        if (m === null) this.fail('expected a repetition count');
        this.i += [...m[0]].length;
        atom = `(?:${atom})${m[0]}`;
      } else return atom;
    }
  }

  private atom(): string {
    const c = this.peek();
    if (c === undefined) this.fail('unexpected end');
    this.i++;
    switch (c) {
      case '.':
        return '[\\s\\S]';
      case '@':
        return '[\\s\\S]*';
      case '#':
        return '(?!)';
      case '~':
        this.i--;
        return this.fail('the complement operator [~] is not supported');
      case '<':
        this.i--;
        return this.fail('the numeric interval [<n-m>] is not supported');
      case '(': {
        if (this.peek() === ')') {
          this.i++;
          return '';
        }
        const inner = this.union();
        if (this.peek() !== ')') this.fail('expected [)]');
        this.i++;
        return `(?:${inner})`;
      }
      case '"': {
        let s = '';
        while (this.peek() !== '"') {
          const ch = this.peek();
          if (ch === undefined) this.fail('expected ["]');
          s += literal(ch);
          this.i++;
        }
        this.i++;
        return s;
      }
      case '[':
        return this.charClass();
      case '\\': {
        const ch = this.peek();
        if (ch === undefined) this.fail('expected a character after [\\]');
        this.i++;
        return literal(ch);
      }
      default:
        if (RESERVED.has(c)) this.fail(`unexpected character [${c}]`);
        return literal(c);
    }
  }

  private charClass(): string {
    let out = '[';
    if (this.peek() === '^') {
      out += '^';
      this.i++;
    }
    let first = true;
    for (;;) {
      let c = this.peek();
      if (c === undefined) this.fail('expected []]');
      if (c === ']' && !first) break;
      this.i++;
      if (c === '\\') {
        c = this.peek();
        if (c === undefined) this.fail('expected a character after [\\]');
        this.i++;
      }
      out += classLiteral(c);
      if (this.peek() === '-' && this.chars[this.i + 1] !== undefined && this.chars[this.i + 1] !== ']') {
        this.i++;
        let to = this.peek() as string;
        this.i++;
        if (to === '\\') {
          to = this.peek() ?? this.fail('expected a character after [\\]');
          this.i++;
        }
        out += `-${classLiteral(to)}`;
      }
      first = false;
    }
    this.i++;
    return `${out}]`;
  }
}

/** Compiles Lucene regexp `text` to a RegExp matching whole values; throws Error for what it cannot compile. */
export function compileLuceneRegexp(text: string): RegExp {
  return new RegExp(`^(?:${new Parser(text).parse()})$`, 'u');
}
