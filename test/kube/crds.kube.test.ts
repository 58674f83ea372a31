/**
 * Portico's CRDs against a real kube-apiserver: each manifest in crds/ is accepted and becomes
 * Established (the server validates the CRD itself, including its structural schema), the examples
 * are accepted as objects, and the server's own schema validation refuses bad objects naming the
 * field and prunes fields the schema does not know.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CRD_DIR = join(ROOT, 'crds');
const crdFiles = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).sort();

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
}

function manifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

let cp: ControlPlane;
/** kind -> plural, from the CRDs as the server accepted them. */
const plurals = new Map<string, string>();

function objectPath(m: Manifest, namespace = m.metadata.namespace ?? 'default'): string {
  const plural = plurals.get(m.kind);
  if (plural === undefined) throw new Error(`no CRD serves kind ${m.kind}`);
  return `/apis/${m.apiVersion}/namespaces/${namespace}/${plural}`;
}

const EXAMPLES = join(ROOT, 'examples/crds');
const exampleFiles = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml')).sort();

beforeAll(async () => {
  cp = await startControlPlane();
  // The namespaces the examples live in (default and kube-system exist in every cluster).
  const namespaces = new Set(exampleFiles.flatMap((f) => manifests(join(EXAMPLES, f)).map((m) => m.metadata.namespace ?? 'default')));
  for (const ns of [...namespaces].filter((n) => n !== 'default' && n !== 'kube-system')) {
    const res = await cp.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});

afterAll(async () => {
  await cp?.stop();
});

describe('the CRDs in crds/', () => {
  it('finds the CRD manifests', () => {
    expect(crdFiles.length).toBeGreaterThanOrEqual(6);
  });

  for (const file of crdFiles) {
    it(`${file} is accepted by the API server and becomes Established`, async () => {
      for (const crd of manifests(join(CRD_DIR, file))) {
        const res = await cp.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
        expect(res.status, JSON.stringify(res.body?.message ?? res.body)).toBe(201);
        const name = crd.metadata.name;
        const established = await eventually(async () => {
          const got = await cp.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
          const conditions = (got.body?.status?.conditions ?? []) as { type: string; status: string }[];
          return conditions.find((c) => c.type === 'Established' && c.status === 'True') ? got.body : undefined;
        }, 30_000, `${name} Established`, 100);
        // A structural schema: the server reports no NonStructuralSchema condition.
        expect(established.status.conditions.map((c: { type: string }) => c.type)).not.toContain('NonStructuralSchema');
        plurals.set(established.spec.names.kind, established.spec.names.plural);
      }
    });
  }
});

describe('objects of the CRDs, validated by the API server', () => {
  for (const file of exampleFiles) {
    it(`examples/crds/${file} is accepted as written`, async () => {
      const docs = manifests(join(EXAMPLES, file));
      expect(docs.length).toBeGreaterThan(0);
      for (const m of docs) {
        // The CRD path may answer 404 for a moment after Established while discovery catches up.
        const res = await eventually(async () => {
          const r = await cp.call('POST', objectPath(m), m);
          return r.status === 404 ? undefined : r;
        }, 30_000, `create ${m.kind}/${m.metadata.name}`, 100);
        expect(res.status, JSON.stringify(res.body?.message ?? res.body)).toBe(201);
        expect(res.body.spec).toMatchObject(m.spec ?? {});
      }
    });
  }

  it("accepts Traefik's own manifests with only the apiVersion changed", async () => {
    await cp.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'traefik-manifests' } });
    const docs = manifests(join(ROOT, 'test/fixtures/kubernetes/traefik-manifests.yaml'));
    expect(docs.length).toBeGreaterThanOrEqual(5);
    for (const m of docs) {
      expect(m.apiVersion).toBe('traefik.io/v1alpha1');
      const ours = { ...m, apiVersion: 'portico.dev/v1alpha1', metadata: { ...m.metadata, namespace: 'traefik-manifests' } };
      const res = await cp.call('POST', `${objectPath(ours)}?fieldValidation=Strict`, ours);
      expect(res.status, `${m.kind}/${m.metadata.name}: ${JSON.stringify(res.body?.message ?? res.body)}`).toBe(201);
      expect(res.body.spec).toEqual(m.spec);
    }
  });

  /** Paths of the built-in kinds the top-level examples use. */
  const BUILT_IN: Record<string, string> = { Deployment: 'deployments', Job: 'jobs', Ingress: 'ingresses', ConfigMap: 'configmaps', Secret: 'secrets', Service: 'services' };
  const topExamples = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.yaml')).sort();

  for (const file of topExamples) {
    it(`examples/${file} is accepted by the API server`, async () => {
      for (const m of manifests(join(ROOT, 'examples', file))) {
        // Objects of the default namespace go to one of the file's own, so that two example files
        // may use one name (the CRD examples above hold a strip-api Middleware too).
        const declared = m.metadata.namespace ?? 'default';
        const ns = declared === 'default' ? `examples-${file.replace(/\.yaml$/, '')}` : declared;
        m.metadata.namespace = ns;
        if (ns !== 'default' && ns !== 'kube-system') await cp.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
        const plural = BUILT_IN[m.kind];
        const base = m.apiVersion === 'v1' ? '/api/v1' : `/apis/${m.apiVersion}`;
        const path = plural === undefined ? objectPath(m, ns) : `${base}/namespaces/${ns}/${plural}`;
        const res = await cp.call('POST', path, m);
        expect(res.status, `${m.kind}/${m.metadata.name}: ${JSON.stringify(res.body?.message ?? res.body)}`).toBe(201);
      }
    });
  }

  it('refuses an object whose field has the wrong type, naming the field', async () => {
    const bad: Manifest = { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name: 'bad-routes', namespace: 'default' }, spec: { routes: 'not-a-list' } };
    const res = await cp.call('POST', objectPath(bad), bad);
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.message).toContain('spec.routes');
    const after = await cp.call('GET', `${objectPath(bad)}/bad-routes`);
    expect(after.status).toBe(404);
  });

  /** Malformed objects (test/fixtures/kubernetes/crd-invalid/cases.yaml), each with a fragment of the server's message. */
  const invalid = parse(readFileSync(join(ROOT, 'test/fixtures/kubernetes/crd-invalid/cases.yaml'), 'utf8')) as { server: string; object: Manifest }[];

  it('has a server-side expectation for every malformed object', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(20);
    for (const c of invalid) expect(c.server, c.object.metadata.name).toEqual(expect.any(String));
  });

  for (const c of invalid) {
    it(`refuses ${c.object.kind} ${c.object.metadata.name}: ${c.server}`, async () => {
      const m = { ...c.object, metadata: { ...c.object.metadata, namespace: 'default' } };
      // Strict field validation, as kubectl apply asks for by default: an unknown field is an error.
      const res = await cp.call('POST', `${objectPath(m)}?fieldValidation=Strict`, m);
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.message).toContain(c.server);
      const after = await cp.call('GET', `${objectPath(m)}/${m.metadata.name}`);
      expect(after.status).toBe(404);
    });
  }

  it('accepts the objects the rules are about when they are right', async () => {
    const good: Manifest[] = [
      { apiVersion: 'portico.dev/v1alpha1', kind: 'Middleware', metadata: { name: 'allow-ranges', namespace: 'default' }, spec: { ipAllowList: { sourceRange: ['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1'] } } },
      { apiVersion: 'portico.dev/v1alpha1', kind: 'Middleware', metadata: { name: 'error-pages', namespace: 'default' }, spec: { errors: { status: ['404', '500-599'], query: '/{status}.html', service: { name: 'errors', port: 80 } } } },
      { apiVersion: 'portico.dev/v1alpha1', kind: 'TraefikService', metadata: { name: 'mirrors-100', namespace: 'default' }, spec: { mirroring: { name: 'web', port: 80, mirrors: [{ name: 'a', port: 80, percent: 60 }, { name: 'b', port: 80, percent: 40 }] } } },
      { apiVersion: 'portico.dev/v1alpha1', kind: 'MiddlewareTCP', metadata: { name: 'one-tcp-type', namespace: 'default' }, spec: { inFlightConn: { amount: 0 } } },
    ];
    for (const m of good) {
      const res = await cp.call('POST', `${objectPath(m)}?fieldValidation=Strict`, m);
      expect(res.status, `${m.metadata.name}: ${JSON.stringify(res.body?.message ?? res.body)}`).toBe(201);
    }
  });

  it('prunes a field the schema does not know', async () => {
    const route: Manifest = {
      apiVersion: 'portico.dev/v1alpha1',
      kind: 'IngressRoute',
      metadata: { name: 'pruned', namespace: 'default' },
      spec: { routes: [{ match: 'Host(`a.example.com`)', kind: 'Rule', services: [{ name: 'web', port: 80 }] }], notAField: true },
    };
    const res = await cp.call('POST', objectPath(route), route);
    expect(res.status, JSON.stringify(res.body?.message ?? res.body)).toBe(201);
    expect(res.body.spec).not.toHaveProperty('notAField');
    expect(res.body.spec.routes[0].services[0]).toEqual({ name: 'web', port: 80 });
  });

  it('refuses the object in a namespace that does not exist', async () => {
    const route: Manifest = { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name: 'nowhere', namespace: 'no-such-ns' }, spec: { routes: [] } };
    const res = await cp.call('POST', objectPath(route, 'no-such-ns'), route);
    expect(res.status).toBe(404);
    expect(res.body.message).toContain('no-such-ns');
  });

  it('refuses the chart ServiceAccount identity before RBAC grants it anything', async () => {
    const res = await cp.call('GET', '/apis/portico.dev/v1alpha1/ingressroutes', undefined, cp.operatorToken);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('system:serviceaccount:portico:portico');
  });
});
