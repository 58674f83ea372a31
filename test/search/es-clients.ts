import { Client as Client9 } from '@elastic/elasticsearch';
import { Client as Client8 } from 'elasticsearch8';

/**
 * The official Elasticsearch clients the end-to-end suites run against a listening search app
 * (test/e2e/search-*.test.ts), as `describe.each` rows: a name and a maker for a node URL. The v8
 * client is typed as the v9 one, whose API the suites use.
 */
export const OFFICIAL_CLIENTS: [string, (node: string) => Client9][] = [
  ['@elastic/elasticsearch v9', (node: string) => new Client9({ node })],
  ['@elastic/elasticsearch v8', (node: string) => new Client8({ node }) as unknown as Client9],
];

/** The documents the client suites load: 30 with a text title of three kinds and a number. */
export const FRUIT_DOCS = Array.from({ length: 30 }, (_, i) => ({ id: String(i), title: i % 3 === 0 ? 'red apple pie' : i % 3 === 1 ? 'green apple' : 'blue sky', n: i }));
