/**
 * logfmt, as Prometheus and Pushgateway write their logs: `key=value` pairs separated by spaces,
 * `time` then `level` then `msg` first, a value quoted (with JSON's escapes) only when it holds a
 * space, `=`, a quote, a control character or nothing at all. Nested objects are flattened to
 * dotted keys (`listeners.search=127.0.0.1:9200`) so that every value is one token a person or
 * `grep` can read; arrays are written as their JSON text.
 */

const FIRST_KEYS = ['time', 'level', 'msg'] as const;

/** Quotes a value only when logfmt needs it. */
export function logfmtValue(value: unknown): string {
  const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : Array.isArray(value) ? JSON.stringify(value) : String(value);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
  return text === '' || /[\s="\\\u0000-\u001f\u007f]/.test(text) ? JSON.stringify(text) : text;
}

function keyOf(key: string): string {
  // A key has no space, `=` or quote in logfmt; pino's keys never do, a user's binding might.
  return key.replace(/[\s="]/g, '_');
}

function appendPairs(out: string[], prefix: string, record: Record<string, unknown>, skip: ReadonlySet<string>): void {
  for (const [k, v] of Object.entries(record)) {
    if (prefix === '' && skip.has(k)) continue;
    const key = prefix === '' ? keyOf(k) : `${prefix}.${keyOf(k)}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) appendPairs(out, key, v as Record<string, unknown>, skip);
    else out.push(`${key}=${logfmtValue(v)}`);
  }
}

/** One log record (pino's JSON object) as one logfmt line, without the newline. */
export function formatLogfmt(record: Record<string, unknown>): string {
  const out: string[] = [];
  for (const k of FIRST_KEYS) if (k in record) out.push(`${k}=${logfmtValue(record[k])}`);
  appendPairs(out, '', record, new Set(FIRST_KEYS));
  return out.join(' ');
}
