import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpositionError } from '../../../src/pushgateway/errors.js';
import { parseText } from '../../../src/pushgateway/exposition/text-parser.js';
import { renderFamiliesText } from '../../../src/pushgateway/exposition/text-encoder.js';
import { histogramFamily } from '../gateway-harness.js';
import { familiesArb, normalizeForText } from './arbitraries.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/pushgateway/${name}`, import.meta.url), 'utf8');

function errorOf(body: string | Uint8Array): string {
  try {
    parseText(body);
  } catch (e) {
    expect(e).toBeInstanceOf(ExpositionError);
    expect((e as ExpositionError).statusCode).toBe(400);
    return (e as Error).message;
  }
  throw new Error('expected a parse error');
}

describe('parseText: accepted input', () => {
  it('reads HELP, TYPE, labels, escapes and timestamps', () => {
    const out = parseText(
      '# HELP x Some\\nhelp with \\\\ backslash\n# TYPE x counter\nx{a="b",c="q\\"uo\\\\te\\nnl"} 1.5\nx 2 1000\n',
    );
    expect(out).toEqual([
      {
        name: 'x',
        help: 'Some\nhelp with \\ backslash',
        type: 'counter',
        metrics: [
          { labels: [['a', 'b'], ['c', 'q"uo\\te\nnl']], value: 1.5 },
          { labels: [], value: 2, timestampMs: 1000 },
        ],
      },
    ]);
  });

  it('defaults to untyped and accepts NaN, Inf and Go float syntax', () => {
    const out = parseText('a NaN\nb +Inf\nc -Inf\nd 1e3\ne .5\nf 1.\ng -0\nh +inf\ni Infinity\nj 0001.50E-1\n');
    const values = out.map((f) => [f.name, f.type, f.metrics[0]!.value]);
    expect(values).toEqual([
      ['a', 'untyped', NaN],
      ['b', 'untyped', Infinity],
      ['c', 'untyped', -Infinity],
      ['d', 'untyped', 1000],
      ['e', 'untyped', 0.5],
      ['f', 'untyped', 1],
      ['g', 'untyped', -0],
      ['h', 'untyped', Infinity],
      ['i', 'untyped', Infinity],
      ['j', 'untyped', 0.15],
    ]);
  });

  it('assembles summaries and histograms by their other labels', () => {
    const out = parseText(
      [
        '# TYPE s summary',
        's{quantile="0.5",a="1"} 3',
        's{a="2",quantile="0.9"} 7',
        's{a="1",quantile="0.9"} 4',
        's_sum{a="1"} 10',
        's_count{a="1"} 5',
        '# TYPE h histogram',
        'h_bucket{le="0.1"} 1',
        'h_bucket{le="+Inf"} 2',
        'h_sum 3.5',
        'h_count 2',
        '',
      ].join('\n'),
    );
    expect(out).toEqual([
      {
        name: 's',
        help: undefined,
        type: 'summary',
        metrics: [
          {
            labels: [['a', '1']],
            summary: {
              sampleCount: 5,
              sampleSum: 10,
              quantiles: [
                { quantile: 0.5, value: 3 },
                { quantile: 0.9, value: 4 },
              ],
            },
          },
          { labels: [['a', '2']], summary: { sampleCount: 0, sampleSum: 0, quantiles: [{ quantile: 0.9, value: 7 }] } },
        ],
      },
      histogramFamily('h', 2, 3.5, [
        [0.1, 1],
        [Infinity, 2],
      ]),
    ]);
  });

  it('keeps summaries apart whose label values contain ÿ', () => {
    const out = parseText('# TYPE s summary\ns_sum{a="x\xffb\xffy"} 1\ns_sum{a="x",b="y"} 2\n');
    expect(out[0]!.metrics.map((m) => m.summary!.sampleSum)).toEqual([1, 2]);
  });

  it('drops families that have HELP/TYPE but no samples, and ignores other comments', () => {
    expect(parseText('# HELP a x\n# TYPE a gauge\n# random comment\n#\n\n# EOF\nb 1\n')).toEqual([
      { name: 'b', help: undefined, type: 'untyped', metrics: [{ labels: [], value: 1 }] },
    ]);
    expect(parseText('')).toEqual([]);
    expect(parseText('   ')).toEqual([]);
  });

  it('drops backslashes in TYPE lines, as Go does', () => {
    expect(parseText('# TYPE x \\gau\\ge\nx 1\n')[0]!.type).toBe('gauge');
  });

  it('takes the type case-insensitively and allows blanks around tokens', () => {
    const out = parseText('# TYPE a GAUGE\n  a { x = "1" , } \t 2 \t 3\n');
    expect(out).toEqual([{ name: 'a', help: undefined, type: 'gauge', metrics: [{ labels: [['x', '1']], value: 2, timestampMs: 3 }] }]);
  });

  it('converts counts like Go uint64(float) on amd64', () => {
    const counts = (v: string): number =>
      parseText(`# TYPE s summary\ns_count ${v}\n`)[0]!.metrics[0]!.summary!.sampleCount;
    expect(counts('3.9')).toBe(3);
    expect(counts('NaN')).toBe(2 ** 63);
    expect(counts('-1')).toBe(2 ** 64);
    expect(counts('1e30')).toBe(2 ** 63);
  });

  it('treats OpenMetrics input as 0.0.4 does (counter foo + foo_total becomes untyped foo_total)', () => {
    const out = parseText(fixture('openmetrics-counter.txt'));
    expect(out.map((f) => [f.name, f.type, f.help])).toEqual([
      ['foo_total', 'untyped', undefined],
      ['foo_created', 'untyped', undefined],
    ]);
  });

  it('reads a prometheus_client (Python) push body', () => {
    const out = parseText(fixture('python-client.txt'));
    expect(out.map((f) => `${f.name}:${f.type}:${f.metrics.length}`)).toEqual([
      'jobs_total:counter:1',
      'jobs_created:gauge:1',
      'last_success_unixtime:gauge:1',
      'duration_seconds:histogram:1',
      'duration_seconds_created:gauge:1',
      'latency:summary:1',
      'latency_created:gauge:1',
    ]);
    expect(out[3]!.metrics[0]!.histogram!.buckets).toHaveLength(4);
  });

  it('tells apart names that share a prefix with the previous line', () => {
    const out = parseText('a 1\nab 2\na{x="1"} 3\na:b 4\nab 5\n# TYPE s summary\ns_sum 1\ns_sum_x 2\ns 3\n');
    expect(out.map((f) => `${f.name}:${f.type}:${f.metrics.length}`)).toEqual([
      'a:untyped:2',
      'ab:untyped:2',
      'a:b:untyped:1',
      's:summary:1',
      's_sum_x:untyped:1',
    ]);
    expect(out[3]!.metrics[0]!.summary).toEqual({ sampleCount: 0, sampleSum: 1, quantiles: [] });
  });

  it('accepts raw bytes and decodes UTF-8', () => {
    const out = parseText(Buffer.from('# HELP x héllo\nx{a="ü😀"} 1\n', 'utf8'));
    expect(out[0]!.help).toBe('héllo');
    expect(out[0]!.metrics[0]!.labels).toEqual([['a', 'ü😀']]);
  });

  it('accepts invalid UTF-8 outside label values when given bytes', () => {
    const out = parseText(Uint8Array.from([...Buffer.from('# comment '), 0xff, ...Buffer.from('\nx{a="é"} 1\n')]));
    expect(out[0]!.metrics[0]!.labels).toEqual([['a', 'é']]);
  });
});

