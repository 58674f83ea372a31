/**
 * The highlight requests the side-by-side suite sends to Portico and to the OpenSearch node over the
 * Debian slice (test/search/endpoints-side-by-side.int.test.ts), and how their answers compare:
 * the same hits, and for each hit the same fragments in the same order.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Answer } from './compare.js';

export interface HighlightCase {
  readonly name: string;
  readonly body: Record<string, unknown>;
}

const Q_PYTHON = { match: { description: 'python library' } };

/** Queries and highlight options over the Debian slice (fields: summary, description, package, section). */
export const HIGHLIGHT_CASES: readonly HighlightCase[] = [
  { name: 'default unified', body: { query: Q_PYTHON, highlight: { fields: { description: {} } } } },
  { name: 'whole field', body: { query: Q_PYTHON, highlight: { fields: { description: { number_of_fragments: 0 } } } } },
  { name: 'fragment_size 40, 2 fragments, tags', body: { query: Q_PYTHON, highlight: { pre_tags: ['['], post_tags: [']'], fields: { description: { fragment_size: 40, number_of_fragments: 2 } } } } },
  { name: 'order score', body: { query: Q_PYTHON, highlight: { order: 'score', fields: { description: { number_of_fragments: 2 } } } } },
  { name: 'no_match_size', body: { query: Q_PYTHON, highlight: { fields: { summary: { no_match_size: 30 }, description: {} } } } },
  { name: 'wildcard fields', body: { query: { match: { summary: 'perl module' } }, highlight: { fields: { '*': {} } } } },
  { name: 'require_field_match false', body: { query: { match: { summary: 'perl module' } }, highlight: { require_field_match: false, fields: { summary: {}, description: { fragment_size: 60 } } } } },
  { name: 'highlight_query', body: { query: Q_PYTHON, highlight: { fields: { description: { highlight_query: { match: { description: 'version' } } } } } } },
  { name: 'keyword field', body: { query: { bool: { must: [{ match: { description: 'kernel' } }], filter: [{ term: { section: 'kernel' } }] } }, highlight: { fields: { section: {}, description: {} } } } },
  { name: 'bool should', body: { query: { bool: { should: [{ match: { description: 'database' } }, { match: { summary: 'client' } }] } }, highlight: { fields: { description: {}, summary: {} } } } },
  { name: 'plain', body: { query: Q_PYTHON, highlight: { type: 'plain', fields: { description: {} } } } },
  { name: 'plain fragment_size 60', body: { query: Q_PYTHON, highlight: { type: 'plain', fields: { description: { fragment_size: 60 } } } } },
  { name: 'plain whole field', body: { query: { match: { description: 'network server' } }, highlight: { type: 'plain', fields: { description: { number_of_fragments: 0 } } } } },
  { name: 'html encoder', body: { query: { match: { description: 'xml http' } }, highlight: { encoder: 'html', fields: { description: {} } } } },
  { name: 'long descriptions', body: { query: { match: { description: 'documentation files' } }, highlight: { fields: { description: { number_of_fragments: 3 } } } } },
  { name: 'common words, fragment_size 150', body: { query: { match: { description: 'the and of' } }, highlight: { fields: { description: { fragment_size: 150 } } } } },
  { name: 'query_string', body: { query: { query_string: { query: 'description:(perl OR ruby) AND summary:module' } }, highlight: { fields: { description: {}, summary: {} } } } },
  { name: 'multi_match', body: { query: { multi_match: { query: 'audio video', fields: ['summary', 'description^2'] } }, highlight: { fields: { 'summ*': {}, description: { fragment_size: 80 } } } } },
  { name: 'prefix', body: { query: { prefix: { package: 'libx' } }, highlight: { fields: { package: {} } } } },
  { name: 'plain order score', body: { query: { match: { description: 'data files support' } }, highlight: { type: 'plain', order: 'score', fields: { description: { fragment_size: 50, number_of_fragments: 3 } } } } },
  { name: 'no_match whole field', body: { query: { match: { summary: 'game' } }, highlight: { fields: { description: { no_match_size: 80, number_of_fragments: 0 } } } } },
  { name: 'phrase', body: { query: { match_phrase: { description: 'command line' } }, highlight: { fields: { description: {} } } } },
];

interface HitHighlight {
  readonly _id: string;
  readonly highlight?: Record<string, string[]>;
}

/** The first way the hits' highlights differ, or undefined when they agree; `listed`: hits whose highlights are known to differ (they must). */
export function highlightDifference(portico: Answer, reference: Answer, listed: readonly string[] = []): string | undefined {
  if (portico.status !== reference.status) return `status ${portico.status} vs ${reference.status}: ${JSON.stringify(portico.body).slice(0, 300)}`;
  const ph = (portico.body?.hits?.hits ?? []) as HitHighlight[];
  const rh = (reference.body?.hits?.hits ?? []) as HitHighlight[];
  if (ph.map((h) => h._id).join() !== rh.map((h) => h._id).join()) return 'different hits';
  for (let i = 0; i < rh.length; i++) {
    const p = ph[i]?.highlight;
    const r = rh[i]?.highlight;
    const known = listed.includes(rh[i]?._id ?? '');
    if (isDeepStrictEqual(p, r) === known) return `hit ${rh[i]?._id}${known ? ' (listed as differing) now agrees' : ''}: ${JSON.stringify(p)} vs ${JSON.stringify(r)}`;
  }
  return undefined;
}
