import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../../src/http/create-app.js';
import { registerInternalRoutes } from '../../../src/management/internal/routes.js';
import { RecordStore } from '../../../src/management/record-store.js';
import { SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineDecoder } from '../../../src/dynamic-config/snapshot/lines.js';
import { validateProviderSnapshot } from '../../../src/dynamic-config/validation.js';
import { silentLogger, TRAEFIK, WEB, WEBSECURE } from '../helpers.js';

// Format 2 bodies over a real connection, read and compared as they arrive.
// An upload that is cut off must change nothing, whichever way it is sent (with a length or
// chunked), and overlapping uploads of one provider must each apply exactly their own body.

const storeOptions = { entryPoints: [WEB, WEBSECURE, TRAEFIK], now: () => 0 };
const line = (path: string[], value: unknown) => `${JSON.stringify(path)}\t${JSON.stringify(value)}`;

function body(version: string, rules: Record<number, string> = {}, count = 400): string {
  const lines = [line(['version'], version)];
  for (let i = 0; i < count; i++) lines.push(line(['configuration', 'http', 'routers', `r${i}`], { rule: rules[i] ?? `Host(\`h${i}.example.com\`)`, service: 's' }));
  lines.push(line(['configuration', 'http', 'services', 's'], { loadBalancer: { servers: [{ url: 'http://10.0.0.1' }] } }));
  return `${lines.join('\n')}\n`;
}

function served(store: RecordStore): string {
  return store.view.rawdata().toString('utf8');
}

function fresh(text: string): string {
  const store = new RecordStore(storeOptions);
  store.set('kubernetes', validateProviderSnapshot(new SnapshotLineDecoder().decode(text).value));
  return served(store);
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(): Promise<{ store: RecordStore; port: number }> {
  const store = new RecordStore(storeOptions);
  app = createApp('internal', silentLogger, { bodyLimit: 8 * 1024 * 1024 });
  registerInternalRoutes(app, { store, token: 't' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { store, port: (app.server.address() as AddressInfo).port };
}

/** A PUT sent in two parts; `cut` ends the upload after the first part (the socket is destroyed). */
function put(port: number, text: string, opts: { chunked?: boolean; split?: number } = {}) {
  const bytes = Buffer.from(text);
  const split = opts.split ?? Math.floor(bytes.length / 2);
  const headers: Record<string, string> = { authorization: 'Bearer t', 'content-type': SNAPSHOT_LINES_MEDIA_TYPE };
  if (!opts.chunked) headers['content-length'] = String(bytes.length);
  const req = http.request({ host: '127.0.0.1', port, method: 'PUT', path: '/internal/v1/providers/kubernetes', headers, agent: false });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
  });
  response.catch(() => undefined);
  req.write(bytes.subarray(0, split));
  return {
    response,
    finish: () => {
      req.end(bytes.subarray(split));
      return response;
    },
    cut: () => req.destroy(),
  };
}

const tick = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms));

describe('format 2 uploads over a connection', () => {
  for (const chunked of [false, true]) {
    it(`changes nothing when an upload is cut off at a line end (${chunked ? 'chunked' : 'with a length'})`, async () => {
      const { store, port } = await start();
      const first = body('v1');
      expect((await put(port, first, { chunked }).finish()).status).toBe(200);
      const before = served(store);
      // The second body cut right after a line: what arrived is a valid, shorter snapshot.
      const second = body('v2', { 3: 'Host(`changed`)' });
      const split = second.indexOf('\n', Math.floor(second.length / 2)) + 1;
      const upload = put(port, second, { chunked, split });
      await tick();
      upload.cut();
      await tick(200);
      expect(store.get('kubernetes')?.version).toBe('v1');
      expect(served(store)).toBe(before);
      // And the next whole body is applied as from scratch.
      const third = body('v3', { 7: 'Host(`seven`)' });
      expect((await put(port, third, { chunked }).finish()).status).toBe(200);
      expect(served(store)).toBe(fresh(third));
    });
  }

  it('applies overlapping uploads of one provider each as its own body', async () => {
    const { store, port } = await start();
    const b1 = body('v1');
    expect((await put(port, b1).finish()).status).toBe(200);
    // b2 starts arriving against b1; meanwhile b3 is applied (b1's buffer is given back for reuse)
    // and b4 starts arriving into it.
    const b2 = body('v2', { 1: 'Host(`two`)', 300: 'Host(`two-b`)' });
    const s2 = put(port, b2);
    await tick();
    const b3 = body('v3', { 2: 'Host(`three`)' });
    expect((await put(port, b3).finish()).status).toBe(200);
    expect(served(store)).toBe(fresh(b3));
    const b4 = body('v4', { 4: 'Host(`four`)' }, 420);
    const s4 = put(port, b4);
    await tick();
    expect((await s2.finish()).status).toBe(200);
    expect(store.get('kubernetes')?.version).toBe('v2');
    expect(served(store)).toBe(fresh(b2));
    expect((await s4.finish()).status).toBe(200);
    expect(served(store)).toBe(fresh(b4));
    // Then a small change against b4.
    const b5 = body('v5', { 4: 'Host(`four`)', 9: 'Host(`nine`)' }, 420);
    expect((await put(port, b5).finish()).status).toBe(200);
    expect(served(store)).toBe(fresh(b5));
  });
});

describe('format 2 uploads cut off, and what the server prepares after them', () => {
  const runtimeOf = (store: RecordStore) => (store as unknown as { runtime: { lastRecomputed: number } }).runtime;

  for (const when of ['mid-body', 'after the body'] as const) {
    it(`applies small changes incrementally after an upload cut off ${when}`, async () => {
      const { store, port } = await start();
      expect((await put(port, body('v1')).finish()).status).toBe(200);
      const second = body('v2', { 3: 'Host(`changed`)' });
      const upload = put(port, second, { split: when === 'mid-body' ? Math.floor(second.length / 2) : second.length });
      await tick();
      upload.cut();
      await tick(200);
      // Most records change: computed from scratch, then the store prepares for small changes.
      const rules: Record<number, string> = {};
      for (let i = 0; i < 300; i++) rules[i] = `Host(\`x${i}\`)`;
      expect((await put(port, body('v3', rules)).finish()).status).toBe(200);
      expect(runtimeOf(store).lastRecomputed).toBe(-1);
      await tick(100);
      expect((await put(port, body('v4', { ...rules, 5: 'Host(`five`)' })).finish()).status).toBe(200);
      expect(served(store)).toBe(fresh(body('v4', { ...rules, 5: 'Host(`five`)' })));
      expect(runtimeOf(store).lastRecomputed).toBeGreaterThanOrEqual(0);
    });
  }
});
