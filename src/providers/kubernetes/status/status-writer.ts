import { resourceName, type AccessProblems } from '../client/access-problems.js';
import type { Logger } from 'pino';
import type { KubeApi } from '../client/kube-client.js';
import type { KubeObject } from '../client/kube-objects.js';
import type { Condition, ObjectRef, ObjectStatus, OperatorEvent } from '../translate/shared/translation-types.js';

/**
 * Writes what the translation concluded back to the cluster, on the leader only:
 * - CRD conditions with a merge patch on the `/status` subresource, only when they differ from
 *   what the object already shows (so a restart or a resync writes nothing), keeping each
 *   condition's `lastTransitionTime` while its status does not change;
 * - Warning Events for bad objects, once per object version and problem.
 */

export interface StatusWriterDeps {
  readonly api: KubeApi;
  readonly logger: Logger;
  readonly now: () => number;
  /** Where a refused write (RBAC) is noted and logged once instead of once per object. */
  readonly access?: AccessProblems;
  /** The cached object, to compare its current status. */
  readonly current: (ref: ObjectRef) => KubeObject | undefined;
  /**
   * Awaited before each write: lets record deliveries go first (a first sync writes thousands of
   * statuses, which would otherwise compete with the next change for the CPU and the API server).
   */
  readonly yieldTo?: () => Promise<void>;
}

export interface StatusWriterOptions {
  /** Reported as the event source and reporting instance. */
  readonly identity: string;
  /** Parallel requests. Default 8. */
  readonly concurrency?: number;
  /** Most events created per reconcile (the rest wait for the next). Default 50. */
  readonly maxEventsPerPass?: number;
}

interface WrittenCondition extends Condition {
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

function objectPath(ref: ObjectRef): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  return `${base}/namespaces/${encodeURIComponent(ref.namespace)}/${ref.plural}/${encodeURIComponent(ref.name)}`;
}

function currentConditions(obj: KubeObject | undefined): WrittenCondition[] {
  const status = obj?.status as { conditions?: WrittenCondition[] } | undefined;
  return Array.isArray(status?.conditions) ? status.conditions : [];
}

function same(a: readonly WrittenCondition[], b: readonly WrittenCondition[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((c, i) => {
    const d = b[i] as WrittenCondition;
    return c.type === d.type && c.status === d.status && c.reason === d.reason && c.message === d.message && c.observedGeneration === d.observedGeneration;
  });
}

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export class StatusWriter {
  private readonly sentEvents = new Set<string>();
  /**
   * Statuses found already shown by an object, with that object: statuses and cached objects are
   * immutable, so while both are the same instances there is nothing to compare again. A pass over
   * thousands of unchanged statuses (every change, on the leader) is then a lookup each.
   */
  private readonly verified = new WeakMap<ObjectStatus, KubeObject>();

  constructor(private readonly options: StatusWriterOptions, private readonly deps: StatusWriterDeps) {}

  async writeStatuses(statuses: readonly ObjectStatus[]): Promise<number> {
    const nowText = new Date(this.deps.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const todo: { status: ObjectStatus; conditions: WrittenCondition[] }[] = [];
    for (const status of statuses) {
      const obj = this.deps.current(status.ref);
      if (!obj || this.verified.get(status) === obj) continue;
      const old = currentConditions(obj);
      const conditions = status.conditions.map((c): WrittenCondition => {
        const prev = old.find((o) => o.type === c.type);
        return {
          ...c,
          ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
          lastTransitionTime: prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : nowText,
        };
      });
      if (!same(conditions, old)) todo.push({ status, conditions });
      else this.verified.set(status, obj);
    }
    let written = 0;
    await inParallel(todo, this.options.concurrency ?? 8, async ({ status, conditions }) => {
      await this.deps.yieldTo?.();
      try {
        const res = await this.deps.api.request('PATCH', `${objectPath(status.ref)}/status`, {
          body: { status: { conditions } },
          contentType: 'application/merge-patch+json',
          discardBody: true,
        });
        const key = { verb: 'patch', resource: resourceName(status.ref.plural, status.ref.group, 'status'), namespace: status.ref.namespace };
        const refused = this.deps.access?.note(key, res.status, res.body) === true;
        if (res.status === 200) written++;
        else if (!refused && res.status !== 404) this.deps.logger.warn({ object: `${status.ref.kind} ${status.ref.namespace}/${status.ref.name}`, status: res.status }, 'status update failed');
      } catch (err) {
        this.deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'status update failed');
      }
    });
    return written;
  }

  async recordEvents(events: readonly OperatorEvent[]): Promise<number> {
    const fresh = events.filter((e) => !this.sentEvents.has(this.eventKey(e))).slice(0, this.options.maxEventsPerPass ?? 50);
    let created = 0;
    await inParallel(fresh, this.options.concurrency ?? 8, async (e) => {
      this.sentEvents.add(this.eventKey(e));
      const now = new Date(this.deps.now()).toISOString();
      const ref = e.ref;
      const body = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${ref.name}.`, namespace: ref.namespace },
        involvedObject: {
          apiVersion: ref.group === '' ? ref.version : `${ref.group}/${ref.version}`,
          kind: ref.kind, name: ref.name, namespace: ref.namespace, uid: ref.uid, resourceVersion: ref.resourceVersion,
        },
        reason: e.reason,
        message: e.message.slice(0, 1024),
        type: e.type,
        source: { component: 'portico-operator' },
        reportingComponent: 'portico.dev/operator',
        reportingInstance: this.options.identity,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      };
      try {
        const res = await this.deps.api.request('POST', `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/events`, { body, discardBody: true });
        const key = { verb: 'create', resource: 'events', namespace: ref.namespace };
        this.deps.access?.note(key, res.status, res.body);
        if (res.status === 201 || res.status === 200) created++;
      } catch (err) {
        this.deps.logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'event not recorded');
      }
    });
    if (this.sentEvents.size > 100_000) this.sentEvents.clear();
    return created;
  }

  private eventKey(e: OperatorEvent): string {
    return `${e.ref.kind}|${e.ref.namespace}|${e.ref.name}|${e.ref.resourceVersion ?? ''}|${e.reason}|${e.message}`;
  }
}
