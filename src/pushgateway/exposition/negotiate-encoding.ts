/**
 * Response compression for `GET /metrics`, negotiated as Pushgateway 1.11.1's promhttp does it
 * (client_golang's copy of gddo's NegotiateContentEncoding over its ParseAccept): it offers
 * `identity` then `gzip`, and takes the offer of the first clause with a strictly higher q, where
 * `*` matches both; codings are compared case-sensitively (`GZIP` is not gzip), a q must be `0` or
 * `1` optionally followed by decimals, and parsing stops at the first clause it cannot read. When
 * the best q is 0 it falls back to no compression.
 */

/** RFC 7230 token characters, plus `/` (gddo's expectTokenSlash). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z/]*/;
const SPACE = /^[ \t\r\n]*/;

interface Clause {
  readonly coding: string;
  readonly q: number;
}

/** gddo's expectQuality: `0` or `1`, then optionally `.` and digits; -1 when it is not one. */
function quality(s: string): { q: number; rest: string } {
  const first = s[0];
  if (first !== '0' && first !== '1') return { q: -1, rest: '' };
  let q = first === '1' ? 1 : 0;
  let rest = s.slice(1);
  if (!rest.startsWith('.')) return { q, rest };
  rest = rest.slice(1);
  const digits = /^[0-9]*/.exec(rest)?.[0] ?? '';
  if (digits.length > 0) q += Number(digits) / 10 ** digits.length;
  return { q, rest: rest.slice(digits.length) };
}

function parseAcceptEncoding(header: string): Clause[] {
  const clauses: Clause[] = [];
  let s = header;
  for (;;) {
    const coding = TOKEN.exec(s)?.[0] ?? '';
    if (coding === '') return clauses;
    s = s.slice(coding.length).replace(SPACE, '');
    let q = 1;
    if (s.startsWith(';')) {
      s = s.slice(1).replace(SPACE, '');
      if (!s.startsWith('q=')) return clauses;
      ({ q, rest: s } = quality(s.slice(2)));
      if (q < 0) return clauses;
    }
    clauses.push({ coding, q });
    s = s.replace(SPACE, '');
    if (!s.startsWith(',')) return clauses;
    s = s.slice(1).replace(SPACE, '');
  }
}

/** Whether a scrape with this `Accept-Encoding` gets a gzipped answer. */
export function negotiateGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  const clauses = parseAcceptEncoding(acceptEncoding);
  let best = 'identity';
  let bestQ = -1;
  for (const offer of ['identity', 'gzip']) {
    for (const c of clauses) {
      if (c.q > bestQ && (c.coding === '*' || c.coding === offer)) {
        bestQ = c.q;
        best = offer;
      }
    }
  }
  return best === 'gzip' && bestQ !== 0;
}
