import { errors } from './errors.js';

/**
 * JSON in and out the way Elasticsearch writes it: compact by default, Jackson's pretty printer for
 * `?pretty` (`"key" : value`, two-space indent, `[ ]` and `{ }` when empty), and stored `_source`
 * text spliced in verbatim (no parse and re-serialize per hit).
 */

/** JSON text inserted as is into a response. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Renders a response value; `RawJson` leaves are inserted verbatim (re-indented when pretty). */
export function renderJson(value: unknown, pretty: boolean, hasRaw = false): string {
  if (pretty) return `${prettyPrint(value, '')}\n`;
  if (value instanceof RawJson) return value.text;
  // A replacer function slows JSON.stringify down a lot: only search responses carry RawJson.
  if (!hasRaw) return JSON.stringify(value);
  const raws: string[] = [];
  // The marker only has to be absent from user strings, where a NUL would be escaped anyway.
  const nonce = Math.random().toString(36).slice(2, 10);
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `\u0000${nonce}${raws.length - 1}\u0000`;
    }
    return v;
  });
  if (raws.length === 0) return text;
  const marker = new RegExp(`"\\\\u0000${nonce}(\\d+)\\\\u0000"`, 'g');
  return text.replace(marker, (_m, i: string) => raws[Number(i)] as string);
}

function prettyPrint(value: unknown, indent: string): string {
  if (value instanceof RawJson) return prettyPrint(JSON.parse(value.text) as unknown, indent);
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[ ]';
    const inner = `${indent}  `;
    return `[\n${value.map((v) => inner + prettyPrint(v, inner)).join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{ }';
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)} : ${prettyPrint(v, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/**
 * Parses a JSON body; malformed input becomes ES's x_content_parse_exception with `[line:col]` and
 * a Jackson-style message naming the unexpected character.
 */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const pos = m ? Number(m[1]) : text.length;
    const before = text.slice(0, pos);
    const line = before.split('\n').length;
    const col = pos - before.lastIndexOf('\n');
    const ch = text[pos];
    const message =
      ch === undefined
        ? 'Unexpected end-of-input: expected close marker for Object'
        : `Unexpected character ('${ch}' (code ${ch.charCodeAt(0)})): was expecting double-quote to start field name`;
    throw errors.malformedJson(line, col, message);
  }
}
