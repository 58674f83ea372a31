/**
 * Lucene's regular expression syntax (the `regexp` query's), parsed and matched against whole
 * terms. The grammar is Lucene's RegExp class's: union `|`, intersection `&`, concatenation,
 * repetition `? * + {n} {n,} {n,m}`, complement `~`, character classes `[a-z]` and `[^…]`, `.` (any
 * character), `#` (the empty language), `@` (any string), `"…"` (a literal string), `( )`, numeric
 * intervals `<n-m>` and the escapes `\d \s \w \D \S \W`. The optional operators (`&`, `~`, `#`,
 * `@`, `<n-m>`) are on only when their flag is; off, their character is a literal, as in Lucene.
 * Every match is anchored: the expression must match the whole term.
 *
 * Matching computes, for a sub-expression and a start position, the set of positions where a match
 * can end (memoized per term): exact for every operator, complement and intersection included,
 * and polynomial in the term's length, with no backtracking blow-up. Lucene compiles the same
 * language into a deterministic automaton instead, which is why it has a determinized-states limit
 * that this matcher does not need.
 */

export const REGEXP_FLAGS = { INTERSECTION: 1, COMPLEMENT: 2, EMPTY: 4, ANYSTRING: 8, INTERVAL: 32, NONE: 0, ALL: 0xffff } as const;

export type RegexpFlag = keyof typeof REGEXP_FLAGS;

type Node =
  | { t: 'set'; test: (c: number) => boolean }
  | { t: 'str'; cps: readonly number[] }
  | { t: 'cat'; parts: readonly Node[] }
  | { t: 'or'; parts: readonly Node[] }
  | { t: 'and'; a: Node; b: Node }
  | { t: 'not'; a: Node }
  | { t: 'rep'; a: Node; min: number; max: number }
  | { t: 'none' }
  | { t: 'any' }
  | { t: 'interval'; min: bigint; max: bigint; digits: number };

/** A syntax error, with Lucene's message (the caller wraps it in ES's query_shard_exception). */
export class RegexpSyntaxError extends Error {}

/** A compiled expression: `matches` tests a whole term; `prefix` is the literal text every match starts with. */
export interface LuceneRegexp {
  matches(term: string): boolean;
  readonly prefix: string;
}

/** The flags value of a `flags` string (`INTERSECTION|COMPLEMENT`), or undefined when a name is unknown. */
export function parseFlags(text: string): number | undefined {
  let v = 0;
  for (const raw of text.split('|')) {
    const name = raw.trim().toUpperCase();
    if (name === '') continue;
    if (!Object.hasOwn(REGEXP_FLAGS, name)) return undefined;
    v |= REGEXP_FLAGS[name as RegexpFlag];
  }
  return v;
}

class Parser {
  private pos = 0;
  private readonly cps: number[];
  constructor(text: string, private readonly flags: number, private readonly caseInsensitive: boolean) {
    this.cps = [...text].map((c) => c.codePointAt(0) as number);
  }

  parse(): Node {
    const n = this.union();
    if (this.pos < this.cps.length) throw new RegexpSyntaxError(`end-of-string expected at position ${this.pos}`);
    return n;
  }

  private has(flag: number): boolean {
    return (this.flags & flag) !== 0;
  }
  private peek(chars: string): boolean {
    return this.pos < this.cps.length && chars.includes(String.fromCodePoint(this.cps[this.pos] as number));
  }
  private match(ch: string): boolean {
    if (this.pos < this.cps.length && this.cps[this.pos] === ch.codePointAt(0)) {
      this.pos++;
      return true;
    }
    return false;
  }
  private next(): number {
    if (this.pos >= this.cps.length) throw new RegexpSyntaxError('unexpected end-of-string');
    return this.cps[this.pos++] as number;
  }

