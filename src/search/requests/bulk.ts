import { errors, idTooLong, MAX_ID_BYTES, type SearchError } from '../errors.js';
import {
  boolField, casProblems, checkPrimaryTerm, checkSeqNo, indexProblems, longField, MATCH_ANY, parseVersionType, UNASSIGNED_PRIMARY_TERM, UNASSIGNED_SEQ_NO,
  type VersionType, type WriteConditions,
} from './write-conditions.js';
import { parseJsonBody } from '../http/json-render.js';
import { objectMembers, readInTextOrder } from '../syntax/json-members.js';
import { utf8Problem } from '../syntax/utf8-check.js';
import { fetchSourceOf, readUpdate } from './update-body.js';
import type { SourceFilter } from './source-filter.js';
import type { SourceSpan } from '../store/document-store.js';
import { nextTurn } from '../../http/work-turns.js';

/** `cond`: the item's version or sequence-number conditions (write-conditions.ts), already validated. */
export type BulkAction =
  /** `source` undefined: parse `raw` when the item is applied (a malformed one is the item's error). */
  | {
      readonly op: 'index' | 'create';
      readonly index: string;
      readonly id: string | undefined;
      readonly source: unknown;
      readonly raw: string;
      readonly rawIn?: SourceSpan;
      readonly cond?: WriteConditions | undefined;
      /** `require_alias`: the index must be an alias (there are none here, so the item fails). */
      readonly requireAlias?: boolean | undefined;
      /** The item's custom routing (kept with the document); undefined without one. */
      readonly routing?: string | undefined;
    }
  | {
      readonly op: 'update';
      readonly index: string;
      readonly id: string;
      readonly doc: unknown;
      readonly docAsUpsert: boolean;
      readonly upsert: unknown;
      /** The body's `detect_noop` (undefined: true). */
      readonly detectNoop?: boolean;
      readonly cond?: WriteConditions;
      readonly requireAlias?: boolean;
      readonly routing?: string;
    }
  | { readonly op: 'delete'; readonly index: string; readonly id: string; readonly cond?: WriteConditions; readonly routing?: string };

/**
 * An update item as parseBulk reads it: with what its answer's `get` shows when the update line's
 * `_source` (or the action line's, which replaces it, as BulkRequestParser sets it after reading
 * the body) asks for the document (UpdateHelper.extractGetResult).
 */
export type BulkUpdateAction = Extract<BulkAction, { op: 'update' }> & { readonly fetchSource?: SourceFilter };

/**
 * Parses a `_bulk` NDJSON body into actions: an action line (`index`, `create`, `update`,
 * `delete`) followed, except for delete, by a source line. The source text of index/create is kept
 * verbatim so it is stored exactly as sent, and parsed only when the item is applied (`source` is
 * then undefined). A malformed action line fails the whole request, as in ES, and so does a
 * malformed update source line; a malformed index/create source becomes that item's error.
 *
 * Validation as ES 8 does it: the body is parsed first (a malformed line wins), then every item's
 * problems (BulkRequest.validate: no index, no id for delete/update, an id over 512 bytes, an update
 * without doc, invalid version or sequence-number conditions: write-conditions.ts) are gathered into one action_request_validation_exception that fails the whole
 * request, so nothing is applied. The line after an action line is its source whatever it holds
 * (a blank one is an empty source); an action line that ends the body has no source line and is
 * dropped, as ES's parser drops it.
 *
 * Why bytes: the body arrives as a Buffer. Decoding all of it into one string cost the main thread
 * about 20 ms per 5,000-document bulk, and one non-ASCII character anywhere made that string (and
 * every source sliced from it) two bytes a character, which JSON.parse reads more slowly. Lines are
 * found with Buffer.indexOf (memchr), the common action line is matched on its bytes, and only the
 * lines that are needed as text are decoded, each on its own (an ASCII line becomes a one-byte
 * string). Each source also carries where its bytes lie in the body (`rawIn`), so that the store can
 * hand the body's bytes to its writer thread once instead of every source as a string.
 */

const NL = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** `{"index":{"_id":"` and `{"create":{"_id":"`: the start of the action line clients send most. */
const INDEX_HEAD = Buffer.from('{"index":{"_id":"');
const CREATE_HEAD = Buffer.from('{"create":{"_id":"');
/** `"}}`, after the id. */
const ACTION_TAIL = Buffer.from('"}}');

