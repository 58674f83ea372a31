import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyChangeSet, noteChange, type ChangeSet } from '../../../../src/providers/kubernetes/translate/change-set.js';
import { IncrementalTranslation, type ProviderUpdate } from '../../../../src/providers/kubernetes/translate/incremental.js';
import type { KubeObject } from '../../../../src/providers/kubernetes/client/kube-objects.js';
import { ObjectCache, watchedResources } from '../../../../src/providers/kubernetes/watch/object-cache.js';
import type { ReflectorSink } from '../../../../src/providers/kubernetes/watch/reflector.js';
import { translate } from '../../../../src/providers/kubernetes/translate/translate.js';
import { DEFAULT_TRANSLATE_OPTIONS, type TranslateOptions } from '../../../../src/providers/kubernetes/translate/shared/translation-types.js';
import { changeOp, checkEquivalence, encodeLines, goldenObjects, lines, typeIn } from './incremental-equivalence.js';
import { SnapshotLineEncoder } from '../../../../src/dynamic-config/snapshot/lines.js';

// The incremental translation (patched snapshots, re-translating only what a change touched) must
// give exactly what a translation from scratch gives: the same body lines in the same order, the
// same statuses, events and served Ingresses, after any sequence of changes. The objects are the
// golden cases' inputs (clashes, shared services, default backends, bad objects, references) and
// variants of them (renamed hosts and matches), changed, re-sent and deleted in random order.

const types = watchedResources({ traefikCrds: true, secrets: true });
const usable = goldenObjects.filter((o) => typeIn(types, o) !== undefined);

/** A changed copy: another host, match, port or endpoint, so names move and records change. */
function variant(o: KubeObject, n: number): KubeObject {
  const copy = structuredClone(o) as KubeObject & Record<string, unknown>;
  const spec = copy.spec as Record<string, unknown> | undefined;
  if (o.kind === 'Ingress' && Array.isArray(spec?.rules)) {
    for (const r of spec.rules as { host?: string }[]) if (r.host !== undefined) r.host = `v${n}.${r.host}`;
  } else if (Array.isArray(spec?.routes)) {
    for (const r of spec.routes as { match?: string }[]) if (typeof r.match === 'string') r.match = n % 3 === 0 ? r.match : `${r.match} && Path(\`/v${n}\`)`;
  } else if (o.kind === 'EndpointSlice' && Array.isArray(copy.endpoints)) {
    (copy.endpoints as unknown[]).push({ addresses: [`10.9.9.${n % 250}`], conditions: { ready: n % 2 === 0 } });
  } else if (o.kind === 'Service') {
    copy.metadata = { ...copy.metadata, annotations: { ...copy.metadata?.annotations, 'traefik.ingress.kubernetes.io/service.passhostheader': String(n % 2 === 0) } };
  } else {
    copy.metadata = { ...copy.metadata, labels: { ...copy.metadata?.labels, v: String(n) } };
  }
  return copy;
}

const stats = { initial: 0, full: 0, patched: 0, unchanged: 0 };

