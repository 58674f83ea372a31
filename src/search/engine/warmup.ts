import { parseBulk } from '../requests/bulk.js';
import { BulkResponseWriter } from './bulk-response.js';
import type { DocumentStore, StoredDoc, StoredIndex } from '../store/document-store.js';
import { SearchService } from './search-service.js';

/**
 * Indexing warm-up: at start, `_bulk` requests of made-up documents go through the same code as the
 * `_bulk` route (parseBulk → SearchService.bulkEach → BulkResponseWriter) into a throwaway service
 * whose store keeps nothing. Why: V8 runs new code in its interpreter and compiles the hot
 * functions only once they have run for a while, so a fresh process indexed its first ~15,000
 * documents much more slowly than the rest. Measured over HTTP on the Debian corpus (63,666
 * documents, 5,000 a request): the first request of a fresh process took 533 ms and the second
 * 273 ms, where a process that had already indexed the corpus once took 232 and 208 ms for the same
 * requests into a new index. The warm-up costs that compilation once, before the listener accepts
 * requests, instead of inside a client's first bulk.
 *
 * Nothing of it stays: the service, its index and its documents are unreachable once it returns,
 * nothing is written to the data directory, and the index name cannot clash with a user's (the
 * service is private). The documents vary in the ways that choose different code: text of one word
 * and of hundreds, ASCII and not, numbers, dates, booleans, keywords, arrays, objects, ids in both
 * action-line forms, known words and new ones.
 */

/**
 * Node's HTTP server adds a property to a Uint8Array while it serves its first request. That makes
 * V8 mark the Uint8Array map as no longer stable, and every optimized function that relied on it
 * (the analyzer's character tables, the norms and scratch arrays of the indexing path) is thrown
 * away and compiled again: warmed before the listener starts, the indexing code lost its compiled
 * form on the first HTTP request (seen with node --trace-deopt: "marking dependent code ... code
 * dependencies" for tokenize, scanTokens, countDoc and a dozen more, at the first request with a
 * body). Adding a property to a throwaway Uint8Array here, when this module loads, makes the same
 * transition before anything is compiled, so the code compiled during the warm-up is kept.
 */
function unsettleUint8ArrayMap(): void {
  const bytes = new Uint8Array(1) as Uint8Array & { transitioned?: boolean };
  bytes.transitioned = true;
}
unsettleUint8ArrayMap();

/** Documents per `_bulk` request of the warm-up (the route's sizes: clients send 500 to 5,000). */
const WARMUP_BATCH = 1_000;

/** A store that keeps nothing: the warm-up's service only needs somewhere to write. */
class DiscardingStore implements DocumentStore {
  listIndices(): StoredIndex[] {
    return [];
  }
  putIndex(): void {}
  updateMappings(): void {}
  deleteIndex(): void {}
  scanDocs(): void {}
  getDoc(): StoredDoc | undefined {
    return undefined;
  }
  putDoc(): void {}
  deleteDoc(): void {}
  transaction<T>(fn: () => T): T {
    return fn();
  }
  close(): void {}
}

/** A small deterministic generator (mulberry32): the same documents on every start. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ber', 'con', 'dex', 'fil', 'gra', 'lin', 'pro', 'ser', 'tor', 'xml', 'lib', 'net'];
const ACCENTED = ['café', 'naïve', 'Zürich', 'señal', 'þing', 'Ωmega', 'データ', 'straße'];

/** `count` documents of the warm-up as one `_bulk` body, ids from `first`. */
function warmupBody(next: () => number, words: readonly string[], first: number, count: number): Buffer {
  // Zipf-like: most words are among the first few hundred, a few from the whole vocabulary.
  const word = (): string => words[Math.floor(words.length * next() ** 3)] as string;
  // Sentences start with a capital and some words are in capitals, as in real text: the byte
  // scanner lowercases those as it goes, code that must be warm too.
  const capital = (w: string): string => (w[0] as string).toUpperCase() + w.slice(1);
  const sentence = (n: number): string => {
    let s = capital(word());
    for (let i = 1; i < n; i++) {
      const r = next();
      const stop = r >= 0.1 && r < 0.13;
      const w = r > 0.985 ? (ACCENTED[i % ACCENTED.length] as string) : r > 0.97 ? `${word()}-${Math.floor(next() * 100)}.${i}` : r > 0.95 ? word().toUpperCase() : word();
      s += (r < 0.1 ? ', ' : stop ? '. ' : r < 0.15 ? '\n' : ' ') + (stop ? capital(w) : w);
    }
    return s;
  };
  let body = '';
  for (let k = 0; k < count; k++) {
    const id = first + k;
    const doc = {
      name: `${word()}-${word()}${id % 7 === 0 ? '' : id}`,
      version: `${id % 9}.${id % 13}.${id % 5}-${id % 3}`,
      category: words[id % 17],
      summary: sentence(3 + Math.floor(next() * 8)),
      description: sentence(10 + Math.floor(next() * (next() < 0.1 ? 400 : 80))),
      tags: [word(), word(), ...(next() < 0.5 ? [word()] : [])],
      size: Math.floor(next() * 1e7),
      score: Math.round(next() * 1000) / 100,
      active: next() < 0.5,
      released: new Date(Date.UTC(2000 + (id % 25), id % 12, 1 + (id % 28))).toISOString(),
      owner: { name: `${word()} ${word()}`, email: `${word()}@${word()}.org` },
    };
    // Both action-line forms: the compact one most clients send and the general one.
    body += (id % 5 === 0 ? `{"index":{"_index":"warmup","_id":"${id}"}}` : `{"index":{"_id":"${id}"}}`) + `\n${JSON.stringify(doc)}\n`;
  }
  return Buffer.from(body, 'utf8');
}

/**
 * Runs `docs` made-up documents through the indexing path (see the comment at the top); `now` is
 * the service's clock. Returns the milliseconds it took.
 */
export function warmIndexing(docs: number, now: () => number): number {
  const started = performance.now();
  if (docs <= 0) return 0;
  const next = random(0x5eed);
  const words: string[] = [];
  for (let i = 0; i < 4_000; i++) {
    let w = '';
    const n = 1 + Math.floor(next() * 3);
    for (let j = 0; j < n; j++) w += SYLLABLES[Math.floor(next() * SYLLABLES.length)] as string;
    words.push(i % 11 === 0 ? w + String(i) : w);
  }
  const service = new SearchService(new DiscardingStore(), now);
  service.createIndex('warmup', { settings: { number_of_replicas: 0 } });
  for (let first = 0; first < docs; first += WARMUP_BATCH) {
    const body = warmupBody(next, words, first, Math.min(WARMUP_BATCH, docs - first));
    const actions = parseBulk(body, 'warmup');
    const response = new BulkResponseWriter(false, actions.length);
    service.bulkEach(actions, (item) => response.add(item));
    const answer = response.finish(0);
    // A warm-up whose items failed would be warming the wrong code: that is a bug here, not input.
    if (answer.includes('"errors":true')) throw new Error(`search warm-up: an item failed: ${answer.subarray(0, 300).toString()}`);
  }
  // Its refresh timer and the view of its last refresh go with it.
  service.close();
  return performance.now() - started;
}
