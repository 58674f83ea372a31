/**
 * Traefik 3.7's per-entry-point resolution of a router's TLS options (`resolveHTTPTLSOptions` in
 * pkg/server/aggregator.go), for the case that depends on the router alone: an HTTP router with
 * TLS options other than `default` whose rule names no host cannot have its options selected by
 * SNI, so on every entry point it conflicts. Traefik then replaces it by one copy per entry point,
 * `<entryPoint>-conflicted-<name>@<provider>`, serving that entry point alone with the default TLS
 * options (shown with the options as written); the router itself is no longer listed. A TLS
 * router left with no entry point (a child router) is dropped the same way. Each copy on a known
 * entry point then carries Traefik's warning that its options cannot be applied.
 *
 * Not reproduced: conflicts between routers serving one host with different TLS options (the
 * other case of the same function), which needs every router of the entry point.
 */
import { copyRecord, qualify, type PreparedRouter, type RouterInfo } from './records.js';
import { ruleDomains } from './rule-domains.js';

export interface ConflictCopy {
  /** The copy's qualified name. */
  readonly name: string;
  readonly prepared: PreparedRouter;
}

/**
 * The copies that replace a router, or `undefined` when it stays as it is (the usual case, decided
 * without parsing the rule unless the router has TLS options other than `default`).
 * @param name the router's qualified name
 */
export function tlsConflictCopies(name: string, prepared: PreparedRouter): readonly ConflictCopy[] | undefined {
  const tls = prepared.config.tls;
  if (tls == null) return undefined;
  const entryPoints = prepared.config.entryPoints ?? [];
  if (entryPoints.length === 0) return [];
  const options = tls.options;
  if (options === undefined || options === '' || options === 'default') return undefined;
  if (ruleDomains(prepared.config.rule ?? '')?.length !== 0) return undefined;
  return [...new Set(entryPoints)].map((ep) => {
    const config = copyRecord(prepared.config);
    config.entryPoints = [ep];
    let built = config;
    if (prepared.built !== prepared.config) {
      built = copyRecord(prepared.built);
      built.entryPoints = [ep];
    }
    return { name: `${ep}-conflicted-${name}`, prepared: { ...prepared, config, built } };
  });
}

/**
 * Traefik's TCP router manager, which picks the TLS configuration of every TLS router on a known
 * entry point after the HTTP routers are built, warns each copy that its options cannot be
 * applied (its rule has no host): the copies are enabled with a warning.
 */
export function warnConflictCopies(routers: ReadonlyMap<string, RouterInfo>): void {
  // forEach rather than for-of: no iterator result per router (50,000 per snapshot).
  routers.forEach((r) => {
    if (r.splitFrom === undefined || r.using.length === 0) return;
    const options = r.config.tls?.options ?? '';
    r.addError(`no domain found in rule ${r.config.rule ?? ''}, the TLS option ${qualify(options, r.provider)} cannot be applied`, false);
  });
}
