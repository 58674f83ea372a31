import type { Logger } from 'pino';
import { ConnectionProblems } from '../client/connection-problems.js';
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
 *   expired `continue` token while paging) and on `504` "Too large resource version" (cause
 *   `ResourceVersionTooLarge`), as client-go does;
 * - after a failure, before resuming the watch, asks for one item to learn the server's current
 *   resourceVersion: one lower than ours means the history was replaced (etcd wiped or restored),
 *   and a watch from ours would wait silently for revisions that mean other writes, so it re-lists;
 * - once listed, takes a 404 on the collection (its CustomResourceDefinition deleted) as an empty
 *   list, so the objects the deletion removed do not linger, and keeps retrying;
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
  /** Where an API server that does not answer is noted, logged once per backoff step for every reflector; default: one of its own. */
  readonly connection?: ConnectionProblems;
}

export interface ReflectorOptions {
  readonly labelSelector?: string;
  /** Items per list page (the `limit` parameter). Default 500. */
  readonly pageSize?: number;
  /** First reconnect delay in ms (doubles per failure). Default 250. */
  readonly backoffInitialMs?: number;
  /**
   * Longest reconnect delay in ms. Default 4000: after the API server or etcd comes back, a
   * resource is caught up within this delay (plus a list), which keeps records stale at most a few
   * seconds; a retry every 2 to 4 s of one small request per resource costs a down server little.
   */
  readonly backoffMaxMs?: number;
  /** Server-side watch timeout in seconds before a clean re-watch. Default 300 (with jitter). */
  readonly watchTimeoutSeconds?: number;
}

/** The server cannot go on from our resourceVersion (410 Gone, 504 too large, history replaced): re-list. */
class GoneError extends Error {}

/** A `Status` saying the resourceVersion asked for is ahead of the server (504 with cause `ResourceVersionTooLarge`). */
export function isTooLargeResourceVersion(status: number, body: unknown): boolean {
  if (status !== 504 || typeof body !== 'object' || body === null) return false;
  const causes = (body as { details?: { causes?: { reason?: unknown }[] } }).details?.causes;
  if (Array.isArray(causes) && causes.some((c) => c?.reason === 'ResourceVersionTooLarge')) return true;
  const message = (body as { message?: unknown }).message;
  return typeof message === 'string' && message.includes('Too large resource version');
}

/** `a` is a later resourceVersion than `b`; false when either is not a decimal number (they are opaque in general). */
function laterThan(a: string, b: string): boolean {
  if (!/^\d{1,30}$/.test(a) || !/^\d{1,30}$/.test(b)) return false;
  return BigInt(a) > BigInt(b);
}

export class Reflector {
  private resourceVersion = '';
  private failures = 0;
  private readonly access: AccessProblems;
  private readonly connection: ConnectionProblems;
  /** The last attempt failed: check the server's resourceVersion before resuming the watch. */
  private resumeAfterFailure = false;
  /** A list has succeeded once (a later 404 means the resource went away, not that it never was). */
  private everListed = false;
  /** The sink holds the empty list a 404 stands for. */
  private emptiedByNotFound = false;

