/**
 * The runtime records Traefik's API shows (RouterInfo, ServiceInfo, …): a provider's record plus
 * `status`, `error`, and `using` or `usedBy`, keyed by qualified name. Built by runtime.ts.
 */
import type { DynamicConfiguration, ServerState } from '../../dynamic-config/configuration.js';
import type { Middleware, Router, Service } from '../../dynamic-config/http.js';
import type { TCPMiddleware, TCPRouter, TCPService } from '../../dynamic-config/tcp.js';
import type { UDPRouter, UDPService } from '../../dynamic-config/udp.js';

/**
 * What a router's runtime record starts from; a pure function of the record, provider and context,
 * which router-memo.ts keeps between recomputes.
 */
export interface PreparedRouter {
  /** The record this was prepared from (or one equal to it). */
  readonly source: Router;
  /** The record as shown unbuilt: default entry points and (when built) observability filled in. */
  readonly config: Router;
  /** `config` with its middleware names qualified, as shown once built (`config` itself when it has none). */
  readonly built: Router;
  /** The qualified service name; '' when the router names none. */
  readonly service: string;
  /** Qualified middleware names the router references (empty names left out). */
  readonly middlewareRefs: readonly string[];
}

export type Status = 'enabled' | 'disabled' | 'warning';

/** Traefik's `math.MaxInt64`; internal routers sit just below it. */
export const MAX_INT64 = 9223372036854775807n;
/** Above this a non-internal router is refused (Traefik's max user-defined priority). */
export const MAX_USER_PRIORITY = MAX_INT64 - 1000n;

/** One provider's configuration as the runtime consumes it. */
export interface ProviderInput {
  readonly provider: string;
  readonly configuration: DynamicConfiguration;
  /** service name (unqualified or qualified) -> server URL/address -> state; unlisted servers are UP. */
  readonly serverStatus?: Record<string, Record<string, ServerState>>;
  /** Exact int64 priorities by router name, for internal routers a JS number cannot hold. */
  readonly priorities?: Readonly<Record<string, bigint>>;
}

export interface EntryPointDef {
  readonly name: string;
  /** `host:port`, Traefik style (`:8080`, `:53/udp`). */
  readonly address: string;
  readonly protocol: 'tcp' | 'udp';
  /** Given to HTTP/TCP routers that name no entry point (Traefik's default entry points). */
  readonly isDefault: boolean;
}

export interface RuntimeOptions {
  /**
   * True (the default) reproduces a running Traefik, which qualifies router middleware names,
   * computes `priority = len(rule)` and checks services and middlewares while building routers.
   * False reproduces Traefik's API unit-test harness, which skips the build step (golden files).
   */
  readonly buildRouters?: boolean;
}

// Shared empty list for records with no errors, users or entry points (most of them): 20,000
// records would otherwise allocate 40,000 empty arrays on every snapshot. Never mutated.
export const NONE: string[] = Object.freeze([]) as unknown as string[];

/** Traefik's runtime info shared by every record: its status and error texts. */
export abstract class Info {
  errors: string[] = NONE;
  status: Status = 'enabled';
  constructor(readonly name: string, readonly provider: string) {}

  /** Traefik's AddError: de-duplicated; critical disables, otherwise a warning unless disabled. */
  addError(message: string, critical: boolean): void {
    if (this.errors === NONE) this.errors = [message];
    else if (!this.errors.includes(message)) this.errors.push(message);
    if (critical) this.status = 'disabled';
    else if (this.status !== 'disabled') this.status = 'warning';
  }
}

export class RouterInfo extends Info {
  using: string[] = NONE;
  /** For a per-entry-point copy of a router (tls-conflicts.ts): the router's qualified name. */
  splitFrom: string | undefined = undefined;
  /** @param prepared the per-record work: qualified names and the built config (router-memo.ts) */
  constructor(name: string, provider: string, public config: Router, public priority: bigint, readonly prepared: PreparedRouter) {
    super(name, provider);
  }
}

