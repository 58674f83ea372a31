import type { ProviderSnapshot } from '../../../dynamic-config/configuration.js';
import type { ChangeSet } from './change-set.js';
import { CRD_KINDS, TRAEFIK_GROUP, type CrdKind } from './crd/kinds.js';
import type { ObjectResult, Pending } from './crd/object-context.js';
import type { CrdInputs } from './crd/object-translation.js';
import { crdMemoKey, crdStatus, shouldProcess, specVersion, translateObject, type CrdRecord } from './crd/translator.js';
import type { ClusterView } from './shared/endpoints-resolver.js';
import {
  ingressMemoKey, ingressRef, shouldProcessIngress, translateOneIngress, type IngressFragment, type IngressRecord,
} from './ingress/translator.js';
import { isRecord, type Ingress, type IngressClass, type KubeObject } from '../client/kube-objects.js';
import { DEFAULT_BACKEND_ROUTER, DEFAULT_BACKEND_SERVICE } from './shared/naming.js';
import { SnapshotAssembly, type FragmentChange, type Section, type SnapshotBody } from './snapshot-assembly.js';
import { objectSelection, translate, type CacheSnapshot } from './translate.js';
import { TranslationMemo } from './shared/translation-memo.js';
import type { ObjectRef, ObjectStatus, OperatorEvent, Problem, TranslateOptions, TranslationResult } from './shared/translation-types.js';

/**
 * The operator's translation, kept up to date change by change. The first translation (and any
 * change the fast path does not follow) runs the full translate() and keeps, per translated
 * object, its fragment, events and status, and per provider a {@link SnapshotAssembly}. A later
 * change re-translates only the objects it touched (changed Ingresses and CRD objects, and the
 * objects that read a changed Service, EndpointSlice or Secret) and patches the assembly; CRD
 * statuses are recomputed for those objects and for the ones referring to a name they added or
 * removed. What it cannot follow incrementally it translates in full: IngressClass and Namespace
 * changes, re-lists, record names two objects share (clashes, shared load balancers), the
 * default backend. The result is always the full translation's (see the property test).
 */

/** One provider's new state: its body, or the whole snapshot where the assembly cannot lay it out. */
export type ProviderUpdate = { readonly body: SnapshotBody } | { readonly snapshot: ProviderSnapshot };

export interface StatusInput {
  readonly statuses: readonly ObjectStatus[];
  readonly events: readonly OperatorEvent[];
  readonly servedIngresses: readonly ObjectRef[];
}

export interface TranslationOutcome {
  /** Only the providers whose snapshot may have changed. */
  readonly kubernetes?: ProviderUpdate;
  readonly kubernetescrd?: ProviderUpdate;
  /** Translated in full (else incrementally). */
  readonly full: boolean;
  /** Objects translated again (incremental path). */
  readonly objects: number;
}

/** Where the translation reads the cached objects. */
export interface TranslationSource {
  snapshot(): CacheSnapshot;
  get(resourceId: string, namespace: string, name: string): KubeObject | undefined;
  readonly clusterIndex: ClusterView;
}

interface IngressEntry {
  readonly ns: string;
  readonly name: string;
  readonly object: Ingress;
  readonly ref: ObjectRef;
  readonly fragment: IngressFragment;
  readonly events: readonly OperatorEvent[];
  /** What it read (`svc|…`, `sec|…`); undefined until linked into `dependents`. */
  deps: readonly string[] | undefined;
}

interface CrdEntry {
  readonly resourceId: string;
  readonly ns: string;
  readonly name: string;
  readonly result: ObjectResult;
  readonly mergeProblems: readonly Problem[];
  status: ObjectStatus;
  events: readonly OperatorEvent[];
  /** What it read (`svc|…`, `sec|…`); undefined until linked into `dependents`. */
  deps: readonly string[] | undefined;
  /** The names it refers to (`table|name`), linked into `referrers` with `deps`. */
  readonly pending: readonly string[];
}

/** Above this many re-translated objects a full translation is about as cheap. */
const MAX_INCREMENTAL = 2000;

const PENDING_SECTIONS: Readonly<Record<Pending['table'], Section>> = {
  httpMiddlewares: 'httpMiddlewares', tcpMiddlewares: 'tcpMiddlewares', httpServices: 'httpServices',
};

