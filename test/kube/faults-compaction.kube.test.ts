/**
 * Compaction against a real API server with the watch cache off (`--watch-cache=false`, so watches
 * go to etcd and a compacted resourceVersion is answered with 410 Gone instead of being served from
 * the cache's window) and a short `--etcd-compaction-interval`: the operator, cut off while objects
 * change and etcd compacts, must re-list when it is back, dropping what was deleted meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';
import { startControlPlane, type ControlPlane, type TcpProxy } from './control-plane.js';
import {
  createNamespaceWithBackend, ingress, ingressRoute, ingressRouter, ingressesPath, installCrds, kubeRouters, routeRouter, routersBecome,
  routesPath, send,
} from './cluster-objects.js';
import { startPorticoPair, type PorticoPair } from './portico-pair.js';

const NS = 'compaction';
const RECOVERY_MS = 5000;

let cp: ControlPlane;
let proxy: TcpProxy;
let pair: PorticoPair;
const expected = new Set<string>();

function relists(): string[] {
  return pair.operator.lines.filter((l) => l.msg === 'cannot resume from our resourceVersion, re-listing').map((l) => String(l.reason));
}

/** Writes, then waits until etcd has compacted past `rv` (a watch from it is answered with 410). */
async function compactedPast(rv: string): Promise<void> {
  await eventually(async () => {
    const res = await cp.call('GET', `${ingressesPath(NS)}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
    return typeof res.body === 'object' ? res.body?.object?.code === 410 : String(res.body).includes('"code":410');
  }, 30_000, `etcd compacted past ${rv}`, 500);
}

beforeAll(async () => {
  cp = await startControlPlane({ apiServerFlags: ['--watch-cache=false', '--etcd-compaction-interval=2s'] });
  proxy = await cp.startProxy();
  await installCrds(cp);
  await createNamespaceWithBackend(cp, NS);
  for (const i of [1, 2, 3]) {
    await send(cp, 'POST', ingressesPath(NS), ingress(NS, `ing-${i}`, `c${i}.test`), [201]);
    expected.add(ingressRouter(NS, `ing-${i}`, `c${i}.test`));
    await send(cp, 'POST', routesPath(NS), ingressRoute(NS, `ir-${i}`, `cr${i}.test`), [201]);
    expected.add(routeRouter(NS, `ir-${i}`, `cr${i}.test`));
  }
  pair = await startPorticoPair({ kubeconfig: cp.kubeconfig('admin', proxy.server) });
});

afterAll(async () => {
  await pair?.stop();
  await cp?.stop();
});

describe('the operator against a real API server with the watch cache off and fast compaction', () => {
  it('delivers the first sync', async () => {
    await pair.ready();
    await routersBecome(pair, [...expected], 30_000, 'first sync');
  });

  it('cut off while objects change and etcd compacts: 410 Gone on resuming, a re-list, and deletions seen', async () => {
    const { body } = await send(cp, 'GET', ingressesPath(NS)).then((b) => ({ body: b }));
    const rvBefore = String(body.metadata.resourceVersion);
    const before = [...expected].sort();
    const relistsBefore = relists().length;
    proxy.refuse(true);
    await send(cp, 'DELETE', `${ingressesPath(NS)}/ing-1`);
    expected.delete(ingressRouter(NS, 'ing-1', 'c1.test'));
    await send(cp, 'DELETE', `${routesPath(NS)}/ir-1`);
    expected.delete(routeRouter(NS, 'ir-1', 'cr1.test'));
    await send(cp, 'POST', ingressesPath(NS), ingress(NS, 'ing-4', 'c4.test'), [201]);
    expected.add(ingressRouter(NS, 'ing-4', 'c4.test'));
    await compactedPast(rvBefore);
    // Cut off, the operator keeps what it had.
    expect(await kubeRouters(pair)).toEqual(before);
    proxy.refuse(false);
    await routersBecome(pair, [...expected], RECOVERY_MS, 'state after compaction');
    const reasons = relists().slice(relistsBefore);
    expect(reasons.some((r) => r.includes('expired')), JSON.stringify(reasons)).toBe(true);
  });

  it('kube-apiserver restarted with the watch cache off: nothing vanishes, and a change after it is visible within 5 s', async () => {
    await cp.restartApiServer();
    expect(await kubeRouters(pair)).toEqual([...expected].sort());
    await send(cp, 'POST', routesPath(NS), ingressRoute(NS, 'ir-after', 'cr-after.test'), [201]);
    expected.add(routeRouter(NS, 'ir-after', 'cr-after.test'));
    await routersBecome(pair, [...expected], RECOVERY_MS, 'change after the restart');
  });
});
