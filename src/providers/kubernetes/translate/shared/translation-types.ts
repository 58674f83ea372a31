import type { DynamicConfiguration, ProviderSnapshot, RecordSource, ServerState, SnapshotSources, SourceMap } from '../../../../dynamic-config/configuration.js';
import type { Middleware, Router, Service } from '../../../../dynamic-config/http.js';
import type { TCPMiddleware, TCPRouter, TCPService } from '../../../../dynamic-config/tcp.js';
import type { UDPRouter, UDPService } from '../../../../dynamic-config/udp.js';
import { DEFAULT_REFERENCE_POLICY, type ReferencePolicy } from './reference-policy.js';

/** Which object a status or event is about. `plural` and `group` address its API path. */
export interface ObjectRef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface Condition {
  readonly type: 'Accepted' | 'ResolvedRefs';
  readonly status: 'True' | 'False';
  /** CamelCase machine reason (`Accepted`, `InvalidRule`, `ServiceNotFound`, `DuplicateName` …). */
  readonly reason: string;
  readonly message: string;
}

/** The status the leader writes to a CRD object's `/status` subresource. */
export interface ObjectStatus {
  readonly ref: ObjectRef;
  readonly observedGeneration?: number;
  readonly conditions: readonly Condition[];
}

/** A Kubernetes Event (type Warning) the leader records for a bad object. */
export interface OperatorEvent {
  readonly ref: ObjectRef;
  readonly type: 'Warning' | 'Normal';
  readonly reason: string;
  readonly message: string;
}

export interface TranslationResult {
  readonly kubernetes: ProviderSnapshot;
  readonly kubernetescrd: ProviderSnapshot;
  readonly statuses: readonly ObjectStatus[];
  /** Every event (Ingress ones, then CRD ones). */
  readonly events: readonly OperatorEvent[];
  readonly ingressEvents?: readonly OperatorEvent[];
  /** The Ingresses this provider serves (class and selectors match): their status gets the ingress endpoint. */
  readonly servedIngresses?: readonly ObjectRef[];
  readonly crdEvents?: readonly OperatorEvent[];
}

/** A problem found while translating one object; `refs` problems do not stop it being accepted. */
export interface Problem {
  readonly kind: 'accept' | 'refs';
  readonly reason: string;
  readonly message: string;
}

/** The record tables of a {@link ConfigBuilder}, in the order build() writes them. */
export const RECORD_TABLES = ['httpRouters', 'httpServices', 'httpMiddlewares', 'tcpRouters', 'tcpServices', 'tcpMiddlewares', 'udpRouters', 'udpServices'] as const;
export type RecordTable = typeof RECORD_TABLES[number];

/** Where a table's sources go in the snapshot's `sources`: protocol and record kind. */
export const SOURCE_PLACE: Readonly<Record<RecordTable, readonly ['http' | 'tcp' | 'udp', 'routers' | 'services' | 'middlewares']>> = {
  httpRouters: ['http', 'routers'], httpServices: ['http', 'services'], httpMiddlewares: ['http', 'middlewares'],
  tcpRouters: ['tcp', 'routers'], tcpServices: ['tcp', 'services'], tcpMiddlewares: ['tcp', 'middlewares'],
  udpRouters: ['udp', 'routers'], udpServices: ['udp', 'services'],
};

/** The source of an object's records: its apiVersion, kind, namespace, name, uid and resourceVersion as translated. */
export function sourceOf(ref: ObjectRef): RecordSource {
  const source: RecordSource = { apiVersion: ref.group === '' ? ref.version : `${ref.group}/${ref.version}`, kind: ref.kind, name: ref.name };
  if (ref.namespace !== '') source.namespace = ref.namespace;
  if (ref.uid !== undefined) source.uid = ref.uid;
  if (ref.resourceVersion !== undefined) source.resourceVersion = ref.resourceVersion;
  return source;
}

/** Collects one provider's records; first writer of a name wins (objects are visited sorted). */
export class ConfigBuilder {
  readonly httpRouters: Record<string, Router> = {};
  readonly httpServices: Record<string, Service> = {};
  readonly httpMiddlewares: Record<string, Middleware> = {};
  readonly tcpRouters: Record<string, TCPRouter> = {};
  readonly tcpServices: Record<string, TCPService> = {};
  readonly tcpMiddlewares: Record<string, TCPMiddleware> = {};
  readonly udpRouters: Record<string, UDPRouter> = {};
  readonly udpServices: Record<string, UDPService> = {};
  readonly serverStatus: Record<string, Record<string, ServerState>> = {};
  /**
   * A fragment's object: every record of it was made from this one (the snapshot's `sources`).
   * Set by the translators on the per-object fragments, never on a provider's merged builder.
   */
  source: RecordSource | undefined = undefined;
  /** The merged builder's sources per table (who made each record), written by {@link noteSource}. */
  private sourceTables: Partial<Record<RecordTable, SourceMap>> | undefined = undefined;

