/**
 * UTF-8 metric and label names as Pushgateway 1.11.1 handles them (prometheus/common 0.63's
 * model and expfmt): which names are "legacy" (`[a-zA-Z_:][a-zA-Z0-9_:]*`), how a scrape's
 * `escaping=` scheme rewrites the others, how a push path's `U__` label names are read back, and
 * how the text format writes a name that is not legacy (quoted, inside the braces).
 */
import type { Label, Metric, MetricFamily } from '../model.js';

/** The `escaping=` values of an Accept header, as Prometheus 3 sends them. */
export type EscapingScheme = 'allow-utf-8' | 'underscores' | 'dots' | 'values';

export const ESCAPING_SCHEMES: ReadonlySet<string> = new Set<EscapingScheme>(['allow-utf-8', 'underscores', 'dots', 'values']);

/** What a scrape gets when its Accept header names no scheme (Go's model.NameEscapingScheme). */
export const DEFAULT_ESCAPING: EscapingScheme = 'underscores';

function isLegacyChar(c: number, first: boolean): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58 || (!first && c >= 48 && c <= 57);
}

/**
 * Go's IsValidLegacyMetricName, which the escaping and the text writer apply to metric and label
 * names alike (so `a:b` is a label name they leave as it is).
 */
export function isLegacyName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) if (!isLegacyChar(name.charCodeAt(i), i === 0)) return false;
  return true;
}

/** A legacy label name (`[a-zA-Z_][a-zA-Z0-9_]*`): Go's LabelName.IsValidLegacy. */
export function isLegacyLabelName(name: string): boolean {
  return isLegacyName(name) && !name.includes(':');
}

/** Go's model.EscapeName: the name as `scheme` writes it (legacy names unchanged except by `dots`). */
export function escapeName(name: string, scheme: EscapingScheme): string {
  if (name.length === 0 || scheme === 'allow-utf-8') return name;
  if (scheme !== 'dots' && isLegacyName(name)) return name;
  let out = scheme === 'values' ? 'U__' : '';
  let first = true;
  for (const ch of name) {
    const cp = ch.codePointAt(0) as number;
    if (scheme === 'underscores') out += isLegacyChar(cp, first) ? ch : '_';
    else if (cp === 95) out += '__';
    else if (scheme === 'dots' && cp === 46) out += '_dot_';
    else if (isLegacyChar(cp, first)) out += ch;
    else if (scheme === 'dots') out += '__';
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '_FFFD_'; // a lone surrogate: Go's invalid rune
    else out += `_${cp.toString(16)}_`;
    first = false;
  }
  return out;
}

function hexDigit(c: number): number {
  const l = c | 0x20;
  if (c >= 48 && c <= 57) return c - 48;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/**
 * Go's model.UnescapeName with ValueEncodingEscaping: `U__` names are decoded (`__` is `_`,
 * `_<hex>_` a code point); a name without the prefix, or one that does not decode, is returned as
 * it is. `name` is a binary string (one char per byte, as push paths are read); so is the result.
 */
export function unescapeValuesName(name: string): string {
  if (!name.startsWith('U__')) return name;
  const s = name.slice(3);
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) !== 95) {
      out += s[i];
      continue;
    }
    i++;
    if (i >= s.length) return name;
    if (s.charCodeAt(i) === 95) {
      out += '_';
      continue;
    }
    let value = 0;
    let closed = false;
    for (let j = 0; i < s.length; j++, i++) {
      if (j >= 6) return name;
      const c = s.charCodeAt(i);
      if (c === 95) {
        closed = true;
        break;
      }
      const d = hexDigit(c);
      if (d < 0) return name;
      value = value * 16 + d;
    }
    if (!closed || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return name;
    out += Buffer.from(String.fromCodePoint(value), 'utf8').toString('latin1');
  }
  return out;
}

/** Label value (and quoted name) escaping of the text format: backslash, double quote, newline. */
function escapeQuoted(s: string): string {
  return s.replace(/[\\\n"]/g, (m) => (m === '\n' ? '\\n' : `\\${m}`));
}

/** Go's expfmt writeName: a legacy name as it is, any other quoted. */
export function textName(name: string): string {
  return isLegacyName(name) ? name : `"${escapeQuoted(name)}"`;
}

/** True when some name of the family would be quoted by the text writer or changed by an escaping. */
export function familyNeedsEscaping(f: MetricFamily): boolean {
  if (!isLegacyName(f.name)) return true;
  for (const m of f.metrics) if (labelsNeedEscaping(m.labels)) return true;
  return false;
}

export function labelsNeedEscaping(labels: readonly Label[]): boolean {
  for (const l of labels) if (!isLegacyName(l[0])) return true;
  return false;
}

/**
 * Go's model.EscapeMetricFamily: the family with every name that is not legacy written in
 * `scheme` (legacy names are kept, also under `dots`), labels left in their order.
 */
export function escapeFamily(f: MetricFamily, scheme: EscapingScheme): MetricFamily {
  if (scheme === 'allow-utf-8') return f;
  const name = isLegacyName(f.name) ? f.name : escapeName(f.name, scheme);
  const metrics = f.metrics.map((m): Metric => {
    if (!labelsNeedEscaping(m.labels)) return m;
    return { ...m, labels: m.labels.map((l): Label => (isLegacyName(l[0]) ? l : [escapeName(l[0], scheme), l[1]])) };
  });
  return { ...f, name, metrics };
}
