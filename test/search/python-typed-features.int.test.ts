/**
 * Highlighting, aggregations and _analyze through the official Python clients' typed calls
 * (`elasticsearch` 8.x and `opensearch-py`, the venv scripts/build-peers.sh python-clients makes):
 * test/search/python/typed-features.py calls es.search(highlight=…, aggs=…, rescore=…,
 * indices_boost=…, terminate_after=…, search_type=…), es.count(terminate_after=…),
 * es.field_caps(…), es.indices.analyze(…) and opensearch-py's equivalents against Portico over
 * HTTP and prints what it saw; this file checks the values, computed here from the same 30
 * documents.
 */
import { describe, expect, it } from 'vitest';
import { pythonClientsSuite } from './python-suite.js';

const { drive } = pythonClientsSuite('typed-features.py', ['shelf', 'shelf2']);

// The 30 books of typed-features.py: n = 1..30, python when n % 3 == 0, rust when 1, go when 2; tag t(n % 4).
const BOOKS = Array.from({ length: 30 }, (_, i) => i + 1);
const lang = (n: number) => (n % 3 === 0 ? 'python' : n % 3 === 1 ? 'rust' : 'go');

function facets(books: readonly number[]): Record<string, unknown> {
  const tags = [0, 1, 2, 3].map((t) => books.filter((n) => n % 4 === t)).filter((b) => b.length > 0);
  const sum = books.reduce((a, b) => a + b, 0);
  return {
    tags: tags.map((b) => [`t${(b[0] as number) % 4}`, b.length, Math.max(...b)]),
    ranges: [
      ['*-10.0', books.filter((n) => n < 10).length],
      ['10.0-20.0', books.filter((n) => n >= 10 && n < 20).length],
      ['20.0-*', books.filter((n) => n >= 20).length],
    ],
    hist: [0, 10, 20, 30].map((k) => [k, books.filter((n) => Math.floor(n / 10) * 10 === k).length]).filter(([, c]) => c !== 0),
    stats: { count: books.length, min: Math.min(...books), max: Math.max(...books), avg: sum / books.length, sum },
    distinct_tags: tags.length,
    kinds: { python: books.filter((n) => lang(n) === 'python').length, rust: books.filter((n) => lang(n) === 'rust').length },
  };
}

describe('the official Python clients: highlight, aggregations, _analyze', () => {
  it.each(['elasticsearch', 'opensearch'] as const)('%s', async (client) => {
    const seen = await drive(client);
    const python = BOOKS.filter((n) => lang(n) === 'python');
    expect(seen).toMatchObject({
      total: python.length,
      highlights: [3, 6, 9].map((n) => `Learning <b>python</b> the hard way, volume ${n}`).sort(),
      ...facets(python),
      analyze: [['the', 0, 0, 3], ['quick', 1, 4, 9], ['brown', 2, 10, 15], ['fox', 3, 16, 19]],
      analyze_field: ['Mixed Case'],
      every: facets(BOOKS),
      features: {
        // Rescored by "python" (weight 10): the ten python books first, by their volume's order.
        rescored: python.slice(0, 10),
        boosted: true,
        // Every book holds "learning": the shard stops after the first four it collects.
        terminated: [true, 4, [1, 2, 3, 4]],
        count_terminated: [true, 2],
        // dfs over two shards scores as the one-shard index; per shard it does not.
        dfs: [true, false, 2],
        field_caps: { title: ['text', true, false], n: ['integer', true, true], tag: ['keyword', true, true] },
      },
    });
  }, 180_000);
});
