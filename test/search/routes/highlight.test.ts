import { beforeAll, describe, expect, it } from 'vitest';
import { esCalls, searchForAll } from '../harness.js';
import { sentenceBoundaries, wordBoundaries } from '../../../src/search/highlight/text-breaks.js';

/**
 * `highlight`: the unified and plain highlighters, their options and refusals. Expected fragments
 * are what OpenSearch 2.19's node answered for the same documents and requests (except a phrase,
 * which ES 8 marks as one span); endpoints-side-by-side.int.test.ts compares many more.
 */

const h = searchForAll();
const { call, ok } = esCalls(h);

beforeAll(async () => {
  await ok('PUT', '/mv', { settings: { number_of_replicas: 0 }, mappings: { properties: { t: { type: 'text' }, k: { type: 'keyword' }, n: { type: 'long' } } } });
  await ok('PUT', '/mv/_doc/1?refresh=true', { t: ['first value here. Second sentence about fox.', 'no match in this one', 'fox again, the quick fox'], k: 'fox', n: 1 });
});

const hl = async (body: Record<string, unknown>) => ((await ok('POST', '/mv/_search', body)).hits.hits as { highlight?: Record<string, string[]> }[])[0]?.highlight;

describe('highlight', () => {
  it('unified: sentences with matches, one value at a time, values without a match left out', async () => {
    expect(await hl({ query: { match: { t: 'fox' } }, highlight: { fields: { t: {} } } })).toEqual({
      t: ['Second sentence about <em>fox</em>.', '<em>fox</em> again, the quick <em>fox</em>'],
    });
  });

  it('number_of_fragments 0 gives whole values; plain cuts values by fragment_size', async () => {
    const whole = ['first value here. Second sentence about <em>fox</em>.', '<em>fox</em> again, the quick <em>fox</em>'];
    expect(await hl({ query: { match: { t: 'fox' } }, highlight: { fields: { t: { number_of_fragments: 0 } } } })).toEqual({ t: whole });
    expect(await hl({ query: { match: { t: 'fox' } }, highlight: { fields: { t: { type: 'plain' } } } })).toEqual({ t: whole });
    expect(await hl({ query: { match: { t: 'fox' } }, highlight: { type: 'plain', fields: { t: { fragment_size: 20 } } } })).toEqual({
      t: ['. Second sentence about <em>fox</em>.', '<em>fox</em> again, the quick <em>fox</em>'],
    });
    expect(await hl({ query: { match: { t: 'fox' } }, highlight: { type: 'plain', highlight_query: { match: { t: 'absent' } }, fields: { t: { fragment_size: 20, no_match_size: 5 } } } })).toEqual({ t: ['first'] });
  });

  it('wildcard fields, require_field_match, keyword fields, highlight_query and no_match_size', async () => {
    expect(await hl({ query: { match: { t: 'fox' } }, highlight: { fields: { '*': {} } } })).toEqual({ t: ['Second sentence about <em>fox</em>.', '<em>fox</em> again, the quick <em>fox</em>'] });
    expect((await hl({ query: { match: { t: 'fox' } }, highlight: { require_field_match: false, fields: { '*': {} } } }))?.k).toEqual(['<em>fox</em>']);
    expect(await hl({ query: { term: { k: 'fox' } }, highlight: { fields: { k: {} } } })).toEqual({ k: ['<em>fox</em>'] });
    expect(await hl({ query: { match: { t: 'zzz fox' } }, highlight: { fields: { k: { no_match_size: 10 }, t: { no_match_size: 20, highlight_query: { match: { t: 'quick' } } } } } })).toEqual({
      t: ['fox again, the <em>quick</em> fox'],
      k: ['fox'],
    });
    expect(await hl({ query: { match: { t: 'zzz fox' } }, highlight: { fields: { t: { highlight_query: { match: { t: 'absent' } }, no_match_size: 12 } } } })).toEqual({ t: ['first value here'] });
  });

  it('a phrase is one span (ES 8 weight matches); tags, order and the html encoder', async () => {
    expect(await hl({ query: { match_phrase: { t: 'quick fox' } }, highlight: { fields: { t: {} } } })).toEqual({ t: ['fox again, the <em>quick fox</em>'] });
    expect(await hl({ query: { match: { t: 'fox sentence' } }, highlight: { order: 'score', pre_tags: ['<b>'], post_tags: ['</b>'], fields: { t: { number_of_fragments: 1 } } } })).toEqual({
      t: ['Second <b>sentence</b> about <b>fox</b>.'],
    });
    await ok('PUT', '/mv/_doc/2?refresh=true', { t: 'a <b> & fox' });
    const res = await ok('POST', '/mv/_search', { query: { ids: { values: ['2'] } }, highlight: { encoder: 'html', highlight_query: { match: { t: 'fox' } }, fields: { t: {} } } });
    expect(res.hits.hits[0].highlight).toEqual({ t: ['a &lt;b&gt; &amp; <em>fox</em>'] });
    await ok('DELETE', '/mv/_doc/2?refresh=true');
  });

  it('highlights every batch of a scroll', async () => {
    const first = await ok('POST', '/mv/_search?scroll=1m', { size: 1, query: { match: { t: 'fox' } }, highlight: { fields: { k: { no_match_size: 5 } } } });
    expect(first.hits.hits[0].highlight).toEqual({ k: ['fox'] });
  });

  it("refuses what it does not do with ES's errors", async () => {
    const cases: [unknown, number, string, string][] = [
      [{ foo: 1, fields: { t: {} } }, 400, 'x_content_parse_exception', '[1:45] [highlight] unknown field [foo]'],
      [{ type: 'fvh', fields: { t: {} } }, 400, 'illegal_argument_exception', ''],
      [{ fields: { t: { type: 'nope' } } }, 400, 'illegal_argument_exception', 'unknown highlighter type [nope]'],
      [{ boundary_scanner: 'word', fields: { t: {} } }, 400, 'illegal_argument_exception', ''],
      [{ fields: { t: { matched_fields: ['t'] } } }, 400, 'illegal_argument_exception', '[matched_fields] in highlight is not supported by this server'],
      [{ tags_schema: 'styled', fields: { t: {} } }, 400, 'illegal_argument_exception', ''],
      [{ pre_tags: ['<b>'], fields: { t: {} } }, 400, 'illegal_argument_exception', 'pre_tags are set but post_tags are not set'],
      [{ fields: { t: { fragment_size: 'x' } } }, 400, 'parsing_exception', ''],
    ];
    for (const [highlight, status, type, reason] of cases) {
      const res = await call('POST', '/mv/_search', { query: { match: { t: 'fox' } }, highlight });
      expect([JSON.stringify(highlight), res.status, res.body.error?.type]).toEqual([JSON.stringify(highlight), status, type]);
      if (reason !== '') expect(res.body.error.reason).toBe(reason);
    }
    // What ES accepts and changes nothing here.
    expect(await hl({ query: { match: { t: 'quick' } }, highlight: { force_source: true, boundary_scanner: 'sentence', fragmenter: 'span', fields: { t: {} } } })).toEqual({ t: ['fox again, the <em>quick</em> fox'] });
  });
});

