import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateProviderSnapshot } from '../../../src/dynamic-config/validation.js';
import { CRD_KINDS } from '../../../src/providers/kubernetes/translate/crd/kinds.js';
import type { KubeObject } from '../../../src/providers/kubernetes/client/kube-objects.js';
import { cacheFromObjects, translate } from '../../../src/providers/kubernetes/translate/translate.js';
import { DEFAULT_TRANSLATE_OPTIONS } from '../../../src/providers/kubernetes/translate/shared/translation-types.js';

// Whatever users put in their objects (the API server may have no schema for them, e.g. Traefik's
// CRDs or an old install), translation never throws, and what it delivers is always a snapshot the
// management API accepts: one bad object must not block everyone's records.

const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const loose: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom(
    'name', 'namespace', 'kind', 'port', 'weight', 'match', 'priority', 'syntax', 'services', 'middlewares', 'entryPoints', 'tls', 'routes',
    'sticky', 'scheme', 'passHostHeader', 'responseForwarding', 'observability', 'percent', 'mirrors', 'mirrorBody', 'maxBodySize',
    'weighted', 'mirroring', 'failover', 'service', 'fallback', 'options', 'domains', 'main', 'sans', 'proxyProtocol', 'terminationDelay',
    'stripPrefix', 'chain', 'basicAuth', 'plugin', 'inFlightConn', 'ipAllowList', 'healthCheck', 'strategy', 'serversTransport',
  ), tie('v'), { maxKeys: 5 })),
})).v;

const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'whoami', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } };

describe('translation robustness', () => {
  it('never throws and always yields snapshots the management API accepts', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...CRD_KINDS.map((k) => k.kind)), fc.string({ minLength: 1, maxLength: 8 }), loose), { maxLength: 6 }), (specs) => {
      const objects: KubeObject[] = [service, ...specs.map(([kind, name, spec]) => ({
        apiVersion: 'portico.dev/v1alpha1', kind, metadata: { name, namespace: 'default' }, spec,
      }))];
      const result = translate(cacheFromObjects(objects), DEFAULT_TRANSLATE_OPTIONS);
      expect(() => validateProviderSnapshot(JSON.parse(JSON.stringify(result.kubernetescrd)))).not.toThrow();
      expect(result.statuses.length).toBeLessThanOrEqual(specs.length);
    }), { numRuns: 300 });
  });

  it('copes with well-shaped objects whose leaves are anything', () => {
    const entry = fc.record({ name: fc.oneof(fc.constant('whoami'), fc.constant('api@internal'), loose), port: loose, kind: fc.oneof(fc.constant('TraefikService'), loose), weight: loose, sticky: loose, responseForwarding: loose, tls: loose, proxyProtocol: loose, terminationDelay: loose, percent: loose }, { requiredKeys: ['name'] });
    const route = fc.record({ match: fc.oneof(fc.constant('Host(`a`)'), fc.constant('HostSNI(`*`)'), loose), priority: loose, syntax: loose, services: fc.array(entry, { maxLength: 3 }), middlewares: fc.oneof(loose, fc.array(fc.record({ name: loose, namespace: loose }), { maxLength: 2 })), observability: loose });
    const spec = fc.oneof(
      fc.record({ entryPoints: loose, routes: fc.array(route, { maxLength: 3 }), tls: loose }),
      fc.record({ weighted: fc.record({ services: fc.array(entry, { maxLength: 3 }), sticky: loose }) }),
      fc.record({ mirroring: fc.record({ name: loose, port: loose, mirrors: fc.array(entry, { maxLength: 2 }), maxBodySize: loose, mirrorBody: loose }) }),
      fc.record({ failover: fc.record({ service: loose, fallback: loose, errors: loose }) }),
      fc.record({ chain: fc.record({ middlewares: fc.array(fc.record({ name: loose }), { maxLength: 2 }) }), errors: loose, plugin: loose }),
    );
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...CRD_KINDS.map((k) => k.kind)), fc.constantFrom('a', 'b', 'a.b', 'a-b'), spec), { maxLength: 6 }), (specs) => {
      const objects: KubeObject[] = [service, ...specs.map(([kind, name, s]) => ({
        apiVersion: 'portico.dev/v1alpha1', kind, metadata: { name, namespace: 'default' }, spec: s,
      }))];
      const result = translate(cacheFromObjects(objects), DEFAULT_TRANSLATE_OPTIONS);
      expect(() => validateProviderSnapshot(JSON.parse(JSON.stringify(result.kubernetescrd)))).not.toThrow();
    }), { numRuns: 300 });
  });
});
