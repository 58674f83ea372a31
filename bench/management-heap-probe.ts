/**
 * Where the management server's memory goes: runs the server of `npm run bench:management` (its
 * `--serve` child, the same process the bench measures) with `--heapsnapshot-signal`, applies the
 * same 10,000-router snapshots (BENCH_RECORDS for another size), asks the same pages, and writes a
 * heap snapshot before and after 21 `/api/rawdata` requests. Prints the resident memory, the heap
 * and, per constructor, the self size of the objects in each snapshot (largest first), so the two
 * can be compared. `BENCH_SERVER_NODE_ARGS` adds Node flags to the server.
 *
 *   npx tsx bench/management-heap-probe.ts
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSnapshot } from './management-snapshot.js';

const N = Number(process.env.BENCH_RECORDS ?? 10_000);
const TOKEN = 'bench-token';

/** The bench's snapshot, as the JSON body it PUTs. */
const body = (generation: number): string => JSON.stringify(benchSnapshot(N, generation));

interface Memory { memory: NodeJS.MemoryUsage; heap: { total_heap_size: number; used_heap_size: number; malloced_memory: number }; collected: boolean }

/** The server's own view of its memory (the bench's server answers 'memory' on its IPC channel). */
async function memoryOf(child: ReturnType<typeof fork>, request: 'memory' | 'gc-memory' = 'memory'): Promise<string> {
  const m = await new Promise<Memory>((resolve) => {
    const on = (msg: unknown) => {
      if (typeof msg === 'object' && msg !== null && 'memory' in msg) {
        child.off('message', on);
        resolve(msg as Memory);
      }
    };
    child.on('message', on);
    child.send(request);
  });
  const mb = (n: number) => `${(n / 1e6).toFixed(0)}`;
  return `${m.collected ? '(collected) ' : ''}rss ${mb(m.memory.rss)}, heap total ${mb(m.heap.total_heap_size)} used ${mb(m.heap.used_heap_size)}, external ${mb(m.memory.external)} ` +
    `(array buffers ${mb(m.memory.arrayBuffers)}), malloced ${mb(m.heap.malloced_memory)} MB`;
}

function residentMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1000 : NaN;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: (string | string[])[] } };
  nodes: number[];
  strings: string[];
}

/** Self size per node type and constructor name, largest first. */
function summarize(path: string): { total: number; rows: [string, number, number][] } {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0] as string[];
  const width = fields.length;
  const [iType, iName, iSize] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const by = new Map<string, [number, number]>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType] as number] as string;
    const size = snap.nodes[i + iSize] as number;
    total += size;
    const key = type === 'object' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[i + iName] as number]}` : `(${type})`;
    const e = by.get(key) ?? [0, 0];
    e[0] += size;
    e[1]++;
    by.set(key, e);
  }
  return { total, rows: [...by].map(([k, [s, c]]) => [k, s, c] as [string, number, number]).sort((a, b) => b[1] - a[1]) };
}

async function heapSnapshot(child: ReturnType<typeof fork>, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  child.kill('SIGUSR2');
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (file === undefined) continue;
    const size = statSync(join(dir, file)).size;
    await new Promise((r) => setTimeout(r, 1500));
    if (statSync(join(dir, file)).size === size && size > 0) return join(dir, file);
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-heap-'));
  const bench = fileURLToPath(new URL('./management-bench.ts', import.meta.url));
  const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = fork(bench, ['--serve'], { cwd: dir, execArgv: [...process.execArgv, '--heapsnapshot-signal=SIGUSR2', ...extra], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const ports = await new Promise<{ api: number; internal: number }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { api: number; internal: number }));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${ports.api}`;
    const rssIdle = residentMb(child.pid as number);
    for (let generation = 1; generation <= 6; generation++) {
      const res = await fetch(`http://127.0.0.1:${ports.internal}/internal/v1/providers/kubernetes`, {
        method: 'PUT', body: body(generation), headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`PUT: ${res.status}`);
    }
    for (const path of ['/api/http/routers?page=40&per_page=100', '/api/http/services?sortBy=servers&direction=desc&page=7', '/api/http/routers?search=app-12&status=disabled']) {
      for (let i = 0; i < 50; i++) await (await fetch(`${base}${path}`)).arrayBuffer();
    }
    const rssBefore = residentMb(child.pid as number);
    const lines = [`before rawdata: ${await memoryOf(child)}`];
    // With BENCH_SERVER_NODE_ARGS=--expose-gc: the same after a full collection, no snapshot.
    lines.push(`after a full GC (--expose-gc only): ${await memoryOf(child, 'gc-memory')}`);
    const first = await heapSnapshot(child, dir);
    lines.push(`after its heap snapshot (a full GC): ${await memoryOf(child)}`);
    for (let i = 0; i < 21; i++) await (await fetch(`${base}/api/rawdata`)).arrayBuffer();
    const rssAfter = residentMb(child.pid as number);
    lines.push(`after 21 rawdata: ${await memoryOf(child)}`);
    const second = await heapSnapshot(child, dir);
    lines.push(`after its heap snapshot: ${await memoryOf(child)}`);
    const a = summarize(first);
    const b = summarize(second);
    process.stdout.write(`${N} routers + ${N} services; server RSS idle ${rssIdle.toFixed(0)} MB, before rawdata ${rssBefore.toFixed(0)} MB, after 21 rawdata ${rssAfter.toFixed(0)} MB\n`);
    process.stdout.write(`${lines.join('\n')}\n`);
    process.stdout.write(`heap (snapshot self sizes): before rawdata ${(a.total / 1e6).toFixed(1)} MB, after ${(b.total / 1e6).toFixed(1)} MB\n\n`);
    const after = new Map(b.rows.map(([k, s, c]) => [k, [s, c] as const]));
    process.stdout.write(`${'constructor'.padEnd(48)} ${'before MB'.padStart(10)} ${'count'.padStart(9)} ${'after MB'.padStart(10)} ${'count'.padStart(9)}\n`);
    for (const [k, s, c] of a.rows.slice(0, 30)) {
      const [s2, c2] = after.get(k) ?? [0, 0];
      process.stdout.write(`${k.slice(0, 48).padEnd(48)} ${(s / 1e6).toFixed(2).padStart(10)} ${String(c).padStart(9)} ${(s2 / 1e6).toFixed(2).padStart(10)} ${String(c2).padStart(9)}\n`);
    }
    process.stdout.write(`\nsnapshots in ${dir}\n`);
  } finally {
    child.kill();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