/** Server URL/address -> state, computed when first shown: unlisted servers are UP. */
function computeServerStatus(
  servers: readonly { url?: string; address?: string }[] | undefined, given: Record<string, ServerState> | undefined,
): Record<string, ServerState> {
  const out: Record<string, ServerState> = {};
  for (const s of servers ?? []) {
    const key = s.url ?? s.address;
    if (key !== undefined && key !== '') out[key] = given?.[key] ?? 'UP';
  }
  return out;
}

export class ServiceInfo extends Info {
  usedBy: string[] = NONE;
  /** Computed from `config` and `given` when first read (runtime/reuse.ts compares those). */
  private status_: Record<string, ServerState> | undefined;
  /** @param given the states the provider gave for this service's servers (unlisted servers are UP) */
  constructor(name: string, provider: string, readonly config: Service, readonly given: Record<string, ServerState> | undefined) {
    super(name, provider);
  }

  get serverStatus(): Record<string, ServerState> {
    this.status_ ??= computeServerStatus(this.config.loadBalancer?.servers, this.given);
    return this.status_;
  }
}

export class MiddlewareInfo extends Info {
  usedBy: string[] = NONE;
  constructor(name: string, provider: string, readonly config: Middleware) {
    super(name, provider);
  }
}

export class TCPRouterInfo extends Info {
  using: string[] = NONE;
  constructor(name: string, provider: string, public config: TCPRouter, public priority: bigint) {
    super(name, provider);
  }
}

export class TCPServiceInfo extends Info {
  usedBy: string[] = NONE;
  /** Computed from `config` and `given` when first read (runtime/reuse.ts compares those). */
  private status_: Record<string, ServerState> | undefined;
  constructor(name: string, provider: string, readonly config: TCPService, readonly given: Record<string, ServerState> | undefined) {
    super(name, provider);
  }

  get serverStatus(): Record<string, ServerState> {
    this.status_ ??= computeServerStatus(this.config.loadBalancer?.servers, this.given);
    return this.status_;
  }
}

export class TCPMiddlewareInfo extends Info {
  usedBy: string[] = NONE;
  constructor(name: string, provider: string, readonly config: TCPMiddleware) {
    super(name, provider);
  }
}

export class UDPRouterInfo extends Info {
  using: string[] = NONE;
  constructor(name: string, provider: string, public config: UDPRouter) {
    super(name, provider);
  }
}

export class UDPServiceInfo extends Info {
  usedBy: string[] = NONE;
  constructor(name: string, provider: string, readonly config: UDPService) {
    super(name, provider);
  }
}

/** Every runtime record, keyed by qualified name. */
export interface RuntimeConfiguration {
  readonly routers: Map<string, RouterInfo>;
  readonly services: Map<string, ServiceInfo>;
  readonly middlewares: Map<string, MiddlewareInfo>;
  readonly tcpRouters: Map<string, TCPRouterInfo>;
  readonly tcpServices: Map<string, TCPServiceInfo>;
  readonly tcpMiddlewares: Map<string, TCPMiddlewareInfo>;
  readonly udpRouters: Map<string, UDPRouterInfo>;
  readonly udpServices: Map<string, UDPServiceInfo>;
}

/**
 * A shallow copy of a record, as `{ ...record }` gives it (same own keys, order and values). Not
 * a spread: V8 gives every object spread from a JSON.parse'd record a hidden class of its own
 * (5,000 per operator snapshot), which makes making them, and every later read of them, slow; a
 * copy made key by key shares its class with the copies of records with the same keys.
 */
export function copyRecord<T extends object>(record: T): T {
  const out: Record<string, unknown> = {};
  for (const k in record) {
    if (!Object.prototype.hasOwnProperty.call(record, k)) continue;
    // Assigning it would set the prototype rather than copy a key.
    if (k === '__proto__') return { ...record };
    out[k] = (record as Record<string, unknown>)[k];
  }
  return out as T;
}

/** `name@provider`, unless the name is already qualified (Traefik's GetQualifiedName). */
export function qualify(name: string, provider: string): string {
  return name.includes('@') ? name : `${name}@${provider}`;
}

/** The provider part of a qualified name: what follows the first `@`. */
export function providerOf(qualifiedName: string): string {
  const at = qualifiedName.indexOf('@');
  return at === -1 ? '' : qualifiedName.slice(at + 1);
}