/** The keys ES 8's bulk parser reads in an action line's object. */
const ACTION_KEYS = new Set([
  '_index', '_id', 'routing', 'op_type', 'version', 'version_type', 'if_seq_no', 'if_primary_term', 'retry_on_conflict',
  'pipeline', '_source', 'require_alias', 'require_data_stream', 'dynamic_templates', 'list_executed_pipelines',
]);

/** What an action line's object says, as ES's bulk parser reads it. */
interface ActionMeta {
  readonly index: string | undefined;
  readonly id: string | undefined;
  readonly opType: string | undefined;
  /** `require_alias` (undefined: the request's default). */
  readonly requireAlias: boolean | undefined;
  /** Undefined when the line gives none of version, version_type, if_seq_no, if_primary_term. */
  readonly cond: WriteConditions | undefined;
  /** An update's `retry_on_conflict` (0 when not given). */
  readonly retryOnConflict: number;
  /** The line's `_source` (undefined when not given or null). */
  readonly fetchSource: SourceFilter | undefined;
  /** The line's `routing` (undefined when not given, null or empty). */
  readonly routing: string | undefined;
}

/**
 * A text-valued field of an action line as ES's bulk parser reads it (Jackson's `text()`): a
 * number as it is written in the line (`"_id": 1.50` is "1.50", `1e2` is "1e2"), which JSON.parse
 * has lost; anything else as String gives it. `text`: the action line.
 */
function textField(v: unknown, key: string, text: () => string): string {
  if (typeof v !== 'number') return String(v);
  const t = text();
  const [action] = objectMembers(t);
  const member = action === undefined ? undefined : objectMembers(t, action.valueAt).findLast((m) => m.key === key);
  return member === undefined ? String(v) : t.slice(member.valueAt, member.valueEnd);
}

/**
 * Reads an action line's object (`line`: its 1-based number; `text`: the line) field by field, as
 * ES's bulk parser does: a null value is skipped whatever its key, an array (or an object other than
 * `dynamic_templates` and `_source`) is malformed, a key it does not know is refused (also `_type`,
 * gone since 8.0), and delete/update refuse what they cannot use.
 */
function readMeta(meta: Record<string, unknown>, op: string, line: number, text: () => string): { meta: ActionMeta; built: () => void } {
  let index: string | undefined;
  let id: string | undefined;
  let opType: string | undefined;
  let requireAlias: boolean | undefined;
  let version = MATCH_ANY;
  let versionType: VersionType = 'internal';
  let ifSeqNo = UNASSIGNED_SEQ_NO;
  let ifPrimaryTerm = UNASSIGNED_PRIMARY_TERM;
  let conditions = false;
  let dynamicTemplates = false;
  let retryOnConflict = 0;
  let fetchSource: SourceFilter | undefined;
  let routing: string | undefined;
  for (const key in meta) {
    const v = meta[key];
    if (v === null) continue;
    if (typeof v === 'object') {
      if (!Array.isArray(v) && (key === 'dynamic_templates' || key === '_source')) {
        if (key === 'dynamic_templates' && Object.keys(v).length > 0) dynamicTemplates = true;
        else if (key === '_source') fetchSource = fetchSourceOf(v);
        continue;
      }
      throw errors.illegalArgument(`Malformed action/metadata line [${line}], expected a simple value for field [${key}] but found [${jsonTokenName(v)}]`);
    }
    if (!ACTION_KEYS.has(key)) throw errors.illegalArgument(`Action/metadata line [${line}] contains an unknown parameter [${key}]`);
    switch (key) {
      case '_index':
        index = textField(v, key, text);
        break;
      case '_id':
        id = textField(v, key, text);
        break;
      case 'routing':
        // An empty routing is none, as for `?routing=`.
        routing = textField(v, key, text) || undefined;
        break;
      case 'op_type':
        opType = String(v);
        break;
      case 'require_alias':
        requireAlias = boolField(v);
        break;
      case 'version':
        version = longField(v, 'version');
        conditions = true;
        break;
      case 'version_type':
        versionType = parseVersionType(String(v));
        conditions = true;
        break;
      case 'if_seq_no':
        ifSeqNo = longField(v, 'if_seq_no');
        conditions = true;
        break;
      case 'if_primary_term':
        ifPrimaryTerm = longField(v, 'if_primary_term');
        conditions = true;
        break;
      case 'retry_on_conflict':
        retryOnConflict = longField(v, 'retry_on_conflict');
        break;
      case '_source':
        fetchSource = fetchSourceOf(v);
        break;
    }
  }
  // ES makes these checks once its parser has read the whole line (a key the line repeats fails
  // the request first), so they are left to the caller to run after readInTextOrder.
  const built = (): void => {
    if (op === 'delete' && dynamicTemplates) throw errors.illegalArgument(`Delete request in line [${line}] does not accept dynamic_templates`);
    if (op === 'update') {
      if (version !== MATCH_ANY || versionType !== 'internal') {
        throw errors.illegalArgument('Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead');
      }
      if (dynamicTemplates) throw errors.illegalArgument(`Update request in line [${line}] does not accept dynamic_templates`);
    }
    // The request is built here in ES, whose setters refuse a negative sequence number or term.
    checkSeqNo(ifSeqNo);
    checkPrimaryTerm(ifPrimaryTerm);
  };
  const cond = conditions ? { version, versionType, ifSeqNo, ifPrimaryTerm } : undefined;
  return { meta: { index, id, opType, requireAlias, cond, retryOnConflict, fetchSource, routing }, built };
}

