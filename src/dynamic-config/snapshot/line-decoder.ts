/**
 * The server's side of snapshot lines (format 2, see lines.ts): decoding a provider's
 * bodies against the last one it accepted.
 */
import { FORBIDDEN_KEYS, LineProblem, parseLine, parseValue, QUOTE } from './line-syntax.js';

export class SnapshotLinesError extends Error {
  override readonly name = 'SnapshotLinesError';
}

/** One line of a decoded body: the value it sets and where. */
export interface SnapshotLine {
  readonly path: readonly string[];
  readonly value: unknown;
}

/**
 * An object the paths of a body run through (`configuration`, `configuration.http`, …), kept
 * between bodies: a body that changes none of the lines below one reuses its object as it is.
 */
interface Container {
  readonly parent: Container | undefined;
  /** Key in the parent ('' for the root). */
  readonly name: string;
  readonly path: readonly string[];
  readonly children: Map<string, Container>;
  /** The object of the last committed body. */
  obj: Record<string, unknown> | undefined;
  /** The object being built by the decode of epoch {@link touched}. */
  next: Record<string, unknown>;
  /** Epoch of the last decode that changed a line below (it builds a new object). */
  touched: number;
  /** Epoch of the last decode that set this container in its parent's new object. */
  placed: number;
}

/**
 * A line as kept between bodies: its path is its container's path and its name, made when asked
 * (only changed lines are), rather than an array per line of the 15,000 of a body.
 */
class HeldLine implements SnapshotLine {
  constructor(readonly parent: Container, readonly name: string, readonly value: unknown) {}

  get path(): readonly string[] {
    return [...this.parent.path, this.name];
  }
}

/** A body being decoded as it arrives (see {@link SnapshotLineDecoder.begin}). */
export interface DecodeSession {
  /**
   * Takes the body received so far, `body[0, length)`; `final` when it is whole. The buffer may
   * be another one from call to call (grown), its first bytes the same.
   */
  feed(body: Buffer, length: number, final: boolean): void;
  /** Decodes the whole body; throws {@link SnapshotLinesError} as {@link SnapshotLineDecoder.decode} does. */
  finish(body: Buffer): DecodedSnapshot;
}

/** One decoded body, applied to the decoder's memory only by {@link SnapshotLineDecoder.commit}. */
export interface DecodedSnapshot {
  readonly value: Record<string, unknown>;
  /**
   * Values taken over from lines accepted before (never re-parsed; already validated). Built on
   * first use: the incremental path reads {@link added} and {@link removed} instead.
   */
  readonly reused: ReadonlySet<object>;
  /** Lines parsed for this body (for logs). */
  readonly parsed: number;
  /** Lines of this body that were not in the last committed one (parsed), in body order. */
  readonly added: readonly SnapshotLine[];
  /** Lines of the last committed body that are not in this one. */
  readonly removed: readonly SnapshotLine[];
  /**
   * The value of the last committed body, which {@link added} and {@link removed} are relative
   * to; undefined for a decoder's first body (then every line is added).
   */
  readonly previous: Record<string, unknown> | undefined;
}

/** The internals {@link SnapshotLineDecoder.commit} takes over. */
interface DecodedBody extends DecodedSnapshot {
  readonly body: Buffer;
  readonly lines: readonly HeldLine[];
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly objects: readonly (readonly [Container, Record<string, unknown>])[];
}

const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const TAB = 0x09;

/**
 * The path text of the last line parsed the long way, up to its last key (`["configuration",
 * "http","routers",`), with the container it leads to. Consecutive lines of a body mostly share
 * it (a sender writes a map's records one after the other), and a line that starts with these
 * bytes and goes on with a plain `"<name>"]<TAB>` has that container and name as its path: the
 * prefix is the canonical JSON of the container's path, and a key without a backslash, a quote
 * or a control character is its own JSON text. Such a line skips parsing its path as JSON,
 * making a string per key and looking up each container on the way.
 */
interface PathPrefix {
  readonly bytes: Buffer;
  readonly parent: Container;
  /** The lines below are server states (`["serverStatus",<service>]`): see flatStrings in line-syntax.ts. */
  readonly strings: boolean;
}

