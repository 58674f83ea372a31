import { describe, expect, it } from 'vitest';
import type { Service } from '../../../../src/providers/kubernetes/client/kube-objects.js';
import pino from 'pino';
import type { KubeApi } from '../../../../src/providers/kubernetes/client/kube-client.js';
import {
  desiredAddresses, ingressEndpointEnabled, IngressStatusWriter, parsePublishedService, showsAddresses,
} from '../../../../src/providers/kubernetes/status/ingress-status.js';

const none = { ip: '', hostname: '', publishedService: '' };
const svc = (spec: Service['spec'], status?: unknown): Service => ({ metadata: { name: 'p', namespace: 'ns' }, spec, ...(status !== undefined ? { status } : {}) });

describe('ingress endpoint', () => {
  it('is off until one option is set', () => {
    expect(ingressEndpointEnabled(none)).toBe(false);
    expect(desiredAddresses(none, () => undefined)).toEqual({});
    expect(ingressEndpointEnabled({ ...none, hostname: 'h' })).toBe(true);
  });

  it('writes ip and hostname as one entry, leaving out the empty one', () => {
    expect(desiredAddresses({ ...none, ip: '192.0.2.1' }, () => undefined)).toEqual({ addresses: [{ ip: '192.0.2.1' }] });
    expect(desiredAddresses({ ...none, ip: '192.0.2.1', hostname: 'lb.test' }, () => undefined)).toEqual({ addresses: [{ ip: '192.0.2.1', hostname: 'lb.test' }] });
  });

  it('copies a published Service\'s load balancer ingress (it wins over ip), and nothing when it has none', () => {
    const e = { ip: '192.0.2.1', hostname: '', publishedService: 'ns/p' };
    const lb = svc({ type: 'LoadBalancer', clusterIP: '10.0.0.1' }, { loadBalancer: { ingress: [{ ip: '198.51.100.4', ports: [] }, { hostname: 'x.elb.test', ipMode: 'Proxy' }] } });
    // ipMode is a Service field only: the Ingress API has none, so it is not written.
    expect(desiredAddresses(e, () => lb)).toEqual({ addresses: [{ ip: '198.51.100.4' }, { hostname: 'x.elb.test' }] });
    expect(desiredAddresses(e, () => svc({ clusterIP: '10.0.0.1' }, { loadBalancer: {} }))).toEqual({});
    expect(desiredAddresses(e, () => svc({ clusterIP: 'None' }))).toEqual({});
  });

  it('names what is wrong with the published Service', () => {
    expect(desiredAddresses({ ...none, publishedService: 'ns/p' }, () => undefined)).toEqual({ error: 'missing service: ns/p' });
    expect(parsePublishedService('a/b/c')).toEqual({ error: "invalid publishedService format (expected 'namespace/service' format): a/b/c" });
    expect(parsePublishedService('/b')).toHaveProperty('error');
    expect(parsePublishedService('a/b')).toEqual({ namespace: 'a', name: 'b' });
  });

  it('compares with what the Ingress API keeps: no ipMode, ports in the API\'s field order', () => {
    const stored = { loadBalancer: { ingress: [{ ip: '198.51.100.4', ports: [{ port: 443, protocol: 'TCP' }] }] } };
    expect(showsAddresses(stored, [{ ip: '198.51.100.4', ports: [{ protocol: 'TCP', port: 443 } as { port: number; protocol: string }] }])).toBe(true);
    expect(showsAddresses(stored, [{ ip: '198.51.100.5' }])).toBe(false);
    expect(showsAddresses(undefined, [])).toBe(true);
  });
});

describe('IngressStatusWriter', () => {
  // A published LoadBalancer Service on Kubernetes 1.30+: every IP entry carries ipMode.
  const published: Service = {
    metadata: { name: 'portico', namespace: 'ops' }, spec: { type: 'LoadBalancer', clusterIP: '10.0.0.9' },
    status: { loadBalancer: { ingress: [{ ip: '198.51.100.4', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP' }] }] } },
  };
  const ref = { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespace: 'app', name: 'web' };

  function setup() {
    // The Ingress as the API server stores it: ipMode is not an Ingress field, so it is dropped.
    let stored: unknown = {};
    const patches: unknown[] = [];
    const api: KubeApi = {
      request: (method, _path, options) => {
        if (method !== 'PATCH') throw new Error(`unexpected ${method}`);
        patches.push(options?.body);
        const body = options?.body as { status: { loadBalancer: { ingress: Record<string, unknown>[] } } };
        stored = { loadBalancer: { ingress: body.status.loadBalancer.ingress.map(({ ipMode: _dropped, ...kept }) => kept) } };
        return Promise.resolve({ status: 200, body: {} });
      },
      watch: () => Promise.reject(new Error('no watch')),
    };
    const writer = new IngressStatusWriter({ ip: '', hostname: '', publishedService: 'ops/portico' }, {
      api, logger: pino({ level: 'silent' }), now: () => 0,
      current: () => ({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { namespace: 'app', name: 'web' }, status: stored }),
      cachedService: () => published, watchesNamespace: () => true,
    });
    return { writer, patches };
  }

  it('writes a published Service\'s address once, not again on every pass', async () => {
    const { writer, patches } = setup();
    expect(await writer.write([ref])).toBe(1);
    expect(patches).toEqual([{ status: { loadBalancer: { ingress: [{ ip: '198.51.100.4', ports: [{ port: 80, protocol: 'TCP' }] }] } } }]);
    expect(await writer.write([ref])).toBe(0);
    expect(await writer.write([ref])).toBe(0);
    expect(patches).toHaveLength(1);
  });
});
