/**
 * `_analyze` with a chain of parts (a `tokenizer` and `filter`s: lowercase and shingle) side by
 * side with a real OpenSearch node: fixed cases (every shingle option, chained filters, arrays of
 * texts, non-ASCII text, normalizers) and seeded chains over Debian summaries and descriptions;
 * the same tokens, offsets, types, positions and position lengths, and the same errors.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Answer } from './compare.js';
import { Rng, debianCorpusPath, debianDocs } from './corpus.js';
import { mapInFlight } from './in-flight.js';
import { sideBySide } from './side-by-side.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const GENERATED = 80;

const { porticoCall, nodeCall } = sideBySide();

async function both(body: unknown): Promise<[Answer, Answer]> {
  return Promise.all([porticoCall('POST', '/_analyze', body), nodeCall('POST', '/_analyze', body)]);
}

const shingle = (o: Record<string, unknown> = {}) => ({ type: 'shingle', ...o });

const FIXED: unknown[] = [
  { tokenizer: 'standard', filter: ['lowercase', shingle({ min_shingle_size: 2, max_shingle_size: 3 })], text: 'The Quick brown' },
  { tokenizer: 'standard', filter: ['shingle'], text: 'a b c' },
  { tokenizer: 'standard', filter: [shingle({ output_unigrams: false })], text: 'a b c' },
  { tokenizer: 'standard', filter: [shingle({ output_unigrams: false })], text: 'a' },
  { tokenizer: 'standard', filter: [shingle({ output_unigrams: false, output_unigrams_if_no_shingles: true })], text: 'a' },
  { tokenizer: 'standard', filter: [shingle({ token_separator: '_', max_shingle_size: 4, min_shingle_size: 3 })], text: 'a b c d e' },
  { tokenizer: 'standard', filter: [shingle({ nope: 1, filler_token: 'x' })], text: 'a b' },
  { tokenizer: 'whitespace', filter: ['lowercase', 'shingle'], text: 'A b' },
  { filter: ['lowercase'], text: ['A B', 'C'] },
  { tokenizer: 'standard', filter: ['lowercase', { type: 'lowercase' }], text: 'ΣΑΣ İx' },
  { tokenizer: { type: 'standard' }, text: 'A B' },
  { tokenizer: 'letter', filter: ['shingle'], text: 'Ab1cd ef' },
  { tokenizer: 'standard', filter: ['shingle'], text: ['a b', 'c'] },
  { tokenizer: 'standard', filter: [shingle({ output_unigrams: false, max_shingle_size: 3 })], text: ['a b c', 'd e f', 'g'] },
  { tokenizer: 'keyword', filter: ['shingle'], text: ['a b', 'c'] },
  { tokenizer: 'standard', filter: [shingle({ min_shingle_size: '3', max_shingle_size: '4' })], text: 'Hello 世界 한국어 カタカナ ひら 😀 ไทย' },
  { tokenizer: 'standard', text: 'The Quick-brown fox 3.14 v1 2nd' },
  { tokenizer: 'standard', filter: ['shingle', 'shingle'], text: 'a b c' },
  { tokenizer: 'standard', filter: ['shingle', 'lowercase'], text: 'A B C' },
];

const ERRORS: unknown[] = [
  { tokenizer: 'standard', filter: [shingle({ max_shingle_size: 1 })], text: 'a b' },
  { tokenizer: 'standard', filter: [shingle({ max_shingle_size: 5, min_shingle_size: 6 })], text: 'a b' },
  { tokenizer: 'standard', filter: [shingle({ max_shingle_size: 9 })], text: 'a b' },
  { tokenizer: 'standard', filter: [shingle({ min_shingle_size: 1 })], text: 'a b' },
  { tokenizer: 'standard', filter: [shingle({ min_shingle_size: 'x' })], text: 'a b' },
  { tokenizer: 'standard', filter: [shingle({ output_unigrams: 'x' })], text: 'a b' },
  { tokenizer: 'nope', text: 'a b' },
  { tokenizer: 'standard', filter: ['nope'], text: 'a b' },
  { tokenizer: 'standard', filter: [{ type: 'nope' }], text: 'a b' },
  { tokenizer: 'standard', filter: [{ nope: 'shingle' }], text: 'a b' },
  { filter: ['shingle'], text: ['a b', 'c d'] },
];

/** A seeded chain over a text of the corpus. */
function generated(rng: Rng, texts: readonly string[]): unknown {
  const filter: unknown[] = [];
  if (rng.chance(0.7)) filter.push(rng.pick(['lowercase', { type: 'lowercase' }]));
  if (rng.chance(0.9)) {
    const min = rng.int(2, 3);
    const o: Record<string, unknown> = { type: 'shingle', min_shingle_size: min, max_shingle_size: min + rng.int(0, 1) };
    if (rng.chance(0.4)) o.output_unigrams = rng.chance(0.5);
    if (rng.chance(0.3)) o.output_unigrams_if_no_shingles = rng.chance(0.5);
    if (rng.chance(0.3)) o.token_separator = rng.pick(['_', '', '+']);
    filter.push(rng.chance(0.15) ? 'shingle' : o);
  }
  if (rng.chance(0.2)) filter.push('lowercase');
  const pick = () => rng.pick(texts).slice(0, rng.int(5, 80));
  const text = rng.chance(0.3) ? [pick(), pick()] : pick();
  return { tokenizer: rng.pick(['standard', 'standard', 'whitespace', 'letter', 'keyword']), filter, text };
}

