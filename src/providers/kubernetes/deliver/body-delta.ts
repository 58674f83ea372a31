import { snapshotDeltaChunks } from '../../../dynamic-config/snapshot/delta.js';
import type { EncodedSnapshot } from '../../../dynamic-config/snapshot/lines.js';
import type { SnapshotBody } from '../translate/snapshot-assembly.js';

/**
 * A snapshot delta (src/dynamic-config/snapshot/delta.ts's format) from the body the server holds
 * to the next one, so that a change sends its changed lines and a few counts instead of the whole
 * body (megabytes for 10,000 routers). A laid-out body (translate/snapshot-assembly.ts) keeps the
 * Buffer of every block no change touched, so its chunks are compared by identity, not content: a
 * chunk of the base found again is kept (`=<its lines>`), base chunks passed over are left out
 * (`-<their lines>`), and a chunk not in the base is sent as it is (its lines are format 2 lines).
 */

const NEWLINE = 0x0a;
const lineCounts = new WeakMap<Buffer, number>();

/** How many lines a chunk holds, or undefined when it does not end at a line's end. */
function linesIn(chunk: Buffer): number | undefined {
  let n = lineCounts.get(chunk);
  if (n !== undefined) return n;
  if (chunk.length > 0 && chunk[chunk.length - 1] !== NEWLINE) return undefined;
  n = 0;
  for (let p = chunk.indexOf(NEWLINE); p !== -1; p = chunk.indexOf(NEWLINE, p + 1)) n++;
  lineCounts.set(chunk, n);
  return n;
}

function laidOutDelta(base: SnapshotBody, next: SnapshotBody): Buffer[] | undefined {
  const at = new Map<Buffer, number>();
  base.chunks.forEach((chunk, i) => {
    if (!at.has(chunk)) at.set(chunk, i);
  });
  const out: Buffer[] = [];
  let i = 0;
  let keep = 0;
  const flushKeep = () => {
    if (keep > 0) out.push(Buffer.from(`=${keep}\n`, 'latin1'));
    keep = 0;
  };
  for (const chunk of next.chunks) {
    const n = linesIn(chunk);
    if (n === undefined) return undefined;
    if (n === 0) continue;
    const j = at.get(chunk);
    if (j === undefined || j < i) {
      flushKeep();
      out.push(chunk);
      continue;
    }
    let skipped = 0;
    for (let k = i; k < j; k++) {
      const m = linesIn(base.chunks[k] as Buffer);
      if (m === undefined) return undefined;
      skipped += m;
    }
    if (skipped > 0) {
      flushKeep();
      out.push(Buffer.from(`-${skipped}\n`, 'latin1'));
    }
    keep += n;
    i = j + 1;
  }
  flushKeep();
  return out;
}

/**
 * The delta from `base` to `next` as pieces to PUT (with `If-Match: "<base.version>"`), or
 * undefined when there is none to make (bodies of two kinds, or a chunk that is not whole lines):
 * then the whole body goes.
 */
export function bodyDelta(base: EncodedSnapshot | SnapshotBody, next: EncodedSnapshot | SnapshotBody): Buffer[] | undefined {
  if ('chunks' in base && 'chunks' in next) return laidOutDelta(base, next);
  if (!('chunks' in base) && !('chunks' in next)) return [...snapshotDeltaChunks(base, next)].map((s) => Buffer.from(s, 'utf8'));
  return undefined;
}
