/**
 * How two answers are compared: status code, `X-Next-Page` and the body's exact text (JSON as
 * Traefik writes it, order included; error texts), once each side's own API address is replaced by
 * a placeholder. An answer that differs may still be explained by a listed difference
 * (known-differences.ts): each one normalizes both sides, and the answers must then be equal.
 */
import type { Answer } from './peers.js';
import { KNOWN_DIFFERENCES } from './known-differences.js';

export interface Side {
  readonly status: number;
  readonly nextPage: string | null;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: unknown;
}

export function side(a: Answer, ownAddress: string): Side {
  const text = a.body.split(ownAddress).join('API-ADDRESS');
  let body: unknown = text;
  if (a.contentType?.startsWith('application/json') === true) {
    try {
      // Integers a double cannot hold are kept as text (`int:…`), so no rounding hides a difference.
      body = JSON.parse(text.replace(/([:[,])(-?\d{16,})(?=[,\]}])/g, '$1"int:$2"'));
    } catch {
      body = text;
    }
  }
  return { status: a.status, nextPage: a.nextPage, body };
}

export type Verdict = { kind: 'equal' } | { kind: 'known'; id: string; where: string } | { kind: 'different'; where: string };

/**
 * Compares the raw texts first (order included). When they differ, the first difference (status,
 * `X-Next-Page`, or the first differing place in the body) is looked up in the listed differences;
 * a response counts as explained by the difference that its first difference matches.
 */
export function compare(path: string, t: Answer, p: Answer, traefikAddress: string, porticoAddress: string): Verdict {
  const tt = t.body.split(traefikAddress).join('API-ADDRESS');
  const pt = p.body.split(porticoAddress).join('API-ADDRESS');
  if (t.status === p.status && t.nextPage === p.nextPage && tt === pt) return { kind: 'equal' };
  const ts = side(t, traefikAddress);
  const ps = side(p, porticoAddress);
  const where = ts.status !== ps.status ? `status ${ts.status} / ${ps.status}: ${tt.slice(0, 200)} / ${pt.slice(0, 200)}`
    : ts.nextPage !== ps.nextPage ? `X-Next-Page ${ts.nextPage} / ${ps.nextPage}`
      : firstDifference(ts.body, ps.body) || 'same JSON, other text (key order or spacing)';
  const known = KNOWN_DIFFERENCES.find((d) => d.matches(path, where));
  return known === undefined ? { kind: 'different', where } : { kind: 'known', id: known.id, where };
}

/** The first place two JSON values differ, for failure messages. */
export function firstDifference(a: unknown, b: unknown, at = ''): string {
  if (JSON.stringify(a) === JSON.stringify(b)) return '';
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${at || '.'}: traefik ${JSON.stringify(a)?.slice(0, 400)} / portico ${JSON.stringify(b)?.slice(0, 400)}`;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (!Array.isArray(a) && ka.join() !== kb.join()) return `${at || '.'} keys: traefik [${ka.join()}] / portico [${kb.join()}]`;
  for (const k of new Set([...ka, ...kb])) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
    if (d !== '') return d;
  }
  return '';
}
