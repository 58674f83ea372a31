import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built CLI (npm run build first): acknowledged documents survive SIGTERM, also in the middle
// of a stream of bulk requests, and the rebuilt index agrees with the stored documents.
const CLI = resolve(import.meta.dirname, '..', '..', 'dist', 'cli.js');

function start(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawn(process.execPath, [CLI, 'serve', '--data.dir', dataDir, '--pushgateway.listen-address', 'off', '--management.listen-address', 'off', '--search.listen-address', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((res, rej) => {
    let buf = '';
    child.stdout?.on('data', (c: Buffer) => {
      buf += c.toString();
      const m = /"search":(\d+)/.exec(buf);
      if (m) res({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.on('exit', (code) => rej(new Error(`portico exited with ${code}: ${buf}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((res) => {
    child.on('exit', (code) => res(code));
    child.kill('SIGTERM');
  });
}

function bulkBody(from: number, n: number): string {
  let body = '';
  for (let i = from; i < from + n; i++) body += `{"index":{"_id":"${i}"}}\n{"title":"document number ${i}","n":${i}}\n`;
  return body;
}

describe('search durability', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'portico-durability-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every acknowledged document across SIGTERM mid-bulk and restart', async () => {
    const first = await start(dataDir);
    // A window large enough to list every document after the restart.
    await fetch(`${first.url}/d`, { method: 'PUT', body: '{"settings":{"index.max_result_window":1000000}}', headers: { 'content-type': 'application/json' } });
    const acked = new Set<number>();
    let next = 0;
    const sending = (async () => {
      // Keep sending bulks until the server goes away; remember what was acknowledged.
      for (;;) {
        const from = next;
        next += 500;
        try {
          const res = await fetch(`${first.url}/d/_bulk`, { method: 'POST', body: bulkBody(from, 500), headers: { 'content-type': 'application/x-ndjson' } });
          const body = (await res.json()) as { errors: boolean };
          if (res.status === 200 && !body.errors) for (let i = from; i < from + 500; i++) acked.add(i);
        } catch {
          return;
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 700));
    expect(await stop(first.child)).toBe(0);
    await sending;
    expect(acked.size).toBeGreaterThan(0);

    const second = await start(dataDir);
    try {
      const count = (await (await fetch(`${second.url}/d/_count`)).json()) as { count: number };
      expect(count.count).toBeGreaterThanOrEqual(acked.size);
      const ids = (await (await fetch(`${second.url}/d/_search?size=1000000&_source=false`, { method: 'POST', body: '{"sort":[{"n":"asc"}]}', headers: { 'content-type': 'application/json' } })).json()) as {
        hits: { hits: { _id: string }[] };
      };
      const found = new Set(ids.hits.hits.map((x) => Number(x._id)));
      const lost = [...acked].filter((id) => !found.has(id));
      expect(lost).toEqual([]);
      // Search and count agree after the rebuild: the index is consistent with the store.
      expect(found.size).toBe(count.count);
      const match = (await (await fetch(`${second.url}/d/_search?q=title:number&size=0`)).json()) as { hits: { total: { value: number } } };
      expect(match.hits.total.value).toBe(Math.min(count.count, 10000));
    } finally {
      await stop(second.child);
    }
  });
});