describe('parseText: Go error texts', () => {
  // The same table is pushed to the real Pushgateway in pushgateway-peer.int.test.ts.
  const cases = JSON.parse(fixture('text-cases.json')) as { body: string; error?: string }[];
  it.each(cases.filter((c) => c.error !== undefined).map((c) => [c.body, c.error!]))('%j', (body, message) => {
    expect(errorOf(body)).toBe(message);
  });

  it.each(cases.filter((c) => c.error === undefined).map((c) => [c.body]))('accepts %j', (body) => {
    expect(() => parseText(body)).not.toThrow();
  });

  it('refuses a label value that is not UTF-8, quoting it as Go does', () => {
    const body = Uint8Array.from([...Buffer.from('x{a="'), 0xff, ...Buffer.from('"} 1\n')]);
    expect(errorOf(body)).toBe('text format parsing error in line 1: invalid label value "\\xff"');
    const body2 = Uint8Array.from([...Buffer.from('a 1\nx{a="ok'), 0xc3, 0x28, ...Buffer.from('"} 1\n')]);
    expect(errorOf(body2)).toBe('text format parsing error in line 2: invalid label value "ok\\xc3("');
  });

  it('quotes non-printable characters as Go %q does', () => {
    expect(errorOf('a \x01\u200b\n')).toBe('text format parsing error in line 1: expected float as value, got "\\x01\\u200b"');
  });
});

describe('parseText(renderFamiliesText(f))', () => {
  it('gives back the families', () => {
    fc.assert(
      fc.property(familiesArb(true), (families) => {
        expect(parseText(renderFamiliesText(families))).toEqual(families.map(normalizeForText));
      }),
      { numRuns: 500 },
    );
  });

  it('gives back the families from bytes too', () => {
    fc.assert(
      fc.property(familiesArb(false), (families) => {
        expect(parseText(Buffer.from(renderFamiliesText(families), 'utf8'))).toEqual(families.map(normalizeForText));
      }),
      { numRuns: 200 },
    );
  });
});

describe('parseText on arbitrary input', () => {
  it('either returns families or throws an ExpositionError', () => {
    const token = fc.constantFrom('a', 'x_sum', '{', '}', '"', '\\', '=', ',', ' ', '\n', '# HELP ', '# TYPE ', 'summary', 'histogram', 'le', 'quantile', '1', 'NaN', '\xff', '😀');
    const text = fc.array(token, { maxLength: 30 }).map((t) => t.join(''));
    const bytes = fc.uint8Array({ maxLength: 40 });
    fc.assert(
      fc.property(fc.oneof(text, bytes), (body) => {
        try {
          const out = parseText(body);
          expect(Array.isArray(out)).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(ExpositionError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
