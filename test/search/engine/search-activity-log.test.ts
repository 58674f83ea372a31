import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchActivityLog } from '../../../src/search/engine/search-activity-log.js';
import { SearchService } from '../../../src/search/engine/search-service.js';
import { parseBulk } from '../../../src/search/requests/bulk.js';
import { SqliteDocumentStore } from '../../../src/search/store/document-store.js';

interface Line {
  readonly level: 'info' | 'warn';
  readonly fields: Record<string, unknown>;
  readonly msg: string;
}

/** A logger keeping its lines, and a clock the test moves. */
function recorder() {
  const lines: Line[] = [];
  const record = (level: Line['level']) => (fields: Record<string, unknown>, msg: string) => void lines.push({ level, fields, msg });
  const logger = { info: record('info'), warn: record('warn') } as unknown as ConstructorParameters<typeof SearchActivityLog>[0]['logger'];
  const clock = { ms: 0 };
  return { lines, logger, clock, now: () => clock.ms };
}

describe('SearchActivityLog', () => {
  it('gives a large _bulk its own line and a small one none', () => {
    const r = recorder();
    const log = new SearchActivityLog({ logger: r.logger, clock: r.now, bulkSummaryOps: 1000 });
    r.clock.ms = 100;
    log.bulkDone({ operations: 999, failed: 0, ms: 50 });
    expect(r.lines).toEqual([]);
    r.clock.ms = 600;
    log.bulkDone({ operations: 5000, failed: 2, ms: 500 });
    expect(r.lines).toEqual([{ level: 'info', fields: { operations: 5000, failed: 2, ms: 500, perSecond: 10_000 }, msg: 'bulk of 5000 operations applied' }]);
  });

  it('says the rate at most once per interval during a long load of small requests', () => {
    const r = recorder();
    const log = new SearchActivityLog({ logger: r.logger, clock: r.now, rateIntervalMs: 10_000 });
    // 25 s of 500-operation requests, one a second (each taking 100 ms).
    for (let s = 1; s <= 25; s++) {
      r.clock.ms = s * 1000;
      log.bulkDone({ operations: 500, failed: 0, ms: 100 });
    }
    const rates = r.lines.filter((l) => l.msg.startsWith('indexing:'));
    expect(rates.map((l) => l.fields)).toEqual([
      { operations: 5500, seconds: 10.1, perSecond: 545, totalOperations: 5500 },
      { operations: 5000, seconds: 10, perSecond: 500, totalOperations: 10_500 },
    ]);
    expect(rates[0]?.msg).toBe('indexing: 5500 bulk operations in the last 10 s');
    // After a pause the next load starts a new window rather than averaging over the idle time.
    r.clock.ms = 120_000;
    log.bulkDone({ operations: 10, failed: 0, ms: 5 });
    expect(r.lines.filter((l) => l.msg.startsWith('indexing:'))).toHaveLength(2);
  });
});

describe('search activity through the service and its store', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function open(dir: string) {
    const r = recorder();
    const store = new SqliteDocumentStore(dir, 'async', r.logger);
    const service = new SearchService(store, Date.now, new SearchActivityLog({ logger: r.logger, clock: r.now, bulkSummaryOps: 3 }));
    service.load();
    return { r, store, service };
  }

  it('says when indices are created, deleted, loaded and snapshotted, and when a snapshot is unreadable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-activity-'));
    dirs.push(dir);
    const first = open(dir);
    expect(first.r.lines.map((l) => l.msg)).toEqual(['loaded 0 indices with 0 documents from the stored documents']);
    first.service.createIndex('made', {});
    const bulk = ['a', 'b', 'c'].map((id) => `{"index":{"_index":"logs","_id":"${id}"}}\n{"n":1}\n`).join('');
    first.service.bulk(parseBulk(Buffer.from(bulk), undefined));
    first.service.deleteIndex('made');
    first.store.close();
    expect(first.r.lines.slice(1).map((l) => [l.msg, l.fields.index ?? l.fields.operations])).toEqual([
      ['index [made] created', 'made'],
      ['index [logs] created', 'logs'],
      ['bulk of 3 operations applied', 3],
      ['index [made] deleted', 'made'],
      ['index snapshot written', undefined],
    ]);
    expect(first.r.lines[2]?.fields.automatically).toBe(true);

    const second = open(dir);
    expect(second.r.lines.map((l) => [l.msg, l.fields.from, l.fields.documents])).toEqual([['loaded 1 indices with 3 documents from the index snapshot', 'snapshot', 3]]);
    second.store.close();

    // The snapshot's head (generation, mark, checksum) kept and its content garbage: a warning, then a rebuild.
    const file = join(dir, 'index.snapshot');
    writeFileSync(file, Buffer.concat([readFileSync(file).subarray(0, 44), Buffer.from('not a snapshot')]));
    const third = open(dir);
    expect(third.r.lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'the index snapshot could not be read; rebuilding the indices from the stored documents'],
      ['info', 'loaded 1 indices with 3 documents from the stored documents'],
    ]);
    expect(third.service.get('logs').index.liveCount).toBe(3);
    third.store.close();
  });

  it('warns when a commit fails, then says what it reloaded', () => {
    class FailingStore extends SqliteDocumentStore {
      failNext = false;
      override transaction<T>(fn: () => T, options?: { readonly interimCommits?: boolean }): T {
        const result = super.transaction(fn, options);
        if (this.failNext) {
          this.failNext = false;
          throw new Error('disk I/O error');
        }
        return result;
      }
    }
    const dir = mkdtempSync(join(tmpdir(), 'portico-activity-'));
    dirs.push(dir);
    const r = recorder();
    const store = new FailingStore(dir, 'async');
    const service = new SearchService(store, Date.now, new SearchActivityLog({ logger: r.logger, clock: r.now }));
    service.load();
    service.createIndex('logs', {});
    store.failNext = true;
    expect(() => service.bulk(parseBulk(Buffer.from('{"index":{"_index":"logs","_id":"a"}}\n{"n":1}\n'), undefined))).toThrow('disk I/O error');
    // Whatever the store kept is what was loaded again, and what the line counts.
    let stored = 0;
    store.scanDocs('logs', () => stored++);
    store.close();
    expect(r.lines.slice(-2).map((l) => [l.level, l.msg, l.fields.error ?? l.fields.documents])).toEqual([
      ['warn', 'a write to the document store failed; reloading the indices from the stored documents', 'disk I/O error'],
      ['info', `loaded 1 indices with ${stored} documents from the stored documents`, stored],
    ]);
  });
});
