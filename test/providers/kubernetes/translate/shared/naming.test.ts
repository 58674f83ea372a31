import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  crdHttpRouterKey, crdObjectKey, crdReference, crdTcpRouterKey, crdUdpRouterKey, hex20, ingressRouterKey, makeID, normalize,
  serviceKey,
} from '../../../../../src/providers/kubernetes/translate/shared/naming.js';

describe('Traefik naming', () => {
  it('normalizes runs of non letters/digits to one dash and trims them', () => {
    expect(normalize('default/test.route')).toBe('default-test-route');
    expect(normalize('--a..b__c//')).toBe('a-b-c');
    expect(normalize('*.example.com/foo')).toBe('example-com-foo');
    expect(normalize('café-ünï/1')).toBe('café-ünï-1');
    expect(normalize('')).toBe('');
  });

  it('normalize is idempotent and never yields separators at the ends', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      const n = normalize(s);
      expect(normalize(n)).toBe(n);
      expect(n.startsWith('-') || n.endsWith('-') || n.includes('--')).toBe(false);
    }));
  });

  it('matches the verified IngressRoute vectors', () => {
    expect(crdHttpRouterKey('default', 'test.route', 'Host(`foo.com`) && PathPrefix(`/bar`)')).toBe('default-test-route-6b204d94623b3df4370c');
    expect(crdHttpRouterKey('traefik', 'traefik-dashboard', 'PathPrefix(`/dashboard`) || PathPrefix(`/api`)'))
      .toBe('traefik-traefik-dashboard-d012b7f875133eeab4e5');
    expect(hex20('Host(`foo.com`) && PathPrefix(`/bar`)')).toBe('6b204d94623b3df4370c');
  });

  it('keeps dots in TCP and UDP keys (makeID, not normalized)', () => {
    expect(crdTcpRouterKey('default', 'test.route', 'HostSNI(`*`)')).toMatch(/^default-test\.route-[0-9a-f]{20}$/);
    expect(crdUdpRouterKey('default', 'test3.route', 0)).toBe('default-test3.route-0');
    expect(makeID('', 'x')).toBe('x');
  });

  it('names Ingress routers and services like the Ingress provider', () => {
    expect(ingressRouterKey('default', 'myingress', 'example.com', '/foo')).toBe('default-myingress-example-com-foo');
    expect(ingressRouterKey('default', 'test.ingress', 'whoami.test', '/whoami')).toBe('default-test-ingress-whoami-test-whoami');
    expect(serviceKey('default', 'whoami', 80)).toBe('default-whoami-80');
    expect(serviceKey('default', 'whoami', 'http')).toBe('default-whoami-http');
  });

  it('resolves CRD references', () => {
    expect(crdObjectKey('default', 'strip.prefix')).toBe('default-strip-prefix');
    expect(crdReference('auth', undefined, 'default')).toBe('default-auth');
    expect(crdReference('auth', 'other', 'default')).toBe('other-auth');
    expect(crdReference('api@internal', 'other', 'default')).toBe('api@internal');
  });
});
