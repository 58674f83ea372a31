import { beforeAll, describe, expect, it } from 'vitest';
import { esCalls, searchForAll } from '../harness.js';

describe('the phrase suggester on a server', () => {
  const h = searchForAll();
  const { call, ok } = esCalls(h);

  beforeAll(async () => {
    await ok('PUT', '/p', { mappings: { properties: { body: { type: 'text' } } } });
    await ok('POST', '/p/_bulk?refresh=true', ['abcd', 'abce', 'abcf', 'abcg', 'abch'].map((w, i) => `{"index":{"_id":"${i}"}}\n{"body":"${w} words"}\n`).join(''));
  });

  const suggest = (text: string, phrase: Record<string, unknown>) => call('POST', '/p/_search', { size: 0, suggest: { s: { text, phrase: { field: 'body', ...phrase } } } });

  it('corrects each misspelled token with the terms of the field', async () => {
    const res = await suggest('abcx wordz', { confidence: 0, max_errors: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const options = res.body.suggest.s[0].options as { text: string; score: number }[];
    expect(options.map((o) => o.text)).toContain('abcd words');
    expect(options.every((o, i) => i === 0 || (options[i - 1] as { score: number }).score >= o.score)).toBe(true);
  });

  it('refuses a suggestion with more corrections to score than the server scores at once', async () => {
    // Twelve tokens, five candidates each, all correctable: 6^12 paths.
    const res = await suggest(Array(12).fill('abcx').join(' '), { token_limit: 20, max_errors: 12 });
    expect(res.status).toBe(400);
    expect(res.body.error.root_cause[0].type).toBe('illegal_argument_exception');
    expect(res.body.error.root_cause[0].reason).toMatch(/scoring 2176782336 corrections .* is not supported by this server/);
    // Nine tokens with ES's defaults answer.
    expect((await suggest(Array(9).fill('abcx').join(' '), { max_errors: 9, confidence: 0 })).status).toBe(200);
  });
});
