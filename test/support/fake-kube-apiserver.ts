import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../../src/providers/kubernetes/translate/shared/label-selector.js';

/**
 * An in-process fake of the Kubernetes API server that speaks the real HTTP protocol, so the real
 * operator (and @kubernetes/client-node's KubeConfig) runs against it unchanged:
 * - collections and objects under `/api/v1/...` and `/apis/<group>/<version>/...`, namespaced or
 *   cluster-wide; GET (list with `limit`/`continue`/`labelSelector`/`fieldSelector`), POST, PUT (optimistic
 *   concurrency: 409 on a stale `metadata.resourceVersion`), PATCH (JSON merge patch), DELETE;
 * - one global resourceVersion, bumped per write; `metadata.generation` bumped on spec changes;
 * - the `/status` subresource for the CRD kinds (the main resource ignores `status`); an Ingress
 *   status keeps only IngressLoadBalancerIngress's fields, as the real server does;
 * - watches: `?watch=1&resourceVersion=…&allowWatchBookmarks=true&timeoutSeconds=…` answered with
 *   a chunked stream of JSON lines (ADDED/MODIFIED/DELETED/BOOKMARK/ERROR), replaying history
 *   after the given resourceVersion; a resourceVersion older than the compacted history gets an
 *   ERROR event with a `Status` of code 410 (`Expired`), and an expired `continue` token gets HTTP 410;
 * - a list asking for a resourceVersion ahead of the store gets 504 "Too large resource version"
 *   (cause `ResourceVersionTooLarge`), as the real server does after waiting 3 s; a watch from one
 *   waits silently for the store to pass it (the real server's behaviour), or with
 *   `tooLargeWatchError` gets that 504 as an ERROR event;
 * - `GET /readyz` answers `ok`;
 * - Leases (coordination.k8s.io/v1) and Events like any other resource;
 * - test hooks: kill every watch mid-stream, compact history, restart the listener, fail requests,
 *   wipe the store (a replaced etcd: resourceVersions start lower), stop and start serving a
 *   resource (a CRD deleted and re-created).
 */

export interface ResourceDef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly statusSubresource: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- objects are free-form JSON, as on the wire
export type Obj = Record<string, any>;

const CRD_KINDS = [
  ['IngressRoute', 'ingressroutes'], ['IngressRouteTCP', 'ingressroutetcps'], ['IngressRouteUDP', 'ingressrouteudps'],
  ['Middleware', 'middlewares'], ['MiddlewareTCP', 'middlewaretcps'], ['TraefikService', 'traefikservices'],
] as const;

export function defaultResources(options: { traefikCrds?: boolean } = {}): ResourceDef[] {
  const out: ResourceDef[] = [
    { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true, statusSubresource: true },
    { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, statusSubresource: false },
    { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, statusSubresource: false },
    { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false, statusSubresource: true },
    { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespaced: true, statusSubresource: true },
    { group: 'networking.k8s.io', version: 'v1', plural: 'ingressclasses', kind: 'IngressClass', namespaced: false, statusSubresource: false },
    { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true, statusSubresource: false },
    { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true, statusSubresource: false },
  ];
  for (const group of options.traefikCrds ? ['portico.dev', 'traefik.io'] : ['portico.dev']) {
    for (const [kind, plural] of CRD_KINDS) out.push({ group, version: 'v1alpha1', plural, kind, namespaced: true, statusSubresource: true });
  }
  return out;
}

interface HistoryEntry {
  readonly rv: number;
  readonly resource: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: Obj;
  readonly old?: Obj;
}

/** A field selector term (`type!=kubernetes.io/tls`, `metadata.name=x`), as the real server takes them. */
interface FieldTerm {
  readonly field: string;
  readonly value: string;
  readonly equal: boolean;
}

function parseFieldSelector(text: string): FieldTerm[] {
  if (text.trim() === '') return [];
  return text.split(',').map((term) => {
    const m = /^([A-Za-z.]+)(!=|==|=)(.*)$/.exec(term.trim());
    if (!m) throw new Error(`invalid field selector term "${term}"`);
    return { field: m[1] as string, value: m[3] as string, equal: m[2] !== '!=' };
  });
}

function fieldValue(o: Obj, field: string): string {
  if (field === 'metadata.name') return o.metadata?.name ?? '';
  if (field === 'metadata.namespace') return o.metadata?.namespace ?? '';
  if (field === 'type') return o.type ?? '';
  throw new Error(`field label not supported: ${field}`);
}