/**
 * An action line's object (`line`: its number; `text`: the line) read as ES's bulk parser reads it:
 * the op, then its metadata; `built` runs the checks ES makes once the line is read.
 */
function readAction(action: unknown, line: number, text: () => string): { op: 'index' | 'create' | 'update' | 'delete'; meta: ActionMeta; built: () => void } {
  if (action === null || typeof action !== 'object' || Array.isArray(action)) {
    throw errors.illegalArgument(`Malformed action/metadata line [${line}], expected START_OBJECT but found [${jsonTokenName(action)}]`);
  }
  const [op, metaRaw] = Object.entries(action as Record<string, unknown>)[0] ?? [];
  if (op === undefined) throw errors.illegalArgument(`Malformed action/metadata line [${line}], expected FIELD_NAME but found [END_OBJECT]`);
  if (op !== 'index' && op !== 'create' && op !== 'update' && op !== 'delete') {
    throw errors.illegalArgument(`Malformed action/metadata line [${line}], expected field [create], [delete], [index] or [update] but found [${op}]`);
  }
  if (metaRaw === null || typeof metaRaw !== 'object' || Array.isArray(metaRaw)) {
    throw errors.illegalArgument(`Malformed action/metadata line [${line}], expected START_OBJECT or END_OBJECT but found [${jsonTokenName(metaRaw)}]`);
  }
  return { op, ...readMeta(metaRaw as Record<string, unknown>, op, line, text) };
}

/** The name Jackson gives the token a JSON value starts with, as ES's bulk parser reports it. */
function jsonTokenName(v: unknown): string {
  if (v === null) return 'VALUE_NULL';
  if (Array.isArray(v)) return 'START_ARRAY';
  if (typeof v === 'string') return 'VALUE_STRING';
  if (typeof v === 'number') return 'VALUE_NUMBER_' + (Number.isInteger(v) ? 'INT' : 'FLOAT');
  return typeof v === 'boolean' ? `VALUE_${String(v).toUpperCase()}` : 'START_OBJECT';
}