  private union(): Node {
    const first = this.inter();
    if (!this.match('|')) return first;
    const parts = [first];
    do parts.push(this.inter());
    while (this.match('|'));
    return { t: 'or', parts };
  }
  private inter(): Node {
    const a = this.concat();
    if (this.has(REGEXP_FLAGS.INTERSECTION) && this.match('&')) return { t: 'and', a, b: this.inter() };
    return a;
  }
  private concat(): Node {
    const parts: Node[] = [];
    do parts.push(this.repeat());
    while (this.pos < this.cps.length && !this.peek(')|') && (!this.has(REGEXP_FLAGS.INTERSECTION) || !this.peek('&')));
    return parts.length === 1 ? (parts[0] as Node) : { t: 'cat', parts };
  }
  private repeat(): Node {
    let n = this.complement();
    while (this.peek('?*+{')) {
      if (this.match('?')) n = { t: 'rep', a: n, min: 0, max: 1 };
      else if (this.match('*')) n = { t: 'rep', a: n, min: 0, max: Infinity };
      else if (this.match('+')) n = { t: 'rep', a: n, min: 1, max: Infinity };
      else if (this.match('{')) {
        const min = this.integer();
        let max = min;
        if (this.match(',')) max = this.peek('}') ? Infinity : this.integer();
        if (!this.match('}')) throw new RegexpSyntaxError(`expected '}' at position ${this.pos}`);
        if (max < min) throw new RegexpSyntaxError(`invalid repetition range(out of order): ${min}..${max}`);
        n = { t: 'rep', a: n, min, max };
      }
    }
    return n;
  }
  private integer(): number {
    const start = this.pos;
    while (this.peek('0123456789')) this.pos++;
    if (start === this.pos) throw new RegexpSyntaxError(`integer expected at position ${this.pos}`);
    return Number(String.fromCodePoint(...this.cps.slice(start, this.pos)));
  }
  private complement(): Node {
    if (this.has(REGEXP_FLAGS.COMPLEMENT) && this.match('~')) return { t: 'not', a: this.complement() };
    return this.charClassExp();
  }
  private charClassExp(): Node {
    if (!this.match('[')) return this.simple();
    const negate = this.match('^');
    const tests: ((c: number) => boolean)[] = [];
    do tests.push(this.charClass());
    while (this.pos < this.cps.length && !this.peek(']'));
    if (!this.match(']')) throw new RegexpSyntaxError(`expected ']' at position ${this.pos}`);
    const inAny = (c: number) => tests.some((t) => t(c));
    return { t: 'set', test: negate ? (c) => !inAny(c) : inAny };
  }
  private charClass(): (c: number) => boolean {
    const shorthand = this.shorthand();
    if (shorthand !== undefined) return shorthand;
    const from = this.charExp();
    if (this.match('-')) {
      const to = this.charExp();
      if (from > to) throw new RegexpSyntaxError(`invalid range: from (${from}) cannot be > to (${to})`);
      return this.caseInsensitive ? (c) => folds(c).some((x) => x >= from && x <= to) : (c) => c >= from && c <= to;
    }
    return this.charTest(from);
  }
  private charTest(cp: number): (c: number) => boolean {
    if (!this.caseInsensitive) return (c) => c === cp;
    const alts = folds(cp);
    return (c) => alts.includes(c);
  }
  /** `\d \s \w` and their negations, or undefined (the position unchanged) when the next is none. */
  private shorthand(): ((c: number) => boolean) | undefined {
    if (this.cps[this.pos] !== 0x5c) return undefined;
    const c = this.cps[this.pos + 1];
    const base = c === 0x64 || c === 0x44 ? isDigit : c === 0x73 || c === 0x53 ? isSpace : c === 0x77 || c === 0x57 ? isWord : undefined;
    if (base === undefined || c === undefined) return undefined;
    this.pos += 2;
    return c < 0x61 ? (x) => !base(x) : base;
  }
  private charExp(): number {
    this.match('\\');
    return this.next();
  }
  private simple(): Node {
    if (this.match('.')) return { t: 'any' };
    if (this.has(REGEXP_FLAGS.EMPTY) && this.match('#')) return { t: 'none' };
    if (this.has(REGEXP_FLAGS.ANYSTRING) && this.match('@')) return { t: 'rep', a: { t: 'any' }, min: 0, max: Infinity };
    if (this.match('"')) {
      const start = this.pos;
      while (this.pos < this.cps.length && this.cps[this.pos] !== 0x22) this.pos++;
      if (!this.match('"')) throw new RegexpSyntaxError(`expected '"' at position ${this.pos}`);
      return this.literal(this.cps.slice(start, this.pos - 1));
    }
    if (this.match('(')) {
      if (this.match(')')) return { t: 'str', cps: [] };
      const n = this.union();
      if (!this.match(')')) throw new RegexpSyntaxError(`expected ')' at position ${this.pos}`);
      return n;
    }
    if (this.has(REGEXP_FLAGS.INTERVAL) && this.match('<')) return this.interval();
    const shorthand = this.shorthand();
    if (shorthand !== undefined) return { t: 'set', test: shorthand };
    return this.literal([this.charExp()]);
  }
  private literal(cps: number[]): Node {
    if (!this.caseInsensitive) return { t: 'str', cps };
    return { t: 'cat', parts: cps.map((c) => ({ t: 'set', test: this.charTest(c) }) as Node) };
  }
  private interval(): Node {
    const start = this.pos;
    while (this.pos < this.cps.length && this.cps[this.pos] !== 0x3e) this.pos++;
    if (!this.match('>')) throw new RegexpSyntaxError(`expected '>' at position ${this.pos}`);
    const body = String.fromCodePoint(...this.cps.slice(start, this.pos - 1));
    const m = /^(\d+)-(\d+)$/.exec(body);
    if (m === null) throw new RegexpSyntaxError(`interval syntax error at position ${this.pos - 1}`);
    const [lo, hi] = [m[1] as string, m[2] as string];
    const a = BigInt(lo);
    const b = BigInt(hi);
    // Lucene: bounds written with as many digits fix the width (leading zeros required); otherwise any width.
    return { t: 'interval', min: a < b ? a : b, max: a < b ? b : a, digits: lo.length === hi.length ? lo.length : 0 };
  }
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isWord = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;

/** The code point and its other cases (case_insensitive). */
function folds(cp: number): number[] {
  const s = String.fromCodePoint(cp);
  const out = new Set([cp, s.toLowerCase().codePointAt(0) as number, s.toUpperCase().codePointAt(0) as number]);
  return [...out];
}

/** Compiles `text` with `flags` (REGEXP_FLAGS); throws RegexpSyntaxError. */
export function compileRegexp(text: string, flags: number = REGEXP_FLAGS.ALL, caseInsensitive = false): LuceneRegexp {
  const root = new Parser(text, flags, caseInsensitive).parse();
  const prefix = literalPrefix(root);
  const suffix = literalSuffix(root);
  const [min, max] = lengthBounds(root);
  // `lit.*`: every term starting with the prefix matches (the caller scans those terms alone, but
  // the test must hold for any term).
  if (anyTail(root)) return { matches: (term) => term.startsWith(prefix), prefix };
  // Necessary conditions first, each exact and cheap (most terms of a prefix's range fail one):
  // the literal text every match ends with, and the lengths a match can have, in code points.
  return {
    matches: (term) => {
      if (!term.endsWith(suffix) || !term.startsWith(prefix)) return false;
      if (term.length < min) return false;
      if (max !== Infinity) {
        const n = codePoints(term);
        if (n < min || n > max) return false;
      }
      return matchesWhole(root, term);
    },
    prefix,
  };
}

/** The code points of `s` (a surrogate pair is one). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = s.charCodeAt(i - 1);
      if (h >= 0xd800 && h <= 0xdbff) n--;
    }
  }
  return n;
}

/** Whether `n` is literal text followed by any string (`doc.*`, `doc@`): every term with its prefix matches. */
function anyTail(n: Node): boolean {
  if (n.t !== 'cat' || n.parts.length === 0) return false;
  const last = n.parts[n.parts.length - 1] as Node;
  if (last.t !== 'rep' || last.a.t !== 'any' || last.min !== 0 || last.max !== Infinity) return false;
  return n.parts.slice(0, -1).every((p) => p.t === 'str');
}

/** The literal text every match of `n` ends with ('' when none). */
function literalSuffix(n: Node): string {
  if (n.t === 'str') return String.fromCodePoint(...n.cps);
  if (n.t !== 'cat') return '';
  let out = '';
  for (let k = n.parts.length - 1; k >= 0; k--) {
    const p = n.parts[k] as Node;
    if (p.t !== 'str') return out;
    out = String.fromCodePoint(...p.cps) + out;
  }
  return out;
}

/** The fewest and most code points a match of `n` can have (Infinity: no bound; [Infinity, 0] for the empty language). */
function lengthBounds(n: Node): [number, number] {
  switch (n.t) {
    case 'set':
    case 'any':
      return [1, 1];
    case 'str':
      return [n.cps.length, n.cps.length];
    case 'none':
      return [Infinity, 0];
    case 'interval':
      return n.digits > 0 ? [n.digits, n.digits] : [1, Infinity];
    case 'not':
      return [0, Infinity];
    case 'cat': {
      let lo = 0;
      let hi = 0;
      for (const p of n.parts) {
        const [a, b] = lengthBounds(p);
        lo += a;
        hi += b;
      }
      return lo === Infinity ? [Infinity, 0] : [lo, hi];
    }
    case 'or': {
      let lo = Infinity;
      let hi = 0;
      for (const p of n.parts) {
        const [a, b] = lengthBounds(p);
        lo = Math.min(lo, a);
        hi = Math.max(hi, b);
      }
      return [lo, hi];
    }
    case 'and': {
      const [a1, b1] = lengthBounds(n.a);
      const [a2, b2] = lengthBounds(n.b);
      return [Math.max(a1, a2), Math.min(b1, b2)];
    }
    case 'rep': {
      const [a, b] = lengthBounds(n.a);
      // Zero repetitions match the empty string, whatever `a` is.
      const lo = n.min === 0 ? 0 : a * n.min;
      const hi = n.max === 0 || b === 0 ? 0 : b * n.max;
      return [lo, hi];
    }
  }
}

/** The literal text every match of `n` starts with ('' when none). */
function literalPrefix(n: Node): string {
  if (n.t === 'str') return String.fromCodePoint(...n.cps);
  if (n.t !== 'cat') return '';
  let out = '';
  for (const p of n.parts) {
    if (p.t !== 'str') return out;
    out += String.fromCodePoint(...p.cps);
  }
  return out;
}

function matchesWhole(root: Node, term: string): boolean {
  const cps: number[] = [];
  for (const ch of term) cps.push(ch.codePointAt(0) as number);
  const memo = new Map<Node, Map<number, readonly number[]>>();
  const ends = (n: Node, i: number): readonly number[] => {
    let byStart = memo.get(n);
    if (byStart === undefined) memo.set(n, (byStart = new Map()));
    const held = byStart.get(i);
    if (held !== undefined) return held;
    const out = endsOf(n, i, cps, ends);
    byStart.set(i, out);
    return out;
  };
  return ends(root, 0).includes(cps.length);
}

type Ends = (n: Node, i: number) => readonly number[];

function endsOf(n: Node, i: number, cps: readonly number[], ends: Ends): readonly number[] {
  const len = cps.length;
  switch (n.t) {
    case 'set':
      return i < len && n.test(cps[i] as number) ? [i + 1] : [];
    case 'any':
      return i < len ? [i + 1] : [];
    case 'none':
      return [];
    case 'str': {
      if (i + n.cps.length > len) return [];
      for (let k = 0; k < n.cps.length; k++) if (cps[i + k] !== n.cps[k]) return [];
      return [i + n.cps.length];
    }
    case 'cat': {
      let at: readonly number[] = [i];
      for (const p of n.parts) {
        const next = new Set<number>();
        for (const s of at) for (const e of ends(p, s)) next.add(e);
        if (next.size === 0) return [];
        at = [...next];
      }
      return at;
    }
    case 'or': {
      const out = new Set<number>();
      for (const p of n.parts) for (const e of ends(p, i)) out.add(e);
      return [...out];
    }
    case 'and': {
      const b = new Set(ends(n.b, i));
      return ends(n.a, i).filter((e) => b.has(e));
    }
    case 'not': {
      const a = new Set(ends(n.a, i));
      const out: number[] = [];
      for (let e = i; e <= len; e++) if (!a.has(e)) out.push(e);
      return out;
    }
    case 'rep':
      return repeatEnds(n.a, n.min, n.max, i, len, ends);
    case 'interval':
      return intervalEnds(n, i, cps);
  }
}

/** Ends of `a` repeated min..max times from i: breadth first, one round per repetition, stopping when nothing new is reached. */
function repeatEnds(a: Node, min: number, max: number, i: number, len: number, ends: Ends): readonly number[] {
  const out = new Set<number>();
  if (min === 0) out.add(i);
  let frontier = new Set([i]);
  // Past `min` rounds, a position reached again adds nothing: track what each round reaches.
  const seenAfterMin = new Set<number>();
  for (let round = 1; round <= max && frontier.size > 0; round++) {
    const next = new Set<number>();
    for (const s of frontier) for (const e of ends(a, s)) next.add(e);
    if (round >= min) {
      const fresh = new Set<number>();
      for (const e of next) {
        out.add(e);
        if (!seenAfterMin.has(e)) {
          seenAfterMin.add(e);
          fresh.add(e);
        }
      }
      frontier = fresh;
    } else frontier = next;
    // Before min, positions can only grow to len + 1 distinct ones: rounds beyond len repeat.
    if (round < min && round > len + 1 && frontier.size === 0) break;
  }
  return [...out];
}

function intervalEnds(n: Extract<Node, { t: 'interval' }>, i: number, cps: readonly number[]): number[] {
  const out: number[] = [];
  let digits = '';
  for (let e = i; e < cps.length && isDigit(cps[e] as number); e++) {
    digits += String.fromCodePoint(cps[e] as number);
    if (n.digits > 0 && digits.length !== n.digits) continue;
    const v = BigInt(digits);
    if (v >= n.min && v <= n.max) out.push(e + 1);
  }
  return out;
}
