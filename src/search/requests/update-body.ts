import { didYouMean } from '../syntax/did-you-mean.js';
import { errors, type EsCause, type SearchError } from '../errors.js';
import { checkNesting, duplicateFieldError, findDuplicateKey, jsonToken, objectMembers, textLocation, type JsonToken } from '../syntax/json-members.js';
import type { SourceFilter } from './source-filter.js';
import { checkPrimaryTerm, checkSeqNo, longField, NO_CONDITIONS, updateProblems, type WriteConditions } from './write-conditions.js';

/**
 * The body of an update (`POST /<index>/_update/<id>`, or the line after a `_bulk` update action),
 * checked as ES 8's UpdateRequest parser (an ObjectParser) checks it: a field it does not declare
 * fails the request with x_content_parse_exception "[line:col] [UpdateRequest] unknown field [x]"
 * (plus "did you mean" when a declared field is close), and so does a declared field whose value
 * has a type it does not take ("[UpdateRequest] doc doesn't support values of type: VALUE_NUMBER").
 * The first such field in the text's order wins; `[line:col]` is where its key (for an unknown
 * field) or its value (for a wrong type) starts, as Jackson reports it.
 */

/** The fields UpdateRequest's parser declares and the tokens each takes (ObjectParser.ValueType). */
const FIELDS: ReadonlyMap<string, readonly JsonToken[]> = new Map<string, readonly JsonToken[]>([
  ['script', ['START_OBJECT', 'VALUE_STRING']],
  ['scripted_upsert', ['VALUE_BOOLEAN', 'VALUE_STRING']],
  ['upsert', ['START_OBJECT']],
  ['doc', ['START_OBJECT']],
  ['doc_as_upsert', ['VALUE_BOOLEAN', 'VALUE_STRING']],
  ['detect_noop', ['VALUE_BOOLEAN', 'VALUE_STRING']],
  ['_source', ['START_OBJECT', 'START_ARRAY', 'VALUE_BOOLEAN', 'VALUE_STRING']],
  ['if_seq_no', ['VALUE_NUMBER', 'VALUE_STRING']],
  ['if_primary_term', ['VALUE_NUMBER', 'VALUE_STRING']],
]);

const PARSER_NAME = 'UpdateRequest';

/** The token a value's text starts with. */
function tokenAt(c: string | undefined): JsonToken {
  if (c === '{') return 'START_OBJECT';
  if (c === '[') return 'START_ARRAY';
  if (c === '"') return 'VALUE_STRING';
  if (c === 't' || c === 'f') return 'VALUE_BOOLEAN';
  return c === 'n' ? 'VALUE_NULL' : 'VALUE_NUMBER';
}

/** What an update body says, once checked (see parseUpdateBody). */
export interface UpdateBody {
  readonly doc: unknown;
  readonly upsert: unknown;
  readonly script: unknown;
  readonly docAsUpsert: boolean;
  /** `detect_noop` (default true). */
  readonly detectNoop: boolean;
  /** The body's `if_seq_no` and `if_primary_term`, when given (they override the request's). */
  readonly ifSeqNo: number | undefined;
  readonly ifPrimaryTerm: number | undefined;
  /** The body's `_source`: what of the document the answer's `get` carries; undefined: none given. */
  readonly source: SourceFilter | undefined;
}

/**
 * Checks an update body (`value`, parsed from `text`) as UpdateRequest's parser does and reads it;
 * booleans may be given as "true"/"false" ("" reads as false, any other string is refused), and a sequence number or term
 * as a string, refused when negative as the request's setters refuse it.
 */
export function parseUpdateBody(text: string, value: unknown): UpdateBody {
  checkUpdateBody(text, value);
  const present = (v: unknown): boolean => v !== undefined && v !== null;
  return {
    doc: value.doc,
    upsert: value.upsert,
    script: value.script,
    docAsUpsert: value.doc_as_upsert === true || value.doc_as_upsert === 'true',
    // An empty string is false: Booleans.parseBoolean(char[], …) gives its default for no text.
    detectNoop: !(value.detect_noop === false || value.detect_noop === 'false' || value.detect_noop === ''),
    ifSeqNo: present(value.if_seq_no) ? checkSeqNo(longField(value.if_seq_no, 'if_seq_no')) : undefined,
    ifPrimaryTerm: present(value.if_primary_term) ? checkPrimaryTerm(longField(value.if_primary_term, 'if_primary_term')) : undefined,
    source: value._source === undefined ? undefined : sourceOf(value._source),
  };
}