function splitKey(key: string): { ns: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { ns: '', name: key } : { ns: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The local name a pending reference checks (references to other providers are not checked). */
function pendingKey(p: Pending): string | undefined {
  const at = p.name.indexOf('@');
  if (at >= 0 && p.name.slice(at + 1) !== 'kubernetescrd') return undefined;
  return `${p.table}|${at >= 0 ? p.name.slice(0, at) : p.name}`;
}

const reservedIngressName = (_section: Section, name: string) => name === DEFAULT_BACKEND_ROUTER || name === DEFAULT_BACKEND_SERVICE;

export class IncrementalTranslation {
  private readonly memo = new TranslationMemo();
  private readonly ingress = new SnapshotAssembly<IngressEntry>();
  private readonly crd = new SnapshotAssembly<CrdEntry>();
  private readonly ingressEntries = new Map<string, IngressEntry>();
  private readonly crdEntries = new Map<string, CrdEntry>();
  /** Dependency (`svc|ns/name`, `sec|ns/name`) → memo keys of the objects that read it. */
  private readonly dependents = new Map<string, Set<string>>();
  /** `table|name` → memo keys of the CRD objects referring to it. */
  private readonly referrers = new Map<string, Set<string>>();
  private last: TranslationResult | undefined;
  private cachedStatus: StatusInput | undefined;
  /** Entries of a full translation not yet filed in `dependents` and `referrers` (see linkAll). */
  private unlinked = false;
  private ingressSnapshot: ProviderSnapshot | undefined;
  private crdSnapshot: ProviderSnapshot | undefined;
  private select: (o: KubeObject) => boolean = () => true;
  private classes: readonly IngressClass[] = [];
  private readonly crdKinds = new Map<string, CrdKind>(CRD_KINDS.map((k) => [k.plural, k.kind]));

  constructor(private readonly options: TranslateOptions, private readonly source: TranslationSource) {}

  /** Memo hits and misses of the last translation (for logs). */
  get memoStats(): { hits: number; misses: number } {
    return { hits: this.memo.hits, misses: this.memo.misses };
  }

  /** Translates what `changes` says moved. */
  // eslint-disable-next-line complexity -- one guarded step per kind of changed object (Ingress, Service, EndpointSlice, Secret, each CRD kind), each deciding between a patch and a full translation; left whole in the layout change that moved it
  update(changes: ChangeSet): TranslationOutcome {
    this.cachedStatus = undefined;
    if (changes.full || this.last === undefined) return this.full(true, true);
    this.linkAll();
    let fullIngress = false;
    let fullCrd = false;
    const ingressKeys = new Set<string>();
    const crdKeys = new Map<string, { resourceId: string; ns: string; name: string }>();
    for (const [resourceId, keys] of changes.objects) {
      if (resourceId === 'ingresses') {
        for (const key of keys) ingressKeys.add(key);
      } else if (resourceId.includes('/')) {
        const slash = resourceId.indexOf('/');
        const group = resourceId.slice(0, slash);
        const kind = this.crdKinds.get(resourceId.slice(slash + 1));
        if (kind === undefined) {
          fullCrd = true;
          continue;
        }
        for (const key of keys) {
          const { ns, name } = splitKey(key);
          crdKeys.set(crdMemoKey(kind, `${group === TRAEFIK_GROUP ? '1' : '0'}|${key}`), { resourceId, ns, name });
        }
      } else if (resourceId === 'services' || resourceId === 'endpointslices' || resourceId === 'secrets') {
        // Reported through `deps`.
      } else {
        // IngressClasses and Namespaces decide which objects are read at all.
        fullIngress = true;
        fullCrd = true;
      }
    }
    for (const dep of changes.deps) {
      for (const memoKey of this.dependents.get(dep) ?? []) {
        if (memoKey.startsWith('ing|')) {
          const e = this.ingressEntries.get(memoKey);
          if (e) ingressKeys.add(e.ns === '' ? e.name : `${e.ns}/${e.name}`);
        } else {
          const e = this.crdEntries.get(memoKey);
          if (e) crdKeys.set(memoKey, { resourceId: e.resourceId, ns: e.ns, name: e.name });
        }
      }
    }
    if (ingressKeys.size > MAX_INCREMENTAL) fullIngress = true;
    if (crdKeys.size > MAX_INCREMENTAL) fullCrd = true;
    let ingressDone = false;
    let crdDone = false;
    let objects = 0;
    let ingressChanged = false;
    let crdChanged = false;
    if (!fullIngress && ingressKeys.size > 0) {
      const r = this.patchIngresses(ingressKeys);
      ingressDone = r !== undefined;
      ingressChanged = (r ?? 0) > 0;
      objects += r ?? 0;
    }
    if (!fullCrd && crdKeys.size > 0) {
      const r = this.patchCrds(crdKeys);
      crdDone = r !== undefined;
      crdChanged = (r ?? 0) > 0;
      objects += r ?? 0;
    }
    const redoIngress = ingressKeys.size > 0 && !ingressDone || fullIngress;
    const redoCrd = crdKeys.size > 0 && !crdDone || fullCrd;
    if (redoIngress || redoCrd) {
      const full = this.full(redoIngress, redoCrd);
      return {
        ...(full.kubernetes ? { kubernetes: full.kubernetes } : ingressChanged ? { kubernetes: this.ingressUpdate() } : {}),
        ...(full.kubernetescrd ? { kubernetescrd: full.kubernetescrd } : crdChanged ? { kubernetescrd: this.crdUpdate() } : {}),
        full: true,
        objects,
      };
    }
    return {
      ...(ingressChanged ? { kubernetes: this.ingressUpdate() } : {}),
      ...(crdChanged ? { kubernetescrd: this.crdUpdate() } : {}),
      full: false,
      objects,
    };
  }

  private ingressUpdate(): ProviderUpdate {
    return this.ingress.usable || !this.ingressSnapshot ? { body: this.ingress.body() } : { snapshot: this.ingressSnapshot };
  }

  private crdUpdate(): ProviderUpdate {
    return this.crd.usable || !this.crdSnapshot ? { body: this.crd.body() } : { snapshot: this.crdSnapshot };
  }

  /** The statuses, events and served Ingresses of the current translation, in translation order. */
  statusInput(): StatusInput {
    if (this.cachedStatus) return this.cachedStatus;
    const servedIngresses: ObjectRef[] = [];
    const events: OperatorEvent[] = [];
    this.ingress.forEach((e) => {
      servedIngresses.push(e.ref);
      for (const ev of e.events) events.push(ev);
    });
    const statuses: ObjectStatus[] = [];
    this.crd.forEach((e) => {
      statuses.push(e.status);
      for (const ev of e.events) events.push(ev);
    });
    this.cachedStatus = { statuses, events, servedIngresses };
    return this.cachedStatus;
  }

  private full(doIngress: boolean, doCrd: boolean): TranslationOutcome {
    const snap = this.source.snapshot();
    this.select = objectSelection(this.options, snap.namespaces);
    this.classes = snap.ingressClasses;
    const ingressRecords: IngressRecord[] = [];
    const crdRecords: CrdRecord[] = [];
    const previous = this.last;
    const result = translate(snap, this.options, this.source.clusterIndex, this.memo, {
      ingress: doIngress, crd: doCrd, previous,
      recordIngress: (r) => ingressRecords.push(r), recordCrd: (r) => crdRecords.push(r),
    });
    // translate() only needs to know that a previous result exists (the skipped provider's part
    // is passed through, and ignored here): keep none of its data.
    this.last = PREVIOUS;
    const ingressNow = doIngress || !previous;
    const crdNow = doCrd || !previous;
    if (ingressNow) {
      for (const [key, e] of this.ingressEntries) this.unlink(key, e.deps);
      this.ingressEntries.clear();
      const entries = ingressRecords.map((r) => this.setIngress(r.key, this.ingressEntry(r.key, r.object, r.ref, r.fragment, r.events), false));
      this.unlinked = true;
      this.ingress.rebuild(ingressRecords.map((r, i) => ({ key: r.key, records: r.fragment.records, data: entries[i] as IngressEntry })), result.kubernetes);
      this.ingressSnapshot = this.ingress.usable ? undefined : result.kubernetes;
    }
    if (crdNow) {
      for (const [key, e] of this.crdEntries) this.unlinkCrd(key, e);
      this.crdEntries.clear();
      const entries = crdRecords.map((r) => {
        const group = r.object.apiVersion?.split('/')[0] ?? '';
        const resourceId = `${group}/${CRD_KINDS.find((k) => k.kind === r.kind)?.plural ?? ''}`;
        return this.setCrd(r.key, this.crdEntry(r.key, resourceId, r.object, r.result, r.mergeProblems, r.status, r.events), false);
      });
      this.unlinked = true;
      this.crd.rebuild(crdRecords.map((r, i) => ({ key: r.key, records: r.result.records, data: entries[i] as CrdEntry })), result.kubernetescrd);
      this.crdSnapshot = this.crd.usable ? undefined : result.kubernetescrd;
    }
    return {
      ...(ingressNow ? { kubernetes: this.ingressUpdate() } : {}),
      ...(crdNow ? { kubernetescrd: this.crdUpdate() } : {}),
      full: true,
      objects: ingressRecords.length + crdRecords.length,
    };
  }

  private depsOf(memoKey: string): string[] {
    const slot = this.memo.peek(memoKey);
    if (!slot) return [];
    return [...slot.deps.map((d) => `svc|${d.namespace}/${d.name}`), ...slot.secretDeps.map((d) => `sec|${d.namespace}/${d.name}`)];
  }

  private link(memoKey: string, deps: readonly string[]): void {
    for (const d of deps) {
      let set = this.dependents.get(d);
      if (!set) this.dependents.set(d, (set = new Set()));
      set.add(memoKey);
    }
  }

  private unlink(memoKey: string, deps: readonly string[] | undefined): void {
    for (const d of deps ?? []) {
      const set = this.dependents.get(d);
      if (set?.delete(memoKey) && set.size === 0) this.dependents.delete(d);
    }
  }

  private unlinkCrd(memoKey: string, e: CrdEntry): void {
    if (e.deps === undefined) return;
    this.unlink(memoKey, e.deps);
    for (const p of e.pending) {
      const set = this.referrers.get(p);
      if (set?.delete(memoKey) && set.size === 0) this.referrers.delete(p);
    }
  }

  private ingressEntry(memoKey: string, object: Ingress, ref: ObjectRef, fragment: IngressFragment, events: readonly OperatorEvent[]): IngressEntry {
    const md = object.metadata ?? {};
    return { ns: md.namespace ?? '', name: md.name ?? '', object, ref, fragment, events, deps: undefined };
  }

  private setIngress(memoKey: string, entry: IngressEntry, linked = true): IngressEntry {
    this.ingressEntries.set(memoKey, entry);
    if (linked) this.linkIngress(memoKey, entry);
    return entry;
  }

  private linkIngress(memoKey: string, entry: IngressEntry): void {
    entry.deps = this.depsOf(memoKey);
    this.link(memoKey, entry.deps);
  }

  private crdEntry(
    memoKey: string, resourceId: string, object: KubeObject, result: ObjectResult, mergeProblems: readonly Problem[], status: ObjectStatus,
    events: readonly OperatorEvent[],
  ): CrdEntry {
    const pending = [...new Set(result.ctx.pending.map(pendingKey).filter((k): k is string => k !== undefined))];
    const md = object.metadata ?? {};
    return { resourceId, ns: md.namespace ?? '', name: md.name ?? '', result, mergeProblems, status, events, deps: undefined, pending };
  }

  private setCrd(memoKey: string, entry: CrdEntry, linked = true): CrdEntry {
    this.crdEntries.set(memoKey, entry);
    if (linked) this.linkCrd(memoKey, entry);
    return entry;
  }

  /**
   * Files the objects of the last full translation under what they read. Not done by the full
   * translation itself: its snapshots go out first. The controller calls this once they are sent
   * (so the next change does not pay ~80 ms for it at 10,000 objects); a change that comes
   * earlier builds it first. Idempotent.
   */
  linkAll(): void {
    if (!this.unlinked) return;
    this.unlinked = false;
    for (const [key, e] of this.ingressEntries) if (e.deps === undefined) this.linkIngress(key, e);
    for (const [key, e] of this.crdEntries) if (e.deps === undefined) this.linkCrd(key, e);
  }

  private linkCrd(memoKey: string, entry: CrdEntry): void {
    entry.deps = this.depsOf(memoKey);
    this.link(memoKey, entry.deps);
    for (const p of entry.pending) {
      let set = this.referrers.get(p);
      if (!set) this.referrers.set(p, (set = new Set()));
      set.add(memoKey);
    }
  }

  /** Re-translates the given Ingresses; the number changed, or undefined when a full translation is needed. */
  private patchIngresses(keys: ReadonlySet<string>): number | undefined {
    const view = this.source.clusterIndex;
    const changes: FragmentChange<IngressEntry>[] = [];
    for (const key of keys) {
      const { ns, name } = splitKey(key);
      const object = this.source.get('ingresses', ns, name) as Ingress | undefined;
      const take = object !== undefined && this.select(object) && shouldProcessIngress(object, this.classes, this.options.ingressClass);
      const memoKey = object ? ingressMemoKey(object) : `ing|${key}`;
      const old = this.ingressEntries.get(memoKey);
      if (!take) {
        if (old) changes.push({ key: memoKey, records: undefined, data: undefined });
        continue;
      }
      const fragment = this.memo.refresh(memoKey, object, null, view, (v) => translateOneIngress(object, v, this.options));
      if (old && old.object === object && old.fragment === fragment) continue;
      // Its names clash with no other Ingress's (else the patch is refused): no merge warnings.
      const entry = this.ingressEntry(memoKey, object, ingressRef(object), fragment, fragment.events);
      changes.push({ key: memoKey, records: fragment.records, data: entry });
    }
    if (changes.length === 0) return 0;
    if (!this.ingress.patch(changes, reservedIngressName)) return undefined;
    for (const { key, data } of changes) {
      const old = this.ingressEntries.get(key);
      if (old) {
        this.unlink(key, old.deps);
        this.ingressEntries.delete(key);
      }
      if (data) this.setIngress(key, data);
      else this.memo.drop(key);
    }
    return changes.length;
  }

  /** Re-translates the given CRD objects; the number changed, or undefined when a full translation is needed. */
  private patchCrds(keys: ReadonlyMap<string, { resourceId: string; ns: string; name: string }>): number | undefined {
    const view = this.source.clusterIndex;
    const inputs: CrdInputs = {
      objects: Object.fromEntries(CRD_KINDS.map((k) => [k.kind, []])) as unknown as CrdInputs['objects'],
      view, ingressClass: this.options.ingressClass, maxObjectBytes: this.options.maxObjectBytes, maxRoutes: this.options.maxRoutes,
      policy: this.options, readSecrets: this.options.readSecrets,
    };
    const changes: FragmentChange<CrdEntry>[] = [];
    for (const [memoKey, { resourceId, ns, name }] of keys) {
      const object = this.source.get(resourceId, ns, name);
      const kind = this.crdKinds.get(resourceId.slice(resourceId.indexOf('/') + 1)) as CrdKind;
      const take = object !== undefined && this.select(object) && shouldProcess(object, isRecord(object.spec) ? object.spec : {}, this.options.ingressClass);
      const old = this.crdEntries.get(memoKey);
      if (!take) {
        if (old) changes.push({ key: memoKey, records: undefined, data: undefined });
        continue;
      }
      const result = this.memo.refresh(memoKey, specVersion(object), null, view, (v) => translateObject({ ...inputs, view: v }, kind, object));
      if (old && old.result === result) continue;
      // Its names clash with no other object's (else the patch is refused): no merge problems. The
      // status is computed below, once every name is in place.
      const entry = this.crdEntry(memoKey, resourceId, object, result, [], EMPTY_STATUS, []);
      changes.push({ key: memoKey, records: result.records, data: entry });
    }
    if (changes.length === 0) return 0;
    // Names added or removed: the objects referring to them get their status again.
    const names = new Set<string>();
    for (const { key, records } of changes) {
      const old = this.crdEntries.get(key);
      for (const r of [old?.result.records, records]) {
        if (!r) continue;
        for (const table of Object.keys(PENDING_SECTIONS) as Pending['table'][]) for (const n in r[table]) names.add(`${table}|${n}`);
      }
    }
    if (!this.crd.patch(changes)) return undefined;
    for (const { key, data } of changes) {
      const old = this.crdEntries.get(key);
      if (old) {
        this.unlinkCrd(key, old);
        this.crdEntries.delete(key);
      }
      if (data) this.setCrd(key, data);
      else this.memo.drop(key);
    }
    const restatus = new Set<string>(changes.map((c) => c.key));
    for (const n of names) for (const k of this.referrers.get(n) ?? []) restatus.add(k);
    const exists = (table: Pending['table'], name: string) => this.crd.has(PENDING_SECTIONS[table], name);
    for (const key of restatus) {
      const e = this.crdEntries.get(key);
      if (!e) continue;
      const { status, events } = crdStatus(e.result.ctx, e.mergeProblems, exists);
      e.status = status;
      e.events = events;
    }
    return changes.length;
  }
}

const EMPTY_SNAPSHOT: ProviderSnapshot = { configuration: {} };
const PREVIOUS: TranslationResult = { kubernetes: EMPTY_SNAPSHOT, kubernetescrd: EMPTY_SNAPSHOT, statuses: [], events: [] };

/** Placeholder until the status is computed below (every new entry is in `restatus`). */
const EMPTY_STATUS: ObjectStatus = { ref: { group: '', version: '', plural: '', kind: '', namespace: '', name: '' }, conditions: [] };
