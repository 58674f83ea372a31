/**
 * Snapshot deltas (media type {@link SNAPSHOT_DELTA_MEDIA_TYPE}): an optional shorter way to PUT a
 * format 2 snapshot, for a sender that knows which body the server holds. The snapshot is still
 * whole; the body says how to make its format 2 body from the last one the server accepted for
 * that provider (the base), named by its version in `If-Match`:
 *
 * - `=<n>`: the next n lines of the base, unchanged;
 * - `-<n>`: the next n lines of the base left out;
 * - any other non-empty line: a format 2 line of the new body, as is.
 *
 * Lines of the base are taken in order; those left at the end are left out. The server rebuilds
 * the whole body and applies it as a format 2 PUT (same checks, errors and response). When it
 * holds another version, or none (after a restart, or after a format 1 PUT), it answers `412`
 * and the sender PUTs the whole body. A one-record change is then a few hundred bytes instead of
 * megabytes to serialize, send and compare. Senders that do not use it lose nothing.
 */
import type { EncodedSnapshot } from './lines.js';
import { SnapshotLinesError } from './line-decoder.js';

/** Media type of a snapshot delta. */
export const SNAPSHOT_DELTA_MEDIA_TYPE = 'application/vnd.portico.snapshot-delta.v2+jsonl';

/** How far ahead in the base a sender looks for a line of the new body before sending it as new. */
const LOOKAHEAD = 16;

function bodyLines(encoded: EncodedSnapshot): string[] {
  return [`["version"]\t${JSON.stringify(encoded.version)}`, ...encoded.lines];
}

/**
 * The delta from `base` (the last body the server accepted) to `next`, both from the same
 * encoder (unchanged records are the very same line strings), in pieces of about `chunkChars`.
 * PUT it with `If-Match: "<base.version>"`.
 */
export function* snapshotDeltaChunks(base: EncodedSnapshot, next: EncodedSnapshot, chunkChars = 64 * 1024): Generator<string> {
  const from = bodyLines(base);
  const to = bodyLines(next);
  let parts: string[] = [];
  let size = 0;
  const add = (line: string) => {
    parts.push(line);
    size += line.length + 1;
  };
  let i = 0;
  let keep = 0;
  for (const line of to) {
    if (i < from.length && from[i] === line) {
      keep++;
      i++;
      continue;
    }
    if (keep > 0) add(`=${keep}`);
    keep = 0;
    let skip = -1;
    for (let d = 1; d <= LOOKAHEAD && i + d < from.length; d++) {
      if (from[i + d] === line) {
        skip = d;
        break;
      }
    }
    if (skip !== -1) {
      add(`-${skip}`);
      i += skip + 1;
      keep = 1;
    } else {
      add(line);
    }
    if (size >= chunkChars) {
      yield `${parts.join('\n')}\n`;
      parts = [];
      size = 0;
    }
  }
  if (keep > 0) add(`=${keep}`);
  yield parts.join('\n');
}

/** The whole delta as one string (tests, small snapshots). */
export function snapshotDeltaBody(base: EncodedSnapshot, next: EncodedSnapshot): string {
  return [...snapshotDeltaChunks(base, next)].join('');
}

/** The base a delta is applied to: a body the decoder holds, with its lines' offsets. */
export interface DeltaBase {
  readonly body: Buffer;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

const NEWLINE = 0x0a;
const COUNT = /^[=-][1-9][0-9]{0,8}$/;

/**
 * Rebuilds the format 2 body a delta describes from its base. Throws {@link SnapshotLinesError}
 * naming the delta's line for a bad instruction.
 * @param allocate gives a buffer of at least the size asked (e.g. one used before)
 */
export function expandSnapshotDelta(delta: Buffer, base: DeltaBase, allocate: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const count = base.starts.length;
  // Two passes over the delta: the size, then the bytes.
  const ops: number[] = [];
  let size = 0;
  let j = 0;
  let lineNo = 0;
  for (let p = 0; p <= delta.length; ) {
    let e = delta.indexOf(NEWLINE, p);
    if (e === -1) e = delta.length;
    lineNo++;
    const first = delta[p];
    if (e > p && (first === 0x3d || first === 0x2d)) {
      const text = delta.toString('latin1', p, e);
      if (!COUNT.test(text)) throw new SnapshotLinesError(`line ${lineNo} of the delta: expected =<count> or -<count>, got ${JSON.stringify(text.slice(0, 40))}`);
      const n = Number(text.slice(1));
      if (j + n > count) throw new SnapshotLinesError(`line ${lineNo} of the delta: ${text} runs past the ${count} lines of the base`);
      if (first === 0x3d) {
        size += (base.ends[j + n - 1] as number) - (base.starts[j] as number) + 1;
        ops.push(j, n);
      }
      j += n;
    } else if (e > p) {
      size += e - p + 1;
      ops.push(-1 - p, e - p);
    }
    p = e + 1;
  }
  const out = allocate(size);
  let at = 0;
  for (let k = 0; k < ops.length; k += 2) {
    const a = ops[k] as number;
    const n = ops[k + 1] as number;
    if (a >= 0) {
      at += base.body.copy(out, at, base.starts[a] as number, base.ends[a + n - 1] as number);
    } else {
      at += delta.copy(out, at, -1 - a, -1 - a + n);
    }
    out[at++] = NEWLINE;
  }
  return out.subarray(0, at);
}
