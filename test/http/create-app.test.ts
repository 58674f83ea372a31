import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/create-app.js';
import { requestIdSequence } from '../../src/http/request-ids.js';

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

  it('numbers the requests of every app sharing a sequence in one series', async () => {
    const { logger, lines } = capture('info');
    const nextRequestId = requestIdSequence();
    const apps = [createApp('pushgateway', logger, { nextRequestId }), createApp('search', logger, { nextRequestId })];
    for (const app of apps) app.get('/x', async (req) => (req.log.info('hit'), { ok: true }));
    for (const app of [...apps, ...apps]) await app.inject({ method: 'GET', url: '/x' });
    for (const app of apps) await app.close();
    expect(lines.filter((l) => l.msg === 'hit').map((l) => [l.area, l.reqId])).toEqual([
      ['pushgateway', 'req-1'],
      ['search', 'req-2'],
      ['pushgateway', 'req-3'],
      ['search', 'req-4'],
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

/**
 * Each request's logger is made on first use (createApp's childLoggerFactory): the lines must be
 * those a pino child would write, bound to the area and the request id, at the same levels.
 */
async function exercise(level: string): Promise<Record<string, unknown>[]> {
  const { logger, lines } = capture(level);
  const app = createApp('test', logger);
  app.get('/levels', (req, reply) => {
    req.log.trace('t');
    req.log.debug('d');
    req.log.info({ k: 1 }, 'i');
    reply.log.warn('w');
    req.log.error(new Error('boom'), 'e');
    req.log.child({ sub: true }).info('from a child');
    reply.send('ok');
  });
  app.get('/quiet', { logLevel: 'error' }, (req, reply) => {
    req.log.info('not shown');
    req.log.error('shown');
    reply.send('ok');
  });
  // Request logging is off (createApp): Fastify's default error handler logs nothing either.
  app.get('/fail', () => {
    throw new Error('handler failed');
  });
  for (const url of ['/levels', '/quiet', '/fail', '/nowhere']) await app.inject({ url });
  await app.close();
  return lines.filter((l) => l.msg !== 'Server listening');
}

describe('createApp request logger', () => {
  it('writes the same lines as a pino child, with area and reqId, at info', async () => {
    const got = (await exercise('info')).map((l) => `${String(l.level)} ${String(l.area)} ${String(l.reqId)} ${String(l.msg)}${l.sub === true ? ' sub' : ''}${l.k === 1 ? ' k' : ''}${l.err === undefined ? '' : ' err'}`);
    expect(got).toEqual([
      '30 test req-1 i k',
      '40 test req-1 w',
      '50 test req-1 e err',
      '30 test req-1 from a child sub',
      '50 test req-2 shown',
    ]);
  });

  it('at debug also writes each request line and the debug calls', async () => {
    const got = await exercise('debug');
    expect(got.filter((l) => l.level === 20).map((l) => `${String(l.reqId)} ${String(l.msg)} ${String(l.status ?? '')}`)).toEqual([
      'req-1 d ',
      'req-1 request 200',
      // none for /quiet: its route level is error
      'req-3 request 500',
      'req-4 request 404',
    ]);
    expect(got.some((l) => l.level === 10)).toBe(false);
  });
});
