/**
 * The management API's differential suite: a real Traefik (scripts/build-peers.sh traefik) and
 * Portico load the same dynamic configuration directory with the same entry points, and every
 * `/api/*` endpoint, every record's path and generated list parameters are asked of both. Each
 * answer (status, `X-Next-Page`, body text, error texts) must be equal, or be explained by a listed
 * difference (known-differences.ts). Prints the figures.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare, side, type AllRecords } from './compare.js';
import { generatedConfigs, type DiffConfig } from './configs.js';
import { HAND_WRITTEN } from './hand-written.js';
import { KNOWN_DIFFERENCES } from './known-differences.js';
import { randomPicks, setPicksAside, type Picks } from './random-picks.js';
import { startPair, type Answer, type Pair } from './peers.js';
import { KINDS, listQueries, type KindRecords } from './requests.js';

const SEED = 25;
const GENERATED = 320;
const BATCH = 10;
const QUERIES_PER_KIND = 6;
/**
 * The answers whose first difference no listed difference explains (written to
 * <tmpdir>/management-differential.txt) are Portico's to-do list against Traefik 3.7.13; the suite
 * fails on any. On 2026-11-28 there were 440 (generated) and 23 (hand-written) of about 9,500 with
 * answers compared by position; record by record, with fixes, 12 and 0; then 7 to 18 in eight runs,
 * the margin (30) being Traefik's shuffled service builds not yet set aside. On 2026-11-29 runs gave
 * 16, 15 and 10 (all generated): 7 to 13 of them those shuffles (random-picks.ts now sets aside
 * every pick of them), 3 in every run deterministic consequences of listed differences that compare.ts
 * and known-differences.ts did not follow (a page refused as beyond the end; a router Traefik split
 * on one entry point; a service behind a priority Portico rounds). Since then 0 generated and
 * 0 hand-written in each of thirteen runs (docs/management-api.md has the figures and the command).
 */
const MAX_UNEXPLAINED_GENERATED = 0;
const MAX_UNEXPLAINED_HAND_WRITTEN = 0;

let pair: Pair | undefined;
let traefikAddress = '';
let porticoAddress = '';

const figures = {
  configurations: 0,
  loads: 0,
  requests: 0,
  equal: 0,
  /** Of `equal`, those equal only once Traefik's random picks are set aside (random-picks.ts). */
  random: 0,
  known: new Map<string, number>(),
  endpoints: new Set<string>(),
  differences: [] as string[],
};

beforeAll(async () => {
  pair = await startPair();
  const t = JSON.parse((await pair.traefik('/api/entrypoints/traefik')).body) as { address: string };
  const p = JSON.parse((await pair.portico('/api/entrypoints/traefik')).body) as { address: string };
  traefikAddress = t.address;
  porticoAddress = p.address;
}, 600_000);

afterAll(async () => {
  await pair?.stop();
  const out = join(tmpdir(), 'management-differential.txt');
  writeFileSync(out, `${figures.differences.join('\n')}\n`);
  console.log(`unexplained differences written to ${out}`);
  const known = [...figures.known].map(([id, n]) => `${id}: ${n}`).join(', ');
  console.log(`management differential: ${figures.configurations} configurations in ${figures.loads} loads, ${figures.endpoints.size} endpoints, ` +
    `${figures.requests} requests compared, ${figures.equal} equal (${figures.random} of them once Traefik's random picks are set aside), ${figures.requests - figures.equal - figures.differences.length} explained by listed differences (${known}), ` +
    `${figures.differences.length} unexplained`);
});

function endpointOf(path: string): string {
  const [p, q] = path.split('?');
  const segs = (p ?? '').split('/');
  const base = segs.length > 4 || (segs[2] === 'entrypoints' && segs.length > 3) ? `${segs.slice(0, segs[2] === 'entrypoints' ? 3 : 4).join('/')}/{name}` : p ?? '';
  const params = q === undefined || q === '' ? '' : `?${[...new URLSearchParams(q).keys()].sort().join('&')}`;
  return `${base}${params}`;
}

/** Each kind's whole list on both sides, for the current load (see compare.ts). */
const allRecords = new Map<string, AllRecords>();
/** The current load's random picks (random-picks.ts). */
let picks: Picks | undefined;

async function ask(path: string): Promise<void> {
  if (pair === undefined) throw new Error('not started');
  const [t, p] = await Promise.all([pair.traefik(path), pair.portico(path)]);
  record(path, t, p);
}

