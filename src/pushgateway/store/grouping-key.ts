/**
 * The grouping key codec: the part of a push URL after `/metrics/`, read exactly as Pushgateway
 * 1.11.1 (and 1.5.1 before it) reads it (its push handler's splitLabels and decodeBase64, behind
 * Go's percent-decoding of the path), and written the way a client should write it so that any
 * label value survives the trip.
 */
import { GroupingKeyError } from '../errors.js';
import { binaryBytes, utf8OfBinary } from '../exposition/binary-text.js';
import { goQuote, goQuoteBytes, isWellFormedString } from '../exposition/go-quote.js';
import type { Label } from '../model.js';
import { unescapeValuesName } from '../exposition/name-escaping.js';

const BASE64_SUFFIX = '@base64';
const SEPARATOR = '\xff';

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A legacy Prometheus label name: `[a-zA-Z_][a-zA-Z0-9_]*`. */
export function isValidLabelName(name: string): boolean {
  if (name.length === 0 || !isNameStart(name.charCodeAt(0))) return false;
  for (let i = 1; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!isNameStart(c) && !isDigit(c)) return false;
  }
  return true;
}

/** A legacy Prometheus metric name: `[a-zA-Z_:][a-zA-Z0-9_:]*`. */
export function isValidMetricName(name: string): boolean {
  if (name.length === 0) return false;
  const c0 = name.charCodeAt(0);
  if (!isNameStart(c0) && c0 !== 58) return false;
  for (let i = 1; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!isNameStart(c) && !isDigit(c) && c !== 58) return false;
  }
  return true;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/**
 * Go's decoding of `r.URL.Path`: `%XX` becomes a byte, `+` stays. The result is a binary string
 * (one char per byte), because Go splits and decodes bytes and only later (if at all) meets UTF-8.
 *
 * The input is the path as Node hands it over in `req.url`: one char per byte of the request line
 * (latin1), so raw UTF-8 bytes arrive as two or more chars. A string with a char above U+00FF cannot
 * come from the wire that way; it is taken as text and encoded as UTF-8 first.
 * A malformed escape is refused with Go's url.EscapeError text (Go's server answers 400 there too).
 */
function percentDecodeToBinary(raw: string): string {
  let plain = true;
  let wide = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 37 || c >= 0x80) plain = false;
    if (c > 0xff) {
      wide = true;
      break;
    }
  }
  if (plain) return raw;
  const wire = Buffer.from(raw, wide ? 'utf8' : 'latin1');
  const bytes = Buffer.allocUnsafe(wire.length);
  let n = 0;
  for (let i = 0; i < wire.length; i++) {
    const b = wire[i]!;
    if (b !== 37) {
      bytes[n++] = b;
      continue;
    }
    const h = hexValue(wire[i + 1] ?? -1);
    const l = hexValue(wire[i + 2] ?? -1);
    if (h < 0 || l < 0) {
      const bad = wire.subarray(i, Math.min(i + 3, wire.length)).toString('latin1');
      throw new GroupingKeyError(`invalid URL escape ${quoteBinary(bad)}`);
    }
    bytes[n++] = h * 16 + l;
    i += 2;
  }
  return bytes.toString('latin1', 0, n);
}

/** Go's `%q` of a byte string held as a binary string. */
function quoteBinary(bin: string): string {
  return goQuoteBytes(binaryBytes(bin));
}

const BASE64URL_VALUES = new Int8Array(256).fill(-1);
for (let i = 0; i < 64; i++) {
  BASE64URL_VALUES['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.charCodeAt(i)] = i;
}

/**
 * Go `base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))` over a binary string: the
 * decoded bytes (as a binary string), or the error text plus what Go returns alongside it (the
 * complete 4-character groups before the error), which Pushgateway prints in its job error
 * message. CR and LF are skipped, as Go does.
 */
function decodeBase64(s: string): { value: string; error?: string } {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 61) end--;
  const out: number[] = [];
  const quantum: number[] = [];
  let complete = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 10 || c === 13) continue;
    const v = BASE64URL_VALUES[c] ?? -1;
    if (v < 0) return { value: Buffer.from(out.slice(0, complete)).toString('latin1'), error: illegal(i) };
    quantum.push(v);
    if (quantum.length === 4) {
      const [a, b, c2, d] = quantum as [number, number, number, number];
      out.push((a << 2) | (b >> 4), ((b & 15) << 4) | (c2 >> 2), ((c2 & 3) << 6) | d);
      quantum.length = 0;
      complete = out.length;
    }
  }
  if (quantum.length === 1) return { value: Buffer.from(out).toString('latin1'), error: illegal(end - 1) };
  if (quantum.length >= 2) {
    const [a, b] = quantum as [number, number];
    out.push((a << 2) | (b >> 4));
    if (quantum.length === 3) out.push(((b & 15) << 4) | (quantum[2]! >> 2));
  }
  return { value: Buffer.from(out).toString('latin1') };
}

