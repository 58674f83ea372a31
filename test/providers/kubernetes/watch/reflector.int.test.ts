import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeConfigApi } from '../../../../src/providers/kubernetes/client/kube-client.js';
import type { KubeObject } from '../../../../src/providers/kubernetes/client/kube-objects.js';
import { slim } from '../../../../src/providers/kubernetes/watch/object-slimming.js';
import { Reflector, type ResourceType } from '../../../../src/providers/kubernetes/watch/reflector.js';
import { sleep } from '../../../../src/providers/kubernetes/run-operator.js';
import { FakeKubeApiServer, fakeKubeconfig } from '../../../support/fake-kube-apiserver.js';
import { eventually } from '../fake-internal-endpoint.js';

const INGRESS: ResourceType = { id: 'ingresses', group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespaced: true };

function ingress(name: string, ns = 'default', labels: Record<string, string> = {}) {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, namespace: ns, labels }, spec: { rules: [] } };
}

describe('reflector against the fake API server', () => {
  let server: FakeKubeApiServer;
  let controller: AbortController;
  let store: Map<string, KubeObject>;
  let lists: number;
  let running: Promise<void>;

  beforeEach(async () => {
    server = new FakeKubeApiServer({ bookmarkIntervalMs: 50 });
    await server.start();
    running = Promise.resolve();
    controller = new AbortController();
    store = new Map();
    lists = 0;
  });

  afterEach(async () => {
    controller.abort();
    await running;
    await server.close();
  });

  function start(options: { namespace?: string; labelSelector?: string; pageSize?: number } = {}) {
    const kc = new KubeConfig();
    kc.loadFromString(fakeKubeconfig(server.url));
    const key = (o: KubeObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;
    const reflector = new Reflector(INGRESS, options.namespace, {
      intake: slim,
      replace: (items) => {
        store.clear();
        for (const i of items) store.set(key(i), i);
      },
      upsert: (o) => store.set(key(o), o),
      remove: (o) => store.delete(key(o)),
      listed: () => lists++,
    }, { api: new KubeConfigApi(kc), logger: pino({ level: 'silent' }), sleep, random: () => 0.5 },
    { labelSelector: options.labelSelector, pageSize: options.pageSize ?? 2, backoffInitialMs: 20, backoffMaxMs: 100 });
    running = reflector.run(controller.signal);
  }

  it('lists in pages, then follows adds, changes and deletes', async () => {
    for (const n of ['a', 'b', 'c', 'd', 'e']) server.apply(ingress(n));
    start();
    await eventually(() => store.size === 5, 20_000, 'initial list');
    expect(server.count('LIST Ingress')).toBe(3); // pages of 2
    expect(store.get('default/a')?.kind).toBe('Ingress'); // list items get their kind back
    server.apply({ ...ingress('f') });
    server.remove('networking.k8s.io/v1', 'Ingress', 'default', 'a');
    await eventually(() => store.size === 5 && store.has('default/f') && !store.has('default/a'), 20_000, 'watch events');
  });

  it('resumes from the last resourceVersion after a watch is killed mid-stream, without re-listing', async () => {
    server.apply(ingress('a'));
    start();
    await eventually(() => server.activeWatches === 1, 20_000, 'watch');
    expect(server.killWatches()).toBe(1);
    server.apply(ingress('b'));
    await eventually(() => store.has('default/b'), 20_000, 'event after reconnect');
    expect(lists).toBe(1);
    expect(server.count('WATCH Ingress')).toBeGreaterThanOrEqual(2);
  });

  it('re-lists after 410 Gone (compacted history) and drops what disappeared meanwhile', async () => {
    server.apply(ingress('a'));
    server.apply(ingress('b'));
    start();
    await eventually(() => store.size === 2 && server.activeWatches === 1, 20_000, 'sync');
    server.killWatches();
    server.remove('networking.k8s.io/v1', 'Ingress', 'default', 'a');
    server.apply(ingress('c'));
    server.compact();
    await eventually(() => lists === 2, 20_000, 're-list');
    await eventually(() => store.size === 2 && store.has('default/c') && !store.has('default/a'), 20_000, 'state after re-list');
  });

  it('re-lists when the server sends an ERROR 410 event on an open watch', async () => {
    start();
    await eventually(() => server.activeWatches === 1, 20_000, 'watch');
    server.expireWatches();
    await eventually(() => lists === 2, 20_000, 're-list');
  });

  it('keeps up with bookmarks so a reconnect after quiet time needs no re-list', async () => {
    server.apply(ingress('a'));
    start();
    await eventually(() => server.activeWatches === 1, 20_000, 'watch');
    // Writes to another resource move the global resourceVersion; bookmarks carry it to us.
    for (let i = 0; i < 5; i++) server.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: `s${i}`, namespace: 'default' }, spec: {} });
    await new Promise((r) => setTimeout(r, 150));
    server.killWatches();
    await eventually(() => server.activeWatches === 1, 20_000, 're-watch');
    expect(lists).toBe(1);
  });

  it('retries with backoff through API errors and a server restart', async () => {
    server.failNext(3, 500);
    server.apply(ingress('a'));
    start();
    await eventually(() => store.size === 1, 20_000, 'list after failures');
    await server.restart({ downMs: 100 });
    server.apply(ingress('b'));
    await eventually(() => store.has('default/b'), 20_000, 'event after restart');
  });

  it('honours namespace and label selector', async () => {
    server.apply(ingress('a', 'default', { team: 'x' }));
    server.apply(ingress('b', 'default', { team: 'y' }));
    server.apply(ingress('c', 'other', { team: 'x' }));
    start({ namespace: 'default', labelSelector: 'team=x' });
    await eventually(() => store.size === 1 && store.has('default/a'), 20_000, 'filtered list');
    server.apply(ingress('b', 'default', { team: 'x' })); // now matches: arrives as ADDED
    await eventually(() => store.has('default/b'), 20_000, 'relabel');
    server.apply(ingress('a', 'default', { team: 'z' })); // no longer matches: arrives as DELETED
    await eventually(() => !store.has('default/a'), 20_000, 'unlabel');
  });

  it('re-lists when the API server comes back on a wiped etcd, whose resourceVersions are behind ours', async () => {
    for (let i = 0; i < 50; i++) server.apply(ingress(`old-${i}`));
    start();
    await eventually(() => store.size === 50 && server.activeWatches === 1, 20_000, 'sync');
    server.wipe(100);
    await server.restart({ downMs: 50 });
    server.apply(ingress('new'));
    // A watch from the old resourceVersion would wait silently; the reflector sees the server behind
    // it after reconnecting and lists again.
    await eventually(() => store.size === 1 && store.has('default/new'), 20_000, 'state of the new cluster');
    expect(lists).toBe(2);
    server.apply(ingress('later'));
    await eventually(() => store.has('default/later'), 20_000, 'watch from the new history');
  });

  it('re-lists on 504 "Too large resource version" on a watch, as client-go does', async () => {
    await server.close();
    server = new FakeKubeApiServer({ bookmarkIntervalMs: 50, tooLargeWatchError: true });
    await server.start();
    for (let i = 0; i < 5; i++) server.apply(ingress(`old-${i}`));
    start();
    await eventually(() => store.size === 5 && server.activeWatches === 1, 20_000, 'sync');
    // The wipe ends the watch cleanly, so the reflector re-watches at once from its resourceVersion
    // (no failure, so no resourceVersion check first): only the watch's 504 can send it to a list.
    server.wipe(100);
    await eventually(() => lists === 2, 20_000, 're-list after the 504');
    expect(store.size).toBe(0);
    server.apply(ingress('new'));
    await eventually(() => store.size === 1 && store.has('default/new'), 20_000, 'watch from the new history');
    expect(lists).toBe(2);
  });

  it('takes a 404 on a listed collection (its CRD deleted) as an empty list, and lists again when it is back', async () => {
    const def = { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespaced: true, statusSubresource: true };
    server.apply(ingress('a'));
    start();
    await eventually(() => store.size === 1 && server.activeWatches === 1, 20_000, 'sync');
    server.unserveResource(def.group, def.version, def.plural);
    server.killWatches();
    await eventually(() => store.size === 0, 20_000, 'objects of the removed resource gone');
    server.serveResource(def);
    server.apply(ingress('b'));
    await eventually(() => store.size === 1 && store.has('default/b'), 20_000, 'objects of the re-created resource');
  });
});