describe('_analyze chains against OpenSearch', () => {
  it('gives the same tokens, offsets, types, positions and position lengths', async () => {
    const rng = new Rng(2207);
    const texts = debianDocs(debianCorpusPath(ROOT), 500).flatMap(([, d]) => [String(d.summary ?? ''), String(d.description ?? '')]);
    const requests = [...FIXED, ...Array.from({ length: GENERATED }, () => generated(rng, texts))];
    const differ: string[] = [];
    let tokens = 0;
    let shingles = 0;
    await mapInFlight(requests, async (body) => {
      const [p, r] = await both(body);
      expect(r.status, JSON.stringify([body, r.body])).toBe(200);
      tokens += r.body.tokens.length;
      shingles += (r.body.tokens as { type: string }[]).filter((t) => t.type === 'shingle').length;
      if (JSON.stringify([p.status, p.body]) !== JSON.stringify([r.status, r.body])) differ.push(`${JSON.stringify(body)} → ${JSON.stringify(p.body).slice(0, 300)} vs ${JSON.stringify(r.body).slice(0, 300)}`);
    });
    console.log(`_analyze chains: ${requests.length} requests, ${tokens} tokens (${shingles} shingles), ${requests.length - differ.length} agree`);
    expect(differ.slice(0, 5)).toEqual([]);
    expect(shingles).toBeGreaterThan(requests.length);
  }, 600_000);

  it("bounds an index's shingle filters by its index.max_shingle_diff, after the index is found", async () => {
    for (const call of [porticoCall, nodeCall]) expect((await call('PUT', '/shingles', { settings: { 'index.max_shingle_diff': 5 } })).status).toBe(200);
    const wide = { tokenizer: 'standard', filter: [shingle({ max_shingle_size: 6 })], text: 'a b c d e f g' };
    const wider = { tokenizer: 'standard', filter: [shingle({ max_shingle_size: 9 })], text: 'a b' };
    for (const [path, body] of [['/shingles/_analyze', wide], ['/shingles/_analyze', wider], ['/_analyze', wide], ['/nope/_analyze', wider]] as const) {
      const [p, r] = await Promise.all([porticoCall('POST', path, body), nodeCall('POST', path, body)]);
      expect([path, p.status, p.body.tokens ?? p.body.error?.reason]).toEqual([path, r.status, r.body.tokens ?? r.body.error?.reason]);
    }
  });

  it('refuses the same chains with the same errors', async () => {
    for (const body of ERRORS) {
      const [p, r] = await both(body);
      expect([body, p.status, p.body.error?.type, p.body.error?.reason]).toEqual([body, r.status, r.body.error?.type, r.body.error?.reason]);
    }
  });
});
