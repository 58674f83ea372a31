import { describe, expect, it } from 'vitest';
import type { Service } from '../../../src/providers/kubernetes/kube-objects.js';
import { desiredAddresses, ingressEndpointEnabled, parsePublishedService } from '../../../src/providers/kubernetes/ingress-status.js';

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

  it('copies a published Service\'s load balancer ingress (it wins over ip), else its cluster IP', () => {
    const e = { ip: '192.0.2.1', hostname: '', publishedService: 'ns/p' };
    const lb = svc({ type: 'LoadBalancer', clusterIP: '10.0.0.1' }, { loadBalancer: { ingress: [{ ip: '198.51.100.4', ports: [] }, { hostname: 'x.elb.test', ipMode: 'Proxy' }] } });
    expect(desiredAddresses(e, () => lb)).toEqual({ addresses: [{ ip: '198.51.100.4' }, { hostname: 'x.elb.test', ipMode: 'Proxy' }] });
    expect(desiredAddresses(e, () => svc({ clusterIP: '10.0.0.1' }, { loadBalancer: {} }))).toEqual({ addresses: [{ ip: '10.0.0.1' }] });
    expect(desiredAddresses(e, () => svc({ clusterIP: 'None' }))).toEqual({});
  });

  it('names what is wrong with the published Service', () => {
    expect(desiredAddresses({ ...none, publishedService: 'ns/p' }, () => undefined)).toEqual({ error: 'missing service: ns/p' });
    expect(parsePublishedService('a/b/c')).toEqual({ error: "invalid publishedService format (expected 'namespace/service' format): a/b/c" });
    expect(parsePublishedService('/b')).toHaveProperty('error');
    expect(parsePublishedService('a/b')).toEqual({ namespace: 'a', name: 'b' });
  });
});
