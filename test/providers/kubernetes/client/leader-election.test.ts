import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeApi, KubeResponse } from '../../../../src/providers/kubernetes/client/kube-client.js';
import { LeaderElector } from '../../../../src/providers/kubernetes/client/leader-election.js';

// Leader election against an in-memory Lease store with optimistic concurrency and a fake clock.

type Lease = { metadata: { name: string; namespace: string; resourceVersion: string }; spec: Record<string, unknown> };

function leaseApi() {
  let lease: Lease | undefined;
  let rv = 1;
  let stalePut = false;
  const api: KubeApi = {
    async request(method, _path, options): Promise<KubeResponse> {
      if (method === 'GET') return lease ? { status: 200, body: structuredClone(lease) } : { status: 404, body: {} };
      const body = options?.body as Lease;
      if (method === 'POST') {
        if (lease) return { status: 409, body: {} };
        lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(++rv) } };
        return { status: 201, body: lease };
      }
      if (method === 'PUT') {
        if (stalePut || body.metadata.resourceVersion !== lease?.metadata.resourceVersion) {
          stalePut = false;
          return { status: 409, body: {} };
        }
        lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(++rv) } };
        return { status: 200, body: lease };
      }
      return { status: 405, body: {} };
    },
    async watch() {
      throw new Error('not used');
    },
  };
  return { api, lease: () => lease, conflictNextPut: () => { stalePut = true; } };
}

describe('leader election', () => {
  it('acquires a free Lease, renews it, keeps others out until it expires, then hands over', async () => {
    const store = leaseApi();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const deps = { api: store.api, logger: pino({ level: 'silent' }), now: () => now, sleep: async () => undefined };
    const a = new LeaderElector({ namespace: 'ns', name: 'lock', identity: 'a', leaseDurationMs: 15_000 }, deps);
    const b = new LeaderElector({ namespace: 'ns', name: 'lock', identity: 'b', leaseDurationMs: 15_000 }, deps);

    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(store.lease()?.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(await b.tryAcquireOrRenew()).toBe(false);

    now += 10_000;
    expect(await a.tryAcquireOrRenew()).toBe(true); // renewal
    now += 10_000;
    expect(await b.tryAcquireOrRenew()).toBe(false); // renewed 10 s ago: still valid

    now += 20_000; // a stopped renewing
    expect(await b.tryAcquireOrRenew()).toBe(true);
    expect(store.lease()?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(await a.tryAcquireOrRenew()).toBe(false);
  });

  it('loses a race on a 409 Conflict', async () => {
    const store = leaseApi();
    let now = 0;
    const deps = { api: store.api, logger: pino({ level: 'silent' }), now: () => now, sleep: async () => undefined };
    const a = new LeaderElector({ namespace: 'ns', name: 'lock', identity: 'a' }, deps);
    const b = new LeaderElector({ namespace: 'ns', name: 'lock', identity: 'b' }, deps);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    now += 60_000;
    store.conflictNextPut();
    expect(await b.tryAcquireOrRenew()).toBe(false);
  });

  it('reports leadership changes and releases the Lease when stopped', async () => {
    const store = leaseApi();
    const controller = new AbortController();
    const seen: boolean[] = [];
    const elector = new LeaderElector({ namespace: 'ns', name: 'lock', identity: 'a' }, {
      api: store.api, logger: pino({ level: 'silent' }), now: () => 0,
      sleep: async () => { controller.abort(); },
    });
    elector.onChange((leader) => seen.push(leader));
    await elector.run(controller.signal);
    expect(seen).toEqual([true, false]);
    expect(store.lease()?.spec.holderIdentity).toBe('');
  });
});
