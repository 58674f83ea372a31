import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * _source include/exclude patterns (requests/source-filter.ts): glob matching equal to the RegExp
 * it replaced, without exponential backtracking.
 */

describe('_source include/exclude patterns (also reached by _mget per-doc _source)', () => {
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
