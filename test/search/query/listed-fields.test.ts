import { describe, expect, it } from 'vitest';
import { listEntryReaches, mappingsWithRouting, refuseListedMetadata } from '../../../src/search/query/listed-fields.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { SearchError } from '../../../src/search/errors.js';

describe('the field lists of multi_match, query_string and simple_query_string', () => {
  const mappings = Mappings.parse({ properties: { t: { type: 'text' }, k: { type: 'keyword' } } });

  it('run on the mapping with `_routing` added as a keyword field of type `_routing`, built once per mapping', () => {
    const extended = mappingsWithRouting(mappings);
    expect(extended.field('_routing')).toMatchObject({ kind: 'keyword', esType: '_routing', index: true });
    expect([...extended.fields.keys()].sort()).toEqual(['_routing', 'k', 't']);
    expect(mappingsWithRouting(mappings)).toBe(extended);
    // The index's own mapping is left as it was.
    expect(mappings.field('_routing')).toBeUndefined();
    expect(mappings.toJSON()).toEqual(Mappings.parse(mappings.toJSON()).toJSON());
  });

  it('reach `_routing` by name or by a pattern, but not by `*` alone', () => {
    expect(listEntryReaches('*', '_routing')).toBe(false);
    expect(listEntryReaches('*', 't')).toBe(true);
    expect(listEntryReaches('_rout*', '_routing')).toBe(true);
    expect(listEntryReaches('_routing', '_routing')).toBe(true);
  });

  it('refuse the other metadata fields they name or match (and _id, _index matched by a pattern), in ES’s query_shard_exception', () => {
    for (const pattern of ['_*', '*d', '_i*', '_seq_no', '_version']) {
      let err: unknown;
      try {
        refuseListedMetadata(pattern, 'books');
      } catch (e) {
        err = e;
      }
      expect(err, pattern).toBeInstanceOf(SearchError);
      expect((err as SearchError).status).toBe(400);
      expect(JSON.stringify((err as SearchError).cause_)).toMatch(/query_shard_exception.*failed to create query: the metadata field \[_[a-z_]+\] in the fields of a \[multi_match\], \[query_string\] or \[simple_query_string\] query is not supported by this server/);
    }
    // `_id` and `_index` named (not matched by a pattern) are searched (query-exec.ts metadataTerm).
    for (const pattern of ['*', 't', 'title*', '_routing', '_rout*', '*ing', '_custom', '_id', '_index']) expect(() => refuseListedMetadata(pattern, 'books'), pattern).not.toThrow();
  });
});
