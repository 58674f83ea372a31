import http from 'node:http';
import https from 'node:https';
import type { FetchLike, InMemoryBody } from './snapshot-delivery.js';

/**
 * The delivery's HTTP client over node:http, with keep-alive. The global fetch (undici) turns a
 * streamed body into a web ReadableStream and copies every chunk on the way: for a 6 MB snapshot
 * per change that was ~15 ms of the operator's CPU and 6 MB of garbage per PUT. Here each chunk
 * (a Buffer the snapshot assembly keeps between changes) is written to the socket as it is.
 * `idleTimeoutMs` (default 60 s): a request whose socket sees no traffic that long fails.
 */
export function nodeHttpFetch(idleTimeoutMs = 60_000): { fetch: FetchLike; close(): void } {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const fetch: FetchLike = (url, init) => new Promise((resolve, reject) => {
    const signal = init.signal;
    // Checked before the request exists: a request made and left unended would still get a
    // socket from the agent, and its later "socket hang up" would have no listener.
    if (signal?.aborted) {
      reject(new Error('request aborted'));
      return;
    }
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const req = (secure ? https : http).request(target, { method: init.method, headers: init.headers, agent: secure ? agents.https : agents.http });
    req.on('error', reject);
    const abort = () => req.destroy(new Error('request aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', abort));
    // A half-open connection (node gone, partition) would otherwise hold the PUT, and with it
    // every later delivery and check, until the kernel gives up many minutes later.
    req.setTimeout(idleTimeoutMs, () => req.destroy(new Error(`no progress for ${idleTimeoutMs} ms`)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, text: async () => text });
      });
    });
    const body = init.body;
    if (body === undefined) {
      req.end();
      return;
    }
    (async () => {
      // Buffers already in memory (the assembly's) are queued without waiting for the socket to
      // drain: no copy is made, and the socket takes them in large writev calls instead of one
      // event loop turn per 16 KB. A body made on the fly waits, so it is never built whole.
      const kept = (body as Partial<InMemoryBody>).inMemory === true;
      for await (const chunk of body) {
        if (req.destroyed) return;
        if (!req.write(chunk) && !kept) await drained(req);
      }
      req.end();
    })().catch((err: unknown) => req.destroy(err instanceof Error ? err : new Error(String(err))));
  });
  return {
    fetch,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Resolves when the request can take more (or is closed: the loop then stops). */
function drained(req: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}