/** The request's conditions (`cond`, from the URL or the action line) with the body's sequence-number ones over them. */
export function updateConditions(cond: WriteConditions | undefined, body: UpdateBody): WriteConditions | undefined {
  if (body.ifSeqNo === undefined && body.ifPrimaryTerm === undefined) return cond;
  const base = cond ?? NO_CONDITIONS;
  return { ...base, ifSeqNo: body.ifSeqNo ?? base.ifSeqNo, ifPrimaryTerm: body.ifPrimaryTerm ?? base.ifPrimaryTerm };
}

/** What an update carries to the service, as a bulk update action's fields. */
export interface UpdateFields {
  readonly doc: unknown;
  readonly docAsUpsert: boolean;
  readonly upsert: unknown;
  /** Only when the body turns no-op detection off. */
  readonly detectNoop?: false;
  readonly cond?: WriteConditions;
}

/**
 * An update as the update API and `_bulk` read it: the body (parsed from `text`) checked and read
 * (parseUpdateBody), its conditions over the request's `cond`, and UpdateRequest.validate's
 * problems after the id's, in its order (none: the update may be applied).
 */
export function readUpdate(
  text: string,
  value: unknown,
  cond: WriteConditions | undefined,
  retryOnConflict: number,
): { problems: string[]; fields: UpdateFields; source: SourceFilter | undefined } {
  const u = parseUpdateBody(text, value);
  const c = updateConditions(cond, u);
  const problems = updateProblems(c, u.docAsUpsert, u.upsert, retryOnConflict);
  if (u.doc === undefined && u.script === undefined) problems.push('script or doc is missing');
  const fields: UpdateFields = {
    doc: u.doc,
    docAsUpsert: u.docAsUpsert,
    upsert: u.upsert,
    ...(u.detectNoop ? {} : { detectNoop: false as const }),
    ...(c === undefined ? {} : { cond: c }),
  };
  return { problems, fields, source: u.source };
}

/** The fields UpdateRequest declares as booleans (ObjectParser.declareBoolean: Booleans.parseBoolean on a string). */
const BOOLEANS: ReadonlySet<string> = new Set(['scripted_upsert', 'doc_as_upsert', 'detect_noop']);

/**
 * FetchSourceContext.fromXContent on a body's `_source`: a boolean, a pattern (a string, even
 * "true"), a list read as text, or `includes`/`excludes` (or `include`/`exclude`) given a string
 * or a list of strings. Throws the parsing_exception cause it refuses a value with.
 */
function sourceOf(v: unknown): SourceFilter {
  if (typeof v === 'boolean') return { fetch: v, includes: [], excludes: [] };
  if (typeof v === 'string') return { fetch: true, includes: [v], excludes: [] };
  if (Array.isArray(v)) {
    for (const x of v) if (x !== null && typeof x === 'object') throw sourceCause(jsonToken(x), '_source');
    return { fetch: true, includes: v.map((x) => String(x)), excludes: [] };
  }
  if (v === null || typeof v !== 'object') throw sourceCause(jsonToken(v), '_source');
  let includes: string[] = [];
  let excludes: string[] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const isInclude = k === 'includes' || k === 'include';
    if (!isInclude && k !== 'excludes' && k !== 'exclude') throw sourceCause(jsonToken(x), k);
    let list: string[];
    if (typeof x === 'string') list = [x];
    else if (Array.isArray(x)) {
      list = x.map((e) => {
        if (typeof e !== 'string') throw sourceCause(jsonToken(e), k);
        return e;
      });
    } else throw sourceCause(jsonToken(x), k);
    if (isInclude) includes = list;
    else excludes = list;
  }
  return { fetch: true, includes, excludes };
}

/**
 * FetchSourceContext.fromXContent on a `_bulk` action line's `_source` (the line's own, which
 * replaces the update body's). Its refusal fails the request as a parsing_exception.
 */
