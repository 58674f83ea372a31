/**
 * Faults against a real kube-apiserver and etcd, with the real `portico serve` and `portico
 * operator` (dist/cli.js): the operator talks to the API server through a TCP proxy the tests can
 * cut. Before and after each fault the management API's records (`/api/rawdata`) must equal what
 * the cluster defines; during a fault nothing may vanish, and after recovery a change must be
 * visible within 5 s (the bound). The tests run in order and share one cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane, type TcpProxy } from './control-plane.js';
import {
  createNamespaceWithBackend, deleteCrd, ingress, ingressRoute, ingressRouter, ingressesPath, installCrds, kubeRouters,
  routeRouter, routersBecome, routesPath, send,
} from './cluster-objects.js';
import { startPorticoPair, type PorticoPair } from './portico-pair.js';

const NS = 'faults';
/** After recovery, what the cluster defines must be visible within this (ms). */
const RECOVERY_MS = 5000;

let cp: ControlPlane;
let proxy: TcpProxy;
let pair: PorticoPair;
/** Router name -> the object that defines it, kept equal to what the tests have written. */
const expected = new Map<string, string>();

async function addIngress(ns: string, name: string, host: string): Promise<void> {
  await send(cp, 'POST', ingressesPath(ns), ingress(ns, name, host), [201]);
  expected.set(ingressRouter(ns, name, host), `${ns}/ingress/${name}`);
}

async function addRoute(ns: string, name: string, host: string): Promise<void> {
  await send(cp, 'POST', routesPath(ns), ingressRoute(ns, name, host), [201]);
  expected.set(routeRouter(ns, name, host), `${ns}/ingressroute/${name}`);
}

/** Points an existing IngressRoute at another host (its router name changes with the match). */
async function moveRoute(ns: string, name: string, from: string, to: string): Promise<void> {
  await send(cp, 'PATCH', `${routesPath(ns)}/${name}`, { spec: { routes: [{ match: `Host(\`${to}\`)`, kind: 'Rule', services: [{ name: 'web', port: 80 }] }] } });
  expected.delete(routeRouter(ns, name, from));
  expected.set(routeRouter(ns, name, to), `${ns}/ingressroute/${name}`);
}

function forget(prefix: string): void {
  for (const [router, source] of expected) if (source.startsWith(prefix)) expected.delete(router);
}

const want = () => [...expected.keys()];

/**
 * Samples the records every 100 ms while `fault` runs and returns the routers of `mustStay` that
 * were missing from any sample: a fault of the API server must never remove records.
 */
