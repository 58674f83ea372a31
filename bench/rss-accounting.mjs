// Preloaded by bench/search-rss-probe.ts into the server (node --import): on SIGUSR2 writes its memory
// accounting as JSON to $ACCT_OUT.<n>.json (after a full collection when $ACCT_GC is set and the
// server runs with --expose-gc), and a heap snapshot beside the reading numbered $ACCT_SNAP.
import process from 'node:process';
import v8 from 'node:v8';
import { readFileSync, writeFileSync } from 'node:fs';
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
process.on('SIGUSR2', () => {
  if (process.env.ACCT_GC && globalThis.gc) globalThis.gc();
  const mu = process.memoryUsage();
  const mib = (x) => +(x / 1048576).toFixed(1);
  const out = {
    memoryUsage: Object.fromEntries(Object.entries(mu).map(([k, v]) => [k, mib(v)])),
    spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: mib(s.space_size), used: mib(s.space_used_size), physical: mib(s.physical_space_size) }])),
    status: Object.fromEntries(readFileSync('/proc/self/status', 'utf8').split('\n').filter((l) => /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem|Threads)/.test(l)).map((l) => l.split(/:\s+/))),
    smaps: smaps(),
  };
  // [address range, size MiB, resident MiB] of the largest anonymous mappings (V8's pages, malloc arenas, big buffers).
  out.largestAnon = largestAnon;
  const f = `${process.env.ACCT_OUT ?? '/tmp/s21/acct'}.${n++}.json`;
  writeFileSync(f, JSON.stringify(out, null, 1));
  if (process.env.ACCT_SNAP === String(n - 1)) v8.writeHeapSnapshot(`${process.env.ACCT_OUT ?? '/tmp/s21/acct'}.${n - 1}.heapsnapshot`);
});
