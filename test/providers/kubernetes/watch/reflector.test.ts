import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeApi, KubeResponse, ListMeta } from '../../../../src/providers/kubernetes/client/kube-client.js';
import type { KubeObject } from '../../../../src/providers/kubernetes/client/kube-objects.js';
import { slim } from '../../../../src/providers/kubernetes/watch/object-slimming.js';
import { Reflector, type ResourceType } from '../../../../src/providers/kubernetes/watch/reflector.js';

const INGRESS: ResourceType = { id: 'ingresses', group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespaced: true };

function pagedApi(count: number, size: number, log: string[], options: { meta?: boolean; lie?: boolean } = {}): KubeApi {
  return {
    async request(_method, _path, req = {}): Promise<KubeResponse> {
      const start = Number(req.query?.continue ?? 0);
      log.push(`request ${start}`);
      await new Promise((resolve) => setImmediate(resolve));
      const next = start + size < count ? String(start + size) : undefined;
      const items: KubeObject[] = Array.from({ length: Math.min(size, count - start) }, (_, i) => ({ metadata: { name: `ing-${start + i}`, namespace: 'ns' } }));
      const head: ListMeta = options.lie && next !== undefined ? { continue: `${next}9` } : { ...(next !== undefined ? { continue: next } : {}) };
      return {
        status: 200,
        get body() {
          log.push(`decode ${start}`);
          return { metadata: { resourceVersion: '5', ...(next !== undefined ? { continue: next } : {}) }, items };
        },
        ...(options.meta === false ? {} : { listMeta: () => head }),
      };
    },
    watch: async () => undefined,
  };
}

async function listOnce(api: KubeApi): Promise<string[]> {
  const listed: string[] = [];
  const stop = new AbortController();
  const reflector = new Reflector(INGRESS, undefined, {
    intake: slim,
    replace: (objects) => listed.push(...objects.map((o) => o.metadata?.name ?? '')),
    upsert: () => undefined,
    remove: () => undefined,
    listed: () => stop.abort(),
  }, { api, logger: pino({ level: 'silent' }), sleep: async () => undefined, random: () => 0.5 }, { pageSize: 2 });
  await reflector.run(stop.signal);
  return listed;
}

describe('Reflector paged list', () => {
  it('asks for the next page before decoding the one it has', async () => {
    const log: string[] = [];
    const names = await listOnce(pagedApi(5, 2, log));
    expect(names).toEqual(['ing-0', 'ing-1', 'ing-2', 'ing-3', 'ing-4']);
    expect(log).toEqual(['request 0', 'request 2', 'decode 0', 'request 4', 'decode 2', 'decode 4']);
  });

  it('goes page by page without a cheap look at the metadata, and drops a page asked with a token the body does not confirm', async () => {
    const plain: string[] = [];
    expect(await listOnce(pagedApi(5, 2, plain, { meta: false }))).toHaveLength(5);
    expect(plain).toEqual(['request 0', 'decode 0', 'request 2', 'decode 2', 'request 4', 'decode 4']);
    const lied: string[] = [];
    expect(await listOnce(pagedApi(5, 2, lied, { lie: true }))).toEqual(['ing-0', 'ing-1', 'ing-2', 'ing-3', 'ing-4']);
    expect(lied.filter((l) => l.startsWith('decode'))).toEqual(['decode 0', 'decode 2', 'decode 4']);
  });
});
