import http from 'node:http';
import type { Socket } from 'node:net';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { nodeHttpFetch } from '../../../../src/providers/kubernetes/deliver/http-fetch.js';
import { SnapshotDelivery, type FetchLike } from '../../../../src/providers/kubernetes/deliver/snapshot-delivery.js';
import { SnapshotLineDecoder } from '../../../../src/dynamic-config/snapshot/lines.js';
import { SNAPSHOT_DELTA_MEDIA_TYPE } from '../../../../src/dynamic-config/snapshot/delta.js';

// Delivery with an injected fetch and sleep: no sockets, no timers.

interface Call {
  method: string;
  url: string;
  auth: string | undefined;
  body?: string;
}

function decode(body: string | undefined): Record<string, unknown> {
  return new SnapshotLineDecoder().decode(body ?? '').value;
}

function harness(answers: ((call: Call) => { status: number; body?: unknown })[], tokens: string[] = ['t1']) {
  const calls: Call[] = [];
  let tokenReads = 0;
  const fetch: FetchLike = async (url, init) => {
    let body: string | undefined;
    if (init.body !== undefined) {
      const chunks: Uint8Array[] = [];
      for await (const c of init.body) chunks.push(c);
      body = Buffer.concat(chunks).toString('utf8');
    }
    const call: Call = { method: init.method, url, auth: init.headers.Authorization, ...(body === undefined ? {} : { body }) };
    calls.push(call);
    const answer = (answers.shift() ?? (() => ({ status: 200, body: {} })))(call);
    return { status: answer.status, text: async () => JSON.stringify(answer.body ?? {}) };
  };
  const delivery = new SnapshotDelivery({ serverUrl: 'http://server:8081/' }, {
    fetch,
    readToken: async () => tokens[Math.min(tokenReads++, tokens.length - 1)] as string,
    logger: pino({ level: 'silent' }),
    sleep: async () => undefined,
  }, new AbortController().signal);
  return { delivery, calls, tokenReads: () => tokenReads };
}

const snapshot = { configuration: { http: { routers: { r: { rule: 'Host(`a`)', service: 's' } } } }, serverStatus: { s: { 'http://10.0.0.1:80': 'UP' as const } } };

describe('snapshot delivery', () => {
  it('PUTs a snapshot with the token and a content version, once per content', async () => {
    const { delivery, calls } = harness([]);
    await delivery.deliver('kubernetes', snapshot);
    await delivery.deliver('kubernetes', structuredClone(snapshot));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'PUT', url: 'http://server:8081/internal/v1/providers/kubernetes', auth: 'Bearer t1' });
    const body = decode(calls[0]?.body) as { configuration: unknown; serverStatus: unknown; version: string };
    expect(body.configuration).toEqual(snapshot.configuration);
    expect(body.serverStatus).toEqual(snapshot.serverStatus);
    expect(body.version).toMatch(/^[0-9a-f]{16}$/);
    expect(delivery.settled).toBe(true);
  });

  it('retries failures, re-reads the token after a 401, and gives up on a 400 until the content changes', async () => {
    const { delivery, calls, tokenReads } = harness([() => ({ status: 503 }), () => ({ status: 401 }), () => ({ status: 200 })], ['old', 'new']);
    await delivery.deliver('kubernetes', snapshot);
    expect(calls.map((c) => c.auth)).toEqual(['Bearer old', 'Bearer old', 'Bearer new']);
    expect(tokenReads()).toBe(2);

    const refused = harness([() => ({ status: 400, body: { message: 'bad' } })]);
    await refused.delivery.deliver('kubernetescrd', snapshot);
    expect(refused.calls).toHaveLength(1);
    expect(refused.delivery.settled).toBe(true);
    await refused.delivery.deliver('kubernetescrd', snapshot);
    expect(refused.calls).toHaveLength(1);
  });

  it('re-delivers to a server that lost the snapshot or holds another version', async () => {
    const { delivery, calls } = harness([]);
    await delivery.deliver('kubernetes', snapshot);
    const version = (decode(calls[0]?.body) as { version: string }).version;
    calls.length = 0;
    const answers: ((c: Call) => { status: number; body?: unknown })[] = [];
    const h2 = harness(answers);
    await h2.delivery.deliver('kubernetes', snapshot);
    h2.calls.length = 0;

    answers.push(() => ({ status: 200, body: { provider: 'kubernetes', version } }));
    await h2.delivery.check();
    expect(h2.calls.map((c) => c.method)).toEqual(['GET']);

    answers.push(() => ({ status: 404, body: { message: 'provider not found' } }), () => ({ status: 200 }));
    await h2.delivery.check();
    await new Promise((r) => setTimeout(r, 0));
    expect(h2.calls.map((c) => c.method)).toEqual(['GET', 'GET', 'PUT']);
  });

  it('does not take a check answered about an older version for a lost snapshot (a change delivered while the GET was under way)', async () => {
    const calls: string[] = [];
    let held = '';
    let releaseGet: (() => void) | undefined;
    const fetch: FetchLike = async (_url, init) => {
      if (init.method === 'GET') {
        const answer = held; // what the server holds when the GET arrives
        calls.push(`GET ${answer}`);
        await new Promise<void>((resolve) => (releaseGet = resolve));
        return { status: 200, text: async () => JSON.stringify({ version: answer }) };
      }
      // This server takes whole bodies only: a delta gets 412, and the whole body follows.
      if (init.headers['Content-Type'] === SNAPSHOT_DELTA_MEDIA_TYPE) return { status: 412, text: async () => '{}' };
      const chunks: Uint8Array[] = [];
      for await (const c of init.body ?? []) chunks.push(c);
      held = (decode(Buffer.concat(chunks).toString('utf8')) as { version: string }).version;
      calls.push(`PUT ${held}`);
      return { status: 200, text: async () => '{}' };
    };
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    const delivery = new SnapshotDelivery({ serverUrl: 'http://server:8081' }, { fetch, readToken: async () => 't', logger, sleep: async () => undefined }, new AbortController().signal);
    await delivery.deliver('kubernetes', snapshot);
    const v1 = held;
    const checking = delivery.check();
    await new Promise((r) => setImmediate(r));
    const changed = structuredClone(snapshot);
    changed.configuration.http.routers.r.rule = 'Host(`b`)';
    await delivery.deliver('kubernetes', changed);
    const v2 = held;
    expect(v2).not.toBe(v1);
    releaseGet?.();
    await checking;
    await delivery.whenIdle();
    expect(calls).toEqual([`PUT ${v1}`, `GET ${v1}`, `PUT ${v2}`]);
    expect(lines.join('')).not.toContain('does not hold');
    expect(delivery.settled).toBe(true);
  });

  it('sends a laid-out body as it is: its version, its bytes, small pieces joined', async () => {
    const { delivery, calls } = harness([]);
    const pieces = ['["version"]\t"0123456789abcdef"\n', '["configuration","http","routers","r"]\t{"rule":"Host(`a`)","service":"s"}\n', '', '["serverStatus"]\t{}\n'];
    const body = { version: '0123456789abcdef', chunks: pieces.map((p) => Buffer.from(p)) };
    await delivery.deliver('kubernetes', body);
    await delivery.deliver('kubernetes', { ...body, chunks: [...body.chunks] });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toBe(pieces.join(''));
    expect(decode(calls[0]?.body)).toEqual({ version: '0123456789abcdef', configuration: { http: { routers: { r: { rule: 'Host(`a`)', service: 's' } } } }, serverStatus: {} });
    expect(delivery.idle).toBe(true);
  });
});