function illegal(byteOffset: number): string {
  return `illegal base64 data at input byte ${byteOffset}`;
}

const NOT_FOUND = '404 page not found';

/**
 * A label value of the grouping key as text. Go keeps invalid UTF-8 and then fails every push (and
 * every later push to any group, as the poisoned group stays stored) in its consistency check; we
 * refuse it here, with the same prefix and status, before anything is stored.
 */
function labelValueText(name: string, bin: string): string {
  const text = utf8OfBinary(bin);
  if (text === undefined) {
    throw new GroupingKeyError(
      `pushed metrics are invalid or inconsistent with existing metrics: grouping key label named ${goQuote(name)} has a value that is not utf8: ${quoteBinary(bin)}`,
    );
  }
  return text;
}

/**
 * Reads the grouping key from the path after `/metrics/`, still percent-encoded as received (e.g.
 * `job/batch/instance/a`, `job@base64/YmF0Y2g/path@base64/L3Zhci90bXA=`): pass the remainder of
 * Node's `req.url` (latin1, one char per byte), not a router's decoded parameters. Returns the labels,
 * `job` included, sorted by name. Pushgateway's rules: the whole path is percent-decoded before it
 * is split (so `%2F` splits), `+` stays `+`, a trailing `/` after a name gives an empty value, the last
 * duplicate wins, and a `job` pair among the labels is overwritten by the job segment.
 *
 * @throws GroupingKeyError (400) with Pushgateway's text; (400) for a value that is not UTF-8 once
 * decoded (Pushgateway 1.5.1 stores such a group and then fails every push); (404,
 * `404 page not found`) when the path would not reach a push handler (not `job/...` or
 * `job@base64/...`, or no job segment).
 */
export function parseGroupingKey(rawPath: string, utf8Names = false): Label[] {
  const path = percentDecodeToBinary(rawPath);
  const firstSlash = path.indexOf('/');
  const head = firstSlash < 0 ? path : path.slice(0, firstSlash);
  const jobBase64 = head === `job${BASE64_SUFFIX}`;
  if ((head !== 'job' && !jobBase64) || firstSlash < 0) throw new GroupingKeyError(NOT_FOUND, 404);
  const jobEnd = path.indexOf('/', firstSlash + 1);
  let job = jobEnd < 0 ? path.slice(firstSlash + 1) : path.slice(firstSlash + 1, jobEnd);
  // httprouter does not match an empty :job at the end of the path (it redirects to /metrics/job).
  if (jobEnd < 0 && job.length === 0) throw new GroupingKeyError(NOT_FOUND, 404);
  const labelsString = jobEnd < 0 ? '' : path.slice(jobEnd);
  if (jobBase64) {
    const decoded = decodeBase64(job);
    if (decoded.error !== undefined) {
      throw new GroupingKeyError(`invalid base64 encoding in job name ${quoteBinary(decoded.value)}: ${decoded.error}`);
    }
    job = decoded.value;
  }

  // Pushgateway reads the labels before it checks the job: a bad label beats an empty job.
  const result = new Map<string, string>();
  if (labelsString.length > 1) {
    const components = labelsString.split('/');
    if (components.length % 2 === 0) {
      throw new GroupingKeyError(`odd number of components in label string ${quoteBinary(labelsString)}`);
    }
    for (let i = 1; i < components.length - 1; i += 2) {
      const name = components[i]!;
      const value = components[i + 1]!;
      const isBase64 = name.endsWith(BASE64_SUFFIX);
      const trimmed = isBase64 ? name.slice(0, -BASE64_SUFFIX.length) : name;
      const labelName = utf8Names ? utf8LabelName(trimmed) : isValidLabelName(trimmed) ? trimmed : undefined;
      if (labelName === undefined || trimmed.startsWith('__')) {
        throw new GroupingKeyError(`improper label name ${quoteBinary(trimmed)}`);
      }
      if (!isBase64) {
        result.set(labelName, value);
        continue;
      }
      const decoded = decodeBase64(value);
      if (decoded.error !== undefined) {
        throw new GroupingKeyError(`invalid base64 encoding for label ${trimmed}=${quoteBinary(value)}: ${decoded.error}`);
      }
      result.set(labelName, decoded.value);
    }
  }
  if (job.length === 0) throw new GroupingKeyError('job name is required');
  result.set('job', job);
  const labels: Label[] = [];
  for (const [name, bin] of result) labels.push([name, labelValueText(name, bin)]);
  return labels.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * With --push.enable-utf8-names, as Pushgateway 1.11.1 reads a label name of a push path: a `U__`
 * name is unescaped (`U__my_2e_label` is `my.label`), and any non-empty UTF-8 name is valid.
 * `binary` is one char per byte; returns the name as text, or undefined when it is not valid.
 */
function utf8LabelName(binary: string): string | undefined {
  const name = unescapeValuesName(binary);
  return name.length === 0 ? undefined : utf8OfBinary(name);
}

function sortedByName(labels: readonly Label[]): Label[] {
  return [...labels].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Makes U+00FF in a value unambiguous next to the separator (rare; the common path is a scan). */
function escapeIdValue(v: string): string {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0xff || c === 0x5c) return v.replace(/[\\\xff]/g, (m) => (m === '\\' ? '\\\\' : '\\xff'));
  }
  return v;
}

