import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ProviderSnapshot } from '../../../../src/dynamic-config/configuration.js';
import { SnapshotLineEncoder } from '../../../../src/dynamic-config/snapshot/lines.js';
import { emptyChangeSet, noteChange, type ChangeSet } from '../../../../src/providers/kubernetes/translate/change-set.js';
import { IncrementalTranslation, type ProviderUpdate, type TranslationOutcome } from '../../../../src/providers/kubernetes/translate/incremental.js';
import type { KubeObject } from '../../../../src/providers/kubernetes/client/kube-objects.js';
import { ObjectCache } from '../../../../src/providers/kubernetes/watch/object-cache.js';
import type { ReflectorSink, ResourceType } from '../../../../src/providers/kubernetes/watch/reflector.js';
import { translate } from '../../../../src/providers/kubernetes/translate/translate.js';
import type { TranslateOptions } from '../../../../src/providers/kubernetes/translate/shared/translation-types.js';

/**
 * The property the incremental translation tests share: after any sequence of changes, the
 * incremental translation gives exactly what translate() gives from scratch (the same body lines
 * in the same order, statuses, events and served Ingresses). Objects come from the golden cases'
 * inputs; each test brings its own resource types and its own way of varying an object.
 */

const root = new URL('../../../fixtures/kubernetes/', import.meta.url).pathname;

function readObjects(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
}

/** The golden cases' inputs and the common backends. */
export const goldenObjects: readonly KubeObject[] = [
  ...readObjects(join(root, 'common-backends.yaml')),
  ...readdirSync(join(root, 'golden')).sort().flatMap((name) => readObjects(join(root, 'golden', name, 'input.yaml'))),
];

/** The watched type of an object, if any of `types` is its. */
export function typeIn(types: readonly ResourceType[], o: KubeObject): ResourceType | undefined {
  const group = (o.apiVersion ?? '').includes('/') ? (o.apiVersion ?? '').split('/')[0] : '';
  return types.find((t) => t.kind === o.kind && t.group === group);
}

/** A snapshot as the body lines a full encode gives (the version line left out). */
export function encodeLines(snapshot: ProviderSnapshot): string[] {
  return [...new SnapshotLineEncoder().encodeSnapshot(snapshot).lines];
}

/** An update's body lines, the version line left out. */
export function lines(update: ProviderUpdate): string[] {
  if ('body' in update) return Buffer.concat(update.body.chunks).toString('utf8').split('\n').slice(1).filter((l) => l !== '');
  return encodeLines(update.snapshot);
}

/** One change: re-send, vary (with `n`) or delete the object at `index` (modulo the pool). */
export const changeOp = fc.record({ kind: fc.constantFrom('upsert', 'variant', 'delete'), index: fc.nat(), n: fc.nat(20) });
export type ChangeOp = { kind: 'upsert' | 'variant' | 'delete'; index: number; n: number };

export interface EquivalenceRun {
  readonly types: readonly ResourceType[];
  /** Objects of `types` to pick from. */
  readonly usable: readonly KubeObject[];
  readonly variant: (o: KubeObject, n: number) => KubeObject;
  readonly options: TranslateOptions;
  /** Indexes (modulo `usable`) of the objects listed at first. */
  readonly initial: readonly number[];
  readonly ops: readonly ChangeOp[];
  /** Check once after all changes instead of after each. */
  readonly batch: boolean;
  /** Sees each outcome (the first is the initial translation). */
  readonly onOutcome?: (outcome: TranslationOutcome, first: boolean) => void;
}

/** Runs the changes through an object cache and checks incremental = from scratch at each check. */
export function checkEquivalence(run: EquivalenceRun): void {
  const { types, usable, options } = run;
  let changes: ChangeSet = emptyChangeSet();
  const cache = new ObjectCache((resourceId, key, services) => noteChange(changes, resourceId, key, services));
  const sinks = new Map<string, ReflectorSink>(types.map((t) => [t.id, cache.sink(t, '')]));
  const sinkOf = (o: KubeObject) => sinks.get((typeIn(types, o) as ResourceType).id) as ReflectorSink;
  for (const t of types) {
    const sink = sinks.get(t.id) as ReflectorSink;
    // As a reflector hands them over: each object through the sink's intake (slimmed, shared parts).
    sink.replace(run.initial.map((i) => usable[i % usable.length] as KubeObject).filter((o) => typeIn(types, o) === t).map((o) => sink.intake(structuredClone(o))));
    sink.listed();
  }
  const inc = new IncrementalTranslation(options, cache);
  const current: { kubernetes?: string[]; kubernetescrd?: string[] } = {};
  let first = true;
  const check = () => {
    const outcome = inc.update(changes);
    run.onOutcome?.(outcome, first);
    first = false;
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
  for (const { kind, index, n } of run.ops) {
    const o = usable[index % usable.length] as KubeObject;
    if (kind === 'delete') sinkOf(o).remove(structuredClone(o));
    else sinkOf(o).upsert(sinkOf(o).intake(kind === 'variant' ? run.variant(o, n) : structuredClone(o)));
    if (!run.batch) check();
  }
  check();
}
