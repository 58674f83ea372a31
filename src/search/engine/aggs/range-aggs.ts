import { errors } from '../../errors.js';
import type { BucketAgg } from '../../requests/aggs/agg-request.js';
import { DateMathError, DateMathParser } from '../../syntax/date-math.js';
import { javaDouble } from '../../syntax/java-double.js';
import { bucketJson, runBucketSubs, type BucketDocs, type AggEnv, type AggResult, type Bucket, type DocSet } from './aggregate.js';
import { datePrinter, eachDocNumbers, fieldValues, type DatePrinter, type FieldValues } from './agg-field.js';

/**
 * `range` and `date_range`: buckets from `from` (inclusive) to `to` (exclusive), in ES's order
 * (by from, then to, whatever the request's order), keyed "from-to" with numbers written as Java
 * writes doubles and dates in the aggregation's format. A document is in every range one of its
 * values falls in, once.
 */

interface Resolved {
  readonly key: string | undefined;
  readonly from: number | undefined;
  readonly to: number | undefined;
}

const dateMath = new DateMathParser();

function dateBound(v: number | string | undefined, format: string, timeZone: string | undefined, env: { readonly now: number }, index: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  try {
    // `now` read only for date math on it (a search that reads it is not cached: request-cache.ts).
    return dateMath.parse(v, { format, get now() { return env.now; }, roundUp: false, ...(timeZone === undefined ? {} : { timeZone }) });
  } catch (e) {
    if (e instanceof DateMathError) throw errors.shardFailure(index, { type: 'parse_exception', reason: e.message });
    throw e;
  }
}

function numberBound(v: number | string | undefined, index: string): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (Number.isNaN(n)) throw errors.shardFailure(index, { type: 'number_format_exception', reason: `For input string: "${String(v)}"` });
  return n;
}

export function rangeAgg(agg: BucketAgg, sets: readonly DocSet[], env: AggEnv): AggResult {
  const o = agg.options;
  const firstIndex = sets[0]?.state.name ?? '_na_';
  const mapped = sets.map((s) => fieldValues(s.state, o.field as string, agg.type, true)).find((v) => v.kind === 'number') as (FieldValues & { kind: 'number' }) | undefined;
  const isDate = agg.type === 'date_range' || mapped?.def.kind === 'date';
  let printer: DatePrinter | undefined;
  if (isDate) {
    try {
      printer = datePrinter(mapped?.def, o.format, o.timeZone);
    } catch (e) {
      throw errors.illegalArgument((e as Error).message);
    }
  }
  const format = o.format ?? mapped?.def.dateFormat?.text ?? 'strict_date_optional_time||epoch_millis';
  const ranges: Resolved[] = (o.ranges ?? []).map((r) => ({
    key: r.key,
    from: isDate ? dateBound(r.from, format, o.timeZone, env, firstIndex) : numberBound(r.from, firstIndex),
    to: isDate ? dateBound(r.to, format, o.timeZone, env, firstIndex) : numberBound(r.to, firstIndex),
  }));
  ranges.sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity) || (a.to ?? Infinity) - (b.to ?? Infinity));
  const text = (v: number): string => (printer !== undefined ? printer.print(v) : javaDouble(v));
  const counts = new Array<number>(ranges.length).fill(0);
  const collectors: BucketDocs[] = [];
  eachDocNumbers(sets, o.field as string, agg.type, o.missing, agg.subs.length > 0, collectors, (vals, i, docs) => {
    ranges.forEach((r, b) => {
      if (vals.some((v) => (r.from === undefined || v >= r.from) && (r.to === undefined || v < r.to))) {
        counts[b] = (counts[b] as number) + 1;
        docs?.add(b, i);
      }
    });
  });
  const buckets: Bucket[] = ranges.map((r, b) => {
    const fields: Record<string, unknown> = { key: r.key ?? `${r.from === undefined ? '*' : text(r.from)}-${r.to === undefined ? '*' : text(r.to)}` };
    if (r.from !== undefined) {
      fields.from = r.from;
      if (printer !== undefined) fields.from_as_string = printer.print(r.from);
    }
    if (r.to !== undefined) {
      fields.to = r.to;
      if (printer !== undefined) fields.to_as_string = printer.print(r.to);
    }
    return { fields, docCount: counts[b] as number, sortKey: b, sets: undefined, subs: undefined };
  });
  for (const c of collectors) c.fill(buckets);
  runBucketSubs(agg, buckets, env, sets);
  if (!o.keyed) return { json: { buckets: buckets.map(bucketJson) }, value: () => Number.NaN };
  const keyed: Record<string, unknown> = {};
  for (const b of buckets) {
    const { key, ...rest } = bucketJson(b);
    keyed[String(key)] = rest;
  }
  return { json: { buckets: keyed }, value: () => Number.NaN };
}
