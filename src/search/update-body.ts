import { similarNames } from './did-you-mean.js';
import { errors } from './errors.js';
import { jsonToken, objectMembers, textLocation, type JsonToken } from './json-members.js';
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

/** ES's SuggestingErrorOnUnknown over the declared fields (see similarNames). */
function suggestion(field: string): string {
  const close = similarNames(field, FIELDS.keys());
  if (close.length === 0) return '';
  return close.length === 1 ? ` did you mean [${close[0]}]?` : ` did you mean any of [${close.join(', ')}]?`;
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
}

/**
 * Checks an update body (`value`, parsed from `text`) as UpdateRequest's parser does and reads it;
 * booleans may be given as "true"/"false", as its parser reads them, and a sequence number or term
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
    detectNoop: !(value.detect_noop === false || value.detect_noop === 'false'),
    ifSeqNo: present(value.if_seq_no) ? checkSeqNo(longField(value.if_seq_no, 'if_seq_no')) : undefined,
    ifPrimaryTerm: present(value.if_primary_term) ? checkPrimaryTerm(longField(value.if_primary_term, 'if_primary_term')) : undefined,
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
export function readUpdate(text: string, value: unknown, cond: WriteConditions | undefined, retryOnConflict: number): { problems: string[]; fields: UpdateFields } {
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
  return { problems, fields };
}

/**
 * Throws ES's parse error when `body` (parsed from `text`) is not an object, or for its first
 * field that UpdateRequest does not declare or whose value it does not take. Cheap when there is
 * none: the text is only scanned to find where the bad field is.
 */
export function checkUpdateBody(text: string, body: unknown): asserts body is Readonly<Record<string, unknown>> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const at = text.length - text.trimStart().length;
    const { line, col } = textLocation(text, at);
    throw errors.xContentParse(line, col, `[${PARSER_NAME}] Expected START_OBJECT but was: ${jsonToken(body)}`);
  }
  let bad = false;
  for (const key in body) {
    const tokens = FIELDS.get(key);
    if (tokens === undefined || !tokens.includes(jsonToken((body as Record<string, unknown>)[key]))) {
      bad = true;
      break;
    }
  }
  if (!bad) return;
  for (const m of objectMembers(text)) {
    const tokens = FIELDS.get(m.key);
    if (tokens === undefined) {
      const { line, col } = textLocation(text, m.keyAt);
      throw errors.xContentParse(line, col, `[${PARSER_NAME}] unknown field [${m.key}]${suggestion(m.key)}`);
    }
    const token = tokenAt(text[m.valueAt]);
    if (!tokens.includes(token)) {
      const { line, col } = textLocation(text, m.valueAt);
      throw errors.xContentParse(line, col, `[${PARSER_NAME}] ${m.key} doesn't support values of type: ${token}`);
    }
  }
}
