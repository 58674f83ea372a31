import { describe, expect, it } from 'vitest';
import { nextTurn } from '../../src/http/work-turns.js';

/** Counts the event loop's check phases: a setImmediate that queues itself again runs once a turn. */
function turnCounter(): { readonly now: () => number; stop: () => void } {
  let turns = 0;
  let stopped = false;
  const tick = (): void => {
    turns++;
    if (!stopped) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turns, stop: () => (stopped = true) };
}

describe('nextTurn', () => {
  it('gives slices of different jobs turns of their own, one slice a turn, in the order they asked', async () => {
    const turns = turnCounter();
    const ran: { job: string; turn: number }[] = [];
    const job = async (name: string, slices: number): Promise<void> => {
      for (let i = 0; i < slices; i++) {
        await nextTurn();
        ran.push({ job: name, turn: turns.now() });
      }
    };
    await Promise.all([job('bulk', 4), job('parse', 4), job('compaction', 4)]);
    turns.stop();
    expect(ran.map((r) => r.job)).toEqual(Array.from({ length: 4 }, () => ['bulk', 'parse', 'compaction']).flat());
    // With a bare setImmediate per slice, the three jobs' slices ran in the same check phase.
    const perTurn = new Map<number, number>();
    for (const r of ran) perTurn.set(r.turn, (perTurn.get(r.turn) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBe(1);
  });

  it('lets the poll phase run between two slices (a socket or file read is not held up by the queue)', async () => {
    const { readFile } = await import('node:fs/promises');
    let slices = 0;
    let readAfter: number | undefined;
    const reading = readFile(new URL(import.meta.url)).then(() => (readAfter = slices));
    while (readAfter === undefined && slices < 10_000) {
      await nextTurn();
      slices++;
    }
    await reading;
    expect(readAfter).toBeDefined();
    expect(readAfter as number).toBeLessThan(10_000);
  });
});
