import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../src/providers/kubernetes/client/kube-objects.js';
import { validateProviderSnapshot } from '../../../src/dynamic-config/validation.js';
import { ClusterIndex } from '../../../src/providers/kubernetes/watch/cluster-index.js';
import { cacheFromObjects, translate } from '../../../src/providers/kubernetes/translate/translate.js';
import { TranslationMemo } from '../../../src/providers/kubernetes/translate/shared/translation-memo.js';
import { DEFAULT_TRANSLATE_OPTIONS, type TranslateOptions, type TranslationResult } from '../../../src/providers/kubernetes/translate/shared/translation-types.js';

// Golden translation tests: objects in (input.yaml + the shared backends), records out
// (expected.json). Regenerate after a deliberate change with UPDATE_GOLDEN=1 and review the diff.
const root = new URL('../../fixtures/kubernetes/', import.meta.url).pathname;
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