function record(path: string, t: Answer, p: Answer): void {
  figures.requests++;
  figures.endpoints.add(endpointOf(path));
  const verdict = compare(path, t, p, traefikAddress, porticoAddress, allRecords.get(path.split('?')[0]?.slice('/api/'.length) ?? ''), picks,
    { records: allRecords });
  if (verdict.kind === 'equal' || verdict.kind === 'random') {
    figures.equal++;
    if (verdict.kind === 'random') figures.random++;
    return;
  }
  if (verdict.kind === 'known') {
    figures.known.set(verdict.id, (figures.known.get(verdict.id) ?? 0) + 1);
    return;
  }
  figures.differences.push(`${path}: ${verdict.where}`);
}

async function inParallel(paths: readonly string[], width = 6): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < paths.length) await ask(paths[next++] as string);
  }));
}

interface Listed { name: string; service?: string; middlewares?: string[] }

async function recordsOf(kind: string): Promise<KindRecords> {
  if (pair === undefined) throw new Error('not started');
  const names = new Set<string>();
  const services = new Set<string>();
  const middlewares = new Set<string>();
  const t = await pair.traefik(`/api/${kind}?per_page=100000`);
  const p = await pair.portico(`/api/${kind}?per_page=100000`);
  const byName = (body: unknown) => {
    const list = picks === undefined ? body : setPicksAside(body, picks, `/api/${kind}`);
    return new Map(Array.isArray(list) ? (list as Listed[]).map((r) => [r.name, r] as const) : []);
  };
  allRecords.set(kind, { traefik: byName(side(t, traefikAddress).body), portico: byName(side(p, porticoAddress).body) });
  for (const answer of [t, p]) {
    if (answer.status !== 200) continue;
    for (const r of JSON.parse(answer.body) as Listed[]) {
      names.add(r.name);
      if (r.service !== undefined) services.add(r.service);
      for (const m of r.middlewares ?? []) middlewares.add(m);
    }
  }
  return { names: [...names], services: [...services], middlewares: [...middlewares] };
}

/** Loads the configurations together and asks every endpoint. */
async function check(configs: readonly DiffConfig[], seed: number): Promise<void> {
  if (pair === undefined) throw new Error('not started');
  const files: Record<string, string> = {};
  for (const c of configs) Object.assign(files, c.files);
  await pair.load(files);
  picks = randomPicks(files);
  figures.loads++;
  figures.configurations += configs.length;
  const paths = ['/api/overview', '/api/rawdata', '/api/entrypoints', '/api/entrypoints?per_page=2&page=2', '/api/entrypoints/web',
    '/api/entrypoints/udpep', '/api/entrypoints/nope', '/api/entrypoints?page=9'];
  for (const [i, kind] of KINDS.entries()) {
    const recs = await recordsOf(kind);
    for (const name of recs.names) paths.push(`/api/${kind}/${encodeURIComponent(name)}`);
    paths.push(`/api/${kind}/nope@file`, `/api/${kind}/${configs[0]?.id ?? 'x'}%2Fslash@file`);
    for (const q of listQueries(kind, recs, QUERIES_PER_KIND, seed * 16 + i)) paths.push(q === '' ? `/api/${kind}` : `/api/${kind}?${q}`);
  }
  await inParallel(paths);
}

describe('management API against a live Traefik', () => {
  it('answers the generated configurations as Traefik does', async () => {
    const configs = generatedConfigs(GENERATED, SEED);
    for (let i = 0; i < configs.length; i += BATCH) await check(configs.slice(i, i + BATCH), SEED + i);
    expect(figures.configurations).toBeGreaterThanOrEqual(300);
    expect(figures.differences.length, figures.differences.slice(0, 40).join('\n')).toBeLessThanOrEqual(MAX_UNEXPLAINED_GENERATED);
  }, 600_000);

  it('answers the hand-written configurations as Traefik does', async () => {
    const before = figures.differences.length;
    for (const [i, c] of HAND_WRITTEN.entries()) await check([c], 1000 + i);
    expect(figures.differences.length - before, figures.differences.slice(before, before + 40).join('\n')).toBeLessThanOrEqual(MAX_UNEXPLAINED_HAND_WRITTEN);
  }, 600_000);

  it('lists a reason for every accepted difference', () => {
    for (const d of KNOWN_DIFFERENCES) expect(d.reason.length, d.id).toBeGreaterThan(20);
  });
});
