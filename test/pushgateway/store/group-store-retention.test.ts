import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseText } from '../../../src/pushgateway/exposition/text-parser.js';
import { InMemoryGroupStore } from '../../../src/pushgateway/store/group-store.js';

// The store must keep no slice of a push body: V8 keeps the whole decoded body alive for any kept
// substring of 13 or more characters (see ownString). These tests push bodies padded with a large
// comment and check that the live heap grows by far less than a body per group.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const GROUPS = 100;
/** A 64 KB comment: a body kept alive costs at least this much. */
const PAD = `#${' padding'.repeat(8000)}\n`;

function liveHeap(): number {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

function fill(store: InMemoryGroupStore, body: (i: number) => string, times: number): void {
  for (let t = 0; t < times; t++) {
    for (let i = 0; i < GROUPS; i++) {
      store.push({ grouping: [['job', 'retention'], ['instance', `i${i}`]], families: parseText(Buffer.from(body(i + t))), replace: true, nowMs: 1e12 + t });
    }
  }
  // A scrape in each cached format too: the metric texts become slices of the family text.
  store.rendered(2e12, 'text');
  store.rendered(2e12, 'openmetrics');
}

/** Live heap bytes per group after pushing GROUPS groups of `body(i)`, each pushed `times` times. */
function bytesPerGroup(body: (i: number) => string, times = 1): number {
  // A first round unmeasured, so that compiling the code on the way is not counted.
  fill(new InMemoryGroupStore(), body, 1);
  const store = new InMemoryGroupStore();
  const before = liveHeap();
  fill(store, body, times);
  const after = liveHeap();
  expect(store.groupCount).toBe(GROUPS);
  return (after - before) / GROUPS;
}

const long = (i: number) => `path="/var/lib/batch/stage/${i}"`;
const bodies: Record<string, (i: number) => string> = {
  gauge: (i) => `${PAD}# HELP g A gauge with a long help text.\n# TYPE g gauge\ng{${long(i)}} ${i}\n`,
  summary: (i) => `${PAD}# TYPE s summary\ns{${long(i)},quantile="0.5"} 1\ns_sum{${long(i)}} 2\ns_count{${long(i)}} ${i}\n`,
  histogram: (i) => `${PAD}# TYPE h histogram\nh_bucket{${long(i)},le="+Inf"} ${i}\nh_sum{${long(i)}} 2\nh_count{${long(i)}} ${i}\n`,
};

describe('InMemoryGroupStore keeps no push body alive', () => {
  for (const [kind, body] of Object.entries(bodies)) {
    it(`for ${kind} families, first pushes and re-pushes of the same series`, () => {
      expect(bytesPerGroup(body)).toBeLessThan(PAD.length / 4);
      // The second push of each group updates its metrics in place.
      expect(bytesPerGroup(body, 2)).toBeLessThan(PAD.length / 4);
    });
  }
});
