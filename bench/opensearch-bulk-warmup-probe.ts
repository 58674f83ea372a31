/**
 * How much of the OpenSearch node's first bulk load is its JIT warming up (not a test):
 * `npx tsx bench/opensearch-bulk-warmup-probe.ts [-- --loads 3]` starts the node of the differential
 * tests (1 GiB heap, C2 and G1, as search-bench.ts does) and loads the Debian corpus into a new
 * index `--loads` times in a row (`_bulk`, 5,000 documents a request, one in flight), printing each
 * load's documents per second, wall and per CPU-second of the JVM (utime + stime of
 * /proc/<pid>/stat). search-bench.ts prints a first and a second load for this reason.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { launchOpenSearch } from '../test/search/opensearch-node.js';
import { corpusPath, opt, readCorpus } from './search-workload.js';

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const lines = readCorpus(corpusPath());
const loads = Number(opt('loads', '3'));
const node = await launchOpenSearch({ heap: '1g', jit: 'full', startTimeoutMs: 400_000 });
try {
  const pid = node.pid;
  if (pid === undefined) throw new Error('the node has no process id');
  for (let n = 1; n <= loads; n++) {
    const index = `load-${n}`;
    const created = await node.call('PUT', `/${index}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    if (created.status !== 200) throw new Error(`create: ${JSON.stringify(created.body)}`);
    const t0 = performance.now();
    const c0 = cpuSeconds(pid);
    for (let i = 0; i < lines.length; i += 5_000) {
      let body = '';
      for (let k = i; k < Math.min(i + 5_000, lines.length); k++) body += `{"index":{"_id":"${k}"}}\n${lines[k] as string}\n`;
      const res = await node.call('POST', `/${index}/_bulk`, body);
      if (res.status !== 200 || res.body?.errors === true) throw new Error(`bulk: ${res.status}`);
    }
    const wall = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(pid) - c0;
    console.log(`load ${n}: ${Math.round(lines.length / wall)} docs/s wall, ${Math.round(lines.length / cpu)} docs per JVM CPU-second; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  }
} finally {
  await node.stop();
}
