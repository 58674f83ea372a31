import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/create-app.js';

/**
 * Each request's logger is made on first use (createApp's childLoggerFactory): the lines must be
 * those a pino child would write, bound to the area and the request id, at the same levels.
 */
function capture(level: string): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(chunk.toString());
      cb();
    },
  });
  return { logger: pino({ level, base: { app: 'portico' } }, sink), lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

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
  return lines().filter((l) => l.msg !== 'Server listening');
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
