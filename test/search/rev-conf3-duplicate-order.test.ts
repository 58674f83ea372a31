import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

// Review of s-conf3: ES reads a search body as a stream, so a problem its parser meets before the
// repeated key (an unknown query, an unknown field) is what it answers; the branch checks the
// whole text for repeated keys before reading the body, so it answers "Duplicate field" instead.
// (The update body already follows the text order: checkUpdateBody.)

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('a repeated key after another problem (review)', () => {
  let h: SearchHarness;
  const post = async (url: string, payload: string): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
    await post('/o/_doc/1?refresh=true', '{"t":"fox"}');
  });
  afterAll(async () => h.close());

  it('answers the unknown query met first, not the later repeated size', async () => {
    const res = await post('/o/_search', '{"query":{"matc":{}},"size":1,"size":2}');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).not.toContain('Duplicate field');
    expect(res.body.error.reason).toContain('unknown query [matc]');
  });
});
