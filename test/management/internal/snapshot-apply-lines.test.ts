import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/create-app.js';
import type { ProviderSnapshot } from '../../../src/dynamic-config/configuration.js';
import { registerInternalRoutes } from '../../../src/management/internal/routes.js';
import { RecordStore } from '../../../src/management/record-store.js';
import type { RuntimeView } from '../../../src/management/view/runtime-view.js';
import { SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineDecoder } from '../../../src/dynamic-config/snapshot/lines.js';
import { validateProviderSnapshot } from '../../../src/dynamic-config/validation.js';
import { silentLogger, TRAEFIK, WEB, WEBSECURE } from '../helpers.js';

// Format 2 bodies made of arbitrary lines (TCP and UDP records, TLS and servers
// transports, server states under bare and qualified names, whole maps in one line, bad names),
// each the previous one edited: the incremental apply must serve and refuse exactly what a store
// given each accepted body from scratch serves and refuses.

const line = (path: string[], value: unknown) => `${JSON.stringify(path)}\t${JSON.stringify(value)}`;
const filler: string[] = [];
for (let i = 0; i < 40; i++) {
  filler.push(line(['configuration', 'http', 'routers', `f${i}`], { rule: `Host(\`f${i}\`)`, service: i % 2 === 0 ? 's' : 'ws' }));
}
const palette = [
  line(['configuration', 'http', 'routers', 'r'], { rule: 'Host(`r`)', service: 's' }),
  line(['configuration', 'http', 'routers', 'r'], { rule: 'Host(`r2`)', service: 'ws', middlewares: ['m'] }),
  line(['configuration', 'http', 'routers', 'p'], { rule: 'Host(`p`)' }),
  line(['configuration', 'http', 'routers', 'c'], { rule: 'Host(`c`)', parentRefs: ['p'] }),
  line(['configuration', 'http', 'services', 's'], { loadBalancer: { servers: [{ url: 'http://a' }] } }),
  line(['configuration', 'http', 'services', 's'], { loadBalancer: { servers: [{ url: 'http://a' }, { url: 'http://b' }] } }),
  line(['configuration', 'http', 'services', 'ws'], { weighted: { services: [{ name: 's', weight: 1 }, { name: 'ws' }] } }),
  line(['configuration', 'http', 'services', 'ws'], { weighted: { services: [{ name: 's', weight: 1 }] } }),
  line(['configuration', 'http', 'middlewares', 'm'], { stripPrefix: { prefixes: ['/x'] } }),
  line(['configuration', 'http', 'middlewares', 'm'], { chain: { middlewares: ['m'] } }),
  line(['configuration', 'http', 'routers'], { q: { rule: 'Host(`q`)', service: 's' } }),
  line(['configuration', 'http', 'services'], {}),
  line(['configuration', 'tcp', 'routers', 't'], { rule: 'HostSNI(`*`)', service: 'ts' }),
  line(['configuration', 'tcp', 'routers', 't'], { rule: 'HostSNI(`*`)', service: 'nope', entryPoints: ['web'] }),
  line(['configuration', 'tcp', 'services', 'ts'], { loadBalancer: { servers: [{ address: '10.0.0.1:80' }] } }),
  line(['configuration', 'tcp', 'services', 'ts'], { weighted: { services: [{ name: 'ts' }] } }),
  line(['configuration', 'udp', 'routers', 'u'], { service: 'us' }),
  line(['configuration', 'udp', 'services', 'us'], { loadBalancer: { servers: [{ address: '10.0.0.1:53' }] } }),
  line(['configuration', 'tls', 'options', 'o'], { minVersion: 'VersionTLS12' }),
  line(['configuration', 'http', 'serversTransports', 'st'], { insecureSkipVerify: true }),
  line(['serverStatus', 's'], { 'http://a': 'UP' }),
  line(['serverStatus', 's'], { 'http://a': 'DOWN', 'http://b': 'UP' }),
  line(['serverStatus', 's@kubernetes'], { 'http://a': 'DOWN' }),
  line(['serverStatus', 'ts'], { '10.0.0.1:80': 'DOWN' }),
  line(['configuration', 'http', 'routers', 'x@y'], { rule: 'Host(`x`)' }),
  line(['configuration', 'http', 'routers', 'bad'], { rule: 7 }),
  line(['serverStatus', 'bad'], { 'http://a': 'MAYBE' }),
  line(['configuration', 'tcp', 'middlewares', 'tm'], { ipAllowList: { sourceRange: ['10.0.0.0/8'] } }),
];

const edit = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), line: fc.constantFrom(...palette) }),
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), line: fc.constantFrom(...palette) }),
  fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
);

function served(view: RuntimeView): string {
  const parts = [view.rawdata().toString('utf8')];
  for (const kind of [view.http.routers, view.http.services, view.http.middlewares, view.tcp.routers, view.tcp.services, view.tcp.middlewares, view.udp.routers, view.udp.services]) {
    for (const e of kind.entries) parts.push(e.json);
    for (const key of ['priority', 'status', 'rule', 'service', 'name', 'provider']) parts.push(kind.ascending(key).map((e) => e.name).join());
  }
  return parts.join('\n');
}

const storeOptions = { entryPoints: [WEB, WEBSECURE, TRAEFIK], now: () => 0 };

describe('applying arbitrary format 2 lines', () => {
  it('serves and refuses what a store given each body from scratch does', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.array(edit, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }), fc.boolean(), async (steps, prepare) => {
      const store = new RecordStore(storeOptions);
      const app = createApp('internal', silentLogger, { bodyLimit: 1024 * 1024 });
      registerInternalRoutes(app, { store, token: 't' });
      let accepted: ProviderSnapshot | undefined;
      let lines = [palette[0] as string, palette[4] as string, ...filler];
      let n = 0;
      for (const edits of [[], ...steps]) {
        const next = [...lines];
        for (const e of edits) {
          const at = next.length === 0 ? 0 : e.at % next.length;
          if (e.op === 'drop') next.splice(at, 1);
          else if (e.op === 'insert') next.splice(at, 0, e.line);
          else if (e.op === 'replace') next[at] = e.line;
          else next.splice(e.to % (next.length || 1), 0, ...next.splice(at, 1));
        }
        const body = [line(['version'], `v${n++}`), ...next].join('\n');
        let expected: { ok: ProviderSnapshot } | { error: string };
        try {
          expected = { ok: validateProviderSnapshot(new SnapshotLineDecoder().decode(body).value) };
        } catch (err) {
          expected = { error: (err as Error).message };
        }
        const res = await app.inject({
          method: 'PUT', url: '/internal/v1/providers/kubernetes', payload: body,
          headers: { authorization: 'Bearer t', 'content-type': SNAPSHOT_LINES_MEDIA_TYPE },
        });
        if ('error' in expected) {
          expect(res.json<{ message: string }>().message).toBe(expected.error);
          expect(res.statusCode).toBe(400);
        } else {
          expect(res.statusCode).toBe(200);
          accepted = expected.ok;
          lines = next;
        }
        if (prepare) await new Promise((resolve) => setImmediate(resolve));
        const fresh = new RecordStore(storeOptions);
        if (accepted !== undefined) fresh.set('kubernetes', structuredClone(accepted));
        expect(served(store.view)).toBe(served(fresh.view));
      }
      await app.close();
    }), { numRuns: 60 });
  }, 120_000);
});
