import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyResponseFilter, parseFilterPath } from '../../../src/search/http/response-filter.js';

/**
 * Second reading of s-filter: a `*` segment of `filter_path` was compiled to a RegExp `^…$` with
 * `.*` per star, which backtracks exponentially: `*a*a*a*a*a*a*a*a*a*b` against a 40-character
 * field name of `a`s took seconds, and with a few more stars minutes, all on the one event loop
 * that serves every listener of the process (a single request stalls search, management and push
 * gateway). Field names come from stored documents and index names, the pattern from the URL.
 */

function keeps(key: string, segment: string): boolean {
  const f = parseFilterPath(segment);
  if (f === undefined) throw new Error('no filter');
  const out = applyResponseFilter({ [key]: 1 }, f) as Record<string, unknown>;
  return key in out;
}

describe('filter_path wildcard segments', () => {
  it('match as a glob: * any run of characters, everything else itself (property)', () => {
    const alphabet = fc.constantFrom('a', 'b', '.', '\\', '?', '(', '[', '$', 'é', '\u{1F600}');
    const text = fc.array(alphabet, { maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.oneof(text, fc.constant('*')), { minLength: 1, maxLength: 5 }), (key, parts) => {
        fc.pre(key !== '' && !key.includes('.'));
        const segment = parts.join('');
        fc.pre(segment.includes('*') && !segment.includes('.') && !segment.includes(',') && segment.trim() === segment && !segment.startsWith('-'));
        const re = new RegExp(`^${segment.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
        expect(keeps(key, segment)).toBe(re.test(key));
      }),
      { numRuns: 500 },
    );
  });

  it('does not backtrack exponentially on many stars', () => {
    const key = 'a'.repeat(40);
    expect(keeps(key, `${'*a'.repeat(9)}*b`)).toBe(false);
    expect(keeps(key, `${'*a'.repeat(9)}*`)).toBe(true);
  });
});

describe('filter_path size and ** chains', () => {
  function filtered(body: unknown, filterPath: string): string {
    const f = parseFilterPath(filterPath);
    if (f === undefined) throw new Error('no filter');
    return JSON.stringify(applyResponseFilter(body, f));
  }

  it('compiles a path of thousands of segments (it overflowed the stack: a 500 for a 14 KB URL)', () => {
    expect(filtered({ a: { a: 1 } }, `${'a.'.repeat(7000)}a`)).toBe('{}');
    expect(filtered({ a: { a: 1 } }, `${'*.'.repeat(7000)}a`)).toBe('{}');
  });

  it('keeps each active path once: a chain of ** doubled them at every level (seconds per hit)', () => {
    let doc: Record<string, unknown> = { zz: 'deep', leaf: 1 };
    for (let i = 0; i < 18; i++) doc = { [`k${i}`]: doc, s: i };
    const hits = Array.from({ length: 10 }, () => ({ _source: doc }));
    const out = JSON.parse(filtered({ hits: { hits } }, `${'**.'.repeat(18)}zz`)) as { hits: { hits: { _source: Record<string, unknown> }[] } };
    expect(out.hits.hits).toHaveLength(10);
    let at: unknown = out.hits.hits[0]?._source;
    for (let i = 17; i >= 0; i--) at = (at as Record<string, unknown>)[`k${i}`];
    expect(at).toEqual({ zz: 'deep' });
  });
});

describe('_source include/exclude patterns (main\'s source-filter, reached by _mget per-doc _source too)', () => {
  it('match as the RegExp did (property over the shared globMatch)', async () => {
    const { globMatch } = await import('../../../src/search/syntax/glob.js');
    const text = fc.array(fc.constantFrom('a', 'b', '.', 'x', '*', '\\', '(', 'é'), { maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, text, (pattern, path) => {
        const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
        expect(globMatch(pattern, path)).toBe(re.test(path));
      }),
      { numRuns: 1000 },
    );
  });

  it('do not backtrack exponentially', async () => {
    const { filterSource } = await import('../../../src/search/requests/source-filter.js');
    const doc = { ['a'.repeat(40)]: 1, b: 2 };
    expect(filterSource(doc, { fetch: true, includes: [`${'*a'.repeat(9)}*b`], excludes: [] })).toEqual({});
    expect(filterSource(doc, { fetch: true, includes: ['*'], excludes: [`${'*a'.repeat(9)}*b`] })).toEqual(doc);
  });
});
