import { errors } from '../errors.js';

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
  // Only responses that carry RawJson (search hits, bulk) need the walk; the rest go to V8's
  // native serializer in one call.
  if (!hasRaw) return JSON.stringify(value);
  return compact(value) ?? 'null';
}

/**
 * JSON.stringify of a plain tree that may hold RawJson leaves, without a replacer: a replacer
 * function is called for every key of the tree and its markers then have to be found again in the
 * text, which cost more than the rest of rendering a search response. Objects that are not plain
 * (Dates, class instances, anything with toJSON) and scalars are handed to JSON.stringify, so the
 * output is byte for byte what JSON.stringify gives for the same tree with RawJson replaced.
 * Returns undefined where JSON.stringify would omit the value (undefined, functions, symbols).
 */
function compact(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) as string | undefined;
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += compact(value[i]) ?? 'null';
    }
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  let out = '{';
  let first = true;
  for (const k of Object.keys(value)) {
    const v = compact((value as Record<string, unknown>)[k]);
    if (v === undefined) continue;
    out += first ? `${JSON.stringify(k)}:${v}` : `,${JSON.stringify(k)}:${v}`;
    first = false;
  }
  return `${out}}`;
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
