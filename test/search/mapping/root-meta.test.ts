import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRootMetaUpdate, DEFAULT_ROOT_META, parseRootMeta, rootMetaJson } from '../../../src/search/mapping/root-meta.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { checkMappingParameters } from '../../../src/search/mapping/mapping-parameters.js';
import { SearchError } from '../../../src/search/errors.js';
import { shownSource } from '../../../src/search/engine/stored-source.js';

function failure(f: () => unknown): { status: number; type: string; reason: string } {
  try {
    f();
  } catch (err) {
    if (!(err instanceof SearchError)) throw err;
    const body = err.cause_ as unknown as { type: string; reason: string };
    return { status: err.status, type: body.type, reason: body.reason };
  }
  throw new Error('no error');
}

describe('the mapping’s `_source` includes and excludes', () => {
  it('are parsed, shown by GET _mapping only when given, and default to none', () => {
    expect(parseRootMeta({})).toEqual(DEFAULT_ROOT_META);
    const meta = parseRootMeta({ _source: { includes: ['a*', 'm.*'], excludes: ['*.secret'] } });
    expect(meta).toEqual({ routingRequired: false, sourceEnabled: true, sourceIncludes: ['a*', 'm.*'], sourceExcludes: ['*.secret'] });
    expect(rootMetaJson(meta)).toEqual({ _source: { includes: ['a*', 'm.*'], excludes: ['*.secret'] } });
    expect(rootMetaJson(parseRootMeta({ _source: { enabled: false, excludes: ['b'] } }))).toEqual({ _source: { enabled: false, excludes: ['b'] } });
    expect(rootMetaJson(parseRootMeta({ _source: { includes: [], excludes: null } }))).toEqual({});
    // A stored mapping comes back the same.
    const m = Mappings.parse({ _source: { excludes: ['b'] }, properties: { b: { type: 'keyword' } } });
    expect(Mappings.parse(m.toJSON(), true).root).toEqual(m.root);
  });

  it('must be lists of strings: anything else is a mapper_parsing_exception naming the value', () => {
    for (const bad of [{ includes: 'a' }, { excludes: 5 }, { includes: ['a', 5] }, { excludes: { a: 1 } }]) {
      const e = failure(() => parseRootMeta({ _source: bad }));
      expect([e.status, e.type]).toEqual([400, 'mapper_parsing_exception']);
      expect(e.reason).toMatch(/^Failed to parse mapping: \[(includes|excludes)\] on mapper \[_source\] must be a list of strings, got \[.+\]$/);
    }
  });

  it('are taken by the mapping checks, and synthetic source stays refused', () => {
    expect(() => checkMappingParameters({ _source: { includes: ['a'], excludes: ['b'], enabled: true } })).not.toThrow();
    expect(failure(() => checkMappingParameters({ _source: { mode: 'synthetic' } })).reason).toMatch(/root mapping parameter \[_source\] .* is not supported by this server/);
    expect(failure(() => checkMappingParameters({ _source: { include: ['a'] } })).reason).toMatch(/unknown parameter \[include\] on mapper \[_source\] of type \[null\]/);
  });

  it('cannot be changed by a put mapping, which lists every changed parameter', () => {
    const current = parseRootMeta({ _source: { includes: ['a*'], excludes: ['b'] } });
    const same = { _source: { includes: ['a*'], excludes: ['b'] } };
    expect(() => checkRootMetaUpdate(current, parseRootMeta(same), same)).not.toThrow();
    // A put mapping without `_source` changes nothing and is no conflict.
    expect(() => checkRootMetaUpdate(current, DEFAULT_ROOT_META, {})).not.toThrow();
    const change = { _source: { enabled: false, includes: ['a*'] } };
    expect(failure(() => checkRootMetaUpdate(current, parseRootMeta(change), change))).toEqual({
      status: 400,
      type: 'illegal_argument_exception',
      reason: 'Mapper for [_source] conflicts with existing mapper:\n\tCannot update parameter [enabled] from [true] to [false]\n\tCannot update parameter [excludes] from [[b]] to [[]]',
    });
  });
});

describe('shownSource', () => {
  const meta = (includes: string[], excludes: string[]) => ({ ...DEFAULT_ROOT_META, sourceIncludes: includes, sourceExcludes: excludes });

  it('returns the text as it is without a filter, and the filtered document with one', () => {
    const text = '{"b": 1,  "a":2}';
    expect(shownSource(DEFAULT_ROOT_META, text)).toBe(text);
    const doc = JSON.stringify({ a: 'x', ab: 1, b: 'y', m: { x: 1, secret: 2 }, l: [{ secret: 1, k: 2 }] });
    expect(JSON.parse(shownSource(meta(['a*', 'm.*', 'l'], ['*.secret', 'b']), doc))).toEqual({ a: 'x', ab: 1, m: { x: 1 }, l: [{ k: 2 }] });
    expect(JSON.parse(shownSource(meta([], ['m']), doc))).toEqual({ a: 'x', ab: 1, b: 'y', l: [{ secret: 1, k: 2 }] });
  });

  it('never keeps an excluded path, and an include of everything with no exclude keeps the document (property)', () => {
    const docs = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.oneof(fc.integer(), fc.dictionary(fc.constantFrom('a', 'b'), fc.integer())));
    fc.assert(fc.property(docs, fc.constantFrom('a', 'b', 'a.b', '*.a'), (doc, excluded) => {
      const text = JSON.stringify(doc);
      expect(JSON.parse(shownSource(meta(['*'], []), text))).toEqual(doc);
      const kept = JSON.parse(shownSource(meta([], [excluded]), text)) as Record<string, unknown>;
      const [head, tail] = excluded.split('.') as [string, string | undefined];
      if (tail === undefined) expect(Object.keys(kept)).not.toContain(head);
      for (const [k, v] of Object.entries(kept)) {
        if (tail !== undefined && (head === '*' || head === k) && v !== null && typeof v === 'object') expect(Object.keys(v)).not.toContain(tail);
      }
    }));
  });
});
