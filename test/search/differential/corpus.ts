/**
 * The documents both servers index for the differential suite: a slice of the Debian package corpus
 * (real text with real term statistics) and generated documents with every field type Portico
 * maps (text, keyword, integer, double, date, boolean), missing values and arrays. Everything is
 * derived from a fixed seed, so each run compares the same data.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Rng's floats as a function (`seeded(7)()`), for generators that only draw numbers. */
export function seeded(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence on every machine. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    const x = xs[Math.floor(this.next() * xs.length)];
    if (x === undefined) throw new Error('pick from an empty list');
    return x;
  }
  /** Skewed towards the start of `xs`, as word frequencies are. */
  zipf<T>(xs: readonly T[]): T {
    const x = xs[Math.floor(xs.length * this.next() ** 2.5)];
    if (x === undefined) throw new Error('pick from an empty list');
    return x;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** One shard and no replica on both servers: Portico has one shard, and BM25 statistics are per shard. */
export const INDEX_SETTINGS = { number_of_shards: 1, number_of_replicas: 0 };

export const DEBIAN_MAPPINGS = {
  properties: {
    package: { type: 'keyword' },
    version: { type: 'keyword' },
    section: { type: 'keyword' },
    priority: { type: 'keyword' },
    maintainer: { type: 'text', fields: { raw: { type: 'keyword' } } },
    installed_size: { type: 'long' },
    summary: { type: 'text' },
    description: { type: 'text' },
    homepage: { type: 'keyword' },
  },
};

export const GENERATED_MAPPINGS = {
  properties: {
    title: { type: 'text' },
    body: { type: 'text' },
    tags: { type: 'keyword' },
    n: { type: 'integer' },
    price: { type: 'double' },
    created: { type: 'date' },
    flag: { type: 'boolean' },
    owner: { type: 'object', properties: { name: { type: 'keyword' }, level: { type: 'integer' } } },
  },
};

/** Words of the generated text, most frequent first. */
export const WORDS = [
  'alpha', 'beta', 'gamma', 'delta', 'search', 'index', 'shard', 'node', 'query', 'score', 'term', 'field', 'quick', 'brown',
  'fox', 'lazy', 'dog', 'river', 'stone', 'cloud', 'light', 'night', 'paper', 'green', 'apple', 'orange', 'silver', 'copper',
  'engine', 'kernel', 'module', 'packet', 'socket', 'thread', 'buffer', 'vector', 'matrix', 'tensor', 'signal', 'filter',
  'window', 'garden', 'forest', 'harbor', 'island', 'valley', 'meadow', 'canyon', 'desert', 'glacier', 'volcano', 'tundra',
] as const;

export const TAGS = ['red', 'green', 'blue', 'Red', 'yellow', 'black', 'white', 'x-large', 'small', 'a b'] as const;

/** Query words for the Debian slice, common and rare. */
export const DEBIAN_WORDS = [
  'library', 'python', 'development', 'files', 'data', 'server', 'client', 'tool', 'perl', 'module', 'documentation', 'kernel',
  'network', 'java', 'ruby', 'gnome', 'font', 'editor', 'audio', 'video', 'image', 'database', 'web', 'utility', 'shared',
  'runtime', 'headers', 'plugin', 'test', 'xml', 'http', 'command', 'line', 'graphical', 'interface', 'support', 'package',
  'game', 'strategy', 'emacs', 'haskell', 'rust', 'golang', 'bindings', 'transitional', 'dummy', 'the', 'of', 'and', 'zzzqqq',
] as const;

export const DEBIAN_SECTIONS = ['games', 'libs', 'devel', 'python', 'perl', 'utils', 'net', 'doc', 'web', 'x11', 'admin', 'text', 'sound', 'nonexistent'] as const;

function text(rng: Rng, lo: number, hi: number): string {
  const n = rng.int(lo, hi);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(rng.zipf(WORDS));
  return out.join(rng.chance(0.2) ? ', ' : ' ');
}

/** `count` generated documents: [id, source]. About a fifth of each field is missing; tags is often an array. */
export function generatedDocs(count: number, seed: number): [string, Record<string, unknown>][] {
  const rng = new Rng(seed);
  const docs: [string, Record<string, unknown>][] = [];
  const day0 = Date.UTC(2020, 0, 1);
  for (let i = 0; i < count; i++) {
    const d: Record<string, unknown> = {};
    if (rng.chance(0.9)) d.title = text(rng, 1, 6);
    if (rng.chance(0.8)) d.body = text(rng, 5, 60);
    if (rng.chance(0.8)) d.tags = rng.chance(0.5) ? rng.pick(TAGS) : Array.from({ length: rng.int(0, 3) }, () => rng.pick(TAGS));
    if (rng.chance(0.85)) d.n = rng.chance(0.1) ? [rng.int(0, 1000), rng.int(0, 1000)] : rng.int(-50, 1000);
    if (rng.chance(0.8)) d.price = Math.round(rng.next() * 100_000) / 100;
    if (rng.chance(0.8)) {
      const ms = day0 + rng.int(0, 1500) * 86_400_000 + rng.int(0, 86_399) * 1000;
      d.created = rng.chance(0.5) ? new Date(ms).toISOString() : new Date(ms).toISOString().slice(0, 10);
    }
    if (rng.chance(0.8)) d.flag = rng.chance(0.5);
    if (rng.chance(0.5)) d.owner = { name: rng.pick(['ann', 'bob', 'cy', 'dee']), ...(rng.chance(0.7) ? { level: rng.int(1, 5) } : {}) };
    docs.push([`g${i}`, d]);
  }
  return docs;
}

/** Where the Debian corpus is: ../shared beside the repository (CI) or two levels up (a worktree). */
export function debianCorpusPath(root: string): string {
  const candidates = ['../shared', '../../shared'].map((d) => resolve(root, d, 'data/debian-packages.ndjson.gz'));
  const found = candidates.find((p) => existsSync(p));
  if (found === undefined) throw new Error(`the Debian corpus is missing: looked for ${candidates.join(' and ')}`);
  return found;
}

/** Every `every`-th package of the Debian corpus, keyed by package name. */
export function debianDocs(path: string, every: number): [string, Record<string, unknown>][] {
  const lines = gunzipSync(readFileSync(path)).toString('utf8').split('\n');
  const docs: [string, Record<string, unknown>][] = [];
  for (let i = 0; i < lines.length; i += every) {
    const line = lines[i];
    if (line === undefined || line === '') continue;
    const doc = JSON.parse(line) as Record<string, unknown>;
    docs.push([String(doc.package), doc]);
  }
  return docs;
}
