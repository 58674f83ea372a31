import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileDateFormat } from '../../../src/search/syntax/date-format.js';
import { startSearch, type SearchHarness } from '../harness.js';

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

  it('shows ISO 8601 for a date its pattern cannot print (a year past 999,999: ES would use the pattern)', async () => {
    const mappings = { properties: { f: { type: 'date', store: true, format: 'yyyy-MM-dd||epoch_millis' } } };
    expect((await call('PUT', '/sf2', { mappings })).status).toBe(200);
    expect((await call('PUT', '/sf2/_doc/1', { f: 1e17 })).status).toBe(201);
    const res = await call('POST', '/sf2/_mget?stored_fields=f', { ids: ['1'] });
    expect(res.body.docs[0].fields.f[0]).toMatch(/^\+3170\d{3}-\d{2}-\d{2}T/);
  });
});

describe('DateFormat.print (fix)', () => {
  const ms = Date.UTC(2015, 0, 2, 3, 4, 5, 60);
  it('prints with the first alternative, in UTC', () => {
    expect(compileDateFormat('epoch_millis||yyyy-MM-dd').print(ms)).toBe(String(ms));
    expect(compileDateFormat('yyyy-MM-dd||epoch_millis').print(ms)).toBe('2015-01-02');
    expect(compileDateFormat('epoch_second').print(ms)).toBe('1420167845.06');
    expect(compileDateFormat('epoch_second').print(Date.UTC(2015, 0, 1))).toBe('1420070400');
    expect(compileDateFormat('strict_date_optional_time||epoch_millis').print(ms)).toBe('2015-01-02T03:04:05.060Z');
    expect(compileDateFormat('date_time_no_millis').print(ms)).toBe('2015-01-02T03:04:05Z');
    expect(compileDateFormat('basic_date').print(ms)).toBe('20150102');
    expect(compileDateFormat("dd/MM/yyyy HH:mm:ss.SSSXXX").print(ms)).toBe('02/01/2015 03:04:05.060Z');
  });

  it('cannot print a year past js-joda\'s ±999,999 with a pattern: undefined (the stored field then shows ISO 8601, where ES would use the pattern)', () => {
    expect(compileDateFormat('yyyy-MM-dd||epoch_millis').print(1e17)).toBeUndefined();
  });
});
