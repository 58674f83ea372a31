// Preloaded by bench/search-rss-probe.ts into the server (node --import): on SIGUSR2 writes its memory
// accounting as JSON to $ACCT_OUT.<n>.json (after a full collection when $ACCT_GC is set and the
// server runs with --expose-gc), and a heap snapshot beside the reading numbered $ACCT_SNAP.
import process from 'node:process';
import v8 from 'node:v8';
import { readFileSync, writeFileSync } from 'node:fs';
import { setInterval } from 'node:timers';
import { PerformanceObserver } from 'node:perf_hooks';
let n = 0;
let largestAnon = [];
function smaps() {
  const txt = readFileSync('/proc/self/smaps', 'utf8');
  const cats = {};
  let name = '';
  let range = '';
  const anon = [];
  for (const line of txt.split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) { name = m[1] || '[anon]'; if (name.includes('/')) name = name.split('/').pop(); range = line.split(' ')[0]; continue; }
    const r = /^Rss:\s+(\d+) kB/.exec(line);
    if (r) {
      cats[name] = (cats[name] ?? 0) + Number(r[1]);
      if (name === '[anon]' || name === '[heap]') {
        const [a, b] = range.split('-').map((h) => parseInt(h, 16));
        anon.push([range, +((b - a) / 1048576).toFixed(1), +(Number(r[1]) / 1024).toFixed(1)]);
      }
    }
  }
  largestAnon = anon.sort((x, y) => y[2] - x[2]).slice(0, 25);
  return Object.fromEntries(Object.entries(cats).filter(([, v]) => v > 512).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, +(v / 1024).toFixed(1)]));
}
// The composition at the highest RSS seen, sampled every 50 ms between the server's turns (a bulk
// works in slices of about 10 ms): what the peak (VmHWM) the bench reads is made of.
let peak = { rss: 0 };
setInterval(() => {
  const m = process.memoryUsage();
  if (m.rss > peak.rss) {
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().filter((s) => s.space_size > 0).map((s) => [s.space_name.replace('_space', ''), +(s.space_size / 1048576).toFixed(1)]));
    peak = { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external, spaces };
  }
}, 50).unref();
// Garbage collections so far, by kind (V8's: 1 minor, 4 major, 8 incremental marking, 16 weak
// callbacks): count and milliseconds.
const gcs = {};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = String(e.detail?.kind ?? 0);
    const g = (gcs[kind] ??= { count: 0, ms: 0 });
    g.count++;
    g.ms = +(g.ms + e.duration).toFixed(1);
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => {
  if (process.env.ACCT_GC && globalThis.gc) globalThis.gc();
  const mu = process.memoryUsage();
  const mib = (x) => +(x / 1048576).toFixed(1);
  const out = {
    memoryUsage: Object.fromEntries(Object.entries(mu).map(([k, v]) => [k, mib(v)])),
    spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: mib(s.space_size), used: mib(s.space_used_size), physical: mib(s.physical_space_size) }])),
    status: Object.fromEntries(readFileSync('/proc/self/status', 'utf8').split('\n').filter((l) => /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem|Threads)/.test(l)).map((l) => l.split(/:\s+/))),
    smaps: smaps(),
    gcs,
    peak: Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, typeof v === 'number' ? +(v / 1048576).toFixed(1) : v])),
  };
  // [address range, size MiB, resident MiB] of the largest anonymous mappings (V8's pages, malloc arenas, big buffers).
  out.largestAnon = largestAnon;
  const f = `${process.env.ACCT_OUT ?? '/tmp/s21/acct'}.${n++}.json`;
  writeFileSync(f, JSON.stringify(out, null, 1));
  if (process.env.ACCT_SNAP === String(n - 1)) v8.writeHeapSnapshot(`${process.env.ACCT_OUT ?? '/tmp/s21/acct'}.${n - 1}.heapsnapshot`);
});
