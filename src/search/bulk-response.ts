import type { BulkItem, WriteOutcome } from './search-service.js';

/**
 * The `_bulk` response body. A bulk of thousands of documents answers with thousands of items;
 * building an object per item (plus a spread copy) and then stringifying the whole tree cost as
 * much as storing the documents in SQLite, so the compact text is written directly here. The
 * object form (`bulkResponseObject`) stays as the reference: the tests check that the text is
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

/** Compact JSON text of the whole response; `took` in milliseconds. */
export function renderBulkResponse(items: readonly BulkItem[], forcedRefresh: boolean, took: number): string {
  let failed = false;
  const parts: string[] = new Array<string>(items.length);
  const refresh = forcedRefresh ? ',"forced_refresh":true' : '';
  let lastIndex: string | undefined;
  let lastIndexJson = '';
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as BulkItem;
    if ('error' in item) {
      failed = true;
      const e = item.error;
      parts[i] = `{${JSON.stringify(item.op)}:{"_index":${JSON.stringify(item.index)},"_id":${JSON.stringify(item.id)},"status":${e.status},"error":${JSON.stringify(errorItem(e.toBody()))}}}`;
      continue;
    }
    const o = item.outcome;
    // Every item of a bulk usually names the same index: quote it once.
    if (o.index !== lastIndex) {
      lastIndex = o.index;
      lastIndexJson = JSON.stringify(o.index);
    }
    parts[i] =
      `{${JSON.stringify(item.op)}:{"_index":${lastIndexJson},"_id":${JSON.stringify(o.id)},"_version":${o.version},"result":"${o.result}",` +
      `"_shards":${o.result === 'noop' ? SHARDS_NOOP : SHARDS_WRITE},"_seq_no":${o.seqNo},"_primary_term":1${refresh},"status":${itemStatus(o)}}}`;
  }
  return `{"errors":${failed},"took":${took},"items":[${parts.join(',')}]}`;
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
    const body: Record<string, unknown> = {
      _index: o.index,
      _id: o.id,
      _version: o.version,
      result: o.result,
      _shards: o.result === 'noop' ? { total: 0, successful: 0, failed: 0 } : { total: 2, successful: 1, failed: 0 },
      _seq_no: o.seqNo,
      _primary_term: 1,
    };
    if (forcedRefresh) body.forced_refresh = true;
    body.status = itemStatus(o);
    return { [item.op]: body };
  });
  return { errors: failed, took, items: out };
}
