/**
 * Content negotiation for `GET /metrics`, as client_golang's promhttp does it: by default as
 * Pushgateway 1.11.1 (expfmt.Negotiate, no OpenMetrics), with --web.enable-openmetrics as promhttp
 * with OpenMetrics enabled (expfmt.NegotiateIncludingOpenMetrics); both over goautoneg.ParseAccept.
 * Its quirks are kept on
 * purpose, because scrapers were written against them: clauses are ordered by an insertion sort on
 * "higher q first, then concrete before wildcard" (so the first acceptable clause wins), a clause
 * with q=0 is not excluded, `*\/*` matches nothing, and anything unmatched gets text 0.0.4.
 */

import { DEFAULT_ESCAPING, ESCAPING_SCHEMES, type EscapingScheme } from './name-escaping.js';

export type ExpositionFormat = 'text' | 'openmetrics' | 'protobuf';

interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Map<string, string>;
}

/** Go's strconv.ParseFloat(s, 32) for q, where failure yields 0 (goautoneg ignores the error). */
function parseQ(raw: string): number {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) return 0;
  const v = Math.fround(Number(raw));
  return Number.isFinite(v) ? v : 0;
}

function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.replace(/^ +| +$/g, '');
    const mrp = part.split(';');
    const sp = (mrp[0] ?? '').split('/');
    const type = (sp[0] ?? '').replace(/^ +| +$/g, '');
    let subType: string;
    if (sp.length === 1 && type === '*') subType = '*';
    else if (sp.length === 2) subType = (sp[1] ?? '').replace(/^ +| +$/g, '');
    else continue;
    const clause: AcceptClause = { type, subType, q: 1, params: new Map() };
    for (let i = 1; i < mrp.length; i++) {
      const param = mrp[i]!;
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const token = param.slice(0, eq).replace(/^ +| +$/g, '');
      const value = param.slice(eq + 1);
      if (token === 'q') clause.q = parseQ(value);
      else clause.params.set(token, value.replace(/^ +| +$/g, ''));
    }
    clauses.push(clause);
  }
  // Go's sort.Sort is an insertion sort at these sizes; its Less is not a strict order, so the
  // exact algorithm matters for headers such as `*/*;q=1, text/plain;q=0.5`.
  const less = (a: AcceptClause, b: AcceptClause): boolean =>
    a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subType !== '*' && b.subType === '*');
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && less(clauses[j]!, clauses[j - 1]!); j--) {
      const t = clauses[j]!;
      clauses[j] = clauses[j - 1]!;
      clauses[j - 1] = t;
    }
  }
  return clauses;
}

/** The format and the name escaping scheme a scrape gets. */
export interface Negotiated {
  readonly format: ExpositionFormat;
  readonly escaping: EscapingScheme;
}

/**
 * Picks the exposition format for an Accept header: delimited protobuf when asked for with
 * `proto=io.prometheus.client.MetricFamily;encoding=delimited`; only when `offerOpenMetrics`,
 * OpenMetrics for `application/openmetrics-text` unversioned or version 0.0.1 or 1.0.0 (served as
 * 1.0.0; otherwise such a clause is passed over, as Pushgateway passes it over); text 0.0.4
 * for `text/plain` (unversioned or 0.0.4) and for anything else. Protobuf's `encoding=text` and
 * `compact-text` are not offered and are skipped.
 *
 * The escaping scheme is Go's: `underscores` unless a clause carries a known `escaping=`
 * (`allow-utf-8`, `underscores`, `dots`, `values`); clauses are read in the sorted order and the
 * last known one read before the chosen clause (or the chosen clause's own) wins, unknown ones are
 * ignored.
 */
export function negotiateExposition(accept: string | undefined, offerOpenMetrics = false): Negotiated {
  let escaping: EscapingScheme = DEFAULT_ESCAPING;
  if (accept === undefined || accept.length === 0) return { format: 'text', escaping };
  for (const ac of parseAccept(accept)) {
    const asked = ac.params.get('escaping');
    if (asked !== undefined && ESCAPING_SCHEMES.has(asked)) escaping = asked as EscapingScheme;
    const mediaType = `${ac.type}/${ac.subType}`;
    const version = ac.params.get('version') ?? '';
    if (
      mediaType === 'application/vnd.google.protobuf' &&
      ac.params.get('proto') === 'io.prometheus.client.MetricFamily' &&
      ac.params.get('encoding') === 'delimited'
    ) {
      return { format: 'protobuf', escaping };
    }
    if (ac.type === 'text' && ac.subType === 'plain' && (version === '0.0.4' || version === '')) return { format: 'text', escaping };
    if (
      offerOpenMetrics &&
      mediaType === 'application/openmetrics-text' &&
      (version === '0.0.1' || version === '1.0.0' || version === '')
    ) {
      return { format: 'openmetrics', escaping };
    }
  }
  return { format: 'text', escaping };
}

/** The format alone (see negotiateExposition). */
export function negotiateFormat(accept: string | undefined, offerOpenMetrics = false): ExpositionFormat {
  return negotiateExposition(accept, offerOpenMetrics).format;
}
