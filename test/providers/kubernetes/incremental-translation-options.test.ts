import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { KubeObject } from '../../../src/providers/kubernetes/client/kube-objects.js';
import { watchedResources } from '../../../src/providers/kubernetes/watch/object-cache.js';
import { DEFAULT_TRANSLATE_OPTIONS, type TranslateOptions } from '../../../src/providers/kubernetes/translate/shared/translation-types.js';
import { changeOp, checkEquivalence, goldenObjects, typeIn } from './incremental-equivalence.js';

// The incremental translation against translate() under the selection options
// the operator takes (label selector, namespace selector, namespaces, ingress class), with
// changes that move objects in and out of the selection (labels, namespace labels, classes).

const types = watchedResources({ traefikCrds: true, secrets: true, namespaceSelector: 'x' });
const usable = goldenObjects.filter((o) => typeIn(types, o) !== undefined);

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
        checkEquivalence({ types, usable, variant, options, initial, ops, batch });
      }), { numRuns: 40 });
    }, 120_000);
  }
});
