import { describe, expect, it } from 'vitest';
import { slim } from '../../../../src/providers/kubernetes/watch/object-slimming.js';
import { ObjectCache } from '../../../../src/providers/kubernetes/watch/object-cache.js';
import type { ResourceType } from '../../../../src/providers/kubernetes/watch/reflector.js';

const full = {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: {
    name: 's', namespace: 'ns', uid: 'u1', resourceVersion: '7', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z',
    labels: { 'kubernetes.io/service-name': 'svc' },
    annotations: { keep: 'me', 'kubectl.kubernetes.io/last-applied-configuration': '{"huge":true}' },
    managedFields: [{ manager: 'kubectl' }], ownerReferences: [{ kind: 'Service', name: 'svc' }], finalizers: ['x'],
  },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }],
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'n1', zone: 'z', targetRef: { kind: 'Pod', name: 'p' } }],
};

describe('slim', () => {
  it('keeps what the translation reads and drops bookkeeping, without touching the input', () => {
    const input = structuredClone(full);
    const out = slim(input) as unknown as typeof full;
    expect(input).toEqual(full);
    expect(JSON.parse(JSON.stringify(out))).toEqual({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: 's', namespace: 'ns', uid: 'u1', resourceVersion: '7', generation: 1, labels: { 'kubernetes.io/service-name': 'svc' }, annotations: { keep: 'me' } },
      addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }],
      endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
    });
  });

  it('keeps spec, status and a deletion timestamp', () => {
    const obj = { kind: 'IngressRoute', metadata: { name: 'a', deletionTimestamp: 'now' }, spec: { x: 1 }, status: { conditions: [] } };
    expect(JSON.parse(JSON.stringify(slim(obj)))).toEqual(obj);
  });
});

describe('ObjectCache status-only updates', () => {
  it('keeps the new status and resourceVersion but shares the cached spec, and reports no change', () => {
    const changes: string[] = [];
    const cache = new ObjectCache((id, key) => changes.push(`${id} ${key}`));
    const type: ResourceType = { id: 'portico.dev/ingressroutes', group: 'portico.dev', version: 'v1alpha1', plural: 'ingressroutes', kind: 'IngressRoute', namespaced: true };
    const sink = cache.sink(type, '');
    const md = { name: 'r', namespace: 'ns', uid: 'u', generation: 1, labels: { a: 'b' } };
    sink.replace([{ kind: 'IngressRoute', metadata: { ...md, resourceVersion: '1' }, spec: { routes: [] } }]);
    sink.listed();
    const before = cache.get(type.id, 'ns', 'r');
    changes.length = 0;
    sink.upsert({ kind: 'IngressRoute', metadata: { ...md, labels: { a: 'b' }, resourceVersion: '2' }, spec: { routes: [] }, status: { conditions: [{ type: 'Ready' }] } });
    const after = cache.get(type.id, 'ns', 'r');
    expect(changes).toEqual([]);
    expect(after?.metadata?.resourceVersion).toBe('2');
    expect(after?.status).toEqual({ conditions: [{ type: 'Ready' }] });
    expect(after?.spec).toBe(before?.spec);
    expect(after?.metadata?.labels).toBe(before?.metadata?.labels);
    sink.upsert({ kind: 'IngressRoute', metadata: { ...md, generation: 2, resourceVersion: '3' }, spec: { routes: [1] } });
    expect(changes).toEqual(['portico.dev/ingressroutes ns/r']);
  });
});
