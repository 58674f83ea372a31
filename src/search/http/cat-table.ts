import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { globMatch } from '../syntax/glob.js';
import { productHeader, queryOf, sendJson } from './http-io.js';

/**
 * The `_cat` APIs' answer, as ES's RestTable writes it: a text table (`v` for headers, `h` to pick
 * columns by name, alias or `*` pattern, shown as asked for, `s` to sort) or, with `format=json`, an array of objects whose values
 * are all strings. Each `_cat` route describes its columns and gives its rows; this file renders.
 */

export interface CatColumn {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Shown without `h` (ES's `default:true`). */
  readonly shown: boolean;
  /** Right-aligned in the text table, as ES aligns numbers and sizes. */
  readonly right?: boolean;
  /** Sorted as a number by `s`. */
  readonly numeric?: boolean;
}

export type CatRow = Readonly<Record<string, string>>;

function columnOf(spec: readonly CatColumn[], name: string): CatColumn | undefined {
  return spec.find((c) => c.name === name || (c.aliases?.includes(name) ?? false));
}

/** A column as the answer shows it: under the name or alias `h` asked for it by (ES's DisplayHeader). */
interface Shown {
  readonly column: CatColumn;
  readonly display: string;
}

/**
 * `h=a,b`: the columns asked for, in that order, each shown (JSON keys, `v` headers) as it was
 * asked for, by name or by alias; a pattern with `*` adds every column whose name or an alias
 * matches, in the table's order, under its name. Names ES does not have are left out, as ES does.
 */
function pickColumns(spec: readonly CatColumn[], h: string | undefined): Shown[] {
  if (h === undefined) return spec.filter((c) => c.shown).map((column) => ({ column, display: column.name }));
  return h.split(',').flatMap((asked) => {
    const n = asked.trim();
    if (n.includes('*')) {
      return spec.filter((c) => globMatch(n, c.name) || (c.aliases?.some((a) => globMatch(n, a)) ?? false)).map((column) => ({ column, display: column.name }));
    }
    const column = columnOf(spec, n);
    return column === undefined ? [] : [{ column, display: n }];
  });
}

/** `s=col[:asc|:desc],…`: numeric columns compare as numbers; an unknown column is ES's error. */
function rowOrder(spec: readonly CatColumn[], s: string): (a: CatRow, b: CatRow) => number {
  const keys = s.split(',').map((part) => {
    const [name = '', dir] = part.trim().split(':');
    const col = columnOf(spec, name);
    if (col === undefined) throw errors.unsupportedCatSort(name);
    return { col, desc: dir === 'desc' };
  });
  return (a, b) => {
    for (const { col, desc } of keys) {
      const x = a[col.name] ?? '';
      const y = b[col.name] ?? '';
      const c = col.numeric === true ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
      if (c !== 0) return desc ? -c : c;
    }
    return 0;
  };
}

/** Answers a `_cat` request with `rows` under the columns of `spec` that the URL asks for. */
export function sendCatTable(req: FastifyRequest, reply: FastifyReply, spec: readonly CatColumn[], rows: CatRow[]): FastifyReply {
  const q = queryOf(req);
  const shown = pickColumns(spec, q.h);
  const columns = shown.map((c) => c.column);
  if (q.s !== undefined) rows.sort(rowOrder(spec, q.s));
  if (q.format === 'json') return sendJson(req, reply, 200, rows.map((r) => Object.fromEntries(shown.map((c) => [c.display, r[c.column.name] ?? null]))));
  if (q.format !== undefined && q.format !== 'txt' && q.format !== 'text') throw errors.illegalArgument(`Unsupported format [${q.format}]`);
  const table: string[][] = rows.map((r) => columns.map((c) => r[c.name] ?? ''));
  if (q.v !== undefined && q.v !== 'false') table.unshift(shown.map((c) => c.display));
  const widths = columns.map((_, i) => Math.max(0, ...table.map((r) => (r[i] ?? '').length)));
  // As ES's RestTable: right-aligned columns are padded on the left (header too), the last cell
  // is not padded.
  const line = (r: string[]) =>
    r
      .map((cell, i) => {
        const right = columns[i]?.right === true;
        if (i === r.length - 1 && !right) return cell;
        return right ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0);
      })
      .join(' ');
  const text = table.map(line).join('\n');
  return productHeader(reply.code(200).header('content-type', 'text/plain; charset=UTF-8')).send(table.length > 0 ? `${text}\n` : '');
}

/** A byte count as ES's ByteSizeValue prints it in `_cat` (`0b`, `208b`, `1.2kb`, `53.1mb`). */
export function catBytes(n: number): string {
  const units = ['b', 'kb', 'mb', 'gb', 'tb', 'pb'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${n}b`;
  // ES's Strings.format1Decimals: the first decimal cut (not rounded), dropped when it is 0.
  const whole = Math.floor(v);
  const tenth = Math.floor((v - whole) * 10 + 1e-9);
  return `${whole}${tenth === 0 ? '' : `.${tenth}`}${units[u]}`;
}
