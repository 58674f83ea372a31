/**
 * 5,000 objects changed while the operator restarts, against a real API server: the operator is
 * stopped, the changes start, the operator starts again while they are under way (its list meets
 * them), and afterwards its records must equal a full recomputation: a second, fresh serve and
 * operator pair started on the final cluster, whose `/api/rawdata` must be the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import {
  createNamespaceWithBackend, ingress, ingressRoute, ingressRouter, ingressesPath, installCrds, parallel, routeRouter, routersBecome,
  routesPath, send,
} from './cluster-objects.js';
import { startPorticoPair, type Json, type PorticoPair } from './portico-pair.js';

const NAMESPACES = 10;
const EACH = 2500;
const ns = (i: number) => `bulk-${i % NAMESPACES}`;

let cp: ControlPlane;
const pairs: PorticoPair[] = [];
/** Router name -> defined, kept equal to the cluster. */
const expected = new Set<string>();

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp);
  for (let i = 0; i < NAMESPACES; i++) await createNamespaceWithBackend(cp, ns(i));
  const indexes = Array.from({ length: EACH }, (_, i) => i);
  await parallel(indexes, 32, async (i) => {
    await send(cp, 'POST', ingressesPath(ns(i)), ingress(ns(i), `ing-${i}`, `i${i}.test`), [201]);
    await send(cp, 'POST', routesPath(ns(i)), ingressRoute(ns(i), `ir-${i}`, `r${i}.test`), [201]);
  });
  for (const i of indexes) {
    expected.add(ingressRouter(ns(i), `ing-${i}`, `i${i}.test`));
    expected.add(routeRouter(ns(i), `ir-${i}`, `r${i}.test`));
  }
}, 600_000);

afterAll(async () => {
  for (const p of pairs) await p.stop();
  await cp?.stop();
});

/** The 5,000 changes: hosts of 1,500 Ingresses and 1,500 IngressRoutes changed, 500 of each deleted, 500 of each added. */
function changes(): (() => Promise<void>)[] {
  const out: (() => Promise<void>)[] = [];
  for (let i = 0; i < 1500; i++) {
    out.push(async () => {
      await send(cp, 'PATCH', `${ingressesPath(ns(i))}/ing-${i}`, { spec: ingress(ns(i), `ing-${i}`, `i${i}-changed.test`).spec });
      expected.delete(ingressRouter(ns(i), `ing-${i}`, `i${i}.test`));
      expected.add(ingressRouter(ns(i), `ing-${i}`, `i${i}-changed.test`));
    });
    out.push(async () => {
      await send(cp, 'PATCH', `${routesPath(ns(i))}/ir-${i}`, { spec: ingressRoute(ns(i), `ir-${i}`, `r${i}-changed.test`).spec });
      expected.delete(routeRouter(ns(i), `ir-${i}`, `r${i}.test`));
      expected.add(routeRouter(ns(i), `ir-${i}`, `r${i}-changed.test`));
    });
  }
  for (let i = 1500; i < 2000; i++) {
    out.push(async () => {
      await send(cp, 'DELETE', `${ingressesPath(ns(i))}/ing-${i}`);
      expected.delete(ingressRouter(ns(i), `ing-${i}`, `i${i}.test`));
    });
    out.push(async () => {
      await send(cp, 'DELETE', `${routesPath(ns(i))}/ir-${i}`);
      expected.delete(routeRouter(ns(i), `ir-${i}`, `r${i}.test`));
    });
  }
  for (let i = EACH; i < EACH + 500; i++) {
    out.push(async () => {
      await send(cp, 'POST', ingressesPath(ns(i)), ingress(ns(i), `ing-${i}`, `i${i}.test`), [201]);
      expected.add(ingressRouter(ns(i), `ing-${i}`, `i${i}.test`));
    });
    out.push(async () => {
      await send(cp, 'POST', routesPath(ns(i)), ingressRoute(ns(i), `ir-${i}`, `r${i}.test`), [201]);
      expected.add(routeRouter(ns(i), `ir-${i}`, `r${i}.test`));
    });
  }
  // Interleaved, so that every kind of change is under way when the operator starts again.
  return out.map((c, k) => ({ c, k: (k * 7919) % out.length })).sort((a, b) => a.k - b.k).map((x) => x.c);
}

/** The first key path where two JSON values differ, or undefined. */
function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b) ? undefined : `${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const d = firstDifference((a as Json)[k], (b as Json)[k], `${path}/${k}`);
    if (d !== undefined) return d;
  }
  return undefined;
}

describe('5,000 changes while the operator restarts, against a real API server', () => {
  it('the restarted operator\'s records equal those of a fresh operator on the final cluster', async () => {
    const first = await startPorticoPair({ kubeconfig: cp.kubeconfig('admin') });
    pairs.push(first);
    await first.ready(60_000);
    await routersBecome(first, [...expected], 60_000, 'first sync of 5,000 objects');

    await first.stopOperator();
    const todo = changes();
    expect(todo).toHaveLength(5000);
    let done = 0;
    let failed = false;
    const writing = parallel(todo, 32, async (change) => {
      await change();
      done++;
    }).catch((err: unknown) => {
      failed = true;
      throw err;
    });
    // Start again once a third of the changes are made: its list and watch meet the rest.
    while (done < todo.length / 3 && !failed) await new Promise((r) => setTimeout(r, 50));
    await first.startOperator();
    await writing;
    await routersBecome(first, [...expected], 30_000, 'records after the changes');

    const fresh = await startPorticoPair({ kubeconfig: cp.kubeconfig('admin') });
    pairs.push(fresh);
    await fresh.ready(60_000);
    await routersBecome(fresh, [...expected], 60_000, 'the fresh operator\'s records');
    const [a, b] = [(await first.get('/api/rawdata')).body, (await fresh.get('/api/rawdata')).body];
    expect(Object.keys(a.routers as Json).length).toBeGreaterThanOrEqual(2 * EACH);
    expect(firstDifference(a, b)).toBeUndefined();
  }, 600_000);
});
