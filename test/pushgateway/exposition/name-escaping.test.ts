import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFamily, escapeName, isLegacyName, textName, unescapeValuesName } from '../../../src/pushgateway/exposition/name-escaping.js';
import { negotiateExposition } from '../../../src/pushgateway/exposition/negotiate.js';
import { renderFamiliesText } from '../../../src/pushgateway/exposition/text-encoder.js';
import { parseText } from '../../../src/pushgateway/exposition/text-parser.js';

/** Text as Go reads a push path: one char per byte. */
const binary = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

describe('name escaping, as Pushgateway 1.11.1 (prometheus/common 0.63) writes names', () => {
  it('writes what Pushgateway printed for the same names in each scheme', () => {
    // Seen on the real Pushgateway 1.11.1's /metrics with each escaping= value.
    const cases: [string, string, string, string][] = [
      ['my.metric', 'my_metric', 'my_dot_metric', 'U__my_2e_metric'],
      ['héllo', 'h_llo', 'h__llo', 'U__h_e9_llo'],
      ['bad-name', 'bad_name', 'bad__name', 'U__bad_2d_name'],
      ['a"b', 'a_b', 'a__b', 'U__a_22_b'],
      ['x.y_z', 'x_y_z', 'x_dot_y__z', 'U__x_2e_y__z'],
      ['1abc', '_abc', '__abc', 'U___31_abc'],
      ['😀', '_', '__', 'U___1f600_'],
    ];
    for (const [name, underscores, dots, values] of cases) {
      expect([escapeName(name, 'underscores'), escapeName(name, 'dots'), escapeName(name, 'values')]).toEqual([underscores, dots, values]);
      expect(escapeName(name, 'allow-utf-8')).toBe(name);
    }
    // Legacy names are kept by every scheme that escapeFamily applies.
    expect(escapeFamily({ name: 'a_b', help: undefined, type: 'gauge', metrics: [{ labels: [['c_d', 'v']], value: 1 }] }, 'dots').name).toBe('a_b');
  });

  it('reads back a U__ name written by the values scheme, byte for byte', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), (name) => {
        expect(unescapeValuesName(binary(escapeName(name, 'values')))).toBe(isLegacyName(name) ? name : binary(name));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a U__ name that does not decode as it is, as Go does', () => {
    for (const name of ['U__', 'U__a_zz_', 'U__a_', 'U__a_1234567_', 'U__a_d800_', 'U__a_110000_', 'plain']) {
      expect(unescapeValuesName(name)).toBe(name === 'U__' ? '' : name);
    }
    expect(unescapeValuesName('U__l_2e_x')).toBe('l.x');
    expect(unescapeValuesName('U__m_1F600_')).toBe(binary('m😀'));
  });

  it('quotes a name that is not legacy, with the text format escapes', () => {
    expect(textName('a:b')).toBe('a:b');
    expect(textName('a.b')).toBe('"a.b"');
    expect(textName('a"b\\c\nd')).toBe('"a\\"b\\\\c\\nd"');
  });

  it('renders quoted names inside the braces, and the parser reads them back', () => {
    const text = '# HELP "my.metric" Help.\n# TYPE "my.metric" histogram\n{"my.metric_bucket","l.x"="a",le="1"} 1\n{"my.metric_bucket","l.x"="a",le="+Inf"} 2\n{"my.metric_sum","l.x"="a"} 3\n{"my.metric_count","l.x"="a"} 2\n# TYPE "no.labels" gauge\n{"no.labels"} 1\n';
    const families = parseText(text);
    expect(families.map((f) => f.name)).toEqual(['my.metric', 'no.labels']);
    expect(renderFamiliesText(families)).toBe(text);
  });
});

describe('negotiation of the escaping scheme, as promhttp', () => {
  it('takes a known escaping= of the chosen clause or of one sorted before it, underscores otherwise', () => {
    const of = (accept: string | undefined) => {
      const n = negotiateExposition(accept);
      return `${n.format} ${n.escaping}`;
    };
    expect(of(undefined)).toBe('text underscores');
    expect(of('text/plain;escaping=allow-utf-8')).toBe('text allow-utf-8');
    expect(of('text/plain;escaping=bogus')).toBe('text underscores');
    // Prometheus 3's PrometheusText1.0.0: version 1.0.0 is not text 0.0.4, but its escaping carries over.
    expect(of('text/plain;version=1.0.0;escaping=allow-utf-8;q=0.9,*/*;q=0.8')).toBe('text allow-utf-8');
    expect(of('application/json;escaping=values,text/plain;q=0.5')).toBe('text values');
    expect(of('text/plain;q=0.5,application/json;escaping=values')).toBe('text values');
    expect(of('text/plain;q=0.9,application/json;escaping=values;q=0.5')).toBe('text underscores');
    expect(of('application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=dots')).toBe('protobuf dots');
  });
});
