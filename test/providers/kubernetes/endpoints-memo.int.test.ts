import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { operatorCommandFlags } from '../../../src/flag-groups.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { ClusterIndex } from '../../../src/providers/kubernetes/watch/cluster-index.js';
import type { Service } from '../../../src/providers/kubernetes/client/kube-objects.js';
import { runOperator } from '../../../src/providers/kubernetes/run-operator.js';
import { FakeKubeApiServer, fakeKubeconfig, type Obj } from '../../support/fake-kube-apiserver.js';
import { eventually, FakeInternalEndpoint } from './fake-internal-endpoint.js';

// The resolved-servers memo of the cluster index keeps an entry per Service
// port ever resolved until prune() drops them. With incremental reconciles (no full translation
// while the resync is off), Services coming and going must not grow it without bound.

const service = (i: number): Obj => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: `s${i}`, namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } });
const ingress = (i: number): Obj => ({
  apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: `ing${i}`, namespace: 'default' },
  spec: { rules: [{ host: `h${i}.test`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `s${i}`, port: { name: 'http' } } } }] } }] },
});

describe('operator memory across many changes', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    vi.restoreAllMocks();
  });

  it('does not keep resolved servers of Services that are gone', async () => {
    const indexes = new Set<ClusterIndex>();
    const upsert = ClusterIndex.prototype.upsertService;
    vi.spyOn(ClusterIndex.prototype, 'upsertService').mockImplementation(function (this: ClusterIndex, svc: Service) {
      indexes.add(this);
      upsert.call(this, svc);
    });
    const kube = new FakeKubeApiServer({ bookmarkIntervalMs: 200 });
    await kube.start();
    cleanup.push(() => kube.close());
    const endpoint = new FakeInternalEndpoint('secret-token');
    await endpoint.start();
    cleanup.push(() => endpoint.close());
    const dir = mkdtempSync(join(tmpdir(), 'portico-endpoints-memo-'));
    writeFileSync(join(dir, 'kubeconfig'), fakeKubeconfig(kube.url));
    writeFileSync(join(dir, 'internal-token'), 'secret-token\n');
    kube.applyAll([service(0), ingress(0)]);
    const config = loadConfig(operatorCommandFlags, {
      argv: [
        '--kubeconfig', join(dir, 'kubeconfig'), '--data.dir', dir, '--operator.server-url', endpoint.url,
        '--operator.debounce', '20ms', '--operator.delivery-check', '100ms', '--operator.resync', '0s',
      ],
      env: {},
      readFile: () => '',
    });
    const controller = new AbortController();
    const done = runOperator(config, { logger: pino({ level: 'silent' }), now: Date.now, signal: controller.signal, tuneHeap: false });
    cleanup.push(async () => {
      controller.abort();
      await done;
    });
    const routers = () => endpoint.snapshots.get('kubernetes')?.configuration.http?.routers ?? {};
    await eventually(() => routers()['default-ing0-h0-test'], 20_000, 'first router');
    // Services (with an Ingress each) come and go, a few at a time.
    for (let round = 0; round < 20; round++) {
      const ids = Array.from({ length: 20 }, (_, k) => 1 + round * 20 + k);
      kube.applyAll(ids.flatMap((i) => [service(i), ingress(i)]));
      await eventually(() => routers()[`default-ing${ids[19]}-h${ids[19]}-test`], 20_000, `round ${round} added`);
      for (const i of ids) {
        kube.remove('networking.k8s.io/v1', 'Ingress', 'default', `ing${i}`);
        kube.remove('v1', 'Service', 'default', `s${i}`);
      }
      await eventually(() => routers()[`default-ing${ids[19]}-h${ids[19]}-test`] === undefined || undefined, 20_000, `round ${round} removed`);
    }
    expect(indexes.size).toBe(1);
    const [index] = [...indexes] as [ClusterIndex];
    // What prune() allows: four entries per Service still there, plus some slack.
    expect(index.memo.size).toBeLessThanOrEqual(4 * (1 + 64));
  }, 60_000);
});
