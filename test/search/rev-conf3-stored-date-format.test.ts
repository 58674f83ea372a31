import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

// Review of s-conf3: ES shows a stored date field's value with the field's own format
// (DateFieldType.valueForDisplay: the mapping format's printer), not always as ISO 8601; the
// branch prints every stored date as strict_date_optional_time.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('_mget stored date with a format (review)', () => {
  let h: SearchHarness;
  const call = async (method: 'POST' | 'PUT', url: string, body: unknown): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
    const mappings = { properties: { e: { type: 'date', store: true, format: 'epoch_millis' }, y: { type: 'date', store: true, format: 'yyyy-MM-dd' } } };
    expect((await call('PUT', '/sf', { mappings })).status).toBe(200);
    expect((await call('PUT', '/sf/_doc/1', { e: 1420070400001, y: '2015-01-02' })).status).toBe(201);
  });
  afterAll(async () => h.close());

  it('prints each stored date with its field’s format', async () => {
    const res = await call('POST', '/sf/_mget?stored_fields=e,y', { ids: ['1'] });
    expect(res.body.docs[0].fields).toEqual({ e: ['1420070400001'], y: ['2015-01-02'] });
  });
});
