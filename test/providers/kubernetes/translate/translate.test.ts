import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../../src/providers/kubernetes/client/kube-objects.js';
import { validateProviderSnapshot } from '../../../../src/dynamic-config/validation.js';
import { ClusterIndex } from '../../../../src/providers/kubernetes/watch/cluster-index.js';
import { cacheFromObjects, translate } from '../../../../src/providers/kubernetes/translate/translate.js';
import { TranslationMemo } from '../../../../src/providers/kubernetes/translate/shared/translation-memo.js';
import { DEFAULT_TRANSLATE_OPTIONS, type TranslateOptions, type TranslationResult } from '../../../../src/providers/kubernetes/translate/shared/translation-types.js';
import fc from 'fast-check';
import { CRD_KINDS } from '../../../../src/providers/kubernetes/translate/crd/kinds.js';

// Golden translation tests: objects in (input.yaml + the shared backends), records out
// (expected.json). Regenerate after a deliberate change with UPDATE_GOLDEN=1 and review the diff.
const root = new URL('../../../fixtures/kubernetes/', import.meta.url).pathname;
const update = process.env.UPDATE_GOLDEN === '1';

function readObjects(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

function render(r: TranslationResult): string {
  const { kubernetes, kubernetescrd, statuses, events } = r;
  return `${JSON.stringify({ kubernetes, kubernetescrd, statuses, events }, null, 2)}\n`;
}

describe('translation goldens', () => {
  const cases = readdirSync(join(root, 'golden')).sort();
  const common = readObjects(join(root, 'common-backends.yaml'));
  for (const name of cases) {
    it(name, () => {
      const dir = join(root, 'golden', name);
      const objects = [...common, ...readObjects(join(dir, 'input.yaml'))];
      const optionsFile = join(dir, 'options.json');
      const options: TranslateOptions = {
        ...DEFAULT_TRANSLATE_OPTIONS,
        ...(existsSync(optionsFile) ? (JSON.parse(readFileSync(optionsFile, 'utf8')) as Partial<TranslateOptions>) : {}),
      };
      const result = translate(cacheFromObjects(objects), options);
      const actual = render(result);
      const expectedFile = join(dir, 'expected.json');
      if (update || !existsSync(expectedFile)) writeFileSync(expectedFile, actual);
      expect(actual).toBe(readFileSync(expectedFile, 'utf8'));

      // The contract with the management API: the server accepts both snapshots as they are.
      expect(() => validateProviderSnapshot(JSON.parse(JSON.stringify(result.kubernetes)))).not.toThrow();
      expect(() => validateProviderSnapshot(JSON.parse(JSON.stringify(result.kubernetescrd)))).not.toThrow();

      // The incremental path (index + per-object memo) gives the same result, cold and warm.
      const cache = cacheFromObjects(objects);
      const index = new ClusterIndex();
      for (const svc of cache.services) index.upsertService(svc);
      for (const slice of cache.endpointSlices) index.upsertSlice(slice);
      for (const secret of cache.secrets ?? []) index.upsertSecret(secret);
      const memo = new TranslationMemo();
      const cold = translate(cache, options, index, memo);
      expect(render(cold)).toBe(actual);
      expect(render(translate(cache, options, index, memo))).toBe(actual);
      expect(memo.misses).toBe(0);
      // Translating one provider and reusing the other gives the same result too.
      expect(render(translate(cache, options, index, memo, { ingress: true, crd: false, previous: cold }))).toBe(actual);
      expect(render(translate(cache, options, index, memo, { ingress: false, crd: true, previous: cold }))).toBe(actual);
    });
  }
});

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
