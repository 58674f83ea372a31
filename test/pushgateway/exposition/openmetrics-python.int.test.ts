/**
 * Our OpenMetrics output, read by an independent strict parser: prometheus_client's OpenMetrics
 * parser (PyPI's prometheus_client, pinned in test/peers/python-prometheus/, in the venv
 * scripts/build-peers.sh makes).
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderFamiliesOpenMetrics } from '../../../src/pushgateway/exposition/openmetrics-encoder.js';
import type { Label, Metric, MetricFamily, MetricType } from '../../../src/pushgateway/model.js';
import { labelNameArb, metricNameArb, textArb } from './arbitraries.js';
import { pythonPrometheus } from '../peer-processes.js';

const SCRIPT = `
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
out = []
for text in json.load(sys.stdin):
    try:
        fams = []
        for f in text_string_to_metric_families(text):
            samples = []
            for s in f.samples:
                ts = None
                if s.timestamp is not None:
                    ts = repr(float(s.timestamp.sec) + s.timestamp.nsec / 1e9 if hasattr(s.timestamp, 'sec') else float(s.timestamp))
                samples.append([s.name, s.labels, repr(float(s.value)), ts])
            fams.append({'name': f.name, 'type': f.type, 'help': f.documentation, 'samples': samples})
        out.append({'ok': fams})
    except Exception as e:
        out.append({'error': repr(e)})
json.dump(out, sys.stdout)
`;

interface PySample {
  0: string;
  1: Record<string, string>;
  2: string;
  3: string | null;
}
type PyResult = { ok: { name: string; type: string; help: string; samples: PySample[] }[] } | { error: string };

function parseWithPython(texts: string[]): PyResult[] {
  const python = pythonPrometheus();
  const r = spawnSync(python, ['-c', SCRIPT], { input: JSON.stringify(texts), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error !== undefined || r.status !== 0) throw new Error(`${python} with prometheus_client failed (${r.error?.message ?? r.stderr})`);
  return JSON.parse(r.stdout) as PyResult[];
}

/** Python's repr of a float, parsed back. */
function pyFloat(s: string): number {
  return s === 'nan' ? NaN : s === 'inf' ? Infinity : s === '-inf' ? -Infinity : Number(s);
}

const nonNegative = fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e300 });
const labelsArb = (reserved: string): fc.Arbitrary<Label[]> =>
  fc
    .uniqueArray(fc.tuple(labelNameArb.filter((n) => n !== reserved), textArb), { selector: (l) => l[0], maxLength: 3 })
    .map((ls) => ls.map(([n, v]): Label => [n, v]));

/**
 * Families that are valid OpenMetrics semantically too: sorted buckets, non-negative counters,
 * quantile values and bucket bounds. Like client_golang, the encoder does not check these rules
 * itself; prometheus_client does and would refuse the whole text.
 */
function omMetricArb(type: MetricType): fc.Arbitrary<Metric> {
  // Below 1e6 s: like client_golang we print larger timestamps as `1.7e+09`, which prometheus_client
  // 0.16's OpenMetrics parser misreads (it splits seconds at the '.'); Prometheus reads it fine.
  const ts = fc.option(fc.integer({ min: 0, max: 999_999_999 }), { nil: undefined });
  const body: fc.Arbitrary<Partial<Metric>> =
    type === 'counter'
      ? fc.record({ value: nonNegative })
      : type === 'summary'
        ? fc.record({
            summary: fc.record({
              sampleCount: fc.nat(),
              sampleSum: nonNegative,
              quantiles: fc
                .uniqueArray(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 })
                .chain((qs) =>
                  fc.tuple(...qs.sort((a, b) => a - b).map((q) => nonNegative.map((value) => ({ quantile: q, value })))),
                ),
            }),
          })
        : type === 'histogram'
          ? fc
              .tuple(fc.uniqueArray(nonNegative, { maxLength: 3 }), fc.array(fc.nat(1000), { minLength: 4, maxLength: 4 }), nonNegative)
              .map(([bounds, incs, sum]) => {
                let cum = 0;
                const buckets = [...bounds].sort((a, b) => a - b).map((upperBound, i) => ({ upperBound, cumulativeCount: (cum += incs[i]!) }));
                return { histogram: { sampleCount: cum + incs[3]!, sampleSum: sum, buckets } };
              })
          : fc.record({ value: fc.double() });
  const reserved = type === 'summary' ? 'quantile' : type === 'histogram' ? 'le' : '';
  return fc.tuple(labelsArb(reserved), body, ts).map(([labels, b, timestampMs]) =>
    timestampMs === undefined ? { labels, ...b } : { labels, ...b, timestampMs },
  );
}