/**
 * Field labels each kind supports, as the real server has them per resource: every kind takes
 * `metadata.name` and `metadata.namespace`; Secrets also `type`. Others are a 400.
 */
function checkFieldLabels(d: ResourceDef, fields: readonly FieldTerm[]): void {
  for (const t of fields) {
    if (t.field === 'metadata.name' || t.field === 'metadata.namespace') continue;
    if (t.field === 'type' && d.kind === 'Secret') continue;
    throw new Error(`field label not supported: ${t.field}`);
  }
}

/** A 422 `Invalid` Status naming the field, as the real server's validation answers. */
function invalid(d: ResourceDef, name: string, field: string, message: string): Obj {
  return { ...status(422, 'Invalid', `${d.kind} "${name}" is invalid: ${field}: ${message}`), details: { name, kind: d.plural, causes: [{ reason: 'FieldValueInvalid', message, field }] } };
}

/**
 * What the real server's validation refuses among what the suites write over HTTP: Secret types
 * without their keys, duplicate condition types in a CRD status (a list-map), a load balancer
 * status on a Service that is not of type LoadBalancer, a cluster IP outside 10.96.0.0/16 (the test
 * control plane's --service-cluster-ip-range). Undefined when valid. (An Ingress load balancer
 * port with an empty or unknown protocol is accepted by kube-apiserver v1.37.2.)
 */
function validationError(d: ResourceDef, o: Obj): Obj | undefined {
  const name = String(o.metadata?.name ?? '');
  if (d.kind === 'Secret') {
    const data = { ...(o.data ?? {}), ...(o.stringData ?? {}) } as Obj;
    if (o.type === 'kubernetes.io/basic-auth' && data.username === undefined && data.password === undefined) return invalid(d, name, 'data[username]', 'Required value: must contain at least one of username or password');
    if (o.type === 'kubernetes.io/tls' && (data['tls.crt'] === undefined || data['tls.key'] === undefined)) return invalid(d, name, data['tls.crt'] === undefined ? 'data[tls.crt]' : 'data[tls.key]', 'Required value');
  }
  if (d.group === 'portico.dev' || d.group === 'traefik.io') {
    // The CRDs declare status.conditions `x-kubernetes-list-type: map` keyed by `type`.
    const seen = new Set<string>();
    for (const [i, c] of ((o.status?.conditions ?? []) as Obj[]).entries()) {
      if (seen.has(c.type)) return invalid(d, name, `status.conditions[${i}]`, `Duplicate value: map[string]interface {}{"type":"${c.type}"}`);
      seen.add(c.type);
    }
  }
  if (d.kind === 'Service') {
    if (((o.status?.loadBalancer?.ingress ?? []) as Obj[]).length > 0 && o.spec?.type !== 'LoadBalancer') return invalid(d, name, 'status.loadBalancer.ingress', "Forbidden: may only be used when `spec.type` is 'LoadBalancer'");
    const ip = o.spec?.clusterIP;
    if (typeof ip === 'string' && ip !== '' && ip !== 'None' && !/^10\.96\.\d{1,3}\.\d{1,3}$/.test(ip)) return invalid(d, name, 'spec.clusterIPs', `Invalid value: ["${ip}"]: failed to allocate IP ${ip}: the provided network does not match the current range`);
  }
  return undefined;
}

/** The real server's DefaultIngressClass admission: a new Ingress without a class, spec or annotation, gets the default one. */
function defaultIngressClass(ingress: Obj, classes: Iterable<Obj>): void {
  if (ingress.spec?.ingressClassName !== undefined || ingress.metadata?.annotations?.['kubernetes.io/ingress.class'] !== undefined) return;
  const defaults = [...classes].filter((c) => c.metadata?.annotations?.['ingressclass.kubernetes.io/is-default-class'] === 'true')
    .sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)));
  const chosen = defaults[0];
  if (chosen !== undefined) ingress.spec = { ...(ingress.spec ?? {}), ingressClassName: chosen.metadata.name };
}

/** The object without what every write changes, to find writes that change nothing. */
function content(o: Obj): string {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = (o.metadata ?? {}) as Obj;
  return JSON.stringify({ ...o, metadata });
}

/** Labels and fields both match (every term of each). */
function matches(selector: LabelSelector, fields: readonly FieldTerm[], o: Obj): boolean {
  return matchesLabels(selector, o.metadata?.labels) && fields.every((t) => (fieldValue(o, t.field) === t.value) === t.equal);
}

