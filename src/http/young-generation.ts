/**
 * Keeping V8's young generation at its first size (`--runtime.small-young-generation`).
 *
 * V8 doubles the young generation's semi-spaces, up to 16 MiB each, whenever a scavenge finds
 * that much survived, and never gives them back while the process allocates at all: a search bulk
 * load grows them to their limit in seconds and the server then keeps 32 MiB of young generation
 * for good (issue 21: the search server's resident memory against OpenSearch's). The limit is
 * fixed when the heap is made, before any code runs; the growth factor is read at each growth,
 * so setting it to 1 keeps the first 1 MiB semi-spaces. V8 resets the factor to 2 (its smallest)
 * whenever an isolate configures its heap, which every new worker thread does: a worker started
 * afterwards sets it again from its first lines, when youngGenerationKeptSmall() says so (the
 * store's writer thread: sqlite-worker.ts).
 */
import { setFlagsFromString } from 'node:v8';

/** The V8 flag, for a worker thread's setFlagsFromString. */
export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';
let small = false;

/** From now on, young generations of this process stop growing. */
export function keepYoungGenerationSmall(): void {
  small = true;
  setFlagsFromString(YOUNG_GENERATION_FLAG);
}

/**
 * Whether a worker thread started now must set YOUNG_GENERATION_FLAG again once its heap is made;
 * whoever starts it waits for that, or this thread's young generation grows meanwhile.
 */
export function youngGenerationKeptSmall(): boolean {
  return small;
}
