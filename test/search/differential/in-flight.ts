/**
 * How the side-by-side suites send their generated requests: several at a time, each to both
 * servers at once. The requests of these loops only read (searches on indices loaded before), so
 * their answers do not depend on the order they are served in; sent one after another, each server
 * sat idle while the other answered, and the OpenSearch node's search threads served one request at
 * a time. Results keep the items' order, so what a suite prints and compares is unchanged.
 */

/** Requests in flight at once: the node's search pool on 2 cores has 4 threads. */
export const IN_FLIGHT = 4;

/** `fn` over `items` with at most `width` calls pending at a time; the results in the items' order. */
export async function mapInFlight<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>, width = IN_FLIGHT): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
