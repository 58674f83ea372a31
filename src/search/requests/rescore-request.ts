import { errors, SearchError } from '../errors.js';
import { isJsonObject, jacksonInt, jsonToken } from '../syntax/json-members.js';
import { badOption, located, parsingAt, unknownOption } from './aggs/agg-errors.js';
import { parseTopLevelQuery, type Query } from './query-dsl.js';
import { LocatedQueryError } from './query-error.js';

/**
 * The body's `rescore` (ES 8's RescorerBuilder and QueryRescorerBuilder parsers): one rescorer or
 * an array of them, each `{"window_size": n, "query": {"rescore_query": …, "query_weight": w,
 * "rescore_query_weight": w, "score_mode": m}}`. Refusals are ES's, in its words and at its places
 * in the text (LocatedQueryError). How the rescorers score: engine/rescore.ts.
 */

/** How a rescored hit's two scores combine (ES's QueryRescoreMode). */
export type RescoreMode = 'total' | 'multiply' | 'avg' | 'max' | 'min';

export interface Rescorer {
  /** The top hits of each shard that are rescored (10 unless given; not checked here: each shard checks it). */
  readonly windowSize: number;
  readonly query: Query;
  /** float32, as ES keeps both weights. */
  readonly queryWeight: number;
  readonly rescoreQueryWeight: number;
  readonly scoreMode: RescoreMode;
}

const MODES: readonly RescoreMode[] = ['avg', 'max', 'min', 'total', 'multiply'];

type Path = (string | number)[];

/** The rescorers of the body's `rescore` value, in order (none for an empty array). */
export function parseRescore(raw: unknown): Rescorer[] {
  if (Array.isArray(raw)) {
    return raw.map((item, i) => {
      if (isJsonObject(item)) return parseRescorer(item, ['rescore', i]);
      // ES's parser starts a rescorer at the element and reads on: the token after it is no key.
      const next = i + 1 < raw.length ? jsonToken(raw[i + 1]) : 'END_ARRAY';
      if (next === 'END_ARRAY') throw located(['rescore'], (_v, _k, end) => errors.parsing('unexpected token [END_ARRAY] after [null]', end?.line, end?.col));
      throw parsingAt(['rescore', i + 1], next === 'START_ARRAY' || next === 'START_OBJECT' ? `unexpected token [${next}] after [null]` : 'rescore doesn\'t support [null]');
    });
  }
  if (isJsonObject(raw)) return [parseRescorer(raw, ['rescore'])];
  throw parsingAt(['rescore'], `Unknown key for a ${jsonToken(raw)} in [rescore].`);
}

/** One rescorer object: `window_size` and the one rescorer type ES 8 has, `query`. */
function parseRescorer(o: Record<string, unknown>, path: Path): Rescorer {
  let windowSize: number | undefined;
  let rescorer: Omit<Rescorer, 'windowSize'> | undefined;
  for (const [k, v] of Object.entries(o)) {
    if (isJsonObject(v)) {
      if (k !== 'query') {
        throw located([...path, k], (at) => new SearchError(400, { type: 'named_object_not_found_exception', reason: `${at === undefined ? '' : `[${at.line}:${at.col}] `}unknown field [${k}]` }));
      }
      rescorer = parseQueryRescorer(v, [...path, k]);
    } else if (Array.isArray(v)) {
      throw parsingAt([...path, k], `unexpected token [START_ARRAY] after [${k}]`);
    } else if (k === 'window_size') {
      windowSize = intValue(v, [...path, k]);
    } else {
      throw parsingAt([...path, k], `rescore doesn't support [${k}]`);
    }
  }
  if (rescorer === undefined) throw located(path, (_v, _k, end) => errors.parsing('missing rescore type', end?.line, end?.col));
  return { windowSize: windowSize ?? 10, ...rescorer };
}

/** QueryRescorerBuilder's ObjectParser (named `query`), then its builder's check of the query. */
function parseQueryRescorer(o: Record<string, unknown>, path: Path): Omit<Rescorer, 'windowSize'> {
  let query: Query | undefined;
  let queryWeight = 1;
  let rescoreQueryWeight = 1;
  let scoreMode: RescoreMode = 'total';
  for (const [k, v] of Object.entries(o)) {
    const at = [...path, k];
    switch (k) {
      case 'rescore_query':
        if (!isJsonObject(v)) throw located(at, (_v, key) => errors.xContentParse(key?.line ?? 1, key?.col ?? 1, `[query] rescore_query doesn't support values of type: ${jsonToken(v)}`));
        query = innerQuery(v, at);
        break;
      case 'query_weight':
        queryWeight = floatValue(v, at, k);
        break;
      case 'rescore_query_weight':
        rescoreQueryWeight = floatValue(v, at, k);
        break;
      case 'score_mode': {
        if (typeof v !== 'string') throw located(at, (_v, key) => errors.xContentParse(key?.line ?? 1, key?.col ?? 1, `[query] score_mode doesn't support values of type: ${jsonToken(v)}`));
        const mode = MODES.find((m) => m === v.toLowerCase());
        if (mode === undefined) throw badOption('query', k, at, { type: 'illegal_argument_exception', reason: `illegal score_mode [${v}]` });
        scoreMode = mode;
        break;
      }
      default:
        throw unknownOption('query', k, at);
    }
  }
  if (query === undefined) throw errors.illegalArgument('rescore_query cannot be null');
  return { query, queryWeight, rescoreQueryWeight, scoreMode };
}

/** The rescore query, parsed as a top-level query; its errors wrapped as the ObjectParser's field. */
function innerQuery(v: Record<string, unknown>, at: Path): Query {
  try {
    return parseTopLevelQuery(v, 'rescore_query');
  } catch (e) {
    if (e instanceof LocatedQueryError) throw e.within(at.slice(0, -1)).wrappedIn('query', 'rescore_query');
    throw e;
  }
}

/** Jackson's floatValue() of an ObjectParser float field: numbers and numeric strings, as float32. */
function floatValue(v: unknown, at: Path, field: string): number {
  if (typeof v === 'number') return Math.fround(v);
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Math.fround(Number(v));
  const cause = typeof v === 'string' ? { type: 'number_format_exception', reason: `For input string: "${v}"` } : { type: 'illegal_argument_exception', reason: `[${field}] doesn't support values of type: ${jsonToken(v)}` };
  throw badOption('query', field, at, cause);
}

/** Jackson's intValue() of `window_size` (jacksonInt), a value that is no number refused as the rescorer's parser refuses it. */
function intValue(v: unknown, at: Path): number {
  return jacksonInt(v, () => parsingAt(at, `rescore doesn't support [window_size]`));
}
