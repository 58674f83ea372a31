import { writeShards, type BulkItem, type WriteOutcome } from './document-writes.js';

/**
 * The `_bulk` response body. A bulk of thousands of documents answers with thousands of items;
 * building an object per item (plus a spread copy) and then stringifying the whole tree cost as
 * much as storing the documents in SQLite, so the compact JSON is written directly here, as bytes.
 * The object form (`bulkResponseObject`) stays as the reference: the tests check that the text is
 * exactly `JSON.stringify` of it, and `?pretty` re-renders the parsed text.
 */

const SHARDS_WRITE = '{"total":2,"successful":1,"failed":0}';
const SHARDS_NOOP = '{"total":0,"successful":0,"failed":0}';

/** HTTP status of one item, as ES reports it inside the bulk response. */
export function itemStatus(o: WriteOutcome): number {
  return o.result === 'created' ? 201 : o.result === 'not_found' ? 404 : 200;
}

/** A bulk item's error is the outer cause without root_cause/status. */
export function errorItem(body: Record<string, unknown>): unknown {
  const e = { ...(body.error as Record<string, unknown>) };
  delete e.root_cause;
  return e;
}

/**
 * Appends to a growing Buffer. Why: rendering the ~0.9 MB response of a 5,000-document bulk as one
 * string (a template per item, joined) and then encoding it cost the main thread about 1 µs per
 * document; the items are nearly all the same constant pieces, an index name, an id and a few
 * integers, which are cheaper to copy and write as bytes.
 */
class ByteWriter {
  buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Any text, as UTF-8. */
  text(s: string): void {
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** A number as JSON.stringify writes it; safe non-negative integers digit by digit. */
  number(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) return this.text(JSON.stringify(n));
    let digits = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
    this.ensure(digits);
    let at = this.pos + digits;
    let x = n;
    do {
      this.buf[--at] = 0x30 + (x % 10);
      x = Math.floor(x / 10);
    } while (x > 0);
    this.pos += digits;
  }