describe('node:http fetch', () => {
  it('streams a PUT body, reads the answer, and stops on abort', async () => {
    const received: { method?: string; auth?: string; body: string }[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method, auth: req.headers.authorization, body: Buffer.concat(chunks).toString('utf8') });
        if (req.url === '/slow') return; // never answers
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as { port: number };
    const client = nodeHttpFetch();
    try {
      const big = Buffer.alloc(3 * 1024 * 1024, 'a');
      async function* body() {
        yield Buffer.from('start ');
        yield big;
        yield Buffer.from(' end');
      }
      const res = await client.fetch(`http://127.0.0.1:${port}/put`, { method: 'PUT', headers: { Authorization: 'Bearer t' }, body: body() });
      expect(res.status).toBe(201);
      expect(await res.text()).toBe('{"ok":true}');
      expect(received[0]).toMatchObject({ method: 'PUT', auth: 'Bearer t' });
      expect(received[0]?.body).toBe(`start ${big.toString()} end`);
      const get = await client.fetch(`http://127.0.0.1:${port}/get`, { method: 'GET', headers: {} });
      expect(get.status).toBe(201);
      const abort = new AbortController();
      const pending = client.fetch(`http://127.0.0.1:${port}/slow`, { method: 'GET', headers: {}, signal: abort.signal });
      setTimeout(() => abort.abort(), 20);
      await expect(pending).rejects.toThrow(/aborted/);
    } finally {
      client.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('fails a request that sees no progress, and refuses an aborted signal without leaving a request behind', async () => {
    const sockets = new Set<Socket>();
    let requests = 0;
    const server = http.createServer(() => {
      requests++; // never answers
    });
    server.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as { port: number };
    const client = nodeHttpFetch(100);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      await expect(client.fetch(`http://127.0.0.1:${port}/hang`, { method: 'GET', headers: {} })).rejects.toThrow(/no progress for 100 ms/);
      const aborted = new AbortController();
      aborted.abort();
      await expect(client.fetch(`http://127.0.0.1:${port}/never`, { method: 'GET', headers: {}, signal: aborted.signal })).rejects.toThrow(/aborted/);
      // Closing every connection now would make a leftover request's socket hang up unheard.
      await new Promise((r) => setTimeout(r, 50));
      for (const s of sockets) s.destroy();
      await new Promise((r) => setTimeout(r, 50));
      expect(requests).toBe(1);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      client.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
