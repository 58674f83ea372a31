import { describe, expect, it } from 'vitest';
import { SnapshotLineEncoder } from '../../../src/dynamic-config/snapshot/lines.js';
import { emptyChangeSet, noteChange, type ChangeSet } from '../../../src/providers/kubernetes/translate/change-set.js';
import { IncrementalTranslation, type ProviderUpdate } from '../../../src/providers/kubernetes/translate/incremental.js';
import type { KubeObject } from '../../../src/providers/kubernetes/client/kube-objects.js';
import { ObjectCache, watchedResources } from '../../../src/providers/kubernetes/watch/object-cache.js';
import type { ReflectorSink } from '../../../src/providers/kubernetes/watch/reflector.js';
import { translate } from '../../../src/providers/kubernetes/translate/translate.js';
import { DEFAULT_TRANSLATE_OPTIONS } from '../../../src/providers/kubernetes/translate/shared/translation-types.js';

// The version of a snapshot body must depend on its content only. The operator
// skips a PUT when the version is unchanged, and check() re-delivers when the server holds
// another version: a version that depends on how the body happens to be cut into blocks makes a
// resync (or a second replica, or a restarted operator) re-send and re-apply an unchanged snapshot.

const types = watchedResources({ traefikCrds: true, secrets: true });

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
    const encoded = new SnapshotLineEncoder().encode({ configuration: snapshot.configuration, serverStatus: snapshot.serverStatus ?? {} }, { configuration: 3, serverStatus: 1 });
    expect(encoded.lines.join('\n')).toBe(scratch.text.replace(/\n$/, ''));
    expect(encoded.version).toBe(scratch.version);
  });
});
