/**
 * Long work done between requests (a `_bulk` body parsed, its items applied, an index compacted)
 * runs in slices of a few milliseconds with the event loop free between them, so the requests that
 * arrive meanwhile are served. A slice yields with `nextTurn()`, which makes slices of different
 * jobs take turns of the event loop, one slice a turn, in the order they asked.
 *
 * Why not setImmediate alone: every callback queued before a check phase runs in that phase, so
 * each job's slice ran back to back with the others' (a bulk's 10 ms slice, the next body's parse
 * slice, a compaction's slice: 20-35 ms with no socket read between them, measured in-process with
 * a 2 ms interval timer while a client re-indexed the Debian corpus), and every search that
 * arrived waited for all of them. Through this queue a turn holds one slice, so a search waits
 * for one slice at most, and the work gets done at the same rate when nothing else is waiting.
 */

const waiting: (() => void)[] = [];
let armed = false;

/** Resolves in a later turn of the event loop, after the poll phase, once the slices that asked before have had theirs. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    arm();
  });
}

function arm(): void {
  if (armed || waiting.length === 0) return;
  armed = true;
  setImmediate(runOne);
}

function runOne(): void {
  armed = false;
  const resolve = waiting.shift();
  // Queued during this check phase, so it runs in the next turn, after the poll phase; the
  // resolved slice runs now, as a microtask of this callback.
  arm();
  resolve?.();
}
