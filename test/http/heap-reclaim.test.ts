import { runInNewContext } from 'node:vm';
import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeapReclaimer, v8FullCollection } from '../../src/http/heap-reclaim.js';

describe('HeapReclaimer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once, after the quiet time that follows the last burst', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const heap = new HeapReclaimer({ collect, quietMs: 100 });
    heap.afterBurst();
    vi.advanceTimersByTime(60);
    // Another burst within the quiet time: the wait starts again.
    heap.afterBurst();
    vi.advanceTimersByTime(60);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(40);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(heap.collections).toBe(1);
    expect(heap.pending).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('puts the collection off while new work is busy, and drops it on close', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const heap = new HeapReclaimer({ collect, quietMs: 100 });
    heap.afterBurst();
    vi.advanceTimersByTime(90);
    heap.busy();
    vi.advanceTimersByTime(500);
    expect(collect).not.toHaveBeenCalled();
    // The busy work ends with a burst of its own: one collection after it.
    heap.afterBurst();
    vi.advanceTimersByTime(100);
    expect(collect).toHaveBeenCalledTimes(1);
    heap.afterBurst();
    heap.close();
    vi.advanceTimersByTime(500);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('tells how long each collection took', () => {
    vi.useFakeTimers();
    const took: number[] = [];
    const heap = new HeapReclaimer({ collect: () => undefined, quietMs: 10, onCollected: (ms) => took.push(ms) });
    heap.afterBurst();
    vi.advanceTimersByTime(10);
    expect(took).toHaveLength(1);
    expect(took[0]).toBeGreaterThanOrEqual(0);
  });

  it('never keeps the process alive for a pending collection', () => {
    const heap = new HeapReclaimer({ collect: () => undefined, quietMs: 60_000 });
    heap.afterBurst();
    const timer = (heap as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timer.hasRef()).toBe(false);
    heap.close();
  });
});

describe('v8FullCollection', () => {
  it('frees garbage without giving gc to the main context or to contexts made later', () => {
    const gc = v8FullCollection();
    expect(v8FullCollection()).toBe(gc);
    // Garbage worth tens of MB, then a collection: the heap used falls below what it was with it.
    let junk: unknown[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `item ${i}` }));
    const withJunk = getHeapStatistics().used_heap_size;
    expect(junk.length).toBe(200_000);
    junk = undefined;
    gc();
    expect(junk).toBeUndefined();
    expect(getHeapStatistics().used_heap_size).toBeLessThan(withJunk - 5_000_000);
    // vitest may run with --expose-gc itself; then the main context's gc is its own, not ours.
    if (!process.execArgv.includes('--expose-gc')) expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
