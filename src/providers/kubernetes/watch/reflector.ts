import type { Logger } from 'pino';
import { AccessProblems, isAccessDenied, resourceName, statusMessage, type AccessKey } from '../client/access-problems.js';
import { KubeHttpError, type KubeApi, type KubeResponse, type WatchEvent } from '../client/kube-client.js';
import type { KubeObject } from '../client/kube-objects.js';

/**
 * One resource's list+watch loop (client-go's Reflector), written here because the client
 * library's ListWatch falls short for an operator that must not stop: it never asks for bookmarks
 * (`allowWatchBookmarks`), does not page its list (`limit`/`continue`), and on any error other than
 * 410 it reports and stops instead of retrying. This loop:
 * - lists in pages, then watches from the list's resourceVersion, tracking every event's and
 *   bookmark's resourceVersion so a reconnect resumes without a re-list;
 * - re-lists from scratch on `410 Gone` (an ERROR event with code 410, an HTTP 410 on watch, or an
 *   expired `continue` token while paging);
 * - reconnects after any failure with capped exponential backoff and jitter, forever;
 * - re-watches at once when the server ends a watch normally (`timeoutSeconds`).
 */

export interface ResourceType {
  /** Stable id used in logs and the cache (`ingresses`, `portico.dev/ingressroutes`). */
  readonly id: string;
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** A server-side field selector for every list and watch of this resource. */
  readonly fieldSelector?: string;
}

