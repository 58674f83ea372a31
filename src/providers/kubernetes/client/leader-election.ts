import { isAccessDenied, type AccessProblems } from './access-problems.js';
import type { Logger } from 'pino';
import type { KubeApi } from './kube-client.js';

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's leaderelection does it:
 * the holder renews `renewTime` every `renewIntervalMs`; another candidate takes the Lease over
 * only after `leaseDurationMs` without renewal; every write carries the Lease's resourceVersion,
 * so two candidates racing get one success and one 409 Conflict. Only the leader writes CRD
 * status and Events; every replica translates and delivers (each feeds its own server).
 */

export interface LeaseOptions {
  readonly namespace: string;
  readonly name: string;
  /** This candidate's identity (pod name, or host-pid). */
  readonly identity: string;
  /** Default 15000. */
  readonly leaseDurationMs?: number;
  /** How often the leader renews. Default 5000. */
  readonly renewIntervalMs?: number;
  /** How often a follower retries. Default 2000. */
  readonly retryIntervalMs?: number;
}

export interface LeaseDeps {
  readonly api: KubeApi;
  readonly logger: Logger;
  readonly now: () => number;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Where a refused Lease request (RBAC) is noted and logged once instead of on every retry. */
  readonly access?: AccessProblems;
}

interface Lease {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  private leader = false;
  private lastRenew = 0;
  private readonly listeners: ((leader: boolean) => void)[] = [];

  constructor(private readonly options: LeaseOptions, private readonly deps: LeaseDeps) {}

  get isLeader(): boolean {
    return this.leader;
  }

  onChange(listener: (leader: boolean) => void): void {
    this.listeners.push(listener);
  }

  private get durationMs(): number {
    return this.options.leaseDurationMs ?? 15_000;
  }

  private path(name?: string): string {
    const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.options.namespace)}/leases`;
    return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  }

  private set(leader: boolean): void {
    if (leader === this.leader) return;
    this.leader = leader;
    this.deps.logger.info({ identity: this.options.identity, lease: `${this.options.namespace}/${this.options.name}` }, leader ? 'became leader' : 'lost leadership');
    for (const l of this.listeners) l(leader);
  }

  /**
   * Notes a refused (401/403) or granted Lease request; true when refused. Without this, a Role
   * lacking `create` kept a replica from ever leading with nothing said.
   */
  private refused(verb: string, status: number, body: unknown): boolean {
    const key = { verb, resource: 'leases.coordination.k8s.io', namespace: this.options.namespace };
    if (this.deps.access) return this.deps.access.note(key, status, body);
    if (!isAccessDenied(status)) return false;
    this.deps.logger.error({ verb, status }, `permission denied: cannot ${verb} the Lease ${this.options.namespace}/${this.options.name}`);
    return true;
  }

  /** One attempt to acquire or renew; returns whether this candidate holds the Lease. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.deps.now();
    const me = this.options.identity;
    const seconds = Math.ceil(this.durationMs / 1000);
    const res = await this.deps.api.request('GET', this.path(this.options.name));
    if (this.refused('get', res.status, res.body)) return false;
    if (res.status === 404) {
      const lease: Lease = {
        metadata: { name: this.options.name, namespace: this.options.namespace },
        spec: { holderIdentity: me, leaseDurationSeconds: seconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      };
      const created = await this.deps.api.request('POST', this.path(), { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease } });
      if (this.refused('create', created.status, created.body)) return false;
      return created.status === 201 || created.status === 200;
    }
    if (res.status !== 200) throw new Error(`GET lease: HTTP ${res.status}`);
    const lease = res.body as Lease;
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const expired = holder === '' || renewed + (spec.leaseDurationSeconds ?? seconds) * 1000 < now;
    if (holder !== me && !expired) return false;
    const next: Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: me,
        leaseDurationSeconds: seconds,
        renewTime: microTime(now),
        ...(holder !== me ? { acquireTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 } : {}),
      },
    };
    const put = await this.deps.api.request('PUT', this.path(this.options.name), { body: next });
    if (this.refused('update', put.status, put.body)) return false;
    if (put.status === 409) return false; // someone else wrote first
    if (put.status !== 200) throw new Error(`PUT lease: HTTP ${put.status}`);
    return true;
  }

  /** Campaigns and renews until `signal` aborts, then releases the Lease if held. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const held = await this.tryAcquireOrRenew();
        if (held) this.lastRenew = this.deps.now();
        this.set(held);
      } catch (err) {
        this.deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'lease update failed');
        // Keep leading only while the last renewal is still valid.
        if (this.leader && this.deps.now() - this.lastRenew > this.durationMs) this.set(false);
      }
      await this.deps.sleep(this.leader ? (this.options.renewIntervalMs ?? 5_000) : (this.options.retryIntervalMs ?? 2_000), signal);
    }
    if (this.leader) await this.release();
  }

  private async release(): Promise<void> {
    try {
      const res = await this.deps.api.request('GET', this.path(this.options.name));
      const lease = res.body as Lease;
      if (res.status === 200 && lease.spec?.holderIdentity === this.options.identity) {
        await this.deps.api.request('PUT', this.path(this.options.name), { body: { ...lease, spec: { ...lease.spec, holderIdentity: '' } } });
      }
    } catch {
      // Best effort: the Lease expires on its own.
    }
    this.set(false);
  }
}