  /** Notes that `table[name]` in this (merged) builder came from `fragment`'s object. */
  noteSource(table: RecordTable, name: string, fragment: ConfigBuilder): void {
    if (fragment.source === undefined) return;
    const tables = (this.sourceTables ??= {});
    (tables[table] ??= {})[name] = fragment.source;
  }

  /** The `sources` of build(): non-empty maps only, in configuration's order; undefined when none. */
  private builtSources(): SnapshotSources | undefined {
    if (this.sourceTables === undefined) return undefined;
    const out: Record<string, Record<string, SourceMap>> = {};
    for (const table of RECORD_TABLES) {
      const map = this.sourceTables[table];
      if (map === undefined || !nonEmpty(map)) continue;
      const [protocol, kind] = SOURCE_PLACE[table];
      (out[protocol] ??= {})[kind] = map;
    }
    return nonEmpty(out) ? (out as SnapshotSources) : undefined;
  }

  build(): ProviderSnapshot {
    const configuration: DynamicConfiguration = {};
    if (nonEmpty(this.httpRouters) || nonEmpty(this.httpServices) || nonEmpty(this.httpMiddlewares)) {
      configuration.http = { routers: this.httpRouters, services: this.httpServices, middlewares: this.httpMiddlewares };
    }
    if (nonEmpty(this.tcpRouters) || nonEmpty(this.tcpServices) || nonEmpty(this.tcpMiddlewares)) {
      configuration.tcp = { routers: this.tcpRouters, services: this.tcpServices, middlewares: this.tcpMiddlewares };
    }
    if (nonEmpty(this.udpRouters) || nonEmpty(this.udpServices)) {
      configuration.udp = { routers: this.udpRouters, services: this.udpServices };
    }
    const snapshot: ProviderSnapshot = { configuration };
    if (nonEmpty(this.serverStatus)) snapshot.serverStatus = this.serverStatus;
    const sources = this.builtSources();
    if (sources !== undefined) snapshot.sources = sources;
    return snapshot;
  }
}

/** One shared, frozen empty table for the fragments' unused ones (a write to it throws). */
const EMPTY_TABLE: Record<string, never> = Object.freeze({}) as Record<string, never>;

/**
 * A finished fragment's builder with its empty tables replaced by one shared empty object: the
 * memo keeps a fragment per object (tens of thousands), most of which use two or three of the
 * nine tables. Fragments are never written once translated.
 */
export function compactFragment(records: ConfigBuilder): ConfigBuilder {
  const r = records as unknown as Record<string, object>;
  for (const k of [...RECORD_TABLES, 'serverStatus']) if (!nonEmpty(r[k] as object)) r[k] = EMPTY_TABLE;
  return records;
}

function nonEmpty(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/** Options shared by both translators (with Traefik's reference options, see ReferencePolicy). */
export interface TranslateOptions extends ReferencePolicy {
  /** Provider `ingressClass`: '' accepts objects with no class or class `traefik`/`portico`. */
  readonly ingressClass: string;
  /** Namespaces to read; empty means all. */
  readonly namespaces: readonly string[];
  /** Equality-based label selector objects must match (`a=b,c!=d,e,!f`); '' matches all. */
  readonly labelSelector: string;
  /** Label selector on Namespace objects; objects are read only in matching namespaces ('' = off). */
  readonly namespaceSelector: string;
  /** Largest accepted object, as JSON characters; bigger ones are refused with an event. */
  readonly maxObjectBytes: number;
  /** Most routes in one IngressRoute* object. */
  readonly maxRoutes: number;
  /** Resolve basicAuth/digestAuth secrets into `users` (Secrets are watched). Default true. */
  readonly readSecrets: boolean;
}

export const DEFAULT_TRANSLATE_OPTIONS: TranslateOptions = {
  ingressClass: '',
  namespaces: [],
  labelSelector: '',
  namespaceSelector: '',
  maxObjectBytes: 512 * 1024,
  maxRoutes: 1000,
  readSecrets: true,
  ...DEFAULT_REFERENCE_POLICY,
};
