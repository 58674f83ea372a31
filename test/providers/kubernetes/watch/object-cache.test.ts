import { describe, expect, it } from 'vitest';
import type { EndpointSlice, KubeObject } from '../../../../src/providers/kubernetes/client/kube-objects.js';
import { ObjectCache, watchedResources } from '../../../../src/providers/kubernetes/watch/object-cache.js';
import type { ResourceType } from '../../../../src/providers/kubernetes/watch/reflector.js';

function typeOf(id: string): ResourceType {
  const type = watchedResources({ traefikCrds: false }).find((t) => t.id === id);
  if (!type) throw new Error(`no resource ${id}`);
  return type;
}

function slice(name: string, service: string, rv: string, ready = true): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name, namespace: 'ns', resourceVersion: rv, labels: { 'kubernetes.io/service-name': service }, managedFields: [{ manager: 'x' }] },
    addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }],
    endpoints: [{ addresses: [`10.0.0.${rv}`], conditions: { ready }, nodeName: 'node-1' }],
  } as unknown as EndpointSlice;
}

function recorder() {
  const changes: string[] = [];
  const cache = new ObjectCache((id, key, services) => changes.push(`${id} ${key}${services ? ` [${services.join(',')}]` : ''}`));
  return { cache, changes };
}

describe('ObjectCache sinks', () => {
  it('reports a first list once, when it is complete, and still indexes every object', () => {
    const { cache, changes } = recorder();
    const sink = cache.sink(typeOf('endpointslices'), '');
    sink.replace([slice('a-1', 'a', '1'), slice('a-2', 'a', '2'), slice('b-1', 'b', '3')].map((s) => sink.intake(s)));
    expect(changes).toEqual([]);
    sink.listed();
    expect(changes).toEqual(['endpointslices ']);
    expect(cache.synced).toBe(true);
    expect(cache.get('endpointslices', 'ns', 'a-2')?.metadata?.resourceVersion).toBe('2');
    expect(cache.clusterIndex.endpointSlices('ns', 'a').map((s) => s.metadata?.name)).toEqual(['a-1', 'a-2']);
  });

  it('reports each object a re-list adds, changes or drops, with the Services of the slices', () => {
    const { cache, changes } = recorder();
    const sink = cache.sink(typeOf('endpointslices'), '');
    sink.replace([slice('a-1', 'a', '1'), slice('a-2', 'a', '2'), slice('b-1', 'b', '3')].map((s) => sink.intake(s)));
    sink.listed();
    changes.length = 0;
    sink.replace([slice('a-1', 'a', '1'), slice('b-1', 'c', '4'), slice('d-1', 'd', '5')].map((s) => sink.intake(s)));
    expect(changes.sort()).toEqual(['endpointslices ns/a-2 [ns/a]', 'endpointslices ns/b-1 [ns/b,ns/c]', 'endpointslices ns/d-1 [ns/d]']);
    expect(cache.get('endpointslices', 'ns', 'a-2')).toBeUndefined();
    expect(cache.clusterIndex.endpointSlices('ns', 'b')).toEqual([]);
    expect(cache.clusterIndex.endpointSlices('ns', 'c').map((s) => s.metadata?.name)).toEqual(['b-1']);
    sink.listed();
    expect(changes).toHaveLength(3);
  });

  it('takes in slices slimmed, with equal port lists and conditions shared, leaving the received object as it was', () => {
    const { cache } = recorder();
    const sink = cache.sink(typeOf('endpointslices'), '');
    const received = [slice('a-1', 'a', '1'), slice('a-2', 'a', '2', false), slice('b-1', 'b', '3')];
    const copies = structuredClone(received);
    const [x, y, z] = received.map((s) => sink.intake(s)) as [EndpointSlice, EndpointSlice, EndpointSlice];
    expect(received).toEqual(copies);
    expect(x.metadata).not.toHaveProperty('managedFields');
    expect(x.endpoints?.[0]).toEqual({ addresses: ['10.0.0.1'], conditions: { ready: true } });
    expect(x.ports).toBe(y.ports);
    expect(x.ports).toBe(z.ports);
    expect(x.endpoints?.[0]?.conditions).toBe(z.endpoints?.[0]?.conditions);
    expect(y.endpoints?.[0]?.conditions).toEqual({ ready: false });
  });

  it('slims Secrets of types that hold no credentials down to their key names', () => {
    const { cache } = recorder();
    const sink = cache.sink(typeOf('secrets'), '');
    const kept = sink.intake({ kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, type: 'kubernetes.io/tls', data: { 'tls.key': 'c2VjcmV0' } } as KubeObject);
    expect(JSON.stringify(kept)).not.toContain('c2VjcmV0');
  });
});
