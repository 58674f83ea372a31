/**
 * npm run probe:pushgateway-heap: live heap per series of the push gateway's store, a far steadier
 * figure than resident memory. Pushes 2,000 and then 20,000 groups of 10 series (the bodies and
 * grouping keys of bench/pushgateway-bench.ts) through the text parser and the store, as a PUT
 * does, scrapes once in each cached format (as Prometheus would, so that lazily rendered texts are
 * counted), collects garbage and reads V8's heap. Prints bytes per added series.
 *
 * Needs `--expose-gc` (the npm script passes it). Flags: --groups=N (default 20000),
 * --openmetrics=no (skip the OpenMetrics scrape), --body=client (each family with a HELP line and
 * a long label value, as client libraries push them, instead of the benchmark's bare gauges).
 */
import { parseText } from '../src/pushgateway/exposition/text-parser.js';
import { InMemoryGroupStore } from '../src/pushgateway/store/group-store.js';

const SERIES = 10;
const args = process.argv.slice(2);
const LARGE = Number(args.find((a) => a.startsWith('--groups='))?.slice(9) ?? 20_000);
const SMALL = Math.min(2_000, Math.floor(LARGE / 10));
const scrapeOm = !args.includes('--openmetrics=no');
const clientBodies = args.includes('--body=client');

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run probe:pushgateway-heap does)');

function body(seed: number): Buffer {
  let out = '';
  for (let m = 0; m < SERIES; m++) {
    if (clientBodies) {
      out += `# HELP bench_metric_${m} Seconds the batch job spent in stage ${m}, as a client library describes it.\n`;
      out += `# TYPE bench_metric_${m} gauge\nbench_metric_${m}{path="/var/lib/batch/stage-${m}/${seed}"} ${seed + m + 0.25}\n`;
    } else {
      out += `# TYPE bench_metric_${m} gauge\nbench_metric_${m}{worker="w"} ${seed + m}\n`;
    }
  }
  return Buffer.from(out);
}

interface Reading {
  readonly heap: number;
  readonly external: number;
}

function settle(): Reading {
  for (let i = 0; i < 4; i++) gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external + m.arrayBuffers };
}

function fill(store: InMemoryGroupStore, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    // parseGroupingKey's output for /metrics/job/bench/instance/i<i>, built without the URL step.
    store.push({ grouping: [['instance', `i${i}`], ['job', 'bench']], families: parseText(body(i)), replace: true, nowMs: 1_700_000_000_000 + i });
  }
}

function scrape(store: InMemoryGroupStore): number {
  let bytes = 0;
  for (const f of store.rendered(1_800_000_000_000, 'text')) bytes += f.text.length;
  if (scrapeOm) for (const f of store.rendered(1_800_000_000_000, 'openmetrics')) bytes += f.text.length;
  return bytes;
}

const store = new InMemoryGroupStore();
const empty = settle();
fill(store, 0, SMALL);
scrape(store);
const small = settle();
fill(store, SMALL, LARGE);
const scraped = scrape(store);
const large = settle();
// Keep the store alive past the last reading.
if (store.seriesCount !== LARGE * SERIES) throw new Error(`expected ${LARGE * SERIES} series, store holds ${store.seriesCount}`);

const added = (LARGE - SMALL) * SERIES;
const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`groups ${SMALL} → ${LARGE} (${SERIES} series each, ${clientBodies ? 'client' : 'bench'} bodies), scrape formats: text${scrapeOm ? ' + openmetrics' : ''} (${scraped} chars)`);
console.log(`heap used: empty ${kib(empty.heap)}, ${SMALL} groups ${kib(small.heap)}, ${LARGE} groups ${kib(large.heap)}`);
console.log(`external + array buffers: ${kib(small.external)} → ${kib(large.external)}`);
console.log(`heap bytes per added series:     ${((large.heap - small.heap) / added).toFixed(0)}`);
console.log(`external bytes per added series: ${((large.external - small.external) / added).toFixed(0)}`);