describe('text boundaries', () => {
  it('ends sentences as the JDK does', () => {
    const cut = (s: string) => sentenceBoundaries(s).slice(1, -1);
    expect(cut('zz a. zz b')).toEqual([]);
    expect(cut('zz a. Zz b')).toEqual([6]);
    expect(cut('zz a.  zz b')).toEqual([7]);
    expect(cut('zz a.\n\nzz b')).toEqual([7]);
    expect(cut('zz a.\nzz b')).toEqual([]);
    expect(cut('zz a!zz b')).toEqual([5]);
    expect(cut('zz a. 3zz b')).toEqual([]);
    expect(cut('zz a. (zz b')).toEqual([6]);
    expect(cut('zz a\n\nzz b')).toEqual([]);
    expect(cut('one\u0000two')).toEqual([4]);
  });

  it('keeps hyphenated words, contractions and numbers whole', () => {
    const words = (s: string) => {
      const b = wordBoundaries(s);
      return b.slice(1).map((end, i) => s.slice(b[i], end));
    };
    expect(words("UNIX-like app's 1,000.5 x")).toEqual(['UNIX-like', ' ', "app's", ' ', '1,000.5', ' ', 'x']);
    expect(words('a--b  c.')).toEqual(['a', '-', '-', 'b', '  ', 'c', '.']);
  });
});