/** The prefix of a parsed path, when the line is written the canonical way (else undefined). */
function pathPrefix(body: Buffer, at: number, path: readonly string[], parent: Container): PathPrefix | undefined {
  const text = path.length === 1 ? '[' : `${JSON.stringify(path.slice(0, -1)).slice(0, -1)},`;
  const bytes = Buffer.from(text, 'utf8');
  const end = at + bytes.length;
  // The canonical text can be longer than the line (invalid UTF-8 decodes to U+FFFD, 3 bytes): then it is not the line's.
  if (end >= body.length || body.compare(bytes, 0, bytes.length, at, end) !== 0 || body[end] !== QUOTE) return undefined;
  return { bytes, parent, strings: path.length === 2 && path[0] === 'serverStatus' };
}

/**
 * The name of a line `[p, e)` under `prefix` when it is written `<prefix>"<name>"]<TAB>` with a
 * plain name (see {@link PathPrefix}), and where its value starts; undefined otherwise.
 */
function nameAfter(body: Buffer, p: number, e: number, prefix: PathPrefix): { name: string; value: number } | undefined {
  const bytes = prefix.bytes;
  const n = bytes.length;
  if (e - p < n + 4) return undefined;
  for (let k = 0; k < n; k++) if (body[p + k] !== bytes[k]) return undefined;
  const from = p + n + 1;
  if (body[from - 1] !== QUOTE) return undefined;
  let r = from;
  for (;;) {
    if (r >= e) return undefined;
    const b = body[r] as number;
    if (b === QUOTE) break;
    if (b === BACKSLASH || b < 0x20) return undefined;
    r++;
  }
  if (body[r + 1] !== CLOSE_BRACKET || body[r + 2] !== TAB) return undefined;
  const name = body.toString('utf8', from, r);
  if (FORBIDDEN_KEYS.has(name)) return undefined;
  return { name, value: r + 3 };
}

const NEWLINE = 0x0a;
/** How far ahead in the previous body a line is looked for when the two bodies part (deleted records). */
const RESYNC_WINDOW = 16;
/** Most lines compared in one go while skipping unchanged runs (bounds the bytes compared in vain). */
const MAX_RUN_STEP = 512;

