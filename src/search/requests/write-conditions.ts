import { errors, idTooLong, MAX_ID_BYTES, unsafeLong } from '../errors.js';
import { LONG_LIMIT, longParam } from '../http/url-params.js';

/**
 * The concurrency conditions a write may carry, as ES 8 reads and checks them: `version` with
 * `version_type` (internal, external, external_gte) and `if_seq_no` with `if_primary_term`, in a
 * `_bulk` action line or as URL parameters of the document APIs.
 *
 * Two stages, as in ES: the request's validation (IndexRequest/DeleteRequest/UpdateRequest.validate,
 * whose problems fail the whole request before anything is applied) and the check against the
 * current document when the write is applied (a 409 version_conflict_engine_exception for that
 * write or bulk item). Internal versioning with an explicit version is refused at validation, so
 * only compare-and-set on the sequence number and external versions are checked when applying.
 */

export type VersionType = 'internal' | 'external' | 'external_gte';

/** ES's "no version given" (Versions.MATCH_ANY). */
export const MATCH_ANY = -3;
/** What a create resolves an absent version to (Versions.MATCH_DELETED). */
const MATCH_DELETED = -4;
/** No `if_seq_no` (SequenceNumbers.UNASSIGNED_SEQ_NO). */
export const UNASSIGNED_SEQ_NO = -2;
/** No `if_primary_term`. */
export const UNASSIGNED_PRIMARY_TERM = 0;
/** The primary term of every write here (one shard, never failed over). */
export const PRIMARY_TERM = 1;

export interface WriteConditions {
  /** MATCH_ANY when not given. */
  readonly version: number;
  readonly versionType: VersionType;
  /** UNASSIGNED_SEQ_NO when not given. */
  readonly ifSeqNo: number;
  /** UNASSIGNED_PRIMARY_TERM when not given. */
  readonly ifPrimaryTerm: number;
}

export const NO_CONDITIONS: WriteConditions = { version: MATCH_ANY, versionType: 'internal', ifSeqNo: UNASSIGNED_SEQ_NO, ifPrimaryTerm: UNASSIGNED_PRIMARY_TERM };

/** VersionType.fromString. */
export function parseVersionType(text: string): VersionType {
  if (text === 'internal' || text === 'external' || text === 'external_gte') return text;
  // ES 8 still reads `external_gt` as `external`.
  if (text === 'external_gt') return 'external';
  throw errors.illegalArgument(`No version type match [${text}]`);
}

/** A boolean field of a bulk action line (the JSON parser's booleanValue, which reads "true"/"false" too). */
export function boolField(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw errors.notBoolean(String(value));
}

/** A decimal number as Java's BigDecimal reads one (no whitespace, optional exponent). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A long-valued field of a bulk action line, as the JSON parser's longValue reads it: a number is
 * truncated; a string is coerced as a decimal (Numbers.toLong: "7.9" is 7), and one that is not a
 * number at all is an illegal_argument_exception "For input string". `name`: the field, for the
 * refusal of an integer beyond 2^53 - 1 (see unsafeLong).
 */
export function longField(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) {
    const n = Math.trunc(value);
    // JSON.parse has already rounded a longer integer: its text is gone, so it is not shown.
    if (!Number.isSafeInteger(n)) throw unsafeLong(name, undefined);
    return n;
  }
  if (typeof value === 'string') {
    if (!DECIMAL.test(value)) throw errors.illegalArgument(`For input string: "${value}"`);
    const n = Math.trunc(Number(value));
    if (!(Math.abs(n) < LONG_LIMIT)) throw errors.illegalArgument(`Value [${value}] is out of range for a long`);
    if (!Number.isSafeInteger(n)) throw unsafeLong(name, value);
    return n === 0 ? 0 : n;
  }
  throw errors.numberFormat(String(value));
}

/** The request's setIfSeqNo: a negative sequence number other than "unassigned" is refused before any validation. */
export function checkSeqNo(ifSeqNo: number): number {
  if (ifSeqNo < 0 && ifSeqNo !== UNASSIGNED_SEQ_NO) throw errors.illegalArgument(`sequence numbers must be non negative. got [${ifSeqNo}].`);
  return ifSeqNo;
}

/** The request's setIfPrimaryTerm: a negative term is refused before any validation. */
export function checkPrimaryTerm(ifPrimaryTerm: number): number {
  if (ifPrimaryTerm < 0) throw errors.illegalArgument(`primary term must be non negative. got [${ifPrimaryTerm}]`);
  return ifPrimaryTerm;
}

/** The conditions from the URL parameters of a document API; undefined when none is given. */
export function conditionsFromQuery(q: Readonly<Record<string, string | undefined>>): WriteConditions | undefined {
  if (q.version === undefined && q.version_type === undefined && q.if_seq_no === undefined && q.if_primary_term === undefined) return undefined;
  const version = longParam('version', q.version) ?? MATCH_ANY;
  const versionType = q.version_type === undefined ? 'internal' : parseVersionType(q.version_type);
  const ifSeqNo = checkSeqNo(longParam('if_seq_no', q.if_seq_no) ?? UNASSIGNED_SEQ_NO);
  const ifPrimaryTerm = checkPrimaryTerm(longParam('if_primary_term', q.if_primary_term) ?? UNASSIGNED_PRIMARY_TERM);
  return { version, versionType, ifSeqNo, ifPrimaryTerm };
}

const typeName = (t: VersionType): string => t.toUpperCase();

function validVersionForWrites(t: VersionType, version: number): boolean {
  return t === 'internal' ? version > 0 || version === MATCH_ANY || version === MATCH_DELETED : version >= 0;
}