const omNameArb = metricNameArb.filter((n) => !/_(total|created|info|gcount|gsum)$/.test(n));
const omFamilyArb = fc
  .tuple(omNameArb, fc.option(textArb, { nil: undefined }), fc.constantFrom<MetricType>('counter', 'gauge', 'untyped', 'summary', 'histogram'))
  .chain(([name, help, type]) =>
    fc
      .uniqueArray(omMetricArb(type), { minLength: 1, maxLength: 3, selector: (m) => JSON.stringify([...m.labels].sort()) })
      .map((metrics): MetricFamily => ({ name, help, type, metrics })),
  );

/** The samples OpenMetrics should carry for a family, as [name, labels, value, timestamp seconds]. */
function expectedSamples(f: MetricFamily): [string, Record<string, string>, number, number | null][] {
  const out: [string, Record<string, string>, number, number | null][] = [];
  for (const m of f.metrics) {
    const labels = Object.fromEntries(m.labels);
    const ts = m.timestampMs === undefined ? null : m.timestampMs / 1000;
    if (f.type === 'counter') out.push([`${f.name}_total`, labels, m.value!, ts]);
    else if (f.type === 'gauge' || f.type === 'untyped') out.push([f.name, labels, m.value!, ts]);
    else if (f.type === 'summary') {
      for (const q of m.summary!.quantiles) out.push([f.name, { ...labels, quantile: String(q.quantile) }, q.value, ts]);
      out.push([`${f.name}_sum`, labels, m.summary!.sampleSum, ts], [`${f.name}_count`, labels, m.summary!.sampleCount, ts]);
    } else {
      const h = m.histogram!;
      for (const b of h.buckets) out.push([`${f.name}_bucket`, { ...labels, le: String(b.upperBound) }, b.cumulativeCount, ts]);
      out.push([`${f.name}_bucket`, { ...labels, le: '+Inf' }, h.sampleCount, ts]);
      out.push([`${f.name}_sum`, labels, h.sampleSum, ts], [`${f.name}_count`, labels, h.sampleCount, ts]);
    }
  }
  return out;
}

describe('OpenMetrics output read by prometheus_client', () => {
  it('parses every generated exposition to the same samples', () => {
    const inputs = fc.sample(fc.uniqueArray(omFamilyArb, { minLength: 1, maxLength: 4, selector: (f) => f.name }), {
      numRuns: 150,
      seed: 7,
    });
    const results = parseWithPython(inputs.map(renderFamiliesOpenMetrics));
    for (const [i, families] of inputs.entries()) {
      const result = results[i]!;
      const text = renderFamiliesOpenMetrics(families);
      if ('error' in result) throw new Error(`prometheus_client refused:\n${text}\n${result.error}`);
      expect(result.ok.map((f) => [f.name, f.type])).toEqual(
        families.map((f) => [f.name, f.type === 'untyped' ? 'unknown' : f.type]),
      );
      for (const [k, f] of families.entries()) {
        const got = result.ok[k]!;
        // prometheus_client 0.26 splits a HELP line at runs of spaces, so it drops the spaces a help
        // text begins with (`# HELP x   + a` gives "+ a"; 0.16 kept them); the rest must be the same.
        expect(got.help).toBe((f.help ?? '').replace(/^ +/, ''));
        const want = expectedSamples(f);
        expect(got.samples.length).toBe(want.length);
        for (const [j, s] of got.samples.entries()) {
          const [name, labels, value, ts] = want[j]!;
          expect(s[0]).toBe(name);
          // le/quantile come back in OpenMetrics float form; compare them as numbers.
          const norm = (l: Record<string, string>): Record<string, number | string> =>
            Object.fromEntries(Object.entries(l).map(([n, v]) => [n, n === 'le' || n === 'quantile' ? pyFloat(v === '+Inf' ? 'inf' : v) : v]));
          expect(norm(s[1])).toEqual(norm(labels));
          expect(Object.is(pyFloat(s[2]), value) || pyFloat(s[2]) === value).toBe(true);
          expect(s[3] === null ? null : pyFloat(s[3])).toBe(ts);
        }
      }
    }
  });
});