/** Whitespace String.prototype.trim removes among ASCII bytes (space, \t, \n, \v, \f, \r). */
function isAsciiTrimmed(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

/**
 * An index or create item whose source text is decoded from the body each time `raw` is read (the
 * service reads it once, when it applies the item). Why: decoding every source up front kept all
 * of a bulk's source strings alive until the whole request was done, so the garbage collector
 * copied and promoted every one of them; decoded when applied, each dies young.
 */
class SpanAction implements SourceSpan {
  readonly source = undefined;
  constructor(
    readonly op: 'index' | 'create',
    readonly index: string,
    readonly id: string | undefined,
    readonly bytes: Buffer,
    readonly start: number,
    readonly end: number,
    /** Its version or sequence-number conditions, if the action line gave any. */
    readonly cond: WriteConditions | undefined = undefined,
    /** Whether its index must be an alias. */
    readonly requireAlias: boolean | undefined = undefined,
  ) {}

  /** Its custom routing, if any (set by sourceAction). */
  routing: string | undefined = undefined;

  /** The source text; a source that is not UTF-8 fails its item as ES's parser fails it (never decoded to U+FFFD). */
  get raw(): string {
    const bad = utf8Problem(this.bytes, this.start, this.end);
    if (bad !== undefined) throw errors.malformedJson(1, bad.col, bad.message);
    return this.bytes.toString('utf8', this.start, this.end);
  }

  /** Where `raw` lies in the body: the action itself. */
  get rawIn(): SourceSpan {
    return this;
  }
}

function startsWithAt(buf: Buffer, at: number, end: number, head: Buffer): boolean {
  if (end - at < head.length) return false;
  for (let k = 0; k < head.length; k++) if (buf[at + k] !== head[k]) return false;
  return true;
}

/**
 * `{"index":{"_id":"<id>"}}` or the same with `create`, then only spaces, tabs or CRs: the op and
 * the id's byte range, or undefined. The id has no quote, backslash or control character, exactly
 * as the JSON parser would read it without escapes; anything else takes the general way.
 */
function simpleAction(buf: Buffer, start: number, end: number): { op: 'index' | 'create'; idStart: number; idEnd: number } | undefined {
  let op: 'index' | 'create';
  let at: number;
  if (startsWithAt(buf, start, end, INDEX_HEAD)) {
    op = 'index';
    at = start + INDEX_HEAD.length;
  } else if (startsWithAt(buf, start, end, CREATE_HEAD)) {
    op = 'create';
    at = start + CREATE_HEAD.length;
  } else return undefined;
  const idStart = at;
  for (; at < end; at++) {
    const b = buf[at] as number;
    if (b === QUOTE) break;
    if (b === BACKSLASH || b < 0x20) return undefined;
  }
  const idEnd = at;
  if (!startsWithAt(buf, idEnd, end, ACTION_TAIL)) return undefined;
  for (at = idEnd + ACTION_TAIL.length; at < end; at++) {
    const b = buf[at];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return undefined;
  }
  return { op, idStart, idEnd };
}

/**
 * `body` as text is read as UTF-8 (tests and the in-process probe pass strings); `requireAlias`:
 * the request's `require_alias`, for the action lines that do not give their own (default false).
 */
export function parseBulk(
  body: Buffer | string,
  defaultIndex: string | undefined,
  requireAlias = false,
  /** The URL's `_source*` (RestBulkAction's default fetch context): over an update line's own, under the action line's. */
  defaultFetchSource?: SourceFilter,
  /** The URL's `routing`: every item's that gives none. */
  defaultRouting?: string,
): (BulkAction | SearchError)[] {
  const parse = new BulkParse(body, { index: defaultIndex, requireAlias, fetchSource: defaultFetchSource, routing: defaultRouting });
  parse.items(Infinity);
  return parse.finish();
}

/**
 * parseBulk in slices of about `sliceMs` of work, with the event loop free between them. Why: a
 * 1,000-document body took up to 27-32 ms to parse in one piece, a stall for every search behind
 * it (the items are then applied in slices too: SearchService.bulkEachSliced). Infinity: one piece.
 */
export async function parseBulkSliced(
  body: Buffer | string,
  defaultIndex: string | undefined,
  requireAlias: boolean,
  defaultFetchSource: SourceFilter | undefined,
  defaultRouting: string | undefined,
  sliceMs: number,
): Promise<(BulkAction | SearchError)[]> {
  const parse = new BulkParse(body, { index: defaultIndex, requireAlias, fetchSource: defaultFetchSource, routing: defaultRouting });
  while (!parse.items(sliceMs)) await nextTurn();
  return parse.finish();
}

/** A `_bulk` body being parsed, item by item (see parseBulk); exported for bench/search-stall-probe.ts, which times its slices. */
export class BulkParse {
  private readonly buf: Buffer;
  private readonly lines: BulkLines;
  private readonly defaults: BulkDefaults;
  private readonly out: (BulkAction | SearchError)[] = [];
  /** Validation problems of the items, in order (see the comment at the top). */
  private readonly problems: string[] = [];
  private done = false;

  constructor(body: Buffer | string, defaults: BulkDefaults) {
    this.buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    this.lines = new BulkLines(this.buf);
    this.defaults = defaults;
  }

  /** Reads items for about `sliceMs`; whether the body is read to its end. */
  items(sliceMs: number): boolean {
    const { buf, lines, defaults, out, problems } = this;
    const defaultIndex = defaults.index;
    const started = sliceMs === Infinity ? 0 : performance.now();
    let n = 0;
    while (!this.done && lines.nextNonBlank()) {
      // The action line clients send most, `{"index":{"_id":"…"}}` in compact form, without JSON.parse
      // and the objects it makes; anything else (other keys, spaces, escapes) takes the general way.
      const simple = defaultIndex === undefined || defaults.requireAlias ? undefined : simpleAction(buf, lines.start, lines.end);
      if (simple !== undefined) {
        const id = buf.toString('utf8', simple.idStart, simple.idEnd);
        // The id's bytes are its UTF-8 as is (no escapes on this path).
        if (simple.idEnd - simple.idStart > MAX_ID_BYTES) problems.push(idTooLong(id, simple.idEnd - simple.idStart));
        if (!lines.nextLine()) break;
        out.push(lines.sourceAction(simple.op, defaultIndex as string, id, undefined, undefined, defaults.routing));
      } else if (!readItem(lines, defaults, problems, out)) break;
      // The clock is read every 32 items: reading it per item cost more than the items.
      if ((++n & 31) === 0 && performance.now() - started >= sliceMs) return false;
    }
    this.done = true;
    return true;
  }

  /** The actions, or the request's action_request_validation_exception. */
  finish(): (BulkAction | SearchError)[] {
    if (this.problems.length > 0) throw errors.actionValidation(this.problems);
    return this.out;
  }
}

/** What the URL gives every item of a `_bulk` (see parseBulk). */
interface BulkDefaults {
  readonly index: string | undefined;
  readonly requireAlias: boolean;
  readonly fetchSource: SourceFilter | undefined;
  readonly routing: string | undefined;
}

/**
 * Reads an item the general way, from the current (action) line, as ES's parser reads it; its
 * validation problems go to `problems`, the item (when it has an index and id) to `out`. False when
 * the body ends before the item's source line.
 */
function readItem(lines: BulkLines, defaults: BulkDefaults, problems: string[], out: (BulkAction | SearchError)[]): boolean {
  // Read as ES's parser reads the line: a key it repeats (Jackson's strict duplicate detection)
  // fails the request unless something earlier in the line does first (readInTextOrder).
  const text = lines.text();
  const line = lines.count;
  const { op, meta, built } = readInTextOrder(text, parseJsonBody(text), (action) => readAction(action, line, () => text));
  built();
  const index = meta.index ?? defaults.index;
  const { id, cond } = meta;
  const routing = meta.routing ?? defaults.routing;
  const routed = routing === undefined ? {} : { routing };
  // A delete has no use for it (DeleteRequest.isRequireAlias is false).
  const alias = op !== 'delete' && (meta.requireAlias ?? defaults.requireAlias) ? { requireAlias: true } : {};
  if (index === undefined) problems.push('index is missing');
  if (op === 'delete') {
    // DeleteRequest.validate, in its order.
    if (id === undefined || id === '') problems.push('id is missing');
    if (cond !== undefined) problems.push(...casProblems(cond));
    if (index !== undefined && id !== undefined && id !== '') out.push(cond === undefined ? { op, index, id, ...routed } : { op, index, id, cond, ...routed });
    return true;
  }
  if (!lines.nextLine()) return false;
  if (op !== 'update') {
    // An index action's `op_type: create` makes it a create.
    const kind = op === 'index' && meta.opType === 'create' ? 'create' : (op as 'index' | 'create');
    problems.push(...indexProblems(kind, id, cond));
    // Parsed when the item is applied (SearchService.bulk): a bulk's parsed sources would
    // otherwise all live until the whole request is done, and the garbage collector would copy
    // and promote every one of them.
    if (index !== undefined) out.push(lines.sourceAction(kind, index, id, cond, alias.requireAlias, routing));
    return true;
  }
  // ES's parser reads an update's source line at once (UpdateRequest.fromXContent): a malformed
  // one fails the whole request, unlike an index/create source, which only the shard parses.
  const updateText = lines.text();
  const update = readUpdate(updateText, parseJsonBody(updateText), cond, meta.retryOnConflict);
  // UpdateRequest.validate, in its order.
  if (id === undefined || id === '') problems.push('id is missing');
  problems.push(...update.problems);
  const fetchSource = meta.fetchSource ?? defaults.fetchSource ?? update.source;
  if (index !== undefined && id !== undefined) {
    const item: BulkUpdateAction = { op: 'update', index, id, ...update.fields, ...alias, ...routed, ...(fetchSource === undefined ? {} : { fetchSource }) };
    out.push(item);
  }
  return true;
}

/** The lines of a `_bulk` body, read one at a time: the current line's bytes and how many lines were read. */
class BulkLines {
  /** Lines read so far (for error texts). */
  count = 0;
  /** The current line: bytes start..end of the body. */
  start = 0;
  end = 0;
  /** The offset of the next line. */
  private pos = 0;
  /** The current line as text, when it had to be decoded to tell whether it is blank. */
  private decoded: string | undefined;

  constructor(private readonly buf: Buffer) {}

  /** Moves to the next line that is not blank (as String.prototype.trim sees blank); false at the end. */
  nextNonBlank(): boolean {
    const buf = this.buf;
    const len = buf.length;
    while (this.pos < len) {
      const nl = buf.indexOf(NL, this.pos);
      // ES reads line by line and refuses any bytes after the last newline (even blank ones)
      // when it reaches them: errors of earlier lines come first.
      if (nl === -1) throw errors.illegalArgument('The bulk request must be terminated by a newline [\\n]');
      const end = nl;
      const start = this.pos;
      this.pos = end + 1;
      this.count++;
      let at = start;
      while (at < end && isAsciiTrimmed(buf[at] as number)) at++;
      if (at === end) continue;
      this.decoded = undefined;
      if ((buf[at] as number) >= 0x80) {
        // Unicode whitespace (NBSP, BOM, …) also counts as blank for trim: decide on the text.
        this.decoded = buf.toString('utf8', start, end);
        if (this.decoded.trim() === '') continue;
      }
      this.start = start;
      this.end = end;
      return true;
    }
    return false;
  }

  /** Moves to the very next line, blank or not (an action's source line); false at the end of the body. */
  nextLine(): boolean {
    if (this.pos >= this.buf.length) return false;
    const nl = this.buf.indexOf(NL, this.pos);
    if (nl === -1) throw errors.illegalArgument('The bulk request must be terminated by a newline [\\n]');
    this.start = this.pos;
    this.end = nl;
    this.pos = nl + 1;
    this.count++;
    this.decoded = undefined;
    return true;
  }

  text(): string {
    return this.decoded ?? this.buf.toString('utf8', this.start, this.end);
  }

  /**
   * The current line as the source of an index/create item: its text without the whitespace
   * around it (as trim removes it), by the byte range of that text in the body.
   */
  sourceAction(op: 'index' | 'create', index: string, id: string | undefined, cond?: WriteConditions, requireAlias?: boolean, routing?: string): SpanAction {
    const buf = this.buf;
    let start = this.start;
    let end = this.end;
    while (start < end && isAsciiTrimmed(buf[start] as number)) start++;
    while (end > start && isAsciiTrimmed(buf[end - 1] as number)) end--;
    if ((buf[start] as number) >= 0x80 || (buf[end - 1] as number) >= 0x80) {
      // Possibly Unicode whitespace at an end (NBSP, BOM, …): trim the text and count its bytes.
      const line = this.text();
      const t = line.trimStart();
      const raw = t.trimEnd();
      start = this.start + Buffer.byteLength(line.slice(0, line.length - t.length), 'utf8');
      end = this.end - Buffer.byteLength(t.slice(raw.length), 'utf8');
    }
    const action = new SpanAction(op, index, id, buf, start, end, cond, requireAlias);
    action.routing = routing;
    return action;
  }
}
