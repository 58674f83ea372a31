import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoInstant } from '../../../src/search/syntax/date-format.js';
import { startSearch, type SearchHarness } from '../harness.js';

// Review of s-conf3: `_mget`'s `fields` for stored date fields. A date field takes epoch millis
// past what Date#toISOString can print (±8.64e15): `stored_fields` on such a document answered a
// 500. ES prints stored dates with strict_date_optional_time (year 4 to 9 digits, signed past 9999).

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('_mget stored_fields (review)', () => {
  let h: SearchHarness;
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
    const mappings = { properties: { d: { type: 'date', store: true }, k: { type: 'keyword', store: 'true' } } };
    expect((await call('PUT', '/sd', { mappings })).status).toBe(200);
    expect((await call('PUT', '/sd/_doc/1', { d: 9000000000000000, k: 'x' })).status).toBe(201);
    expect((await call('PUT', '/sd/_doc/2', { d: -9000000000000000 })).status).toBe(201);
  });
  afterAll(async () => h.close());

  it('answers a stored date past Date’s range instead of failing with a 500', async () => {
    const res = await call('POST', '/sd/_mget?stored_fields=d', { ids: ['1', '2'] });
    expect(res.status).toBe(200);
    expect(res.body.docs[0].fields).toEqual({ d: ['+287168-08-24T16:00:00.000Z'] });
    expect(res.body.docs[1].fields).toEqual({ d: ['-283229-05-10T08:00:00.000Z'] });
  });

  it('reads the mapping’s store as a boolean, "true" included', async () => {
    const res = await call('POST', '/sd/_mget', { docs: [{ _id: '1', stored_fields: ['k'] }] });
    expect(res.body.docs[0].fields).toEqual({ k: ['x'] });
  });

  it('prints years as java.time does with EXCEEDS_PAD (4 digits, sign past 9999 and below 0)', () => {
    expect(isoInstant(Date.UTC(2015, 0, 1, 0, 0, 0, 1))).toBe('2015-01-01T00:00:00.001Z');
    expect(isoInstant(253402300800000)).toBe('+10000-01-01T00:00:00.000Z');
    expect(isoInstant(-62198755200000)).toBe('-0001-01-01T00:00:00.000Z');
    expect(isoInstant(-62167219200000)).toBe('0000-01-01T00:00:00.000Z');
    for (let ms = -8.6e15; ms < 8.6e15; ms += 7.3e13 + 12345) {
      const y = new Date(ms).getUTCFullYear();
      if (y >= 0 && y <= 9999) expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
