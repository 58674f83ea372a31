import { beforeAll, describe, expect, it } from 'vitest';
import { esCalls, searchForAll, sendText } from '../harness.js';

/**
 * `_analyze`: the four built-in analyzers and a field's, with the tokens, offsets, types and
 * positions OpenSearch 2.19's node gave for the same requests (the side-by-side file compares more).
 */

const h = searchForAll();
const { call, ok } = esCalls(h);

beforeAll(async () => {
  await ok('PUT', '/t1', { mappings: { properties: { title: { type: 'text' }, k: { type: 'keyword' }, n: { type: 'long' } } } });
});

const tok = (token: string, start: number, end: number, type: string, position: number) => ({ token, start_offset: start, end_offset: end, type, position });

describe('_analyze', () => {
  it('standard: lower-cased UAX#29 words with their types, offsets running on across an array', async () => {
    const body = await ok('POST', '/_analyze', { analyzer: 'standard', text: ['The Quick-brown fox 3.14 v1 2nd', 'Hello 世界'] });
    expect(body.tokens).toEqual([
      tok('the', 0, 3, '<ALPHANUM>', 0), tok('quick', 4, 9, '<ALPHANUM>', 1), tok('brown', 10, 15, '<ALPHANUM>', 2), tok('fox', 16, 19, '<ALPHANUM>', 3),
      tok('3.14', 20, 24, '<NUM>', 4), tok('v1', 25, 27, '<ALPHANUM>', 5), tok('2nd', 28, 31, '<ALPHANUM>', 6), tok('hello', 32, 37, '<ALPHANUM>', 7),
      tok('世', 38, 39, '<IDEOGRAPHIC>', 8), tok('界', 39, 40, '<IDEOGRAPHIC>', 9),
    ]);
  });

  it('types the scripts Lucene names', async () => {
    const body = await ok('POST', '/_analyze', { analyzer: 'standard', text: 'a 1_000 x_1 ① ½ 3,5 한국어 カタカナ ひら 😀 ไทย' });
    expect(body.tokens.map((t: { token: string; type: string }) => `${t.token}:${t.type}`)).toEqual([
      'a:<ALPHANUM>', '1_000:<NUM>', 'x_1:<ALPHANUM>', '3,5:<NUM>', '한국어:<HANGUL>', 'カタカナ:<KATAKANA>', 'ひ:<HIRAGANA>', 'ら:<HIRAGANA>', '😀:<EMOJI>', 'ไทย:<SOUTHEAST_ASIAN>',
    ]);
  });

  it('simple, whitespace and keyword', async () => {
    expect((await ok('POST', '/_analyze', { analyzer: 'simple', text: "Don't stop-me 42x" })).tokens).toEqual([
      tok('don', 0, 3, 'word', 0), tok('t', 4, 5, 'word', 1), tok('stop', 6, 10, 'word', 2), tok('me', 11, 13, 'word', 3), tok('x', 16, 17, 'word', 4),
    ]);
    expect((await ok('POST', '/_analyze', { analyzer: 'whitespace', text: ['A b', 'c'] })).tokens).toEqual([tok('A', 0, 1, 'word', 0), tok('b', 2, 3, 'word', 1), tok('c', 4, 5, 'word', 2)]);
    expect((await ok('POST', '/_analyze', { analyzer: 'keyword', text: ['A b', 'c'] })).tokens).toEqual([tok('A b', 0, 3, 'word', 0), tok('c', 4, 5, 'word', 1)]);
    expect((await ok('POST', '/_analyze', { analyzer: 'keyword', text: '' })).tokens).toEqual([tok('', 0, 0, 'word', 0)]);
  });

  it("a field is analysed as it is indexed: a text field's values 100 positions apart, a keyword as one token", async () => {
    expect((await ok('POST', '/t1/_analyze', { field: 'title', text: ['A b', 'c'] })).tokens).toEqual([
      tok('a', 0, 1, '<ALPHANUM>', 0), tok('b', 2, 3, '<ALPHANUM>', 1), tok('c', 4, 5, '<ALPHANUM>', 102),
    ]);
    expect((await ok('GET', '/t1/_analyze', { field: 'k', text: ['A b', 'c'] })).tokens).toEqual([tok('A b', 0, 3, 'word', 0), tok('c', 4, 5, 'word', 1)]);
    expect((await ok('POST', '/t1/_analyze', { field: 'nofield', text: 'Ab c' })).tokens).toEqual([tok('ab', 0, 2, '<ALPHANUM>', 0), tok('c', 3, 4, '<ALPHANUM>', 1)]);
    expect((await ok('POST', '/t1/_analyze', { field: 'k', analyzer: 'simple', text: 'Ab' })).tokens).toEqual([tok('ab', 0, 2, 'word', 0)]);
  });

  it("refuses what it cannot do with ES's errors", async () => {
    const cases: [string, unknown, number, string, string][] = [
      ['/_analyze', { analyzer: 'nope', text: 'x' }, 400, 'illegal_argument_exception', 'failed to find global analyzer [nope]'],
      ['/_analyze', { analyzer: 'standard' }, 400, 'action_request_validation_exception', 'Validation Failed: 1: text is missing;'],
      ['/_analyze', { text: [] }, 400, 'action_request_validation_exception', 'Validation Failed: 1: text is missing;'],
      ['/_analyze', { field: 'title', text: 'x' }, 400, 'illegal_argument_exception', 'analysis based on a specific field requires an index'],
      ['/t1/_analyze', { field: 'n', text: '12' }, 400, 'illegal_argument_exception', "Can't process field [n], Analysis requests are only supported on tokenized fields"],
      ['/t1/_analyze', { foo: 1, text: 'x' }, 400, 'x_content_parse_exception', '[1:2] [analyze_request] unknown field [foo]'],
      ['/_analyze', { analyzer: 'standard', text: 5 }, 400, 'x_content_parse_exception', '[1:31] [analyze_request] text doesn\'t support values of type: VALUE_NUMBER'],
      ['/_analyze', { analyzer: 'standard', text: 'x', filter: ['lowercase'] }, 400, 'action_request_validation_exception', 'Validation Failed: 1: cannot define extra components on a named analyzer;'],
      ['/_analyze', { tokenizer: 'standard', char_filter: ['html_strip'], text: 'x' }, 400, 'illegal_argument_exception', '[char_filter] in _analyze is not supported by this server'],
      ['/_analyze', { tokenizer: 'pattern', text: 'x' }, 400, 'illegal_argument_exception', 'tokenizer [pattern] is not supported by this server'],
      ['/_analyze', { tokenizer: 'nope', text: 'x' }, 400, 'illegal_argument_exception', 'failed to find global tokenizer under [nope]'],
      ['/_analyze', { tokenizer: 'standard', filter: ['stop'], text: 'x' }, 400, 'illegal_argument_exception', 'token filter [stop] is not supported by this server'],
      ['/_analyze', { tokenizer: 'standard', filter: [{ type: 'shingle', max_shingle_size: 1 }], text: 'x' }, 400, 'illegal_argument_exception', 'Max shingle size must be >= 2'],
      ['/_analyze', { filter: ['shingle'], text: 'x' }, 400, 'illegal_argument_exception', 'Custom normalizer may not use filter [shingle]'],
      ['/_analyze', { text: 'x', explain: true }, 400, 'illegal_argument_exception', '[explain] in _analyze is not supported by this server'],
      ['/nope/_analyze', { text: 'x' }, 404, 'index_not_found_exception', 'no such index [nope]'],
    ];
    for (const [url, body, status, type, reason] of cases) {
      const res = await call('POST', url, body);
      expect([url, JSON.stringify(body), res.status, res.body.error?.type, res.body.error?.reason]).toEqual([url, JSON.stringify(body), status, type, reason]);
    }
    const noBody = await call('GET', '/_analyze?analyzer=whitespace');
    expect([noBody.status, noBody.body.error.type]).toEqual([400, 'parse_exception']);
    const param = await sendText(h.app, 'POST', '/_analyze?foo=1', '{"text":"x"}');
    expect(param.body.error.reason).toBe('request [/_analyze] contains unrecognized parameter: [foo]');
    expect((await ok('POST', '/_analyze', { text: 'x', explain: false })).tokens).toHaveLength(1);
  });
});