describe('incremental translation', () => {
  it('equals a translation from scratch after every change', () => {
    fc.assert(fc.property(fc.array(fc.nat(), { maxLength: 40 }), fc.array(changeOp, { minLength: 1, maxLength: 30 }), fc.boolean(), (initial, ops, batch) => {
      checkEquivalence({
        types, usable, variant, options: DEFAULT_TRANSLATE_OPTIONS, initial, ops, batch,
        onOutcome: (outcome, first) => stats[first ? 'initial' : outcome.full ? 'full' : outcome.objects > 0 ? 'patched' : 'unchanged']++,
      });
    }), { numRuns: Number(process.env.PROP_RUNS ?? 150) });
    // The fast path is what is under test: most changes take it (about 10 to 1 against falling
    // back to a full translation, with these objects).
    expect(stats.patched).toBeGreaterThan(2 * stats.full);
  });

  it('patches a one-object change without a full translation', () => {
    let changes: ChangeSet = emptyChangeSet();
    const cache = new ObjectCache((resourceId, key, services) => noteChange(changes, resourceId, key, services));
    const sinks = new Map<string, ReflectorSink>(types.map((t) => [t.id, cache.sink(t, '')]));
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'a' }, spec: { ports: [{ name: 'http', port: 80 }] } };
    const ing = (i: number, host: string): KubeObject => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: `ing-${i}`, namespace: 'a' },
      spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `s${i}`, port: { name: 'http' } } } }] } }] },
    });
    for (const t of types) {
      const sink = sinks.get(t.id) as ReflectorSink;
      if (t.id === 'services') sink.replace([0, 1, 2].map((i) => ({ ...svc, metadata: { name: `s${i}`, namespace: 'a' } })));
      if (t.id === 'ingresses') sink.replace([0, 1, 2].map((i) => ing(i, `h${i}.example.com`)));
      sink.listed();
    }
    const inc = new IncrementalTranslation(DEFAULT_TRANSLATE_OPTIONS, cache);
    expect(inc.update(changes).full).toBe(true);
    changes = emptyChangeSet();
    (sinks.get('ingresses') as ReflectorSink).upsert(ing(1, 'changed.example.com'));
    const outcome = inc.update(changes);
    expect(outcome.full).toBe(false);
    expect(outcome.objects).toBe(1);
    expect(outcome.kubernetescrd).toBeUndefined();
    expect(lines(outcome.kubernetes as ProviderUpdate)).toEqual(encodeLines(translate(cache.snapshot(), DEFAULT_TRANSLATE_OPTIONS).kubernetes));
  });

  // Found by the property below (a Service with two slices, one of them re-sent): the index moved
  // the re-sent slice behind the other, so the servers came out in another order than a fresh
  // operator's. Both now take a Service's slices in name order.
  it('keeps the servers in the same order when one of two slices of a Service is re-sent', () => {
    const named = (name: string) => goldenObjects.find((o) => o.kind === name.split(':')[0] && o.metadata?.name === name.split(':')[1]) as KubeObject;
    const pool = [named('IngressRouteUDP:test3.route'), named('EndpointSlice:whoami-abc'), named('EndpointSlice:whoami-def'), named('Service:whoami')];
    for (const initial of [[0, 1, 2, 3], [0, 2, 1, 3]]) {
      for (const resent of [1, 2]) {
        checkEquivalence({ types, usable: pool, variant, options: DEFAULT_TRANSLATE_OPTIONS, initial, ops: [{ kind: 'upsert', index: resent, n: 0 }], batch: false });
      }
    }
  });

  it('keeps the layout through many inserts and deletes (blocks split and empty)', () => {
    let changes: ChangeSet = emptyChangeSet();
    const cache = new ObjectCache((resourceId, key, services) => noteChange(changes, resourceId, key, services));
    const sinks = new Map<string, ReflectorSink>(types.map((t) => [t.id, cache.sink(t, '')]));
    const ing = (i: number, host: string): KubeObject => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: `ing-${i}`, namespace: `ns-${i % 7}` },
      spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `s${i % 5}`, port: { number: 80 } } } }] } }] },
    });
    const route = (i: number, host: string): KubeObject => ({
      apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name: `ir-${i}`, namespace: `ns-${i % 7}` },
      spec: { routes: [{ match: `Host(\`${host}\`)`, services: [{ name: `s${i % 5}`, port: 80 }] }] },
    });
    const svcs = Array.from({ length: 35 }, (_, i) => ({
      apiVersion: 'v1', kind: 'Service', metadata: { name: `s${i % 5}`, namespace: `ns-${Math.floor(i / 5)}` }, spec: { ports: [{ port: 80 }] },
    }));
    for (const t of types) {
      const sink = sinks.get(t.id) as ReflectorSink;
      if (t.id === 'services') sink.replace(svcs);
      if (t.id === 'ingresses') sink.replace(Array.from({ length: 150 }, (_, i) => ing(i * 2, `a${i}.example.com`)));
      if (t.id === 'portico.dev/ingressroutes') sink.replace(Array.from({ length: 150 }, (_, i) => route(i * 2, `a${i}.example.com`)));
      sink.listed();
    }
    const inc = new IncrementalTranslation(DEFAULT_TRANSLATE_OPTIONS, cache);
    const current: { kubernetes?: string[]; kubernetescrd?: string[] } = {};
    let patched = 0;
    const step = () => {
      const outcome = inc.update(changes);
      changes = emptyChangeSet();
      if (!outcome.full && outcome.objects > 0) patched++;
      if (outcome.kubernetes) current.kubernetes = lines(outcome.kubernetes);
      if (outcome.kubernetescrd) current.kubernetescrd = lines(outcome.kubernetescrd);
    };
    const compare = () => {
      const scratch = translate(cache.snapshot(), DEFAULT_TRANSLATE_OPTIONS);
      expect(current.kubernetes).toEqual(encodeLines(scratch.kubernetes));
      expect(current.kubernetescrd).toEqual(encodeLines(scratch.kubernetescrd));
      expect(inc.statusInput().statuses).toEqual(scratch.statuses);
    };
    step();
    compare();
    const ingresses = sinks.get('ingresses') as ReflectorSink;
    const routes = sinks.get('portico.dev/ingressroutes') as ReflectorSink;
    // Odd names fall between the existing ones: blocks fill up and split.
    for (let i = 0; i < 300; i++) {
      ingresses.upsert(ing(i * 2 + 1, `b${i}.example.com`));
      routes.upsert(route(i * 2 + 1, `b${i}.example.com`));
      step();
      if (i % 50 === 0) compare();
    }
    compare();
    // Then most go again, emptying whole blocks.
    for (let i = 0; i < 400; i++) {
      ingresses.remove(ing(i, ''));
      routes.remove(route(i, ''));
      step();
      if (i % 50 === 0) compare();
    }
    compare();
    expect(patched).toBeGreaterThan(600);
  });
});

// The incremental translation against translate() under the selection options
// the operator takes (label selector, namespace selector, namespaces, ingress class), with
// changes that move objects in and out of the selection (labels, namespace labels, classes).

const optionTypes = watchedResources({ traefikCrds: true, secrets: true, namespaceSelector: 'x' });
const optionUsable = goldenObjects.filter((o) => typeIn(optionTypes, o) !== undefined);

