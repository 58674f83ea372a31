import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

// ES refuses objects nested deeper than index.mapping.depth.limit (20) with a 400; a bulk item that
// does so fails alone. A document nested thousands deep must not exhaust the stack of the parser
// (an internal error, and the whole bulk lost with it).
describe('deeply nested document', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  const deep = (depth: number): string => `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`;

  it('is refused with a 400, alone in a bulk', async () => {
    const one = await h.app.inject({ method: 'PUT', url: '/d/_doc/1', payload: deep(5000), headers: { 'content-type': 'application/json' } });
    expect(one.statusCode).toBe(400);
    const bulk = `{"index":{"_id":"2"}}\n${deep(5000)}\n{"index":{"_id":"3"}}\n{"a":"ok"}\n`;
    const res = await h.app.inject({ method: 'POST', url: '/d/_bulk', payload: bulk, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { errors: boolean; items: { index: { status: number } }[] };
    expect(body.errors).toBe(true);
    expect(body.items.map((i) => i.index.status)).toEqual([400, 201]);
  });
});