/**
 * A stable identity for a grouping key, as Pushgateway's storage key: the labels sorted by name,
 * each as `name\xffvalue`, joined by `\xff`. Go's separator is the byte 0xFF, which UTF-8 text
 * cannot contain; here it is the character U+00FF, which a value can contain, so in values `ÿ` is
 * written `\xff` and `\` is written `\\` (only such values differ from the plain form), and two
 * different label sets can never share an identity.
 */
export function groupingKeyId(labels: readonly Label[]): string {
  let out = '';
  for (const [n, v] of sortedByName(labels)) {
    const pair = `${n}${SEPARATOR}${escapeIdValue(v)}`;
    out += out.length === 0 ? pair : `${SEPARATOR}${pair}`;
  }
  return out;
}

/** Values that would not survive as a plain path segment: empty, `/`, and the dot segments Go cleans. */
function needsBase64(value: string): boolean {
  // A lone surrogate cannot be percent-encoded (encodeURIComponent throws); base64 carries its
  // UTF-8 form with U+FFFD in its place.
  return value.length === 0 || value.includes('/') || value === '.' || value === '..' || !isWellFormedString(value);
}

function segment(name: string, value: string): string {
  if (needsBase64(value)) {
    const b64 = Buffer.from(value, 'utf8').toString('base64url');
    return `${name}${BASE64_SUFFIX}/${b64.length === 0 ? '=' : b64}`;
  }
  return `${name}/${encodeURIComponent(value)}`;
}

/**
 * The path after `/metrics/` a client should use for these labels: `job/<v>` first, then the other
 * labels sorted by name; values that are empty, contain `/` or are `.`/`..` as
 * `name@base64/<base64url>` (empty as `=`), others percent-encoded. parseGroupingKey reads it back
 * to the same labels.
 *
 * @throws GroupingKeyError when there is no non-empty `job` or a label name is not allowed in a URL.
 */
export function encodeGroupingPath(labels: readonly Label[]): string {
  let job: string | undefined;
  const rest: Label[] = [];
  for (const l of labels) {
    if (l[0] === 'job') job = l[1];
    else {
      if (!isValidLabelName(l[0]) || l[0].startsWith('__')) {
        throw new GroupingKeyError(`improper label name ${goQuote(l[0])}`);
      }
      rest.push(l);
    }
  }
  if (job === undefined || job.length === 0) throw new GroupingKeyError('job name is required');
  let out = segment('job', job);
  for (const [n, v] of sortedByName(rest)) out += `/${segment(n, v)}`;
  return out;
}
