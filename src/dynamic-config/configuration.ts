/**
 * Traefik v3 dynamic configuration, as providers deliver it, and the internal snapshot contract.
 *
 * This folder is the contract between the management API (which serves these records the way
 * Traefik's API does) and every provider: the file provider in this process and the operator,
 * which PUTs a whole {@link ProviderSnapshot} to the internal listener. Field names are exactly
 * Traefik v3's JSON names, so a configuration written for Traefik's file provider, or a record
 * copied from Traefik's `/api/rawdata`, reads unchanged. Keep it stable: add optional fields only.
 *
 * Names (keys of `routers`, `services`, …) are written unqualified, as a provider writes them
 * (`default-whoami-80`); the server appends `@<provider>`. References inside records (a router's
 * `service`, `middlewares`) may be unqualified (resolved against the same provider) or qualified
 * (`api@internal`, `auth@kubernetescrd`).
 */
import type { HTTPConfiguration } from './http.js';
import type { TCPConfiguration } from './tcp.js';
import type { UDPConfiguration } from './udp.js';

export interface TLSConfiguration {
  certificates?: { certFile?: string; keyFile?: string; stores?: string[] }[];
  options?: Record<string, Record<string, unknown>>;
  stores?: Record<string, Record<string, unknown>>;
}

export interface DynamicConfiguration {
  http?: HTTPConfiguration;
  tcp?: TCPConfiguration;
  udp?: UDPConfiguration;
  tls?: TLSConfiguration;
}

/** The Kubernetes object (or other origin) a record was made from. */
export interface RecordSource {
  /** `traefik.io/v1alpha1`, `networking.k8s.io/v1`, …; may be absent for non-Kubernetes origins. */
  apiVersion?: string;
  kind: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  name: string;
  /** The object's `metadata.uid`. */
  uid?: string;
  /**
   * The `metadata.resourceVersion` of the object as it was translated: a later write that does
   * not change the records (a status the operator writes) does not move it.
   */
  resourceVersion?: string;
}

export type SourceMap = Record<string, RecordSource>;

/** Sources per protocol and record kind, keyed by the record's unqualified name. */
export interface SnapshotSources {
  http?: { routers?: SourceMap; services?: SourceMap; middlewares?: SourceMap };
  tcp?: { routers?: SourceMap; services?: SourceMap; middlewares?: SourceMap };
  udp?: { routers?: SourceMap; services?: SourceMap };
}

export type ServerState = 'UP' | 'DOWN';

/**
 * One provider's complete state, replaced as a whole on every delivery.
 * `serverStatus` maps a service name (as written in `configuration`, unqualified) to the state
 * of each of its servers, keyed by URL (HTTP) or address (TCP). Servers not listed are `UP`, as
 * Traefik marks every server UP when it builds the load balancer. `version` is the provider's
 * own label for this snapshot (e.g. a content hash); the server computes one when absent.
 */
export interface ProviderSnapshot {
  configuration: DynamicConfiguration;
  serverStatus?: Record<string, Record<string, ServerState>>;
  /**
   * Portico's own, optional: the object each record was made from, laid out as `configuration`
   * is (`sources.http.routers["<name>"]`). Never part of a Traefik answer; served by
   * `/api/portico/sources` (docs/management-api.md).
   */
  sources?: SnapshotSources;
  version?: string;
}

/** Where a provider delivers its snapshots: the server's record store, for a provider in its process. */
export interface SnapshotSink {
  set(provider: string, snapshot: ProviderSnapshot): unknown;
}
