import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../../src/http/create-app.js';
import type { ProviderSnapshot } from '../../../../src/dynamic-config/configuration.js';
import { SNAPSHOT_DELTA_MEDIA_TYPE } from '../../../../src/dynamic-config/snapshot/delta.js';
import { SnapshotLineEncoder, type EncodedSnapshot } from '../../../../src/dynamic-config/snapshot/lines.js';
import { registerInternalRoutes } from '../../../../src/management/internal/routes.js';
import { RecordStore } from '../../../../src/management/record-store.js';
import { SnapshotDelivery, type FetchLike } from '../../../../src/providers/kubernetes/deliver/snapshot-delivery.js';
import type { SnapshotBody } from '../../../../src/providers/kubernetes/translate/snapshot-assembly.js';
import { silentLogger, TRAEFIK, WEB, WEBSECURE } from '../../../management/helpers.js';

// The operator's deltas against the server's real internal route: whatever the changes, the
// server ends with the snapshot sent whole would have given it.

const storeOptions = { entryPoints: [WEB, WEBSECURE, TRAEFIK], now: () => 0 };

function server() {
  const store = new RecordStore(storeOptions);
  const app = createApp('internal', silentLogger, { bodyLimit: 16 * 1024 * 1024 });
  registerInternalRoutes(app, { store, token: 't' });
  const kinds: string[] = [];
  const fetch: FetchLike = async (url, init) => {
    const pieces: Buffer[] = [];
    for await (const c of init.body ?? []) pieces.push(Buffer.from(c));
    kinds.push(`${init.headers['Content-Type'] === SNAPSHOT_DELTA_MEDIA_TYPE ? 'delta' : 'whole'}`);
    const res = await app.inject({ method: init.method as 'PUT', url: new URL(url).pathname, headers: init.headers, ...(init.method === 'PUT' ? { payload: Buffer.concat(pieces) } : {}) });
    kinds[kinds.length - 1] += ` ${res.statusCode}`;
    return { status: res.statusCode, text: async () => res.body };
  };
  return { store, fetch, kinds };
}

function routers(n: number, rule: (i: number) => string): ProviderSnapshot {
  const r: Record<string, { rule: string; service: string }> = {};
  for (let i = 0; i < n; i++) r[`r${i}`] = { rule: rule(i), service: 's' };
  return { configuration: { http: { routers: r, services: { s: { loadBalancer: { servers: [{ url: 'http://10.0.0.1' }] } } } } } };
}

/** A laid-out body as the assembly makes one: lines in chunks of three, a chunk's Buffer kept while its text is unchanged. */
function laidOut(encoded: EncodedSnapshot, kept: Map<string, Buffer>): SnapshotBody {
  const chunks: Buffer[] = [Buffer.from(`["version"]\t${JSON.stringify(encoded.version)}\n`)];
  for (let i = 0; i < encoded.lines.length; i += 3) {
    const text = `${encoded.lines.slice(i, i + 3).join('\n')}\n`;
    let b = kept.get(text);
    if (b === undefined) kept.set(text, (b = Buffer.from(text)));
    chunks.push(b);
  }
  return { version: encoded.version, chunks };
}

function delivery(fetch: FetchLike): SnapshotDelivery {
  return new SnapshotDelivery({ serverUrl: 'http://server:8081' }, { fetch, readToken: async () => 't', logger: pino({ level: 'silent' }), sleep: async () => undefined }, new AbortController().signal);
}

describe('snapshot deltas', () => {
  it('leave the server with the snapshot a whole body gives, for plain and laid-out bodies, changes of any kind (property)', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ n: fc.integer({ min: 0, max: 40 }), salt: fc.integer({ min: 0, max: 3 }), every: fc.integer({ min: 1, max: 7 }) }), { minLength: 1, maxLength: 6 }),
      fc.boolean(),
      async (steps, asLaidOut) => {
        const live = server();
        const d = delivery(live.fetch);
        const encoder = new SnapshotLineEncoder();
        const kept = new Map<string, Buffer>();
        for (const step of steps) {
          const snap = routers(step.n, (i) => `Host(\`h${i % step.every === 0 ? step.salt : 0}-${i}\`)`);
          const encoded = encoder.encode({ configuration: snap.configuration, serverStatus: {} }, { configuration: 3, serverStatus: 1 });
          await d.deliver('kubernetes', asLaidOut ? laidOut(encoded, kept) : snap);
          const fresh = new RecordStore(storeOptions);
          fresh.set('kubernetes', structuredClone(snap));
          expect(live.store.view.rawdata().toString('utf8')).toBe(fresh.view.rawdata().toString('utf8'));
        }
        // Every body after the first accepted one went as a delta (an unchanged one is not sent).
        expect(live.kinds.slice(1).every((k) => k === 'delta 200')).toBe(true);
      },
    ), { numRuns: 40 });
  });

  it('sends the whole body after a 412 from a server that holds another version (restarted)', async () => {
    let live = server();
    const d = delivery((url, init) => live.fetch(url, init));
    await d.deliver('kubernetes', routers(5, (i) => `Host(\`a${i}\`)`));
    live = server(); // a restart: the new server holds nothing
    const next = routers(6, (i) => `Host(\`b${i}\`)`);
    await d.deliver('kubernetes', next);
    expect(live.kinds).toEqual(['delta 412', 'whole 200']);
    const fresh = new RecordStore(storeOptions);
    fresh.set('kubernetes', structuredClone(next));
    expect(live.store.view.rawdata().toString('utf8')).toBe(fresh.view.rawdata().toString('utf8'));
    await d.deliver('kubernetes', routers(6, (i) => `Host(\`c${i}\`)`));
    expect(live.kinds).toEqual(['delta 412', 'whole 200', 'delta 200']);
  });
});