  constructor(
    private readonly type: ResourceType,
    private readonly namespace: string | undefined,
    private readonly sink: ReflectorSink,
    private readonly deps: ReflectorDeps,
    private readonly options: ReflectorOptions = {},
  ) {
    this.access = deps.access ?? new AccessProblems(deps.logger);
    this.connection = deps.connection ?? new ConnectionProblems(deps.logger, deps.api.serverUrl ?? 'the API server');
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
        else if (this.resumeAfterFailure) await this.checkHistory(signal);
        this.resumeAfterFailure = false;
        await this.watch(signal);
        this.failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof GoneError) {
          this.deps.logger.info({ resource: this.where, reason: err.message }, 'cannot resume from our resourceVersion, re-listing');
          this.resourceVersion = '';
          continue;
        }
        this.resumeAfterFailure = true;
        if (err instanceof KubeHttpError && err.status === 404 && this.everListed) await this.notServed(signal);
        this.failures++;
        const initial = this.options.backoffInitialMs ?? 250;
        const max = this.options.backoffMaxMs ?? 4000;
        const base = Math.min(max, initial * 2 ** Math.min(this.failures - 1, 20));
        const delay = Math.round(base * (0.5 + this.deps.random() / 2));
        if (err instanceof KubeHttpError) this.connection.answered();
        if (err instanceof KubeHttpError && isAccessDenied(err.status)) {
          // Logged once by AccessProblems, and retried with the same backoff, quietly.
          this.access.deny(this.accessKey(this.resourceVersion === '' ? 'list' : 'watch'), err.status, statusMessage(err.body) || err.message);
        } else if (!(err instanceof KubeHttpError)) {
          // No answer at all (refused, reset, DNS, TLS): every reflector meets it at once; one line per backoff step.
          this.connection.failed(this.where, err instanceof Error ? err.message : String(err), delay);
        } else {
          this.deps.logger.warn({ resource: this.where, err: err instanceof Error ? err.message : String(err), retryInMs: delay, failures: this.failures }, 'list/watch failed, retrying');
        }
        await this.deps.sleep(delay, signal);
      }
    }
  }

  /**
   * A 404 on a collection that was listed before: the resource is no longer served (its CRD was
   * deleted, which deletes every object of it). Trusted only while the server says it is ready, so a
   * server still starting, whose CRD handlers are not all there yet, cannot empty the cache.
   */
  private async notServed(signal: AbortSignal): Promise<void> {
    this.resourceVersion = '';
    if (this.emptiedByNotFound) return;
    const ready = await this.deps.api.request('GET', '/readyz', { signal }).then((r) => r.status === 200, () => false);
    if (!ready || signal.aborted) return;
    this.deps.logger.info({ resource: this.where }, 'resource no longer served (404): its objects are gone');
    this.sink.replace([]);
    this.emptiedByNotFound = true;
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
      if (res.status === 504 && isTooLargeResourceVersion(res.status, res.body)) throw new GoneError(`list ${path}: ${describeBody(res.body)}`);
      if (res.status !== 200) throw listFailed(path, res.status, res.body);
      this.connection.answered();
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
    this.everListed = true;
    this.emptiedByNotFound = false;
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
          if (obj.code === 410 || isTooLargeResourceVersion(obj.code ?? 0, obj)) gone = true;
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
      await this.deps.api.watch(collectionPath(this.type, this.namespace), query, onEvent, both, () => {
        this.connection.answered();
        this.access.allow(this.accessKey('watch'));
      });
    } catch (err) {
      if (err instanceof KubeHttpError && (err.status === 410 || isTooLargeResourceVersion(err.status, err.body))) throw new GoneError(`watch: HTTP ${err.status}`);
      throw err;
    }
    if (gone) throw new GoneError('watch: expired or too large resourceVersion');
    if (failure) throw failure;
  }

  /**
   * After a failure (the API server or etcd may have been replaced meanwhile), asks for one item to
   * read the current resourceVersion. A consistent list is never behind what we saw, unless the
   * history itself was replaced; a watch from our resourceVersion would then wait, silently, for
   * the new history to pass it. Only a history that has not yet passed ours is caught this way.
   */
  private async checkHistory(signal: AbortSignal): Promise<void> {
    const path = collectionPath(this.type, this.namespace);
    const res = await this.deps.api.request('GET', path, { query: { ...this.baseQuery(), limit: '1' }, signal });
    if (res.status !== 200) throw listFailed(path, res.status, res.body);
    const current = res.listMeta?.()?.resourceVersion ?? (res.body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion ?? '';
    if (laterThan(this.resourceVersion, current)) {
      throw new GoneError(`the server's resourceVersion ${current} is behind ours (${this.resourceVersion}): its history was replaced`);
    }
  }
}

/** The error of a list (or history check) the server answered with anything but 200. */
function listFailed(path: string, status: number, body: unknown): KubeHttpError {
  return new KubeHttpError(status, `list ${path}: HTTP ${status}: ${describeBody(body)}`, body);
}

function describeBody(body: unknown): string {
  if (typeof body === 'object' && body !== null && 'message' in body) return String((body as { message: unknown }).message);
  return typeof body === 'string' ? body.slice(0, 200) : '';
}