interface Watcher {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly selector: LabelSelector;
  readonly fields: readonly FieldTerm[];
  readonly res: http.ServerResponse;
  readonly timers: NodeJS.Timeout[];
  /** Events at or before this resourceVersion are not sent (a watch from a future resourceVersion). */
  readonly after: number;
}

export interface FakeKubeApiServerOptions {
  readonly resources?: readonly ResourceDef[];
  /** Watch events kept for replay; older resourceVersions get 410. Default 100000. */
  readonly historyLimit?: number;
  /** Bookmark interval for watches that allow them, in ms. Default 1000. */
  readonly bookmarkIntervalMs?: number;
  /** Required `Authorization` header value (e.g. `Bearer x`); undefined accepts anything. */
  readonly authorization?: string;
  /**
   * A watch from a resourceVersion ahead of the store gets an ERROR event with the 504 "Too large
   * resource version" Status and ends, instead of waiting for the store to pass it. Default false.
   */
  readonly tooLargeWatchError?: boolean;
}

function tooLargeStatus(asked: string, current: number): Obj {
  return {
    ...status(504, 'Timeout', `Timeout: Too large resource version: ${asked}, current: ${current}`),
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
  };
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return clone(patch);
  const out: Obj = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Obj) } : {};
  for (const [k, v] of Object.entries(patch as Obj)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * An Ingress status as the real server stores it: `loadBalancer.ingress` entries keep only the
 * fields of IngressLoadBalancerIngress (`ip`, `hostname`, `ports`); others (a Service's `ipMode`)
 * are dropped, as unknown fields are. The real server does not validate a port's protocol.
 */
function ingressStatusAsStored(st: unknown): unknown {
  const lb = (st as { loadBalancer?: { ingress?: unknown } } | undefined)?.loadBalancer;
  if (!Array.isArray(lb?.ingress)) return st;
  const ingress = (lb.ingress as Record<string, unknown>[]).map((e) => {
    const kept = Object.fromEntries(Object.entries(e).filter(([k]) => ['ip', 'hostname', 'ports'].includes(k)));
    // A port's protocol is no omitempty field: a missing one is stored (and served) as "".
    if (Array.isArray(kept.ports)) kept.ports = (kept.ports as Record<string, unknown>[]).map((p) => ({ ...p, protocol: p.protocol ?? '' }));
    return kept;
  });
  return { ...(st as Record<string, unknown>), loadBalancer: { ...lb, ingress } };
}

function status(code: number, reason: string, message: string): Obj {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/**
 * The body of an injected failure, as the real server words it for 401 and 403 (RBAC names the
 * user, the verb, the resource and the scope), else an InternalError.
 */
function injectedFailure(code: number, method: string, url: URL): Obj {
  if (code === 401) return status(401, 'Unauthorized', 'Unauthorized');
  if (code !== 403) return status(code, 'InternalError', 'injected failure');
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const core = parts[0] === 'api';
  const group = core ? '' : (parts[1] ?? '');
  let rest = parts.slice(core ? 2 : 3);
  const namespace = rest[0] === 'namespaces' && rest.length >= 3 ? rest[1] : undefined;
  if (namespace !== undefined) rest = rest.slice(2);
  const plural = rest[0] ?? '';
  const named = rest[1] !== undefined;
  const watch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
  const verb = method === 'GET' ? (watch ? 'watch' : named ? 'get' : 'list') : method === 'POST' ? 'create' : method === 'PUT' ? 'update' : method.toLowerCase();
  const resource = group === '' ? plural : `${plural}.${group}`;
  const scope = namespace === undefined ? 'at the cluster scope' : `in the namespace "${namespace}"`;
  return {
    ...status(403, 'Forbidden', `${resource} is forbidden: User "system:serviceaccount:portico:portico" cannot ${verb} resource "${plural}" in API group "${group}" ${scope}`),
    details: { kind: plural, ...(group !== '' ? { group } : {}) },
  };
}

/** The label and field selectors of a list or watch request, or why they are malformed. */
function querySelectors(d: ResourceDef, q: URLSearchParams): { selector: LabelSelector; fields: FieldTerm[] } | { error: string } {
  try {
    const fields = parseFieldSelector(q.get('fieldSelector') ?? '');
    checkFieldLabels(d, fields);
    return { selector: parseLabelSelector(q.get('labelSelector') ?? ''), fields };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

export class FakeKubeApiServer {
  private server: http.Server;
  private readonly sockets = new Set<Socket>();
  private readonly defs = new Map<string, ResourceDef>();
  private readonly store = new Map<string, Map<string, Obj>>();
  private readonly history: HistoryEntry[] = [];
  private readonly watchers = new Set<Watcher>();
  private rv = 1000;
  private compactedRv = 0;
  private failures: { count: number; status: number; match?: RegExp } = { count: 0, status: 500 };
  private listeningPort = 0;
  private readonly sortedCache = new Map<string, { rv: number; items: Obj[] }>();
  private readonly filteredCache = new Map<string, { rv: number; items: Obj[] }>();
  /** Requests seen, by `METHOD kind` (`LIST Ingress`, `WATCH Ingress`, `PATCH Ingress/status` …). */
  readonly requests = new Map<string, number>();

  constructor(private readonly options: FakeKubeApiServerOptions = {}) {
    for (const d of options.resources ?? defaultResources()) {
      this.defs.set(`${d.group}/${d.version}/${d.plural}`, d);
      this.store.set(this.resourceKey(d), new Map());
    }
    this.server = this.createServer();
  }

  private createServer(): http.Server {
    const server = http.createServer((req, res) => this.handle(req, res));
    server.keepAliveTimeout = 60_000;
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.listeningPort}`;
  }

  get port(): number {
    return this.listeningPort;
  }

  get resourceVersion(): number {
    return this.rv;
  }

  async start(port = 0): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.listeningPort = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const w of this.watchers) this.endWatch(w);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Stops and starts the listener on the same port, as an API server restart looks to clients. */
  async restart(options: { downMs?: number; compact?: boolean } = {}): Promise<void> {
    await this.close();
    if (options.compact) this.compact();
    if (options.downMs) await new Promise((r) => setTimeout(r, options.downMs));
    this.server = this.createServer();
    await this.start(this.listeningPort);
  }

  /** Breaks every open watch stream mid-flight (the TCP connection is destroyed). */
  killWatches(): number {
    const n = this.watchers.size;
    for (const w of [...this.watchers]) {
      this.watchers.delete(w);
      for (const t of w.timers) clearTimeout(t);
      w.res.socket?.destroy();
    }
    return n;
  }

  /** Forgets all history: watches resuming from any earlier resourceVersion get 410 Gone. */
  compact(): void {
    this.history.length = 0;
    this.compactedRv = this.rv;
  }

  /**
   * Loses every object and the history, and starts resourceVersions again from `resourceVersion`
   * (default 100), as an API server restarted on a wiped or restored etcd; open watches end.
   */
  wipe(resourceVersion = 100): void {
    for (const w of [...this.watchers]) this.endWatch(w);
    for (const map of this.store.values()) map.clear();
    this.history.length = 0;
    this.sortedCache.clear();
    this.filteredCache.clear();
    this.rv = resourceVersion;
    this.compactedRv = 0;
  }

  /**
   * Stops serving a resource (its CRD deleted): its objects are deleted (DELETED events), its watches
   * end, and requests for it get 404 until `serveResource` brings it back, empty.
   */
  unserveResource(group: string, version: string, plural: string): void {
    const d = this.defs.get(`${group}/${version}/${plural}`);
    if (!d) throw new Error(`fake API server: no resource ${group}/${version}/${plural}`);
    for (const o of [...(this.store.get(this.resourceKey(d))?.values() ?? [])]) this.write(d, 'DELETED', o, o);
    for (const w of [...this.watchers]) if (w.resource === this.resourceKey(d)) this.endWatch(w);
    this.defs.delete(`${group}/${version}/${plural}`);
  }

  serveResource(d: ResourceDef): void {
    this.defs.set(`${d.group}/${d.version}/${d.plural}`, d);
    if (!this.store.has(this.resourceKey(d))) this.store.set(this.resourceKey(d), new Map());
  }

  /** Sends `ERROR 410` to every open watch and ends it, as etcd compaction does. */
  expireWatches(): number {
    const n = this.watchers.size;
    for (const w of [...this.watchers]) {
      this.send(w, { type: 'ERROR', object: status(410, 'Expired', 'too old resource version') });
      this.endWatch(w);
    }
    return n;
  }

  /** The next `count` requests (optionally only those whose `METHOD path` matches) fail with `status`. */
  failNext(count: number, statusCode = 500, match?: RegExp): void {
    this.failures = { count, status: statusCode, match };
  }

  get activeWatches(): number {
    return this.watchers.size;
  }

  count(key: string): number {
    return this.requests.get(key) ?? 0;
  }

  // ----------------------------------------------------------------------------------------------
  // Direct object access (what `kubectl apply/delete` would do), bypassing HTTP.

  private resourceKey(d: ResourceDef): string {
    return `${d.group}/${d.plural}`;
  }

  private defFor(apiVersion: string, kind: string): ResourceDef {
    for (const d of this.defs.values()) {
      const av = d.group === '' ? d.version : `${d.group}/${d.version}`;
      if (av === apiVersion && d.kind === kind) return d;
    }
    throw new Error(`fake API server: no resource for ${apiVersion} ${kind}`);
  }

  /** Creates or replaces an object (status kept unless given); returns the stored copy. */
  apply(obj: Obj): Obj {
    const d = this.defFor(obj.apiVersion, obj.kind);
    const ns = d.namespaced ? (obj.metadata?.namespace ?? 'default') : undefined;
    const key = `${ns ?? ''}/${obj.metadata.name}`;
    const existing = this.store.get(this.resourceKey(d))?.get(key);
    const body = clone(obj);
    body.metadata = { ...body.metadata, ...(ns ? { namespace: ns } : {}) };
    if (existing) {
      delete body.metadata.resourceVersion;
      if (d.statusSubresource && body.status === undefined) body.status = existing.status;
      return this.write(d, 'MODIFIED', body, existing);
    }
    return this.write(d, 'ADDED', body, undefined);
  }

  applyAll(objects: readonly Obj[]): void {
    for (const o of objects) this.apply(o);
  }

  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): boolean {
    const d = this.defFor(apiVersion, kind);
    const existing = this.store.get(this.resourceKey(d))?.get(`${d.namespaced ? (namespace ?? 'default') : ''}/${name}`);
    if (!existing) return false;
    this.write(d, 'DELETED', existing, existing);
    return true;
  }

  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): Obj | undefined {
    const d = this.defFor(apiVersion, kind);
    const o = this.store.get(this.resourceKey(d))?.get(`${d.namespaced ? (namespace ?? 'default') : ''}/${name}`);
    return o ? clone(o) : undefined;
  }

  list(apiVersion: string, kind: string): Obj[] {
    const d = this.defFor(apiVersion, kind);
    return [...(this.store.get(this.resourceKey(d))?.values() ?? [])].map(clone);
  }

  private write(d: ResourceDef, type: HistoryEntry['type'], body: Obj, old: Obj | undefined): Obj {
    const rk = this.resourceKey(d);
    const map = this.store.get(rk) as Map<string, Obj>;
    const key = `${body.metadata.namespace ?? ''}/${body.metadata.name}`;
    // The real server skips a write that changes nothing: same resourceVersion, no watch event.
    if (type === 'MODIFIED' && old && content({ ...body, apiVersion: old.apiVersion, kind: old.kind, metadata: { ...body.metadata, uid: old.metadata.uid, creationTimestamp: old.metadata.creationTimestamp, generation: old.metadata.generation } }) === content(old)) {
      return clone(old);
    }
    this.rv++;
    const stored = clone(body);
    stored.apiVersion = d.group === '' ? d.version : `${d.group}/${d.version}`;
    stored.kind = d.kind;
    if (type === 'ADDED') {
      stored.metadata.uid = randomUUID();
      stored.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      stored.metadata.generation = 1;
    } else if (old) {
      stored.metadata.uid = old.metadata.uid;
      stored.metadata.creationTimestamp = old.metadata.creationTimestamp;
      const specChanged = JSON.stringify(old.spec ?? null) !== JSON.stringify(stored.spec ?? null);
      stored.metadata.generation = (old.metadata.generation ?? 1) + (type === 'MODIFIED' && specChanged ? 1 : 0);
    }
    stored.metadata.resourceVersion = String(this.rv);
    // The real server tracks field managers in every object it serves, lists and watches included.
    if (type !== 'DELETED') stored.metadata.managedFields = [{ manager: 'fake-kube-apiserver', operation: 'Update', apiVersion: stored.apiVersion, time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }];
    if (type === 'DELETED') map.delete(key);
    else map.set(key, stored);
    const entry: HistoryEntry = { rv: this.rv, resource: rk, type, object: stored, old };
    this.history.push(entry);
    const limit = this.options.historyLimit ?? 100_000;
    if (this.history.length > limit) {
      const dropped = this.history.splice(0, this.history.length - limit);
      this.compactedRv = (dropped[dropped.length - 1] as HistoryEntry).rv;
    }
    for (const w of this.watchers) if (w.resource === rk) this.deliver(w, entry);
    return clone(stored);
  }

  // ----------------------------------------------------------------------------------------------
  // Watches

  private send(w: Watcher, event: Obj): void {
    w.res.write(`${JSON.stringify(event)}\n`);
  }

  private endWatch(w: Watcher): void {
    if (!this.watchers.delete(w)) return;
    for (const t of w.timers) clearTimeout(t);
    w.res.end();
  }

  /** One history entry as this watcher sees it (selector transitions become ADDED/DELETED). */
  private deliver(w: Watcher, e: HistoryEntry): void {
    if (e.rv <= w.after) return;
    const ns = e.object.metadata?.namespace;
    if (w.namespace !== undefined && ns !== w.namespace) return;
    const now = matches(w.selector, w.fields, e.object);
    const before = e.old ? matches(w.selector, w.fields, e.old) : false;
    let type: string = e.type;
    if (e.type === 'MODIFIED') {
      if (now && !before) type = 'ADDED';
      else if (!now && before) type = 'DELETED';
      else if (!now) return;
    } else if (!now) {
      return;
    }
    this.send(w, { type, object: e.object });
  }

  private startWatch(req: http.IncomingMessage, res: http.ServerResponse, d: ResourceDef, namespace: string | undefined, q: URLSearchParams): void {
    const selectors = querySelectors(d, q);
    if ('error' in selectors) return this.reply(res, 400, status(400, 'BadRequest', selectors.error));
    const { selector, fields } = selectors;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const rvParam = q.get('resourceVersion') ?? '';
    const from = Number(rvParam);
    const w: Watcher = { resource: this.resourceKey(d), namespace, selector, fields, res, timers: [], after: Number.isFinite(from) ? from : 0 };
    this.watchers.add(w);
    req.on('close', () => this.endWatch(w));
    if (this.options.tooLargeWatchError === true && Number.isFinite(from) && from > this.rv) {
      this.send(w, { type: 'ERROR', object: tooLargeStatus(rvParam, this.rv) });
      this.endWatch(w);
      return;
    }
    if (rvParam === '' || rvParam === '0') {
      for (const o of this.store.get(w.resource)?.values() ?? []) {
        if ((namespace === undefined || o.metadata.namespace === namespace) && matches(selector, fields, o)) this.send(w, { type: 'ADDED', object: o });
      }
    } else {
      if (!Number.isFinite(from) || from < this.compactedRv) {
        this.send(w, { type: 'ERROR', object: status(410, 'Expired', `too old resource version: ${rvParam} (${this.compactedRv})`) });
        this.endWatch(w);
        return;
      }
      for (const e of this.history) if (e.rv > from && e.resource === w.resource) this.deliver(w, e);
    }
    if (q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1') {
      const interval = this.options.bookmarkIntervalMs ?? 1000;
      const tick = () => {
        if (!this.watchers.has(w)) return;
        this.send(w, { type: 'BOOKMARK', object: { kind: d.kind, apiVersion: d.group === '' ? d.version : `${d.group}/${d.version}`, metadata: { resourceVersion: String(this.rv) } } });
        w.timers.push(setTimeout(tick, interval));
      };
      w.timers.push(setTimeout(tick, interval));
    }
    const timeout = Number(q.get('timeoutSeconds') ?? '0');
    if (timeout > 0) w.timers.push(setTimeout(() => this.endWatch(w), timeout * 1000));
  }

  // ----------------------------------------------------------------------------------------------
  // HTTP

  private reply(res: http.ServerResponse, code: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  private bump(key: string): void {
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  private parsePath(pathname: string): { d: ResourceDef; namespace?: string; name?: string; sub?: string } | undefined {
    const parts = pathname.split('/').filter((p) => p.length > 0).map(decodeURIComponent);
    let group: string;
    let rest: string[];
    if (parts[0] === 'api') {
      group = '';
      rest = parts.slice(1);
    } else if (parts[0] === 'apis') {
      group = parts[1] ?? '';
      rest = parts.slice(2);
    } else {
      return undefined;
    }
    const version = rest[0] ?? '';
    rest = rest.slice(1);
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const d = this.defs.get(`${group}/${version}/${rest[0] ?? ''}`);
    if (!d) return undefined;
    return { d, namespace, name: rest[1], sub: rest[2] };
  }

  private async body(req: http.IncomingMessage): Promise<Obj> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Obj;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    // Clients that vanish mid-stream (killed watches, restarts) are expected here.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    this.route(req, res).catch((err: unknown) => {
      if (!res.headersSent) this.reply(res, 500, status(500, 'InternalError', String(err)));
      else res.destroy();
    });
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (this.options.authorization !== undefined && req.headers.authorization !== this.options.authorization) {
      return this.reply(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    }
    if (this.failures.count > 0 && (!this.failures.match || this.failures.match.test(`${req.method} ${url.pathname}`))) {
      this.failures.count--;
      return this.reply(res, this.failures.status, injectedFailure(this.failures.status, req.method ?? 'GET', url));
    }
    if (url.pathname === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (url.pathname === '/version') return this.reply(res, 200, { major: '1', minor: '30', gitVersion: 'v1.30.0-portico-fake' });
    const p = this.parsePath(url.pathname);
    if (!p) return this.reply(res, 404, status(404, 'NotFound', `the server could not find the requested resource (${url.pathname})`));
    const { d, namespace, name, sub } = p;
    const map = this.store.get(this.resourceKey(d)) as Map<string, Obj>;
    const q = url.searchParams;
    const method = req.method ?? 'GET';

    if (!name) {
      if (method === 'GET' && (q.get('watch') === 'true' || q.get('watch') === '1')) {
        this.bump(`WATCH ${d.kind}`);
        return this.startWatch(req, res, d, namespace, q);
      }
      if (method === 'GET') {
        this.bump(`LIST ${d.kind}`);
        return this.listCollection(res, d, map, namespace, q);
      }
      if (method === 'POST') {
        this.bump(`CREATE ${d.kind}`);
        const obj = await this.body(req);
        obj.metadata ??= {};
        if (!obj.metadata.name && obj.metadata.generateName) obj.metadata.name = `${obj.metadata.generateName}${randomUUID().slice(0, 8)}`;
        if (d.namespaced) obj.metadata.namespace = namespace ?? obj.metadata.namespace ?? 'default';
        if (map.has(`${d.namespaced ? obj.metadata.namespace : ''}/${obj.metadata.name}`)) {
          return this.reply(res, 409, status(409, 'AlreadyExists', `${d.plural} "${obj.metadata.name}" already exists`));
        }
        delete obj.metadata.resourceVersion;
        // The status subresource: a create never sets status.
        if (d.statusSubresource) delete obj.status;
        if (d.kind === 'Ingress') defaultIngressClass(obj, this.store.get('networking.k8s.io/ingressclasses')?.values() ?? []);
        const refused = validationError(d, obj);
        if (refused) return this.reply(res, 422, refused);
        return this.reply(res, 201, this.write(d, 'ADDED', obj, undefined));
      }
      return this.reply(res, 405, status(405, 'MethodNotAllowed', method));
    }

    const key = `${d.namespaced ? (namespace ?? '') : ''}/${name}`;
    const existing = map.get(key);
    const what = `${d.kind}${sub ? `/${sub}` : ''}`;
    if (sub !== undefined && (sub !== 'status' || !d.statusSubresource)) return this.reply(res, 404, status(404, 'NotFound', `no subresource ${sub}`));
    if (method === 'GET') {
      this.bump(`GET ${what}`);
      return existing ? this.reply(res, 200, existing) : this.reply(res, 404, status(404, 'NotFound', `${d.plural} "${name}" not found`));
    }
    if (method === 'DELETE') {
      this.bump(`DELETE ${what}`);
      if (!existing) return this.reply(res, 404, status(404, 'NotFound', `${d.plural} "${name}" not found`));
      this.write(d, 'DELETED', existing, existing);
      return this.reply(res, 200, existing);
    }
    if (method === 'PUT' || method === 'PATCH') {
      this.bump(`${method} ${what}`);
      if (!existing) return this.reply(res, 404, status(404, 'NotFound', `${d.plural} "${name}" not found`));
      const body = await this.body(req);
      let next: Obj;
      if (method === 'PUT') {
        const sent = body.metadata?.resourceVersion;
        if (sent !== undefined && sent !== existing.metadata.resourceVersion) {
          return this.reply(res, 409, status(409, 'Conflict', `Operation cannot be fulfilled on ${d.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`));
        }
        next = clone(body);
      } else {
        const type = req.headers['content-type'] ?? '';
        if (!type.startsWith('application/merge-patch+json')) return this.reply(res, 415, status(415, 'UnsupportedMediaType', `unsupported patch type ${type}`));
        next = mergePatch(existing, body) as Obj;
      }
      next.metadata = { ...existing.metadata, ...(next.metadata ?? {}), name: existing.metadata.name, namespace: existing.metadata.namespace };
      if (sub === 'status') next = { ...clone(existing), status: d.kind === 'Ingress' ? ingressStatusAsStored(next.status) : next.status };
      else if (d.statusSubresource) next.status = existing.status;
      const refused = validationError(d, next);
      if (refused) return this.reply(res, 422, refused);
      return this.reply(res, 200, this.write(d, 'MODIFIED', next, existing));
    }
    return this.reply(res, 405, status(405, 'MethodNotAllowed', method));
  }

  private listCollection(res: http.ServerResponse, d: ResourceDef, map: Map<string, Obj>, namespace: string | undefined, q: URLSearchParams): void {
    const selectors = querySelectors(d, q);
    if ('error' in selectors) return this.reply(res, 400, status(400, 'BadRequest', selectors.error));
    const { selector, fields } = selectors;
    const asked = q.get('resourceVersion') ?? '';
    if (asked !== '' && Number(asked) > this.rv) return this.reply(res, 504, tooLargeStatus(asked, this.rv));
    let start = 0;
    let listRv = this.rv;
    const cont = q.get('continue');
    if (cont) {
      const token = JSON.parse(Buffer.from(cont, 'base64').toString('utf8')) as { rv: number; start: number };
      if (token.rv < this.compactedRv) {
        return this.reply(res, 410, status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'));
      }
      start = token.start;
      listRv = token.rv;
    }
    // Pages of one list share the sorted collection (big lists are paged by 500).
    let sorted = this.sortedCache.get(this.resourceKey(d));
    if (!sorted || sorted.rv !== this.rv) {
      sorted = { rv: this.rv, items: [...map.values()].sort((a, b) => keyCompare(a, b)) };
      this.sortedCache.set(this.resourceKey(d), sorted);
    }
    // ... and so do their filtered items: filtering 20,000 slices for each of 40 pages made the
    // fake server, not the client under test, the slow part of a big first sync.
    const filterKey = `${this.resourceKey(d)}|${namespace ?? ''}|${q.get('labelSelector') ?? ''}|${q.get('fieldSelector') ?? ''}`;
    let filtered = this.filteredCache.get(filterKey);
    if (!filtered || filtered.rv !== this.rv) {
      for (const [k, v] of this.filteredCache) if (v.rv !== this.rv) this.filteredCache.delete(k);
      filtered = {
        rv: this.rv,
        items: sorted.items.filter((o) => (namespace === undefined || o.metadata.namespace === namespace) && matches(selector, fields, o)),
      };
      this.filteredCache.set(filterKey, filtered);
    }
    const all = filtered.items;
    const limit = Number(q.get('limit') ?? '0');
    const page = limit > 0 ? all.slice(start, start + limit) : all.slice(start);
    const next = limit > 0 && start + limit < all.length ? Buffer.from(JSON.stringify({ rv: listRv, start: start + limit })).toString('base64') : undefined;
    // List items carry no apiVersion/kind, as on a real server.
    const items = page.map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    this.reply(res, 200, {
      kind: `${d.kind}List`,
      apiVersion: d.group === '' ? d.version : `${d.group}/${d.version}`,
      // remainingItemCount only on an unfiltered page with more to come, as the real server.
      metadata: {
        resourceVersion: String(listRv),
        ...(next ? { continue: next } : {}),
        ...(next && selector.length === 0 && fields.length === 0 ? { remainingItemCount: all.length - start - page.length } : {}),
      },
      items,
    });
  }
}

function keyCompare(a: Obj, b: Obj): number {
  const ka = `${a.metadata.namespace ?? ''}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace ?? ''}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** A kubeconfig (YAML) pointing at the fake server, for `--kubeconfig`. */
export function fakeKubeconfig(url: string, token = 'fake-token'): string {
  return [
    'apiVersion: v1', 'kind: Config', 'current-context: fake',
    'clusters:', `- name: fake`, `  cluster: {server: "${url}", insecure-skip-tls-verify: true}`,
    'users:', `- name: fake`, `  user: {token: "${token}"}`,
    'contexts:', `- name: fake`, `  context: {cluster: fake, user: fake}`, '',
  ].join('\n');
}