/** A copy with other labels, class annotation or (for a Namespace) selector label. */
function optionVariant(o: KubeObject, n: number): KubeObject {
  const copy = structuredClone(o) as KubeObject;
  const labels: Record<string, string> = { ...copy.metadata?.labels, v: String(n % 5) };
  if (o.kind === 'Namespace') {
    if (n % 2 === 0) labels.portico = 'enabled';
    else delete labels.portico;
  }
  const annotations: Record<string, string> = { ...copy.metadata?.annotations };
  if (n % 3 === 0) annotations['kubernetes.io/ingress.class'] = 'portico';
  else if (n % 3 === 1) delete annotations['kubernetes.io/ingress.class'];
  copy.metadata = { ...copy.metadata, labels, annotations };
  const spec = (copy as { spec?: { rules?: { host?: string }[] } }).spec;
  if (o.kind === 'Ingress' && Array.isArray(spec?.rules)) for (const r of spec.rules) if (r.host !== undefined) r.host = `v${n}.${r.host}`;
  return copy;
}

const optionSets: Partial<TranslateOptions>[] = [
  { labelSelector: 'v!=3' },
  { namespaceSelector: 'portico=enabled' },
  { namespaces: ['default'] },
  { ingressClass: 'portico' },
];

describe('incremental translation under selection options', () => {
  for (const extra of optionSets) {
    it(`equals translate() with ${JSON.stringify(extra)}`, () => {
      const options: TranslateOptions = { ...DEFAULT_TRANSLATE_OPTIONS, ...extra };
      fc.assert(fc.property(fc.array(fc.nat(), { maxLength: 40 }), fc.array(changeOp, { minLength: 1, maxLength: 25 }), fc.boolean(), (initial, ops, batch) => {
        checkEquivalence({ types: optionTypes, usable: optionUsable, variant: optionVariant, options, initial, ops, batch });
      }), { numRuns: Number(process.env.PROP_RUNS_OPT ?? 40) });
    }, 120_000);
  }
});

// The version of a snapshot body must depend on its content only. The operator
// skips a PUT when the version is unchanged, and check() re-delivers when the server holds
// another version: a version that depends on how the body happens to be cut into blocks makes a
// resync (or a second replica, or a restarted operator) re-send and re-apply an unchanged snapshot.

function body(update: ProviderUpdate | undefined): { version: string; text: string } {
  if (update === undefined || !('body' in update)) throw new Error('expected a laid-out body');
  return { version: update.body.version, text: Buffer.concat(update.body.chunks).toString('utf8').split('\n').slice(1).join('\n') };
}

describe('snapshot body version', () => {
  it('is the same for the same content whether the body was patched or laid out from scratch', () => {
    let changes: ChangeSet = emptyChangeSet();
    const cache = new ObjectCache((resourceId, key, services) => noteChange(changes, resourceId, key, services));
    const sinks = new Map<string, ReflectorSink>(types.map((t) => [t.id, cache.sink(t, '')]));
    const ing = (i: number): KubeObject => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: `ing-${String(i).padStart(4, '0')}`, namespace: 'a' },
      spec: { rules: [{ host: `h${i}.example.com`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `s${i}`, port: { number: 80 } } } }] } }] },
    });
    for (const t of types) {
      const sink = sinks.get(t.id) as ReflectorSink;
      if (t.id === 'ingresses') sink.replace(Array.from({ length: 100 }, (_, i) => ing(i * 2)));
      sink.listed();
    }
    const patched = new IncrementalTranslation(DEFAULT_TRANSLATE_OPTIONS, cache);
    patched.update(changes);
    changes = emptyChangeSet();
    // Inserts between existing objects: the blocks fill up and split.
    let last: ProviderUpdate | undefined;
    for (let i = 0; i < 100; i++) {
      (sinks.get('ingresses') as ReflectorSink).upsert(ing(i * 2 + 1));
      const outcome = patched.update(changes);
      changes = emptyChangeSet();
      expect(outcome.full).toBe(false);
      last = outcome.kubernetes ?? last;
    }
    const afterPatches = body(last);
    // The same cache translated from scratch (a resync, a restarted operator, another replica).
    const scratch = body(new IncrementalTranslation(DEFAULT_TRANSLATE_OPTIONS, cache).update(emptyChangeSet(true)).kubernetes);
    expect(afterPatches.text).toBe(scratch.text);
    expect(afterPatches.version).toBe(scratch.version);
    // And a resync of the patched one must not change its version either.
    const resync = body(patched.update(emptyChangeSet(true)).kubernetes);
    expect(resync.version).toBe(afterPatches.version);
    // The same version as the encoder gives the same lines (the path taken when the assembly cannot lay a body out).
    const snapshot = translate(cache.snapshot(), DEFAULT_TRANSLATE_OPTIONS).kubernetes;
    const encoded = new SnapshotLineEncoder().encodeSnapshot(snapshot);
    expect(encoded.lines.join('\n')).toBe(scratch.text.replace(/\n$/, ''));
    expect(encoded.version).toBe(scratch.version);
  });
});
