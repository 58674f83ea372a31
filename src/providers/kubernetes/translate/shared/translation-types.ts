import type { DynamicConfiguration, ProviderSnapshot, ServerState } from '../../../../dynamic-config/configuration.js';
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
  for (const k of Object.keys(r)) if (!nonEmpty(r[k] as object)) r[k] = EMPTY_TABLE;
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
