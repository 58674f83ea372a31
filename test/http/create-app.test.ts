import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/create-app.js';

/** A logger writing its JSON lines into an array. */
function capture(level: string): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level, base: { app: 'portico' } }, stream), lines };
}

describe('createApp request logging', () => {
  it('binds the request id to what a request logs, made on first use', async () => {
    const { logger, lines } = capture('info');
    const app = createApp('search', logger);
    app.get('/fail', async (req) => {
      req.log.debug('dropped');
      req.log.warn({ n: 1 }, 'careful');
      req.log.child({ step: 'inner' }).error('inner failure');
      return { ok: true };
    });
    app.get('/quiet', async () => ({ ok: true }));
    await app.inject({ method: 'GET', url: '/quiet' });
    await app.inject({ method: 'GET', url: '/fail' });
    await app.close();
    const fromRequests = lines.filter((l) => l.reqId !== undefined);
    expect(fromRequests.map((l) => [l.level, l.msg, l.area, l.app, l.reqId, l.n, l.step])).toEqual([
      [40, 'careful', 'search', 'portico', 'req-2', 1, undefined],
      [50, 'inner failure', 'search', 'portico', 'req-2', undefined, 'inner'],
    ]);
  });

  it('logs each request at debug level only when debug is on', async () => {
    for (const level of ['debug', 'info']) {
      const { logger, lines } = capture(level);
      const app = createApp('pushgateway', logger);
      app.get('/x', async () => ({ ok: true }));
      await app.inject({ method: 'GET', url: '/x?y=1' });
      await app.close();
      const requestLines = lines.filter((l) => l.msg === 'request');
      if (level === 'info') expect(requestLines).toEqual([]);
      else expect(requestLines).toMatchObject([{ level: 20, area: 'pushgateway', reqId: 'req-1', method: 'GET', url: '/x?y=1', status: 200 }]);
    }
  });
});
