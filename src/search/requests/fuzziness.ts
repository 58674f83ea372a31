import { errors, SearchError } from '../errors.js';

/**
 * Elasticsearch's `fuzziness` and the options that tune it, as the `match`, `multi_match`,
 * `match_bool_prefix` and `fuzzy` queries read them: `0`, `1`, `2` (a larger number is taken as 2,
 * a fraction rounded down, as ES's Fuzziness.asDistance does), `AUTO` (0 edits below 3 characters,
 * 1 below 6, else 2) and `AUTO:low,high`.
 */

export type Fuzziness = { readonly auto: false; readonly edits: number } | { readonly auto: true; readonly low: number; readonly high: number };

/** A fuzzy expansion: how far, from which prefix, how many terms at most, with transpositions or not. */
export interface FuzzySpec {
  readonly fuzziness: Fuzziness;
  readonly prefixLength: number;
  readonly maxExpansions: number;
  readonly transpositions: boolean;
}

const AUTO: Fuzziness = { auto: true, low: 3, high: 6 };

/** `v` read as ES reads `fuzziness`, with ES's errors. */
export function parseFuzziness(v: unknown): Fuzziness {
  const text = String(v).trim();
  const upper = text.toUpperCase();
  if (upper === 'AUTO') return AUTO;
  if (upper.startsWith('AUTO:')) {
    const parts = text.slice(5).split(',');
    const nums = parts.map((p) => Number(p));
    if (parts.length !== 2 || nums.some((n) => !/^-?\d+$/.test(String(n)) || !Number.isInteger(n))) {
      const bad = parts.find((p) => !/^-?\d+$/.test(p.trim())) ?? text;
      throw new SearchError(400, {
        type: 'parse_exception',
        reason: `failed to parse [${text}] as a "auto:int,int"`,
        causedBy: { type: 'number_format_exception', reason: `For input string: "${bad}"` },
      });
    }
    const [low, high] = nums as [number, number];
    if (low < 0 || high < 0 || low > high) {
      throw errors.illegalArgument('fuzziness wrongly configured, must be: lowDistance > 0, highDistance > 0 and lowDistance <= highDistance ');
    }
    return { auto: true, low, high };
  }
  const n = typeof v === 'number' ? v : /^[0-9]+(\.[0-9]*)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(n) || n < 0) throw errors.illegalArgument(`Invalid fuzziness value: ${text}`);
  return { auto: false, edits: Math.min(2, Math.trunc(n)) };
}

/** The edits allowed for `term` (its length in code points for AUTO). */
export function editsFor(f: Fuzziness, term: string): number {
  if (!f.auto) return f.edits;
  const len = [...term].length;
  return len < f.low ? 0 : len < f.high ? 1 : 2;
}

/**
 * The fuzzy options of a query body, or undefined without `fuzziness`. `names` maps each option
 * to the key the query uses (`fuzzy` says `transpositions`, `match` says `fuzzy_transpositions`).
 */
export function fuzzySpec(
  opts: Readonly<Record<string, unknown>>,
  names: { readonly transpositions: string },
  defaultFuzziness?: Fuzziness,
): FuzzySpec | undefined {
  const raw = opts.fuzziness;
  if ((raw === undefined || raw === null) && defaultFuzziness === undefined) return undefined;
  const fuzziness = raw === undefined || raw === null ? (defaultFuzziness as Fuzziness) : parseFuzziness(raw);
  const t = opts[names.transpositions];
  return {
    fuzziness,
    prefixLength: intOption(opts.prefix_length, 'prefix_length', 0),
    maxExpansions: intOption(opts.max_expansions, 'max_expansions', 50),
    transpositions: t === undefined ? true : t === true || t === 'true',
  };
}

/** The AUTO default of the `fuzzy` query. */
export const DEFAULT_FUZZINESS = AUTO;

function intOption(v: unknown, name: string, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw errors.parsing(`[${name}] must be an integer, got [${JSON.stringify(v)}]`);
  return n;
}