/** The refusal of an explicit internal version (also the update API's of any version parameter). */
export const INTERNAL_VERSION_OCC = 'internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead';

/** DocWriteRequest.validateSeqNoBasedCASParams (`version` already resolved for creates). */
export function casProblems(c: WriteConditions, version = c.version): string[] {
  const out: string[] = [];
  if (!validVersionForWrites(c.versionType, version)) out.push(`illegal version value [${version}] for version type [${typeName(c.versionType)}]`);
  if (c.versionType === 'internal' && version !== MATCH_ANY && version !== MATCH_DELETED) {
    out.push(INTERNAL_VERSION_OCC);
  }
  if (c.ifSeqNo !== UNASSIGNED_SEQ_NO && (c.versionType !== 'internal' || version !== MATCH_ANY)) out.push('compare and write operations can not use versioning');
  if (c.ifPrimaryTerm === UNASSIGNED_PRIMARY_TERM && c.ifSeqNo !== UNASSIGNED_SEQ_NO) out.push('ifSeqNo is set, but primary term is [0]');
  if (c.ifPrimaryTerm !== UNASSIGNED_PRIMARY_TERM && c.ifSeqNo === UNASSIGNED_SEQ_NO) out.push(`ifSeqNo is unassigned, but primary term is [${c.ifPrimaryTerm}]`);
  return out;
}

/** IndexRequest.validate's problems for an index or create write, in its order (the id's length last). */
export function indexProblems(op: 'index' | 'create', id: string | undefined, c: WriteConditions | undefined): string[] {
  const out: string[] = [];
  if (c !== undefined) {
    const version = op === 'create' && c.version === MATCH_ANY ? MATCH_DELETED : c.version;
    if (op === 'create') {
      // Each of these ends IndexRequest.validate at once.
      if (c.versionType !== 'internal') return ['create operations only support internal versioning. use index instead'];
      if (version !== MATCH_DELETED) return ['create operations do not support explicit versions. use index instead'];
      if (c.ifSeqNo !== UNASSIGNED_SEQ_NO || c.ifPrimaryTerm !== UNASSIGNED_PRIMARY_TERM) return ['create operations do not support compare and set. use index instead'];
    }
    if (id === undefined && (c.versionType !== 'internal' || (version !== MATCH_DELETED && version !== MATCH_ANY))) {
      out.push('an id must be provided if version type or value are set');
    }
    out.push(...casProblems(c, version));
  }
  // A UTF-16 string of at most MAX_ID_BYTES / 3 units is at most MAX_ID_BYTES bytes of UTF-8.
  if (id !== undefined && id.length > MAX_ID_BYTES / 3) {
    const bytes = Buffer.byteLength(id, 'utf8');
    if (bytes > MAX_ID_BYTES) out.push(idTooLong(id, bytes));
  }
  return out;
}

/**
 * UpdateRequest.validate's problems about the conditions (after "id is missing", before "script or
 * doc is missing"). `retryOnConflict`: the update's retry_on_conflict (0 when not given).
 */
export function updateProblems(c: WriteConditions | undefined, docAsUpsert: boolean, upsert: unknown, retryOnConflict = 0): string[] {
  if (c === undefined) return [];
  const out = casProblems(c);
  if (c.ifSeqNo !== UNASSIGNED_SEQ_NO) {
    if (retryOnConflict > 0) out.push('compare and write operations can not be retried');
    if (docAsUpsert) out.push('compare and write operations can not be used with upsert');
    if (upsert !== undefined) out.push("upsert requests don't support `if_seq_no` and `if_primary_term`");
  }
  return out;
}

/** The current state of the document a write targets (undefined: there is none). */
export interface CurrentDoc {
  readonly version: number;
  readonly seqNo: number;
}

/**
 * Why the write conflicts with the current document (the text after "[<id>]: version conflict, "),
 * or undefined when it may go ahead. Only valid conditions get here (see the validation above).
 * `deletedVersion`: when there is no document, the version of its delete if it is still
 * remembered (delete-tombstones.ts). As in ES, a deleted document is no document for
 * compare-and-set and for create, but external versions compare with the delete's.
 */
export function conflict(c: WriteConditions, current: CurrentDoc | undefined, deletedVersion?: number): string | undefined {
  if (c.ifSeqNo !== UNASSIGNED_SEQ_NO) {
    const required = `required seqNo [${c.ifSeqNo}], primary term [${c.ifPrimaryTerm}]. `;
    if (current === undefined) return `${required}but no document was found`;
    if (current.seqNo !== c.ifSeqNo || c.ifPrimaryTerm !== PRIMARY_TERM) {
      return `${required}current document has seqNo [${current.seqNo}] and primary term [${PRIMARY_TERM}]`;
    }
    return undefined;
  }
  const version = current?.version ?? deletedVersion;
  if (version === undefined) return undefined;
  // The one explicit internal version validation lets through: the document must not exist.
  if (c.versionType === 'internal' && c.version === MATCH_DELETED) return current === undefined ? undefined : `document already exists (current version [${version}])`;
  if (c.versionType === 'external' && version >= c.version) {
    return `current version [${version}] is higher or equal to the one provided [${c.version}]`;
  }
  if (c.versionType === 'external_gte' && version > c.version) {
    return `current version [${version}] is higher than the one provided [${c.version}]`;
  }
  return undefined;
}

/**
 * The version a write gives the document: the external one when given, else the current one plus
 * one (`currentVersion`: the document's, or its remembered delete's; undefined: neither).
 */
export function nextVersion(c: WriteConditions | undefined, currentVersion: number | undefined): number {
  if (c !== undefined && c.versionType !== 'internal') return c.version;
  return currentVersion === undefined ? 1 : currentVersion + 1;
}
