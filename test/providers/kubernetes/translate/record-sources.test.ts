import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ProviderSnapshot, RecordSource } from '../../../../src/dynamic-config/configuration.js';
import type { Ingress, KubeObject } from '../../../../src/providers/kubernetes/client/kube-objects.js';
import { translateObject } from '../../../../src/providers/kubernetes/translate/crd/translator.js';
import type { CrdKind } from '../../../../src/providers/kubernetes/translate/crd/kinds.js';
import { translateOneIngress } from '../../../../src/providers/kubernetes/translate/ingress/translator.js';
import { buildClusterView, cacheFromObjects, translate } from '../../../../src/providers/kubernetes/translate/translate.js';
import { ClusterIndex } from '../../../../src/providers/kubernetes/watch/cluster-index.js';
import { TranslationMemo } from '../../../../src/providers/kubernetes/translate/shared/translation-memo.js';
import { DEFAULT_TRANSLATE_OPTIONS } from '../../../../src/providers/kubernetes/translate/shared/translation-types.js';

// Every record the operator makes names the object it was made from (the snapshot's `sources`,
// served by /api/portico/sources): per translator, per record kind, and over every golden input.

const root = new URL('../../../fixtures/kubernetes/', import.meta.url).pathname;

function readObjects(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
}

const backends = readObjects(join(root, 'common-backends.yaml'));
const view = buildClusterView(
  cacheFromObjects(backends).services, cacheFromObjects(backends).endpointSlices,
);
const crdInputs = {
  view, ingressClass: '', maxObjectBytes: 512 * 1024, maxRoutes: 1000, policy: DEFAULT_TRANSLATE_OPTIONS, readSecrets: true,
  objects: { IngressRoute: [], IngressRouteTCP: [], IngressRouteUDP: [], Middleware: [], MiddlewareTCP: [], TraefikService: [] },
};

function crd(kind: CrdKind, name: string, spec: unknown, rv = '11', group = 'portico.dev'): KubeObject {
  return { apiVersion: `${group}/v1alpha1`, kind, metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: rv, generation: 1 }, spec };
}

const objects: Readonly<Record<CrdKind, KubeObject>> = {
  IngressRoute: crd('IngressRoute', 'shop', { entryPoints: ['web'], routes: [{ match: 'Host(`shop`)', kind: 'Rule', services: [{ name: 'whoami', port: 80 }] }] }),
  IngressRouteTCP: crd('IngressRouteTCP', 'db', { entryPoints: ['tcp'], routes: [{ match: 'HostSNI(`*`)', services: [{ name: 'tcpecho', port: 9000 }] }] }),
  IngressRouteUDP: crd('IngressRouteUDP', 'dns', { entryPoints: ['udp'], routes: [{ services: [{ name: 'tcpecho', port: 9000 }] }] }),
  Middleware: crd('Middleware', 'strip', { stripPrefix: { prefixes: ['/api'] } }),
  MiddlewareTCP: crd('MiddlewareTCP', 'inflight', { inFlightConn: { amount: 10 } }),
  TraefikService: crd('TraefikService', 'split', { weighted: { services: [{ name: 'whoami', port: 80, weight: 1 }] } }, '12', 'traefik.io'),
};

/** Every record name of a snapshot with its `sources` entry, per `<protocol>/<kind>`. */
function recordsWithSources(s: ProviderSnapshot): { where: string; name: string; source: RecordSource | undefined }[] {
  const out: { where: string; name: string; source: RecordSource | undefined }[] = [];
  for (const protocol of ['http', 'tcp', 'udp'] as const) {
    const section = s.configuration[protocol] as Record<string, Record<string, unknown> | undefined> | undefined;
    for (const kind of ['routers', 'services', 'middlewares'] as const) {
      for (const name of Object.keys(section?.[kind] ?? {})) {
        const sources = (s.sources?.[protocol] as Record<string, Record<string, RecordSource> | undefined> | undefined)?.[kind];
        out.push({ where: `${protocol}/${kind}`, name, source: sources?.[name] });
      }
    }
  }
  return out;
}

