import { groupOf, type CrdKind } from './kinds.js';
import { str } from './services.js';
import { isRecord, objectKey, type KubeObject } from '../../client/kube-objects.js';
import { compareKeys } from '../shared/naming.js';
import type { TranslationMemo } from '../shared/translation-memo.js';
import { conditions, mergeObject, ObjectContext, refOf, resolvePending, type ObjectResult, type Pending } from './object-context.js';
import { compactFragment, ConfigBuilder, sourceOf, type ObjectStatus, type OperatorEvent, type Problem } from '../shared/translation-types.js';
import { CrdTranslation, type CrdInputs } from './object-translation.js';

/**
 * Portico (and optionally Traefik) CRDs → provider `kubernetescrd` records, following Traefik's CRD
 * provider naming (reference §5.2) and spec fields (§6). Every object also gets a status: its
 * `Accepted` and `ResolvedRefs` conditions, and a Warning event per problem. A bad object never
 * stops the others: it is refused alone (Accepted=False) or kept with its broken references shown.
 * Traefik's reference options (shared/reference-policy.ts) decide which references may be followed, and
 * basicAuth/digestAuth users come from Secrets (shared/secret-credentials.ts), read through the view.
 */

export interface CrdOutput {
  readonly statuses: ObjectStatus[];
  readonly events: OperatorEvent[];
}

const DEFAULT_CLASSES: readonly string[] = ['', 'traefik', 'portico'];

export function shouldProcess(obj: KubeObject, spec: Record<string, unknown>, providerClass: string): boolean {
  const cls = str(spec.ingressClassName) ?? obj.metadata?.annotations?.['kubernetes.io/ingress.class'] ?? '';
  return providerClass === '' ? DEFAULT_CLASSES.includes(cls) : cls === providerClass;
}

/** Middlewares and services first, so that references made by routes can be checked. */
export const ORDER: readonly CrdKind[] = ['Middleware', 'MiddlewareTCP', 'TraefikService', 'IngressRoute', 'IngressRouteTCP', 'IngressRouteUDP'];

export function sortKey(obj: KubeObject): string {
  // Portico's group sorts before Traefik's, so a Portico object wins a name clash.
  return `${groupOf(obj.apiVersion) === 'traefik.io' ? '1' : '0'}|${objectKey(obj)}`;
}

export function translateObject(inputs: CrdInputs, kind: CrdKind, obj: KubeObject): ObjectResult {
  const records = new ConfigBuilder();
  const ctx = new ObjectContext(obj, kind, obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
  const size = JSON.stringify(obj.spec ?? null).length;
  if (size > inputs.maxObjectBytes) {
    ctx.accept('TooLarge', `the spec is ${size} bytes, more than the ${inputs.maxObjectBytes} accepted`);
  } else if (!isRecord(obj.spec)) {
    ctx.accept('InvalidSpec', 'spec must be an object');
  } else {
    try {
      new CrdTranslation(inputs, records).run(kind, ctx, obj.spec);
    } catch (err) {
      // A translation bug must cost one object, never the snapshot.
      ctx.accept('InternalError', `translation failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  records.source = sourceOf(refOf(ctx));
  return { ctx, records: compactFragment(records) };
}

/**
 * What a CRD object's records depend on: its spec, whose changes bump `generation`. Labels and
 * annotations are read outside the memo (selection and class), status never.
 */
export function specVersion(obj: KubeObject): unknown {
  const md = obj.metadata;
  return md?.uid !== undefined && md.generation !== undefined ? `${md.uid}/${md.generation}` : obj;
}

/**
 * Translates the CRD objects into `out`, with a status and events per object. With a memo, an
 * object whose instance and backends did not change reuses its previous fragment.
 */
export function translateCrds(inputs: CrdInputs, out: ConfigBuilder, memo?: TranslationMemo, recorder?: CrdRecorder): CrdOutput {
  const owners = new Map<string, string>();
  const done: { key: string; kind: CrdKind; obj: KubeObject; result: ObjectResult; problems: Problem[] }[] = [];
  for (const kind of ORDER) {
    const objects = inputs.objects[kind].map((o) => [sortKey(o), o] as const).sort((a, b) => compareKeys(a[0], b[0]));
    for (const [key, obj] of objects) {
      const spec = isRecord(obj.spec) ? obj.spec : {};
      if (!shouldProcess(obj, spec, inputs.ingressClass)) continue;
      const result = memo
        ? memo.getVersioned(crdMemoKey(kind, key), specVersion(obj), null, inputs.view, (view) => translateObject({ ...inputs, view }, kind, obj))
        : translateObject(inputs, kind, obj);
      done.push({ key: crdMemoKey(kind, key), kind, obj, result, problems: mergeObject(result, out, owners) });
    }
  }
  const statuses: ObjectStatus[] = [];
  const events: OperatorEvent[] = [];
  const exists = (table: Pending['table'], name: string) => out[table][name] !== undefined;
  for (const { key, kind, obj, result, problems: mergeProblems } of done) {
    const { status, events: own } = crdStatus(result.ctx, mergeProblems, exists);
    statuses.push(status);
    events.push(...own);
    recorder?.({ key, kind, object: obj, result, mergeProblems, status, events: own });
  }
  return { statuses, events };
}

/** The memo key of a CRD object; keys sort in the order translateCrds visits objects (ORDER, then sortKey). */
export function crdMemoKey(kind: CrdKind, objectSortKey: string): string {
  return `crd|${ORDER.indexOf(kind)}${kind}|${objectSortKey}`;
}

/** One object's status and Warning events, from its own problems, the merge's and its references. */
export function crdStatus(ctx: ObjectContext, mergeProblems: readonly Problem[], exists: (table: Pending['table'], name: string) => boolean): {
  status: ObjectStatus; events: OperatorEvent[];
} {
  const problems = [...ctx.problems, ...mergeProblems, ...resolvePending(ctx, exists)];
  const ref = refOf(ctx);
  const status: ObjectStatus = { ref, observedGeneration: ctx.obj.metadata?.generation, conditions: conditions(problems) };
  const events: OperatorEvent[] = [];
  const seen = new Set<string>();
  for (const p of problems) {
    const id = `${p.reason}|${p.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    events.push({ ref, type: 'Warning', reason: p.reason, message: p.message });
  }
  return { status, events };
}

/** What the full translation did with one CRD object (for the incremental translation's state). */
export interface CrdRecord {
  /** The memo key, which sorts as the objects are visited. */
  readonly key: string;
  readonly kind: CrdKind;
  readonly object: KubeObject;
  readonly result: ObjectResult;
  /** Name clashes with objects visited before it. */
  readonly mergeProblems: readonly Problem[];
  readonly status: ObjectStatus;
  readonly events: readonly OperatorEvent[];
}

export type CrdRecorder = (record: CrdRecord) => void;