function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Physical line number (1-based, empty lines counted) of the line starting at byte `at`. */
function lineNumberAt(body: Buffer, at: number): number {
  let n = 1;
  for (let i = body.indexOf(NEWLINE, 0); i !== -1 && i < at; i = body.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/** An Int32Array that grows. */
class Offsets {
  data: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.data = new Int32Array(Math.max(capacity, 64));
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
  done(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * Decodes bodies of one provider, reusing what it accepted last. The last accepted body is kept
 * as bytes with each line's offsets; a new body is compared with it by byte ranges, before
 * anything is cut into strings: runs of unchanged lines are skipped many lines at a time (a
 * sender keeps its order, so a one-record change leaves two long runs around it), and each
 * unchanged line gives its previous value object, neither parsed nor validated again. A line
 * that differs is looked for a few lines further in the previous body (records deleted there),
 * else parsed. The objects the paths run through are rebuilt only where a line below them was
 * added or removed; elsewhere the previous objects are taken over. The result is the value a
 * decoding from scratch gives, key order included, and so are the errors.
 * Owned by whoever receives that provider's snapshots; not shared between providers.
 */
export class SnapshotLineDecoder {
  private body: Buffer = Buffer.alloc(0);
  private starts: Int32Array = new Int32Array(0);
  private ends: Int32Array = new Int32Array(0);
  private lines: readonly HeldLine[] = [];
  private value: Record<string, unknown> | undefined;
  private readonly root: Container = SnapshotLineDecoder.container(undefined, '');
  private epoch = 0;
  /** Bodies committed so far. */
  private generation = 0;

  /** The container that holds the last key of `path`, made on the way where it is missing. */
  private parentOf(path: readonly string[]): Container {
    let parent = this.root;
    for (let i = 0; i < path.length - 1; i++) {
      const k = path[i] as string;
      let child = parent.children.get(k);
      if (child === undefined) parent.children.set(k, (child = SnapshotLineDecoder.container(parent, k)));
      parent = child;
    }
    return parent;
  }

  private static container(parent: Container | undefined, name: string): Container {
    return { parent, name, path: parent === undefined ? [] : [...parent.path, name], children: new Map(), obj: undefined, next: {}, touched: 0, placed: 0 };
  }

  /**
   * The body last committed, with its lines' offsets and its version (the value of its
   * `["version"]` line): the base of a snapshot delta (delta.ts). Undefined before any.
   */
  get base(): { readonly body: Buffer; readonly starts: Int32Array; readonly ends: Int32Array; readonly version: unknown } | undefined {
    if (this.value === undefined) return undefined;
    return { body: this.body, starts: this.starts, ends: this.ends, version: this.value.version };
  }

  decode(input: string | Buffer): DecodedSnapshot {
    const body = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
    const session = this.begin();
    session.feed(body, body.length, true);
    return session.finish(body);
  }

  /**
   * Starts decoding a body that arrives in pieces: {@link DecodeSession.feed} compares and parses
   * its complete lines as they come, {@link DecodeSession.finish} builds the value from the whole
   * body. A session that sees the decoder commit another body meanwhile starts over.
   */
  // eslint-disable-next-line max-lines-per-function -- the session is a closure over the decoder's state at its start (the committed body it compares against); its feed step is one loop over complete lines
  begin(): DecodeSession {
    const generation = this.generation;
    const { body: prev, starts: prevStarts, ends: prevEnds, lines: held } = this;
    const n = held.length;
    const matched = new Uint8Array(n);
    const lines: HeldLine[] = [];
    const added: HeldLine[] = [];
    const starts = new Offsets(n + 16);
    const ends = new Offsets(n + 16);
    let j = 0;
    let p = 0;
    let problem: SnapshotLinesError | undefined;
    let done = false;
    let prefix: PathPrefix | undefined;
    const feed = (body: Buffer, length: number, final: boolean): void => {
      if (done || (!final && length === 0)) return;
      // Complete lines only until the body is whole: up to the last line break received.
      const limit = final ? length : body.lastIndexOf(NEWLINE, length - 1);
      if (final) done = true;
      if (limit <= p) return;
      /** Whether held lines [from, to) equal the body's bytes at `at`, up to a line end. */
      const sameRun = (from: number, to: number, at: number): boolean => {
        const s = prevStarts[from] as number;
        const e = prevEnds[to - 1] as number;
        const end = at + (e - s);
        return end <= limit && (end === limit || body[end] === NEWLINE) && body.compare(prev, s, e, at, end) === 0;
      };
      while (p < limit) {
        if (body[p] === NEWLINE) {
          p++;
          continue;
        }
        // Skip the run of unchanged lines starting here: doubling steps, then halving ones.
        let run = 0;
        let step = 1;
        let growing = true;
        const base = prevStarts[j] ?? 0;
        while (j + run < n) {
          const to = Math.min(n, j + run + step);
          if (sameRun(j + run, to, p + ((prevStarts[j + run] as number) - base))) {
            run = to - j;
            if (growing && step < MAX_RUN_STEP) step *= 2;
          } else {
            growing = false;
            if (step === 1) break;
            step >>= 1;
          }
        }
        if (run > 0) {
          for (let i = j; i < j + run; i++) {
            matched[i] = 1;
            lines.push(held[i] as HeldLine);
            starts.push(p + ((prevStarts[i] as number) - base));
            ends.push(p + ((prevEnds[i] as number) - base));
          }
          p += (prevEnds[j + run - 1] as number) - base;
          j += run;
          continue;
        }
        let e = body.indexOf(NEWLINE, p);
        if (e === -1 || e > limit) e = limit;
        let found = -1;
        for (let d = 1; d <= RESYNC_WINDOW && j + d < n; d++) {
          const s = prevStarts[j + d] as number;
          if ((prevEnds[j + d] as number) - s === e - p && body.compare(prev, s, prevEnds[j + d], p, e) === 0) {
            found = j + d;
            break;
          }
        }
        let line: HeldLine;
        if (found !== -1) {
          matched[found] = 1;
          line = held[found] as HeldLine;
          j = found + 1;
        } else {
          try {
            const quick = prefix === undefined ? undefined : nameAfter(body, p, e, prefix);
            if (quick !== undefined) {
              line = new HeldLine((prefix as PathPrefix).parent, quick.name, parseValue(body.toString('utf8', quick.value, e), (prefix as PathPrefix).strings));
            } else {
              const parsed = parseLine(body.toString('utf8', p, e));
              const parent = this.parentOf(parsed.path);
              line = new HeldLine(parent, parsed.path[parsed.path.length - 1] as string, parsed.value);
              prefix = pathPrefix(body, p, parsed.path, parent);
            }
          } catch (err) {
            if (!(err instanceof LineProblem)) throw err;
            // Reported once the lines before it are placed: a conflict there comes first.
            problem = new SnapshotLinesError(`line ${lineNumberAt(body, p)}: ${err.message}`);
            done = true;
            return;
          }
          added.push(line);
        }
        lines.push(line);
        starts.push(p);
        ends.push(e);
        p = e;
      }
    };
    const finish = (body: Buffer): DecodedSnapshot => {
      if (this.generation !== generation) {
        const again = this.begin();
        again.feed(body, body.length, true);
        return again.finish(body);
      }
      feed(body, body.length, true);
      return this.build(body, { n, held, matched, lines, added, starts, ends, problem });
    };
    return { feed, finish };
  }

  /** The value of a compared body: containers with a line added or removed below them get new objects. */
  private build(body: Buffer, m: {
    n: number; held: readonly HeldLine[]; matched: Uint8Array; lines: HeldLine[]; added: HeldLine[]; starts: Offsets; ends: Offsets;
    problem: SnapshotLinesError | undefined;
  }): DecodedSnapshot {
    const { n, held, matched, lines, added, starts, ends, problem } = m;
    const epoch = ++this.epoch;
    // Containers with a line added or removed below them get new objects, built in line order.
    const touch = (from: Container) => {
      for (let c: Container | undefined = from; c !== undefined && c.touched !== epoch; c = c.parent) {
        c.touched = epoch;
        c.next = {};
      }
    };
    const removed: HeldLine[] = [];
    for (let i = 0; i < n; i++) {
      if (matched[i] === 0) {
        removed.push(held[i] as HeldLine);
        touch((held[i] as HeldLine).parent);
      }
    }
    for (const line of added) touch(line.parent);
    const startsDone = starts.done();
    const fail = (i: number, what: string): never => {
      const line = lines[i] as HeldLine;
      throw new SnapshotLinesError(`line ${lineNumberAt(body, startsDone[i] as number)}: the path ${JSON.stringify(line.path)} ${what}`);
    };
    const objects: [Container, Record<string, unknown>][] = [];
    if (this.root.touched === epoch) {
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] as HeldLine;
        const parent = line.parent;
        // Set the containers on the way in their parents' new objects, once per decode (an
        // unchanged parent holds them already, but one further up may be new).
        for (let c = parent; c.parent !== undefined && c.placed !== epoch; c = c.parent) {
          c.placed = epoch;
          if (c.parent.touched !== epoch) continue;
          if (hasOwn(c.parent.next, c.name)) fail(i, 'runs through a value set by another line');
          c.parent.next[c.name] = c.touched === epoch ? c.next : c.obj;
        }
        if (parent.touched === epoch) {
          if (hasOwn(parent.next, line.name)) fail(i, 'is assigned twice');
          parent.next[line.name] = line.value;
        }
      }
      const collect = (c: Container) => {
        if (c.touched !== epoch) return;
        objects.push([c, c.next]);
        for (const child of c.children.values()) collect(child);
      };
      collect(this.root);
    }
    if (problem !== undefined) throw problem;
    const value = this.root.touched === epoch ? this.root.next : (this.root.obj ?? {});
    let reused: Set<object> | undefined;
    const decoded: DecodedBody = {
      value,
      get reused(): ReadonlySet<object> {
        if (reused === undefined) {
          reused = new Set();
          // A first body (every line added) reuses nothing: no set of its 15,000 lines to make.
          if (added.length < lines.length) {
            const addedSet = new Set<SnapshotLine>(added);
            for (const line of lines) if (!addedSet.has(line) && typeof line.value === 'object' && line.value !== null) reused.add(line.value);
          }
        }
        return reused;
      },
      parsed: added.length,
      added,
      removed,
      previous: this.value,
      body,
      lines,
      starts: startsDone,
      ends: ends.done(),
      objects,
    };
    return decoded;
  }

  /**
   * Remembers a decoded body once its snapshot was accepted.
   * @returns the previous body's bytes, no longer read by the decoder (to be used again)
   */
  commit(decoded: DecodedSnapshot): Buffer | undefined {
    const d = decoded as DecodedBody;
    const released = this.body === d.body || this.body.length === 0 ? undefined : this.body;
    for (const [c, obj] of d.objects) {
      c.obj = obj;
      // Children no line runs through any more are forgotten: records come and go, and the tree
      // would otherwise keep a node for every name ever seen (no committed line refers to them).
      for (const name of c.children.keys()) if (!hasOwn(obj, name)) c.children.delete(name);
    }
    this.body = d.body;
    this.starts = d.starts;
    this.ends = d.ends;
    this.lines = d.lines;
    this.value = d.value;
    this.generation++;
    return released;
  }
}