describe('record sources, per translator', () => {
  it('an Ingress fragment names the Ingress: apiVersion, kind, namespace, name, uid, resourceVersion', () => {
    const ing: Ingress = {
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
      metadata: { namespace: 'default', name: 'site', uid: 'uid-site', resourceVersion: '101' },
      spec: { rules: [{ host: 'site.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'whoami', port: { number: 80 } } } }] } }] },
    };
    const f = translateOneIngress(ing, view, DEFAULT_TRANSLATE_OPTIONS);
    expect(Object.keys(f.records.httpRouters)).toHaveLength(1);
    expect(f.records.source).toEqual({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'default', name: 'site', uid: 'uid-site', resourceVersion: '101' });
  });

  for (const kind of Object.keys(objects) as CrdKind[]) {
    it(`a ${kind} fragment names the ${kind}`, () => {
      const obj = objects[kind];
      const { records } = translateObject(crdInputs, kind, obj);
      const group = obj.apiVersion?.split('/')[0];
      expect(records.source).toEqual({ apiVersion: `${group}/v1alpha1`, kind, namespace: 'default', name: obj.metadata?.name, uid: `uid-${obj.metadata?.name ?? ''}`, resourceVersion: obj.metadata?.resourceVersion });
    });
  }

  it('the merged snapshot gives each record kind its object, and a shared service the first object that made it', () => {
    const second = crd('IngressRoute', 'zz-second', { routes: [{ match: 'Host(`b`)', kind: 'Rule', services: [{ name: 'whoami', port: 80 }] }] });
    const result = translate(cacheFromObjects([...backends, ...Object.values(objects), second]), DEFAULT_TRANSLATE_OPTIONS);
    const got = recordsWithSources(result.kubernetescrd).map((r) => `${r.where} ${r.name} <- ${r.source?.kind ?? '-'} ${r.source?.name ?? '-'}`);
    expect(got).toEqual([
      'http/routers default-shop-caa7cfe6bba35105b41a <- IngressRoute shop',
      'http/routers default-zz-second-8ac95bd5b26f98e46e32 <- IngressRoute zz-second',
      // Made by the TraefikService (visited before the IngressRoutes) and by both routes: the first wins.
      'http/services default-whoami-80 <- TraefikService split',
      'http/services default-split <- TraefikService split',
      'http/services default-shop-caa7cfe6bba35105b41a <- IngressRoute shop',
      'http/services default-zz-second-8ac95bd5b26f98e46e32 <- IngressRoute zz-second',
      'http/middlewares default-strip <- Middleware strip',
      'tcp/routers default-db-673acf455cb2dab0b43a <- IngressRouteTCP db',
      'tcp/services default-db-673acf455cb2dab0b43a <- IngressRouteTCP db',
      'tcp/middlewares default-inflight <- MiddlewareTCP inflight',
      'udp/routers default-dns-0 <- IngressRouteUDP dns',
      'udp/services default-dns-0 <- IngressRouteUDP dns',
    ]);
    expect(result.kubernetescrd.sources?.http?.services?.['default-split']).toEqual({
      apiVersion: 'traefik.io/v1alpha1', kind: 'TraefikService', namespace: 'default', name: 'split', uid: 'uid-split', resourceVersion: '12',
    });
  });

  it('a status write (new resourceVersion, same generation) keeps the records and their source', () => {
    const memo = new TranslationMemo();
    const index = new ClusterIndex();
    const cache = cacheFromObjects(backends);
    for (const svc of cache.services) index.upsertService(svc);
    for (const slice of cache.endpointSlices) index.upsertSlice(slice);
    const before = translate(cacheFromObjects([...backends, objects.IngressRoute]), DEFAULT_TRANSLATE_OPTIONS, index, memo);
    const statusWritten = { ...objects.IngressRoute, metadata: { ...objects.IngressRoute.metadata, resourceVersion: '99' }, status: { conditions: [] } };
    const after = translate(cacheFromObjects([...backends, statusWritten]), DEFAULT_TRANSLATE_OPTIONS, index, memo);
    expect(memo.hits).toBeGreaterThan(0);
    expect(after.kubernetescrd).toEqual(before.kubernetescrd);
    expect(after.kubernetescrd.sources?.http?.routers?.[Object.keys(after.kubernetescrd.configuration.http?.routers ?? {})[0] ?? '']?.resourceVersion).toBe('11');
  });
});

describe('record sources over every golden input', () => {
  const cases = readdirSync(join(root, 'golden')).sort();
  const ingressMakes = new Set(['Ingress']);
  const crdMakes: Readonly<Record<string, readonly string[]>> = {
    'http/routers': ['IngressRoute'], 'http/services': ['IngressRoute', 'TraefikService', 'Middleware'], 'http/middlewares': ['Middleware'],
    'tcp/routers': ['IngressRouteTCP'], 'tcp/services': ['IngressRouteTCP'], 'tcp/middlewares': ['MiddlewareTCP'],
    'udp/routers': ['IngressRouteUDP'], 'udp/services': ['IngressRouteUDP'],
  };
  for (const name of cases) {
    it(`${name}: every record names an object of the input that makes its kind`, () => {
      const input = [...backends, ...readObjects(join(root, 'golden', name, 'input.yaml'))];
      const present = new Set(input.map((o) => `${o.apiVersion ?? ''}|${o.kind ?? ''}|${o.metadata?.namespace ?? ''}|${o.metadata?.name ?? ''}`));
      const result = translate(cacheFromObjects(input), DEFAULT_TRANSLATE_OPTIONS);
      for (const [snapshot, makes] of [[result.kubernetes, () => ingressMakes], [result.kubernetescrd, (w: string) => new Set(crdMakes[w])]] as const) {
        for (const r of recordsWithSources(snapshot)) {
          expect(r.source, `${name}: ${r.where} ${r.name}`).toBeDefined();
          const s = r.source as RecordSource;
          expect(makes(r.where).has(s.kind), `${r.where} ${r.name} from ${s.kind}`).toBe(true);
          expect(present.has(`${s.apiVersion ?? ''}|${s.kind}|${s.namespace ?? ''}|${s.name}`), `${r.where} ${r.name}: ${JSON.stringify(s)}`).toBe(true);
        }
        // No source without its record.
        const names = new Set(recordsWithSources(snapshot).map((r) => `${r.where}/${r.name}`));
        for (const protocol of ['http', 'tcp', 'udp'] as const) {
          for (const [kind, map] of Object.entries(snapshot.sources?.[protocol] ?? {})) {
            for (const n of Object.keys(map ?? {})) expect(names.has(`${protocol}/${kind}/${n}`), `${protocol}/${kind}/${n}`).toBe(true);
          }
        }
      }
    });
  }
});
