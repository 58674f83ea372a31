import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createManagementApi } from '../../../src/management/app.js';
import { storeWith } from '../helpers.js';

// The management API answers client mistakes as Traefik does, never 500: it reads no request body
// (a POST is mux's 405, a GET with any body its 200), and a refused request is logged at debug
// without a stack. A fuzz of fixed seed and count over methods, paths, queries, media types,
// encodings and sizes checks no 5xx, no error line and no change to the records.

const lines: Record<string, unknown>[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  }),
);
const store = storeWith({
  file: {
    http: {
      routers: { web: { entryPoints: ['web'], service: 'whoami', rule: 'Host(`a.test`)' } },
      services: { whoami: { loadBalancer: { servers: [{ url: 'http://10.0.0.1' }] } } },
    },
  },
});
const app = createManagementApi({ store, logger, startDate: 0 });
afterAll(() => app.close());

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BIG = 'x'.repeat(50 * 1024 * 1024);
const BOMB = gzipSync(Buffer.alloc(20 * 1024 * 1024));

describe('client mistakes on the management API', () => {
  it.each([
    ['POST', '/api/http/routers', 'application/json', '{bad', 405],
    ['POST', '/api/http/routers', 'application/x-www-form-urlencoded', 'a=b', 405],
    ['PUT', '/api/overview', 'application/json', BIG, 405],
    ['PATCH', '/nothing', 'application/json', '{', 404],
    ['GET', '/api/http/routers', 'application/json', '{bad', 200],
    ['GET', '/api/overview', 'multipart/form-data; boundary=x', '--x\r\n', 200],
    ['GET', '/api/version', 'text/plain', BIG, 200],
  ])('%s %s with %s answers %#', async (method, url, type, body, status) => {
    const res = await app.inject({ method: method as 'GET', url, headers: { 'content-type': type }, payload: body });
    expect(res.statusCode).toBe(status);
  });

  it('leaves a gzip bomb unread', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/rawdata', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: BOMB });
    expect(res.statusCode).toBe(405);
  });

  it('answers 2,400 fuzzed requests without a 5xx, an error line or a changed record', async () => {
    const before = (await app.inject('/api/rawdata')).body;
    const next = random(23);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
    const paths = ['/api/http/routers', '/api/http/routers/web@file', '/api/http/services/whoami@file', '/api/overview', '/api/rawdata', '/api/entrypoints/web', '/api/version', '/dashboard/', '/dashboard', '/ping', '/api/tcp/routers/%zz', '/api/http/routers/%', '/api/../etc/passwd', '/' + 'a'.repeat(5000), '/api/http/routers/' + '%41'.repeat(300), '/api/udp/services', '/api/http/middlewares/x%00y@file'];
    const queries = ['', '?page=0', '?page=-1', '?per_page=abc', '?search=%zz', '?status=warning&search=a', '?page=99999999999999999999', '?sortBy=name&direction=sideways', '?a[b]=c&a[b]=d'];
    const types = [undefined, 'application/json', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data', 'application/json; charset=utf-16', 'garbage', ''];
    const bodies = [undefined, '', '{', '{"a":1}', 'a=b&c', '\u0000\uffff', Buffer.from([0xc3, 0x28, 0xff]).toString('latin1'), 'x'.repeat(2 * 1024 * 1024)];
    const statuses = new Map<number, number>();
    const RUNS = 2400;
    for (let i = 0; i < RUNS; i++) {
      const method = pick(methods);
      const type = pick(types);
      const body = method === 'GET' || method === 'HEAD' ? (next() < 0.3 ? pick(bodies) : undefined) : pick(bodies);
      const headers: Record<string, string> = {};
      if (type !== undefined) headers['content-type'] = type;
      if (next() < 0.1) headers['content-encoding'] = pick(['gzip', 'br', 'identity', 'bogus']);
      const res = await app.inject({ method, url: pick(paths) + pick(queries), headers, payload: body });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    }
    const fivexx = [...statuses].filter(([s]) => s >= 500);
    expect(fivexx).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(RUNS);
    expect(statuses.get(405)).toBeGreaterThan(0);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(lines.filter((l) => JSON.stringify(l).includes('"stack"'))).toEqual([]);
    expect((await app.inject('/api/rawdata')).body).toBe(before);
  });
});
