import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ProviderSnapshot } from '../../../src/management/dynamic-config.js';
import { SnapshotLineEncoder } from '../../../src/management/snapshot-lines.js';
import { emptyChangeSet, noteChange, type ChangeSet } from '../../../src/providers/kubernetes/change-set.js';
import { IncrementalTranslation, type ProviderUpdate } from '../../../src/providers/kubernetes/incremental-translation.js';
import type { KubeObject } from '../../../src/providers/kubernetes/kube-objects.js';
import { ObjectCache, watchedResources } from '../../../src/providers/kubernetes/object-cache.js';
import type { ReflectorSink, ResourceType } from '../../../src/providers/kubernetes/reflector.js';
import { translate } from '../../../src/providers/kubernetes/translate.js';
import { DEFAULT_TRANSLATE_OPTIONS, type TranslateOptions } from '../../../src/providers/kubernetes/translation-types.js';

// Review (rev-op): the incremental translation against translate() under the selection options
// the operator takes (label selector, namespace selector, namespaces, ingress class), with
// changes that move objects in and out of the selection (labels, namespace labels, classes).

const root = new URL('../../fixtures/kubernetes/', import.meta.url).pathname;
const readObjects = (file: string): KubeObject[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
const pool: KubeObject[] = [
  ...readObjects(join(root, 'common-backends.yaml')),
  ...readdirSync(join(root, 'golden')).sort().flatMap((name) => readObjects(join(root, 'golden', name, 'input.yaml'))),
];
const types = watchedResources({ traefikCrds: true, secrets: true, namespaceSelector: 'x' });
function typeOf(o: KubeObject): ResourceType | undefined {
  const group = (o.apiVersion ?? '').includes('/') ? (o.apiVersion ?? '').split('/')[0] : '';
  return types.find((t) => t.kind === o.kind && t.group === group);
}
const usable = pool.filter((o) => typeOf(o) !== undefined);

/** A copy with other labels, class annotation or (for a Namespace) selector label. */
function variant(o: KubeObject, n: number): KubeObject {
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

function lines(update: ProviderUpdate): string[] {
  if ('body' in update) return Buffer.concat(update.body.chunks).toString('utf8').split('\n').slice(1).filter((l) => l !== '');
  return encodeLines(update.snapshot);
}
function encodeLines(snapshot: ProviderSnapshot): string[] {
  return [...new SnapshotLineEncoder().encode({ configuration: snapshot.configuration, serverStatus: snapshot.serverStatus ?? {} }, { configuration: 3, serverStatus: 1 }).lines];
}

const optionSets: Partial<TranslateOptions>[] = [
  { labelSelector: 'v!=3' },
  { namespaceSelector: 'portico=enabled' },
  { namespaces: ['default'] },
  { ingressClass: 'portico' },
];
const op = fc.record({ kind: fc.constantFrom('upsert', 'variant', 'delete'), index: fc.nat(), n: fc.nat(20) });

describe('incremental translation under selection options (review)', () => {
  for (const extra of optionSets) {
    it(`equals translate() with ${JSON.stringify(extra)}`, () => {
      const options: TranslateOptions = { ...DEFAULT_TRANSLATE_OPTIONS, ...extra };
      fc.assert(fc.property(fc.array(fc.nat(), { maxLength: 40 }), fc.array(op, { minLength: 1, maxLength: 25 }), fc.boolean(), (initial, ops, batch) => {
        let changes: ChangeSet = emptyChangeSet();
        const cache = new ObjectCache((resourceId, key, services) => noteChange(changes, resourceId, key, services));
        const sinks = new Map<string, ReflectorSink>(types.map((t) => [t.id, cache.sink(t, '')]));
        const sinkOf = (o: KubeObject) => sinks.get((typeOf(o) as ResourceType).id) as ReflectorSink;
        for (const t of types) {
          const sink = sinks.get(t.id) as ReflectorSink;
          sink.replace(initial.map((i) => usable[i % usable.length] as KubeObject).filter((o) => typeOf(o) === t).map((o) => structuredClone(o)));
          sink.listed();
        }
        const inc = new IncrementalTranslation(options, cache);
        const current: { kubernetes?: string[]; kubernetescrd?: string[] } = {};
        const check = () => {
          const outcome = inc.update(changes);
          changes = emptyChangeSet();
          if (outcome.kubernetes) current.kubernetes = lines(outcome.kubernetes);
          if (outcome.kubernetescrd) current.kubernetescrd = lines(outcome.kubernetescrd);
          const scratch = translate(cache.snapshot(), options);
          expect(current.kubernetes).toEqual(encodeLines(scratch.kubernetes));
          expect(current.kubernetescrd).toEqual(encodeLines(scratch.kubernetescrd));
          const status = inc.statusInput();
          expect(status.statuses).toEqual(scratch.statuses);
          expect(status.events).toEqual(scratch.events);
          expect(status.servedIngresses).toEqual(scratch.servedIngresses);
        };
        check();
        for (const { kind, index, n } of ops) {
          const o = usable[index % usable.length] as KubeObject;
          if (kind === 'delete') sinkOf(o).remove(structuredClone(o));
          else sinkOf(o).upsert(kind === 'variant' ? variant(o, n) : structuredClone(o));
          if (!batch) check();
        }
        check();
      }), { numRuns: 40 });
    }, 120_000);
  }
});