export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** The collection path, e.g. `/apis/networking.k8s.io/v1/namespaces/ns/ingresses`. */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  return type.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${type.plural}` : `${base}/${type.plural}`;
}

/** Where a reflector puts what it sees. */
export interface ReflectorSink {
  /**
   * The form the store keeps of a received object (e.g. slimmed, object-slimming.ts), made as each list page or
   * watch event is decoded, so that full objects never pile up over a long paged list. `replace`
   * and `upsert` get objects made by it and keep them as they are. The result is the sink's own
   * (built from `object`, which the reflector does not use again).
   */
  intake(object: KubeObject): KubeObject;
  /** The complete list (after a list or re-list): the store drops what is missing. */
  replace(objects: KubeObject[]): void;
  upsert(object: KubeObject): void;
  remove(object: KubeObject): void;
  /** Called after each successful list (the first one marks the resource synced). */
  listed(): void;
}

export interface ReflectorDeps {
  readonly api: KubeApi;
  readonly logger: Logger;
  /** Waits `ms` or until `signal` aborts (injected so tests run without real time). */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** [0, 1) for jitter. */
  readonly random: () => number;
  /** Where a refused list or watch (RBAC) is noted and logged once; default: one of its own. */
  readonly access?: AccessProblems;
}

export interface ReflectorOptions {
  readonly labelSelector?: string;
  /** Items per list page (the `limit` parameter). Default 500. */
  readonly pageSize?: number;
  /** First reconnect delay in ms (doubles per failure). Default 250. */
  readonly backoffInitialMs?: number;
  /** Longest reconnect delay in ms. Default 30000. */
  readonly backoffMaxMs?: number;
  /** Server-side watch timeout in seconds before a clean re-watch. Default 300 (with jitter). */
  readonly watchTimeoutSeconds?: number;
}

class GoneError extends Error {}

export class Reflector {
  private resourceVersion = '';
  private failures = 0;
  private readonly access: AccessProblems;

  constructor(
    private readonly type: ResourceType,
    private readonly namespace: string | undefined,
    private readonly sink: ReflectorSink,
    private readonly deps: ReflectorDeps,
    private readonly options: ReflectorOptions = {},
  ) {
    this.access = deps.access ?? new AccessProblems(deps.logger);
  }

  private accessKey(verb: 'list' | 'watch'): AccessKey {
    return { verb, resource: resourceName(this.type.plural, this.type.group), ...(this.namespace !== undefined ? { namespace: this.namespace } : {}) };
  }

  private get where(): string {
    return this.namespace ? `${this.type.id} in ${this.namespace}` : this.type.id;
  }

  /** Runs until `signal` aborts; never throws. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === '') await this.list(signal);
        await this.watch(signal);
        this.failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof GoneError) {
          this.deps.logger.info({ resource: this.where }, 'resourceVersion expired (410 Gone), re-listing');
          this.resourceVersion = '';
          continue;
        }
        this.failures++;
        const initial = this.options.backoffInitialMs ?? 250;
        const max = this.options.backoffMaxMs ?? 30_000;
        const base = Math.min(max, initial * 2 ** Math.min(this.failures - 1, 20));
        const delay = Math.round(base * (0.5 + this.deps.random() / 2));
        if (err instanceof KubeHttpError && isAccessDenied(err.status)) {
          // Logged once by AccessProblems, and retried with the same backoff, quietly.
          this.access.deny(this.accessKey(this.resourceVersion === '' ? 'list' : 'watch'), err.status, statusMessage(err.body) || err.message);
        } else {
          this.deps.logger.warn({ resource: this.where, err: err instanceof Error ? err.message : String(err), retryInMs: delay, failures: this.failures }, 'list/watch failed, retrying');
        }
        await this.deps.sleep(delay, signal);
      }
    }
  }

  private baseQuery(): Record<string, string> {
    return {
      ...(this.options.labelSelector ? { labelSelector: this.options.labelSelector } : {}),
      ...(this.type.fieldSelector ? { fieldSelector: this.type.fieldSelector } : {}),
    };
  }

  private async list(signal: AbortSignal): Promise<void> {
    const path = collectionPath(this.type, this.namespace);
    const items: KubeObject[] = [];
    let cont = '';
    let rv = '';
    const page = (token: string) => {
      const query: Record<string, string> = { ...this.baseQuery(), limit: String(this.options.pageSize ?? 500) };
      if (token !== '') query.continue = token;
      return this.deps.api.request('GET', path, { query, signal });
    };
    /** The next page, asked for before this one is decoded, with the token it was asked with. */
    let ahead: { token: string; res: Promise<KubeResponse> } | undefined;
    for (;;) {
      const res = ahead !== undefined && ahead.token === cont ? await ahead.res : await page(cont);
      ahead = undefined;
      if (res.status === 410 && cont !== '') {
        // The continue token expired mid-list: start the list again.
        items.length = 0;
        cont = '';
        continue;
      }
      if (res.status !== 200) throw new KubeHttpError(res.status, `list ${path}: HTTP ${res.status}: ${describeBody(res.body)}`, res.body);
      this.access.allow(this.accessKey('list'));
      // The API server makes the next page while this one is decoded, instead of each waiting for
      // the other: pages of a big list (40 of EndpointSlices) otherwise go strictly in turn.
      const next = res.listMeta?.()?.continue;
      if (next !== undefined && next !== '') {
        ahead = { token: next, res: page(next) };
        // Awaited (and its error seen) only if this page's own token agrees; else dropped quietly.
        ahead.res.catch(() => undefined);
      }
      const body = res.body as { items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } };
      for (const item of body.items ?? []) {
        item.apiVersion ??= apiVersionOf(this.type);
        item.kind ??= this.type.kind;
        items.push(this.sink.intake(item));
      }
      rv = body.metadata?.resourceVersion ?? rv;
      cont = body.metadata?.continue ?? '';
      if (cont === '') break;
    }
    this.sink.replace(items);
    this.resourceVersion = rv;
    this.sink.listed();
    this.deps.logger.debug({ resource: this.where, count: items.length, resourceVersion: rv }, 'listed');
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const stop = new AbortController();
    const both = AbortSignal.any([signal, stop.signal]);
    let gone = false;
    let failure: Error | undefined;
    const timeout = this.options.watchTimeoutSeconds ?? 300;
    const query = {
      ...this.baseQuery(),
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(Math.round(timeout * (1 + this.deps.random()))),
    };
    const onEvent = (event: WatchEvent) => {
      if (gone || failure) return;
      const obj = event.object;
      switch (event.type) {
        case 'ADDED':
        case 'MODIFIED':
          this.sink.upsert(this.sink.intake(obj));
          break;
        case 'DELETED':
          this.sink.remove(obj);
          break;
        case 'BOOKMARK':
          break;
        case 'ERROR':
          if (obj.code === 410) gone = true;
          else failure = new KubeHttpError(obj.code ?? 0, `watch error: ${obj.message ?? obj.reason ?? 'unknown'}`);
          stop.abort();
          return;
        default:
          return;
      }
      const rv = obj.metadata?.resourceVersion;
      if (rv) this.resourceVersion = rv;
    };
    try {
      await this.deps.api.watch(collectionPath(this.type, this.namespace), query, onEvent, both, () => this.access.allow(this.accessKey('watch')));
    } catch (err) {
      if (err instanceof KubeHttpError && err.status === 410) throw new GoneError('gone');
      throw err;
    }
    if (gone) throw new GoneError('gone');
    if (failure) throw failure;
  }
}

function describeBody(body: unknown): string {
  if (typeof body === 'object' && body !== null && 'message' in body) return String((body as { message: unknown }).message);
  return typeof body === 'string' ? body.slice(0, 200) : '';
}