  /** A string as JSON.stringify writes it: one of printable ASCII without quote or backslash byte by byte. */
  jsonString(s: string): void {
    this.ensure(s.length + 2);
    const buf = this.buf;
    let at = this.pos;
    buf[at++] = 0x22;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return this.text(JSON.stringify(s));
      buf[at++] = c;
    }
    buf[at++] = 0x22;
    this.pos = at;
  }

  /** The bytes written so far (a view, not a copy). */
  result(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
/**
 * `,"result":"<result>",["forced_refresh":true,]"_shards":{…},"_seq_no":` per result, without and
 * with `forced_refresh` (ES writes it right after `result`: DocWriteResponse).
 */
const resultPieces = (refresh: string): Map<string, Buffer> =>
  new Map<string, Buffer>(
    (['created', 'updated', 'deleted', 'not_found', 'noop'] as const).map((r) => [r, ascii(`,"result":"${r}",${refresh}"_shards":${r === 'noop' ? SHARDS_NOOP : SHARDS_WRITE},"_seq_no":`)]),
  );
const RESULT_PIECES = resultPieces('');
const RESULT_REFRESH_PIECES = resultPieces('"forced_refresh":true,');
const ID_PIECE = ascii(',"_id":');
const VERSION_PIECE = ascii(',"_version":');
const TERM_STATUS = ascii(',"_primary_term":1,"status":');
const TERM_GET = ascii(',"_primary_term":1,"get":');
const STATUS_PIECE = ascii(',"status":');
const ITEM_END = ascii('}}');
const COMMA = ascii(',');

/** Bytes reserved before the items for the response's head (`{"errors":false,"took":<ms>,"items":[`). */
const HEAD_ROOM = 64;

/**
 * Renders a `_bulk` response item by item, as the items are applied (SearchService.bulkEach), into
 * compact JSON as UTF-8 bytes. Why: an item rendered at once dies young, where a list of all of
 * them (two objects per document) lived until the whole request was applied, so the garbage
 * collector copied and promoted every one. The head, which needs the error flag and `took`, is
 * written last, into room left before the items.
 */
export class BulkResponseWriter {
  private readonly w: ByteWriter;
  private failed = false;
  private count = 0;
  private readonly refreshed: boolean;
  /** `{"<op>":{"_index":` by op, and the last index name with its JSON bytes (a bulk usually names one). */
  private readonly heads = new Map<string, Buffer>();
  private lastIndex: string | undefined;
  private lastIndexJson = ascii('');

  /** `expected`: how many items are coming (sizes the buffer; it grows if needed). */
  constructor(forcedRefresh: boolean, expected = 0) {
    this.w = new ByteWriter(HEAD_ROOM + expected * 200 + 2);
    this.w.pos = HEAD_ROOM;
    this.refreshed = forcedRefresh;
  }

  /**
   * `get`: an update item's `get` member (the document as the update left it, when the item asked
   * for its `_source`), written after `_primary_term` as UpdateResponse writes it. `forced`: whether
   * the item says `forced_refresh: true` (by default, as the writer was made).
   */
  add(item: BulkItem, get?: unknown, forced = this.refreshed): void {
    const w = this.w;
    if (this.count++ > 0) w.bytes(COMMA);
    if ('error' in item) {
      this.failed = true;
      const e = item.error;
      w.text(`{${JSON.stringify(item.op)}:{"_index":${JSON.stringify(item.index)},"_id":${JSON.stringify(item.id)},"status":${e.status},"error":${JSON.stringify(errorItem(e.toBody()))}}}`);
      return;
    }
    const o = item.outcome;
    let head = this.heads.get(item.op);
    if (head === undefined) {
      head = Buffer.from(`{${JSON.stringify(item.op)}:{"_index":`, 'utf8');
      this.heads.set(item.op, head);
    }
    if (o.index !== this.lastIndex) {
      this.lastIndex = o.index;
      this.lastIndexJson = Buffer.from(JSON.stringify(o.index), 'utf8');
    }
    w.bytes(head);
    w.bytes(this.lastIndexJson);
    w.bytes(ID_PIECE);
    w.jsonString(o.id);
    w.bytes(VERSION_PIECE);
    w.number(o.version);
    // An index of one replica (the default) takes the prepared bytes; another count is rare.
    if (o.copies === undefined || o.copies === 2 || o.result === 'noop') w.bytes((forced ? RESULT_REFRESH_PIECES : RESULT_PIECES).get(o.result) as Buffer);
    else w.bytes(ascii(`,"result":"${o.result}",${forced ? '"forced_refresh":true,' : ''}"_shards":${JSON.stringify(writeShards(o))},"_seq_no":`));
    w.number(o.seqNo);
    if (get === undefined) w.bytes(TERM_STATUS);
    else {
      w.bytes(TERM_GET);
      w.text(JSON.stringify(get));
      w.bytes(STATUS_PIECE);
    }
    w.number(itemStatus(o));
    w.bytes(ITEM_END);
  }

  /** The whole response; `took` in milliseconds. The writer is done with after this. */
  finish(took: number): Buffer {
    const w = this.w;
    w.text(']}');
    const end = w.pos;
    const head = Buffer.from(`{"errors":${this.failed},"took":${JSON.stringify(took)},"items":[`, 'latin1');
    if (head.length > HEAD_ROOM) return Buffer.concat([head, w.buf.subarray(HEAD_ROOM, end)]);
    head.copy(w.buf, HEAD_ROOM - head.length);
    return w.buf.subarray(HEAD_ROOM - head.length, end);
  }
}

/** Compact JSON of the whole response as UTF-8 bytes; `took` in milliseconds. */
export function renderBulkResponseBytes(items: readonly BulkItem[], forcedRefresh: boolean, took: number): Buffer {
  const r = new BulkResponseWriter(forcedRefresh, items.length);
  for (const item of items) r.add(item);
  return r.finish(took);
}

/** The same response as a plain object (reference for the tests). */
export function bulkResponseObject(items: readonly BulkItem[], forcedRefresh: boolean, took: number): Record<string, unknown> {
  let failed = false;
  const out = items.map((item) => {
    if ('error' in item) {
      failed = true;
      return { [item.op]: { _index: item.index, _id: item.id, status: item.error.status, error: errorItem(item.error.toBody()) } };
    }
    const o = item.outcome;
    const body: Record<string, unknown> = { _index: o.index, _id: o.id, _version: o.version, result: o.result };
    if (forcedRefresh) body.forced_refresh = true;
    body._shards = writeShards(o);
    body._seq_no = o.seqNo;
    body._primary_term = 1;
    body.status = itemStatus(o);
    return { [item.op]: body };
  });
  return { errors: failed, took, items: out };
}
