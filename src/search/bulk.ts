import { errors, SearchError } from './errors.js';
import { parseJsonBody } from './json-render.js';
import type { SourceSpan } from './document-store.js';
import type { BulkAction } from './search-service.js';

/** `{"index":{"_id":"<id>"}}` or the same with `create`; the id without quotes, escapes or controls. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must not match
const SIMPLE_ACTION = /^\{"(index|create)":\{"_id":"([^"\\\u0000-\u001f]*)"\}\}[ \t\r]*$/;

/**
 * Parses a `_bulk` NDJSON body into actions: an action line (`index`, `create`, `update`,
 * `delete`) followed, except for delete, by a source line. The source text of index/create is kept
 * verbatim so it is stored exactly as sent, and parsed only when the item is applied (`source` is
 * then undefined). A malformed action line fails the whole request, as in ES; a malformed source
 * becomes that item's error.
 */
export function parseBulk(body: string, defaultIndex: string | undefined): (BulkAction | SearchError)[] {
  const out: (BulkAction | SearchError)[] = [];
  /** Lines read so far (for error texts), the offset of the next line, and where the last one starts in `body`. */
  let i = 0;
  let pos = 0;
  let lineStart = 0;
  const next = (): string | undefined => {
    while (pos < body.length) {
      const nl = body.indexOf('\n', pos);
      const end = nl === -1 ? body.length : nl;
      const l = body.slice(pos, end);
      lineStart = pos;
      pos = end + 1;
      i++;
      if (l.trim() !== '') return l;
    }
    return undefined;
  };
  /**
   * A source line without its surrounding whitespace, and where that text starts in `body`: the
   * store then sends the worker the body once instead of every source (see SqliteWriter).
   */
  const sourceOf = (line: string): { raw: string; rawIn: SourceSpan } => {
    const t = line.trimStart();
    return { raw: t.trimEnd(), rawIn: { text: body, start: lineStart + line.length - t.length } };
  };
  while (true) {
    const line = next();
    if (line === undefined) break;
    // The action line clients send most, `{"index":{"_id":"…"}}` in compact form, without JSON.parse
    // and the objects it makes; anything else (other keys, spaces, escapes) takes the general way.
    const simple = defaultIndex === undefined ? null : SIMPLE_ACTION.exec(line);
    if (simple !== null) {
      const src = next();
      if (src === undefined) throw errors.illegalArgument('The bulk request must be terminated by a newline [\\n]');
      out.push({ op: simple[1] as 'index' | 'create', index: defaultIndex as string, id: simple[2], source: undefined, ...sourceOf(src) });
      continue;
    }
    const action = parseJsonBody(line);
    if (action === null || typeof action !== 'object' || Array.isArray(action)) throw errors.illegalArgument('Malformed action/metadata line [1], expected START_OBJECT');
    const [op, metaRaw] = Object.entries(action as Record<string, unknown>)[0] ?? [];
    if (op === undefined || !['index', 'create', 'update', 'delete'].includes(op)) {
      throw errors.illegalArgument(`Malformed action/metadata line [${i}], expected field [create], [delete], [index] or [update] but found [${op ?? ''}]`);
    }
    const meta = (metaRaw ?? {}) as Record<string, unknown>;
    const index = meta._index === undefined ? defaultIndex : String(meta._index);
    if (index === undefined) {
      out.push(errors.actionValidation(['index is missing']));
      if (op !== 'delete') next();
      continue;
    }
    const id = meta._id === undefined || meta._id === null ? undefined : String(meta._id);
    if (op === 'delete') {
      if (id === undefined) throw errors.actionValidation(['id is missing']);
      out.push({ op, index, id });
      continue;
    }
    const src = next();
    if (src === undefined) throw errors.illegalArgument('The bulk request must be terminated by a newline [\\n]');
    if (op !== 'update') {
      // Parsed when the item is applied (SearchService.bulk): a bulk's parsed sources would
      // otherwise all live until the whole request is done, and the garbage collector would copy
      // and promote every one of them.
      out.push({ op: op as 'index' | 'create', index, id, source: undefined, ...sourceOf(src) });
      continue;
    }
    let source: unknown;
    try {
      source = parseJsonBody(src);
    } catch (e) {
      if (e instanceof SearchError) {
        out.push(e);
        continue;
      }
      throw e;
    }
    if (id === undefined) throw errors.actionValidation(['id is missing']);
    const u = (source ?? {}) as Record<string, unknown>;
    out.push({ op: 'update', index, id, doc: u.doc, docAsUpsert: u.doc_as_upsert === true, upsert: u.upsert });
  }
  return out;
}