export function fetchSourceOf(v: unknown): SourceFilter {
  // fromXContent's own refusal of a token it cannot start with (the update body's parser refuses
  // such a value before it gets there, with sourceOf's wording).
  if (typeof v === 'number') throw errors.parsing('Expected one of [VALUE_BOOLEAN, VALUE_STRING, START_ARRAY, START_OBJECT] but found [VALUE_NUMBER]');
  try {
    return sourceOf(v);
  } catch (e) {
    if (e instanceof SourceRefused) throw errors.parsing(e.reason);
    throw e;
  }
}

/** The cause FetchSourceContext refuses a token with (its location is left out, as the wrapping error carries one). */
class SourceRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

function sourceCause(token: JsonToken, key: string): SourceRefused {
  return new SourceRefused(`Unknown key for a ${token} in [${key}].`);
}

/**
 * What UpdateRequest's parser says of one member, `key` with `value` (its token `token`), when it
 * refuses it: an unknown field (at the key), a value type the field does not take, or a value its
 * own parser refuses (both at the value). Undefined when the member is fine.
 */
function memberProblem(key: string, value: unknown, token: JsonToken): { atKey: boolean; message: string; cause?: EsCause } | undefined {
  const tokens = FIELDS.get(key);
  if (tokens === undefined) return { atKey: true, message: `[${PARSER_NAME}] unknown field [${key}]${didYouMean(key, FIELDS.keys())}` };
  if (!tokens.includes(token)) return { atKey: false, message: `[${PARSER_NAME}] ${key} doesn't support values of type: ${token}` };
  // XContentParser.booleanValue reads "" as false (no text: parseBoolean's default) and refuses any other string.
  if (BOOLEANS.has(key) && typeof value === 'string' && value !== 'true' && value !== 'false' && value !== '') {
    return { atKey: false, message: '', cause: errors.notBoolean(value).cause_ };
  }
  if (key === '_source') {
    try {
      sourceOf(value);
    } catch (e) {
      if (!(e instanceof SourceRefused)) throw e;
      return { atKey: false, message: '', cause: { type: 'parsing_exception', reason: e.reason } };
    }
  }
  return undefined;
}

/**
 * Throws ES's parse error when `body` (parsed from `text`) is not an object, for its first field
 * that UpdateRequest does not declare or whose value it refuses, or for the first key that repeats
 * one of its object's (Jackson's "Duplicate field", anywhere in the body, `doc` and `upsert`
 * included), whichever the text reaches first. Cheap when there is none: one pass for duplicates,
 * and the text is scanned member by member only to find where a bad field is.
 */
export function checkUpdateBody(text: string, body: unknown): asserts body is Readonly<Record<string, unknown>> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const at = text.length - text.trimStart().length;
    const { line, col } = textLocation(text, at);
    throw errors.xContentParse(line, col, `[${PARSER_NAME}] Expected START_OBJECT but was: ${jsonToken(body)}`);
  }
  checkNesting(text);
  const dup = findDuplicateKey(text);
  let bad = dup !== undefined;
  if (!bad) {
    for (const key in body) {
      const v = (body as Record<string, unknown>)[key];
      if (memberProblem(key, v, jsonToken(v)) !== undefined) {
        bad = true;
        break;
      }
    }
  }
  if (!bad) return;
  const duplicate = (): SearchError => duplicateFieldError(text, dup as { key: string; at: number });
  for (const m of objectMembers(text)) {
    // Jackson refuses a repeated key as it reads it, before the parser sees the field.
    if (dup !== undefined && dup.at <= m.valueAt) throw duplicate();
    const token = tokenAt(text[m.valueAt]);
    const problem = memberProblem(m.key, token === 'VALUE_NULL' ? null : JSON.parse(text.slice(m.valueAt, m.valueEnd)), token);
    if (problem !== undefined) {
      const { line, col } = textLocation(text, problem.atKey ? m.keyAt : m.valueAt);
      if (problem.cause !== undefined) throw errors.fieldParse(line, col, PARSER_NAME, m.key, problem.cause);
      throw errors.xContentParse(line, col, problem.message);
    }
    if (dup !== undefined && dup.at <= m.valueEnd) throw duplicate();
  }
  if (dup !== undefined) throw duplicate();
}
