import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPortico, type RunningPortico } from '../support/portico-process.js';

// kill -9 under bulk load: every document write the search API acknowledged (a bulk item with
// status 200/201, a delete with 200/404) must be there after the restart, with the acknowledged
// version of its source; an id whose write was in flight at the kill may hold either state.
// Documents are overwritten and deleted too, so stale data shows as well as lost data.
// A fixed seed chooses the kill moments; PORTICO_SOAK=1 runs 50 kills instead of 5.

const KILLS = process.env.PORTICO_SOAK === '1' ? 50 : 5;
const CLIENTS = 3;
/** Ids per client; each bulk writes BULK of them (distinct within a bulk), cycling, so ids are rewritten. */
const IDS_PER_CLIENT = 600;
const BULK = 100;

/** mulberry32: the same kill moments on every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A document's state: its source's `v`, or null when deleted. */
type State = number | null;

/** Per id: the last acknowledged state and the one in flight at the kill. */
interface Expected {
  acked?: State;
  inFlight?: State;
}

const dataDir = mkdtempSync(join(tmpdir(), 'portico-search-kill-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const start = (): Promise<RunningPortico> =>
  startPortico([
    '--data.dir', dataDir,
    '--pushgateway.listen-address', 'off',
    '--management.listen-address', 'off',
    '--search.listen-address', '127.0.0.1:0',
    '--internal.listen-address', 'off',
  ]);

async function call(port: number, method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, body, headers: { 'content-type': contentType } });
  return { status: res.status, json: await res.json() };
}

/** Every document of the index, id → v. */
async function documents(port: number): Promise<Map<string, number>> {
  const { status, json } = await call(port, 'POST', '/k/_search?size=10000', '{"query":{"match_all":{}},"_source":["v"]}');
  if (status !== 200) throw new Error(`search answered ${status}: ${JSON.stringify(json)}`);
  const hits = (json as { hits: { hits: { _id: string; _source: { v: number } }[] } }).hits.hits;
  return new Map(hits.map((h) => [h._id, h._source.v]));
}

interface BulkItem {
  index?: { _id: string; status: number };
  delete?: { _id: string; status: number };
}

async function client(port: number, c: number, expected: Map<string, Expected>, counter: { value: number; acked: number; bulks: number; stop: boolean }): Promise<void> {
  for (let b = 0; !counter.stop; b++) {
    let body = '';
    const sent = new Map<string, State>();
    for (let i = 0; i < BULK; i++) {
      const id = `c${c}-${(b * BULK + i) % IDS_PER_CLIENT}`;
      const v = ++counter.value;
      // One write in seven deletes the document.
      const state: State = v % 7 === 0 ? null : v;
      body += state === null ? `{"delete":{"_id":"${id}"}}\n` : `{"index":{"_id":"${id}"}}\n{"v":${v},"text":"document ${id} version ${v}"}\n`;
      sent.set(id, state);
      const e = expected.get(id) ?? (expected.set(id, {}).get(id) as Expected);
      e.inFlight = state;
    }
    try {
      const { status, json } = await call(port, 'POST', '/k/_bulk', body, 'application/x-ndjson');
      if (status !== 200) throw new Error(`bulk answered ${status}`);
      for (const item of (json as { items: BulkItem[] }).items) {
        const r = item.index ?? item.delete;
        if (r === undefined) continue;
        const ok = item.index !== undefined ? r.status === 200 || r.status === 201 : r.status === 200 || r.status === 404;
        if (!ok) continue;
        const e = expected.get(r._id) as Expected;
        e.acked = sent.get(r._id) as State;
        e.inFlight = undefined;
        counter.acked++;
      }
      counter.bulks++;
    } catch {
      // The server was killed: this bulk may or may not have been made durable, item by item.
      return;
    }
  }
}

/**
 * Every acknowledged write is there and current; an id may hold its in-flight write instead. What
 * a restarted server holds is durable from then on, so it becomes the state to hold it to: an
 * in-flight write found after a restart counts as acknowledged (else a later write to the same id,
 * cut off at the next kill, would make it look stale), and one not found is forgotten.
 */
function check(found: Map<string, number>, expected: Map<string, Expected>): string[] {
  const bad: string[] = [];
  for (const [id, e] of expected) {
    const got: State | undefined = found.has(id) ? (found.get(id) as number) : null;
    const candidates: (State | undefined)[] = [e.acked, e.inFlight];
    // Never acknowledged and never seen: nothing to hold the server to.
    if (e.acked === undefined) candidates.push(null);
    if (!candidates.some((s) => s !== undefined && s === got)) bad.push(`${id}: expected ${JSON.stringify(e)}, found ${JSON.stringify(got)}`);
    else e.acked = got;
    e.inFlight = undefined;
  }
  return bad;
}

describe('search: kill -9 under bulk load', () => {
  it(`keeps every acknowledged document write across ${KILLS} kills`, async () => {
    const random = prng(21);
    const expected = new Map<string, Expected>();
    const counter = { value: 0, acked: 0, bulks: 0, stop: false };
    let checked = 0;
    const bad: string[] = [];
    for (let k = 0; k < KILLS; k++) {
      const server = await start();
      const port = server.ports.search as number;
      if (k === 0) {
        const created = await call(port, 'PUT', '/k', '{"mappings":{"properties":{"v":{"type":"long"},"text":{"type":"text"}}}}');
        expect(created.status, JSON.stringify(created.json)).toBe(200);
      }
      bad.push(...check(await documents(port), expected));
      checked += expected.size;
      counter.stop = false;
      const clients = Array.from({ length: CLIENTS }, (_, c) => client(port, c, expected, counter));
      await new Promise((r) => setTimeout(r, 400 + Math.floor(random() * 1200)));
      await server.stop('SIGKILL');
      counter.stop = true;
      await Promise.all(clients);
    }
    const last = await start();
    try {
      bad.push(...check(await documents(last.ports.search as number), expected));
      checked += expected.size;
    } finally {
      await last.stop();
    }
    console.log(`search kill -9: ${counter.acked} document writes acknowledged in ${counter.bulks} bulks, ${checked} document states checked after ${KILLS} kills, ${bad.length} lost or stale`);
    expect(counter.bulks).toBeGreaterThan(KILLS);
    expect(bad).toEqual([]);
  }, 180_000);
});
