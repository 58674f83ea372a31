import type { Logger } from 'pino';

/**
 * What the API server refused the operator's identity (403 Forbidden, 401 Unauthorized), by verb,
 * resource and scope. A missing RBAC verb makes every retry of a watch or status write fail the
 * same way; logging each failure would bury the one fact worth reading under a line per retry and
 * per object. Each distinct refusal is logged once, as an error naming the verb and the resource,
 * and once more when it is granted again; a refused list or watch also keeps the operator unready,
 * naming it (its records may miss what it cannot read). A refused write (status, Events, the
 * Lease) is logged only: the records are whole, and an unready pod would drop the server's
 * endpoints along with it.
 */

export interface AccessKey {
  /** `list`, `watch`, `get`, `patch`, `create`, `update`. */
  readonly verb: string;
  /** `endpointslices.discovery.k8s.io`, `services`, `ingressroutes.portico.dev/status`. */
  readonly resource: string;
  /** The namespace; undefined for every namespace (or a cluster-scoped resource). */
  readonly namespace?: string;
}

/** `plural.group`, or `plural` in the core group, as RBAC and `kubectl auth can-i` name a resource. */
export function resourceName(plural: string, group: string, subresource?: string): string {
  return `${group === '' ? plural : `${plural}.${group}`}${subresource ? `/${subresource}` : ''}`;
}

/** The `message` of a Kubernetes `Status` body, or ''. */
export function statusMessage(body: unknown): string {
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') return (body as { message: string }).message;
  return '';
}

const READS = new Set(['list', 'watch']);

export class AccessProblems {
  private readonly denied = new Map<string, { key: AccessKey; text: string }>();

  constructor(private readonly logger: Logger) {}

  private static id(key: AccessKey): string {
    return `${key.verb} ${key.resource} ${key.namespace ?? ''}`;
  }

  /** What `key` names, in words: `watch endpointslices.discovery.k8s.io in all namespaces`. */
  static describe(key: AccessKey): string {
    return `${key.verb} ${key.resource} ${key.namespace === undefined ? 'in all namespaces' : `in namespace ${key.namespace}`}`;
  }

  /** Notes a refusal; logs it the first time. `status` is the HTTP status, `message` the server's. */
  deny(key: AccessKey, status: number, message: string): void {
    const id = AccessProblems.id(key);
    if (this.denied.has(id)) return;
    const what = AccessProblems.describe(key);
    const text = `${status === 401 ? 'unauthorized' : 'forbidden'}: cannot ${what}${message !== '' ? ` (${message})` : ''}`;
    this.denied.set(id, { key, text });
    this.logger.error(
      { verb: key.verb, resource: key.resource, namespace: key.namespace ?? null, status, serverMessage: message },
      `permission denied: the API server refuses to let the operator ${what}; grant the "${key.verb}" verb on "${key.resource}" to its identity (the chart's RBAC does); retrying quietly`,
    );
  }

  /** Notes a success of what `key` names; logs once when it had been refused. */
  allow(key: AccessKey): void {
    if (this.denied.size === 0) return;
    const id = AccessProblems.id(key);
    if (!this.denied.delete(id)) return;
    this.logger.info({ verb: key.verb, resource: key.resource, namespace: key.namespace ?? null }, `permission granted: the operator can ${AccessProblems.describe(key)} again`);
  }

  /**
   * Notes the answer to a request of what `key` names: a refusal (401/403) is denied, a success
   * (2xx) allowed; true when it was refused, so that the caller does not log it again.
   */
  note(key: AccessKey, status: number, body: unknown): boolean {
    if (isAccessDenied(status)) {
      this.deny(key, status, statusMessage(body));
      return true;
    }
    if (status >= 200 && status < 300) this.allow(key);
    return false;
  }

  /** The first refused read, in words, or null: the operator's records may be incomplete while one lasts. */
  readProblem(): string | null {
    for (const { key, text } of this.denied.values()) if (READS.has(key.verb)) return text;
    return null;
  }
}

/** True for the HTTP statuses of a refused identity. */
export function isAccessDenied(status: number): boolean {
  return status === 401 || status === 403;
}
