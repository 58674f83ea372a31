import { describe, expect, it } from 'vitest';
import { renderConsolePage } from '../../../src/pushgateway/console/console-page.js';
import { InMemoryGroupStore } from '../../../src/pushgateway/store/group-store.js';

const none = { negativeSpans: [], negativeDeltas: [], negativeCounts: [], positiveSpans: [], positiveDeltas: [], positiveCounts: [] };

function page(): string {
  const store = new InMemoryGroupStore();
  store.push({ grouping: [['job', 'j']], replace: true, nowMs: Date.UTC(2026, 0, 2, 3, 4, 5, 600), families: [{ name: 'older', help: 'Old.', type: 'gauge', metrics: [{ labels: [], value: 1 }] }] });
  store.push({
    grouping: [['job', 'j']],
    replace: false,
    nowMs: Date.UTC(2026, 0, 2, 3, 9, 0),
    families: [
      {
        name: 'lat',
        help: 'Latency.',
        type: 'histogram',
        metrics: [
          { labels: [['k', 'int']], histogram: { sampleCount: 3, sampleSum: 2, buckets: [], native: { ...none, schema: 0, zeroThreshold: 0.001, zeroCount: 1, positiveSpans: [{ offset: 1, length: 1 }], positiveDeltas: [2] } } },
          { labels: [['k', 'float']], histogram: { sampleCount: 0, sampleCountFloat: 2.5, sampleSum: 1, buckets: [{ upperBound: 1, cumulativeCount: 0, cumulativeCountFloat: 1.5 }] } },
          { labels: [['k', 'bad']], histogram: { sampleCount: 1, sampleSum: 1, buckets: [], native: { ...none, schema: 12, positiveSpans: [{ offset: 0, length: 1 }], positiveDeltas: [1] } } },
        ],
      },
    ],
  });
  return renderConsolePage({ prefix: '/pg', groups: store.groups(0), enableAdminApi: false, version: '1.0.0', startTimeMs: 0, flags: {} });
}

describe('console page', () => {
  it('shows when each family was last pushed', () => {
    const html = page();
    expect(html).toContain('older <span class="type">GAUGE</span> <span class="pushed">last pushed 2026-01-02T03:04:05.6Z</span>');
    expect(html).toContain('lat <span class="type">HISTOGRAM</span> <span class="pushed">last pushed 2026-01-02T03:09:00Z</span>');
  });

  it('shows native buckets and float counts of histograms, and says when buckets cannot be listed', () => {
    const html = page();
    expect(html).toContain('count 3, sum 2; native, schema 0, zero threshold 0.001, 2 buckets: [-0.001, 0.001]: 1, (1, 2]: 2');
    expect(html).toContain('count 2.5, sum 1; buckets ≤1: 1.5');
    expect(html).toContain('native, schema 12, zero threshold 0, buckets that cannot be listed');
  });

  it('has a Help tab with this gateway\'s paths', () => {
    const html = page();
    expect(html).toContain('<a href="#help" class="tab" data-tab="help">Help</a>');
    expect(html).toContain('<section id="help" class="panel">');
    expect(html).toContain('http://GATEWAY:9091/pg/metrics/job/backup/instance/db-1');
  });

  it('lists grouping labels job first, then in byte order, and series labels in byte order', () => {
    const store = new InMemoryGroupStore();
    store.push({ grouping: [['app', 'web'], ['job', 'j'], ['Zone', 'x']], replace: true, nowMs: 0, families: [{ name: 'g', help: '', type: 'gauge', metrics: [{ labels: [['b', '1'], ['A', '2']], value: 1 }] }] });
    const html = renderConsolePage({ prefix: '', groups: store.groups(0), enableAdminApi: false, version: '1.0.0', startTimeMs: 0, flags: {} });
    expect(html).toContain('<span class="labels"><span class="label">job="j"</span> <span class="label">Zone="x"</span> <span class="label">app="web"</span></span>');
    expect(html).toContain('<tr><td><span class="label">A="2"</span> <span class="label">Zone="x"</span> <span class="label">app="web"</span> <span class="label">b="1"</span>');
  });

  it('quotes UTF-8 label names and deletes their group through a U__ path', () => {
    const store = new InMemoryGroupStore({ utf8Names: true });
    store.push({ grouping: [['job', 'j'], ['zone.name', 'eu']], replace: true, nowMs: 0, families: [{ name: 'g', help: '', type: 'gauge', metrics: [{ labels: [], value: 1 }] }] });
    const html = renderConsolePage({ prefix: '', groups: store.groups(0), enableAdminApi: false, version: '1.0.0', startTimeMs: 0, flags: {} });
    expect(html).toContain('<span class="label">&quot;zone.name&quot;="eu"</span>');
    expect(html).toContain('data-path="job/j/U__zone_2e_name/eu"');
  });
});
