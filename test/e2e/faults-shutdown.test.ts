import { request, Agent } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPortico, type RunningPortico } from '../support/portico-process.js';

// SIGTERM with 40 bulk requests in flight: every request whose body was sent before the signal is
// answered 200 and stored (none reset), also those still queued unaccepted in the kernel while the
// server was busy; a request whose body is still coming holds the shutdown open, and one sent on a
// kept-alive connection once the server refuses new requests gets Elasticsearch's 503 body. Fixed
// counts, no timing assertions.

const BULKS = 40;
const DOCS = 300;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly error?: string;
}

function bulkBody(bulk: number): string {
  let body = '';
  for (let i = 0; i < DOCS; i++) body += `{"index":{"_id":"${bulk}-${i}"}}\n{"title":"bulk ${bulk} document ${i} of the shutdown test","n":${i}}\n`;
  return body;
}

/** Sends a request; resolves `sent` once its whole body is handed to the kernel, `answer` with the response or the socket error. */
function send(port: number, method: string, path: string, body: string, agent: Agent | false): { sent: Promise<void>; answer: Promise<Answer> } {
  let onSent: () => void = () => undefined;
  const sent = new Promise<void>((r) => (onSent = r));
  const answer = new Promise<Answer>((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/x-ndjson', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', (e) => resolve({ status: 0, body: text, error: e.message }));
    });
    req.on('error', (e) => {
      onSent();
      resolve({ status: 0, body: '', error: (e as NodeJS.ErrnoException).code ?? e.message });
    });
    req.end(body, onSent);
  });
  return { sent, answer };
}

describe('graceful shutdown of the search listener', () => {
  let dataDir: string;
  let server: RunningPortico;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portico-shutdown-'));
    // Half the shutdown timeout serves what comes, then later requests are refused. 6 s: the 40th
    // bulk, sent before the signal, was once not yet started 2 s after it beside two make test runs.
    server = await startPortico(['--data.dir', dataDir, '--pushgateway.listen-address', 'off', '--management.listen-address', 'off', '--search.listen-address', '127.0.0.1:0', '--search.warmup-docs', '0', '--shutdown.timeout', '12s']);
  });
  afterAll(async () => {
    await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`finishes ${BULKS} bulks in flight at SIGTERM and answers later requests with ES's 503`, async () => {
    const port = server.ports.search as number;
    // A kept-alive connection, used once before the signal and once after.
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await send(port, 'PUT', '/shutdown', '', keepAlive).answer).status).toBe(200);

    // A request whose body is still coming at SIGTERM keeps the shutdown waiting for it.
    const held = connect(port, '127.0.0.1');
    let heldAnswer = '';
    held.on('data', (d: Buffer) => (heldAnswer += d.toString('utf8')));
    const heldClosed = new Promise<void>((r) => held.on('close', () => r()));
    const doc = '{"title":"held document"}';
    held.write(`PUT /shutdown/_doc/held HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${doc.length}\r\n\r\n${doc.slice(0, 5)}`);
    expect((await send(port, 'GET', '/', '', keepAlive).answer).status).toBe(200);

    const bulks = Array.from({ length: BULKS }, (_, b) => send(port, 'POST', '/shutdown/_bulk', bulkBody(b), false));
    await Promise.all(bulks.map((b) => b.sent));
    const exited = server.stop('SIGTERM');
    // Once the server says it takes no more requests, one on the open connection is refused.
    let refusing: string | undefined;
    for (let i = 0; i < 2000 && refusing === undefined; i++) {
      refusing = server.lines.find((l) => l.includes('no longer taking requests'));
      if (refusing === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    expect(JSON.parse(refusing as string)).toMatchObject({ inFlight: expect.any(Number) });
    const late = await send(port, 'GET', '/shutdown/_count', '', keepAlive).answer;
    held.end(doc.slice(5));
    await heldClosed;
    const answers = await Promise.all(bulks.map((b) => b.answer));
    expect(await exited).toBe(0);
    keepAlive.destroy();

    expect(answers.filter((a) => a.error !== undefined).map((a) => a.error)).toEqual([]);
    expect(answers.map((a) => a.status)).toEqual(Array(BULKS).fill(200));
    for (const a of answers) expect(JSON.parse(a.body)).toMatchObject({ errors: false });
    expect(heldAnswer).toMatch(/^HTTP\/1\.1 201 Created\r\n[\s\S]*connection: close\r\n/i);
    expect(late.status).toBe(503);
    expect(JSON.parse(late.body)).toEqual({
      error: {
        root_cause: [{ type: 'node_closed_exception', reason: 'node closed: the server is shutting down' }],
        type: 'node_closed_exception',
        reason: 'node closed: the server is shutting down',
      },
      status: 503,
    });

    // Everything acknowledged is there after a restart.
    server = await startPortico(['--data.dir', dataDir, '--pushgateway.listen-address', 'off', '--management.listen-address', 'off', '--search.listen-address', '127.0.0.1:0', '--search.warmup-docs', '0']);
    const count = (await (await fetch(`http://127.0.0.1:${server.ports.search}/shutdown/_count`)).json()) as { count: number };
    expect(count.count).toBe(BULKS * DOCS + 1);
  });
});
