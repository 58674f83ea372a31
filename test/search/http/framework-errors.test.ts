import { connect, type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchForAll } from '../harness.js';

/**
 * Requests Fastify refuses before routing (a malformed percent-escape in the path, a path parameter
 * over the router's 2,048-character limit) used to get Fastify's own raw answer: no
 * X-Elastic-Product and Fastify's body shape instead of ES's error envelope.
 */
describe('search: refusals made before routing', () => {
  const h = searchForAll();

  for (const [what, method, url] of [
    ['a malformed percent-escape', 'GET', '/%zz/_search'],
    ['a malformed percent-escape, HEAD', 'HEAD', '/idx/_doc/%zz'],
    ['a path parameter over the router limit', 'GET', `/idx/_doc/${'a'.repeat(4200)}`],
  ] as const) {
    it(`answers ${what} in ES's dialect, marked as Elasticsearch`, async () => {
      const res = await h.app.inject({ method, url });
      expect(res.statusCode).toBe(400);
      expect(res.headers['x-elastic-product']).toBe('Elasticsearch');
      expect(res.headers['content-type']).toBe(method === 'HEAD' ? 'application/json' : 'application/json; charset=UTF-8');
      if (method === 'HEAD') return;
      const body = res.json() as { error: { type: string; root_cause: unknown[] }; status: number };
      expect(body.status).toBe(400);
      expect(body.error.type).toBe('illegal_argument_exception');
      expect(body.error.root_cause).toHaveLength(1);
    });
  }
});

/** What a raw HTTP/1.1 exchange gets back: the status and the headers, lower-cased, and the body. */
async function rawExchange(port: number, text: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const out = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString('utf8');
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
    socket.write(text);
  });
  const [head = '', body = ''] = out.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('search: requests the HTTP parser refuses', () => {
  const h = searchForAll();
  let port: number;
  beforeAll(async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });

  for (const [what, text, status] of [
    ['a content-length that is not a number', 'POST /_search HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: abc\r\n\r\n{}', 400],
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n', 400],
    ['a URL longer than the header limit', `GET /_search?q=${'a'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`, 431],
  ] as const) {
    it(`answers ${what} in ES's dialect, marked as Elasticsearch`, async () => {
      const res = await rawExchange(port, text);
      expect(res.status).toBe(status);
      expect(res.headers['x-elastic-product']).toBe('Elasticsearch');
      expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
      const body = JSON.parse(res.body) as { error: { type: string }; status: number };
      expect(body.status).toBe(status);
      expect(body.error.type).toBe('illegal_argument_exception');
    });
  }
});