async function missingDuring(mustStay: readonly string[], fault: () => Promise<void>): Promise<string[]> {
  const missing = new Set<string>();
  let running = true;
  const sampler = (async () => {
    while (running) {
      const seen = new Set(await kubeRouters(pair).catch(() => mustStay));
      for (const n of mustStay) if (!seen.has(n)) missing.add(n);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await fault();
  } finally {
    running = false;
    await sampler;
  }
  return [...missing];
}

function operatorSaid(text: string): number {
  return pair.operator.logged(text).length;
}

beforeAll(async () => {
  cp = await startControlPlane();
  proxy = await cp.startProxy();
  await installCrds(cp);
  await createNamespaceWithBackend(cp, NS);
  for (const i of [1, 2, 3]) await addIngress(NS, `ing-${i}`, `h${i}.test`);
  for (const i of [1, 2]) await addRoute(NS, `ir-${i}`, `r${i}.test`);
  pair = await startPorticoPair({ kubeconfig: cp.kubeconfig('admin', proxy.server) });
});

afterAll(async () => {
  await pair?.stop();
  await cp?.stop();
});

describe('the operator against a real API server, through faults', () => {
  it('delivers what the cluster defines before any fault and becomes ready', async () => {
    await pair.ready();
    await routersBecome(pair, want(), 30_000, 'first sync');
    const { body } = await pair.get(`/api/http/routers/${encodeURIComponent(ingressRouter(NS, 'ing-1', 'h1.test'))}`);
    expect(body).toMatchObject({ status: 'enabled', service: `${NS}-web-http`, rule: 'Host("h1.test") && PathPrefix("/")' });
  });

  it('a watch connection cut mid-stream: the operator reconnects and a later change is visible', async () => {
    expect(proxy.connections).toBeGreaterThan(0);
    expect(proxy.cut()).toBeGreaterThan(0);
    await addIngress(NS, 'ing-cut', 'cut.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'change after a cut');
  });

  it('the API server unreachable for the operator: records stay, and changes made meanwhile arrive when it is back', async () => {
    const before = want();
    const missing = await missingDuring(before, async () => {
      proxy.refuse(true);
      await addRoute(NS, 'ir-away', 'away.test');
      await moveRoute(NS, 'ir-2', 'r2.test', 'r2b.test');
      await new Promise((r) => setTimeout(r, 2000));
      expect(await kubeRouters(pair)).toEqual([...before].sort());
      proxy.refuse(false);
    });
    expect(missing).toEqual([]);
    await routersBecome(pair, want(), RECOVERY_MS, 'changes made while unreachable');
  });

  it('kube-apiserver restarted (SIGTERM): nothing vanishes, and a change after it is visible within 5 s', async () => {
    const missing = await missingDuring(want(), () => cp.restartApiServer());
    expect(missing).toEqual([]);
    await addIngress(NS, 'ing-after-restart', 'after-restart.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'change after the restart');
  });

  it('kube-apiserver killed (SIGKILL) and down for 3 s: nothing vanishes, a change after it is visible within 5 s', async () => {
    const missing = await missingDuring(want(), () => cp.restartApiServer({ kill: true, downMs: 3000 }));
    expect(missing).toEqual([]);
    await moveRoute(NS, 'ir-1', 'r1.test', 'r1-after-kill.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'change after the kill');
  });

  it('etcd restarted under the API server: nothing vanishes, a change after it is visible within 5 s', async () => {
    const missing = await missingDuring(want(), () => cp.restartEtcd({ downMs: 1000 }));
    expect(missing).toEqual([]);
    await addRoute(NS, 'ir-after-etcd', 'after-etcd.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'change after the etcd restart');
  });

  it('the IngressRoute CRD deleted: its objects go and so do their records (Ingress records stay); re-created, they come back', async () => {
    const ingresses = want().filter((n) => n.endsWith('@kubernetes'));
    const missing = await missingDuring(ingresses, async () => {
      await deleteCrd(cp, 'ingressroutes.portico.dev');
      forget(`${NS}/ingressroute/`);
      await routersBecome(pair, want(), RECOVERY_MS, 'records of the deleted CRD gone');
    });
    expect(missing).toEqual([]);
    await installCrds(cp);
    // The new CRD's first writes may meet 404 or 429 while its handler and watch cache start (send retries).
    await addRoute(NS, 'ir-reborn', 'reborn.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'records of the re-created CRD');
    await addRoute(NS, 'ir-reborn-2', 'reborn2.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'a second object of the re-created CRD');
  });

  it('a namespace removed: records stay while its objects do, go with them, and come back with a new namespace of that name', async () => {
    const ns = 'short-lived';
    await createNamespaceWithBackend(cp, ns);
    await addIngress(ns, 'ing', 'short.test');
    await addRoute(ns, 'ir', 'short-route.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'the namespace\'s records');
    // Without a controller-manager the namespace stays Terminating and its objects stay: so must their records.
    const deleted = await send(cp, 'DELETE', `/api/v1/namespaces/${ns}`, undefined, [200, 202]);
    expect(deleted.status?.phase).toBe('Terminating');
    await new Promise((r) => setTimeout(r, 1000));
    await routersBecome(pair, want(), RECOVERY_MS, 'records of a Terminating namespace\'s objects');
    // What the namespace controller does: delete the objects, then finalize the namespace.
    await send(cp, 'DELETE', `${ingressesPath(ns)}/ing`);
    await send(cp, 'DELETE', `${routesPath(ns)}/ir`);
    const current = await send(cp, 'GET', `/api/v1/namespaces/${ns}`);
    await send(cp, 'PUT', `/api/v1/namespaces/${ns}/finalize`, { ...current, spec: { finalizers: [] } });
    await expect.poll(async () => (await cp.call('GET', `/api/v1/namespaces/${ns}`)).status, { timeout: 30_000 }).toBe(404);
    forget(`${ns}/`);
    await routersBecome(pair, want(), RECOVERY_MS, 'records of the removed namespace gone');
    await createNamespaceWithBackend(cp, ns);
    await addIngress(ns, 'ing-2', 'short-again.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'records in the re-created namespace');
  });

  it('etcd wiped and the API server restarted: the operator sees the history replaced, re-lists without a restart, and follows the new cluster', async () => {
    const pid = pair.operator.child.pid;
    const relistsBefore = operatorSaid('cannot resume from our resourceVersion');
    await cp.wipeEtcd();
    // The new cluster defines nothing of ours (not even the CRDs).
    expected.clear();
    await routersBecome(pair, [], RECOVERY_MS, 'records of the lost cluster gone');
    expect(operatorSaid('cannot resume from our resourceVersion')).toBeGreaterThan(relistsBefore);
    await installCrds(cp);
    await createNamespaceWithBackend(cp, NS);
    await addIngress(NS, 'ing-new-world', 'new-world.test');
    await addRoute(NS, 'ir-new-world', 'new-world-route.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'records of the new cluster');
    await addIngress(NS, 'ing-new-world-2', 'new-world-2.test');
    await routersBecome(pair, want(), RECOVERY_MS, 'a later change in the new cluster');
    expect(pair.operator.child.pid).toBe(pid);
    expect(pair.operator.child.exitCode).toBeNull();
  });
});
