/**
 * Portico's CRDs against a real kube-apiserver: each manifest in crds/ is accepted and becomes
 * Established (the server validates the CRD itself, including its structural schema), the examples
 * are accepted as objects, and the server's own schema validation refuses bad objects naming the
 * field and prunes fields the schema does not know.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
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
