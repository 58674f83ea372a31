import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/http/create-app.js';
import { fastifyDialect, goPlainDialect } from '../../src/http/listener-guard.js';
import { listenerLimits, listenerFlags } from '../../src/http/listener-flags.js';
import { ConfigError } from '../../src/config/flag-types.js';
import { searchDialect } from '../../src/search/http/error-handler.js';

/** A logger writing its JSON lines into an array. */
function capture(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** A raw connection: what it received, and a promise of its end. */
function open(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

const LIMITS = { headerTimeoutMs: 300, requestTimeoutMs: 600, idleTimeoutMs: 500, maxConnections: 8 };

describe('listener timeouts and connection limit', () => {
  let app: FastifyInstance;
  let other: FastifyInstance;
  let port: number;
  let otherPort: number;
  const log = capture();

  beforeAll(async () => {
    app = createApp('pushgateway', log.logger, { limits: LIMITS, dialect: goPlainDialect });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.get('/', async () => 'ok');
    app.put('/body', async (req) => `got ${(req.body as Buffer).length}`);
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
    other = createApp('management', log.logger, { limits: LIMITS });
    other.get('/', async () => 'other ok');
    await other.listen({ host: '127.0.0.1', port: 0 });
    otherPort = (other.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app.close();
    await other.close();
  });

  it('answers a slowloris (headers trickled) 408 in the dialect and disconnects it', async () => {
    const c = await open(port);
    c.socket.write('GET / HTTP/1.1\r\n');
    const trickle = setInterval(() => c.socket.writable && c.socket.write('X-a: b\r\n'), 50);
    await c.closed;
    clearInterval(trickle);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(c.received()).toContain('\r\n\r\n408 Request Timeout: request timed out\n');
  });

  it('answers a half-sent body 408 and disconnects it', async () => {
    const c = await open(port);
    c.socket.write('PUT /body HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n' + 'a'.repeat(400));
    const trickle = setInterval(() => c.socket.writable && c.socket.write('a'), 100);
    await c.closed;
    clearInterval(trickle);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(c.received()).not.toContain('got ');
  });

  it('disconnects a connection that sends nothing', async () => {
    const c = await open(port);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('closes an idle keep-alive connection after its request', async () => {
    const c = await open(port);
    c.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok$/);
  });

  it('refuses connections over the limit in the dialect while other listeners keep answering', async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.maxConnections }, () => open(port)));
    // Each held connection keeps sending header lines slower than the timeout cuts them off.
    for (const h of held) h.socket.write('GET / HTTP/1.1\r\n');
    const over = await open(port);
    over.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await over.closed;
    expect(over.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(over.received()).toContain('too many open connections (at most 8, --http.max-connections)');
    const res = await fetch(`http://127.0.0.1:${otherPort}/`);
    expect(await res.text()).toBe('other ok');
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    // The server learns of the closes a moment after the client: ask until a place is free.
    let again = '';
    for (let i = 0; i < 100 && again !== 'ok'; i++) {
      again = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      if (again !== 'ok') await new Promise((r) => setTimeout(r, 20));
    }
    expect(again).toBe('ok');
    const warned = log.lines.filter((l) => typeof l.msg === 'string' && (l.msg as string).includes('connection limit'));
    expect(warned.length).toBe(1);
    expect(warned[0]).toMatchObject({ listener: 'pushgateway', limit: 8, level: 40 });
  });

  it('logs timeouts at most once per interval', () => {
    const timeouts = log.lines.filter((l) => typeof l.msg === 'string' && (l.msg as string).includes('too slow'));
    expect(timeouts.length).toBe(1);
  });
});

describe('dialects of the HTTP layer', () => {
  it('words search refusals as Elasticsearch, with 429 for too many connections', () => {
    const r = searchDialect.refusal(429, 'too many');
    expect(r.status).toBe(429);
    expect(JSON.parse(r.body)).toEqual({
      error: { root_cause: [{ type: 'es_rejected_execution_exception', reason: 'too many' }], type: 'es_rejected_execution_exception', reason: 'too many' },
      status: 429,
    });
    expect(JSON.parse(searchDialect.refusal(408, 'request timed out').body)).toMatchObject({ error: { type: 'illegal_argument_exception' }, status: 408 });
    expect(r.headers).toEqual({ 'x-elastic-product': 'Elasticsearch' });
  });

  it('words the internal listener\'s refusals as Fastify does', () => {
    expect(JSON.parse(fastifyDialect.refusal(503, 'x').body)).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'x' });
  });
});

describe('listener flags', () => {
  const defaults = Object.fromEntries(Object.entries(listenerFlags).map(([k, spec]) => [k, spec.parse(spec.defaultText)])) as Parameters<typeof listenerLimits>[0];

  it('have sane defaults', () => {
    expect(listenerLimits(defaults)).toEqual({ headerTimeoutMs: 10_000, requestTimeoutMs: 60_000, idleTimeoutMs: 60_000, maxConnections: 1000 });
  });

  it('refuse a header timeout longer than the request timeout', () => {
    expect(() => listenerLimits({ ...defaults, 'http.header-timeout': 120_000 })).toThrow(ConfigError);
    expect(listenerLimits({ ...defaults, 'http.header-timeout': 120_000, 'http.request-timeout': 0 }).requestTimeoutMs).toBe(0);
  });
});
