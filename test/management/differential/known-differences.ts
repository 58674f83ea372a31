/**
 * The differences between Traefik 3.7.13's API and Portico's that the differential suite found and
 * that are not fixed yet, each with its reason (also listed in
 * docs/management-api.md#differences-from-traefik). An answer counts as explained when its first
 * difference (status, `X-Next-Page`, or the first differing place of the body, see compare.ts)
 * matches one of these; the suite fails on any other. Later differences in the same answer are
 * not looked at, which is why each entry here is a to-do, not an accepted behaviour.
 */

import type { AllRecords } from './compare.js';

/** The current load's whole lists (each kind, both sides, by name), for differences that follow from another record's. */
export interface DiffContext {
  readonly records: ReadonlyMap<string, AllRecords>;
}

export interface KnownDifference {
  readonly id: string;
  readonly reason: string;
  /** `where` is compare.ts's description of the first difference. */
  matches(path: string, where: string, context?: DiffContext): boolean;
}

const re = (pattern: RegExp) => (_path: string, where: string) => pattern.test(where);

/**
 * Whether a usedBy difference is exactly Traefik's copies of routers that Portico keeps whole:
 * every name only Traefik lists is a copy `<ep>-conflicted-<name>`, and every name only Portico
 * lists has such a copy.
 */
function usedByNamesCopies(where: string): boolean {
  const m = /\.usedBy: traefik only \[([^\]]*)\] \/ portico only \[([^\]]*)\]$/.exec(where);
  if (m === null) return false;
  const copies = (m[1] ?? '').split(',').filter((n) => n !== '');
  const kept = (m[2] ?? '').split(',').filter((n) => n !== '');
  const origin = (n: string) => /^[^-]+(?:-[^-]+)*?-conflicted-(.+)$/.exec(n)?.[1];
  // A router split on some of its entry points only is listed by Traefik under both names.
  return copies.length > 0 && copies.every((c) => origin(c) !== undefined) && kept.every((k) => copies.some((c) => origin(c) === k));
}

/** Whether every name of a comma-separated list is a record of the operator's two providers. */
function allKubernetes(list: string): boolean {
  const names = list.split(',').filter((n) => n !== '');
  return names.length > 0 && names.every((n) => /@kubernetes(crd)?$/.test(n));
}

/** `keys: traefik [a] / portico [b]` where b is a plus names of the operator's providers only. */
function porticoKeepsKubernetesRecords(where: string): boolean {
  const m = /^\.(?:routers|services) keys: traefik \[([^\]]*)\] \/ portico \[([^\]]*)\]$/.exec(where);
  if (m === null) return false;
  const t = new Set((m[1] ?? '').split(','));
  const p = (m[2] ?? '').split(',');
  return p.filter((n) => !t.has(n)).length > 0 && [...t].every((n) => p.includes(n)) && allKubernetes(p.filter((n) => !t.has(n)).join(','));
}

/** A record's name from its own path (`/api/<proto>/<kind>/<name>`), with its kind; undefined for other paths. */
function recordOf(path: string): { kind: string; name: string } | undefined {
  const m = /^\/api\/((?:http|tcp|udp)\/(?:routers|services|middlewares))\/([^/?]+)$/.exec(path);
  return m === null ? undefined : { kind: m[1] as string, name: decodeURIComponent(m[2] as string) };
}

type Obj = Record<string, unknown>;

function sideRecord(context: DiffContext | undefined, side: 'traefik' | 'portico', kind: string, name: string): Obj | undefined {
  const r = context?.records.get(kind)?.[side].get(name);
  return typeof r === 'object' && r !== null ? r as Obj : undefined;
}

/**
 * Whether a router's record differs (first) in its entry points because Traefik moved some of them
 * to copies `<ep>-conflicted-<router>` (host conflicts of TLS options, resolveHTTPTLSOptions in
 * pkg/server/aggregator.go) and kept the router on the others: Traefik's entry points are Portico's
 * less those, and Traefik lists a copy for each one it lacks.
 */
function partlySplit(path: string, where: string, context?: DiffContext): boolean {
  const rec = recordOf(path);
  if (rec?.kind !== 'http/routers' || !/^\.entryPoints(\.\d+)?(: | keys)/.test(where)) return false;
  const t = sideRecord(context, 'traefik', rec.kind, rec.name)?.entryPoints;
  const p = sideRecord(context, 'portico', rec.kind, rec.name)?.entryPoints;
  if (!Array.isArray(t) || !Array.isArray(p) || t.length === 0) return false;
  const moved = p.filter((ep) => !t.includes(ep));
  const base = rec.name.replace(/@[^@]*$/, '');
  const provider = rec.name.slice(base.length);
  return moved.length > 0 && t.every((ep) => p.includes(ep)) && JSON.stringify(p.filter((ep) => t.includes(ep))) === JSON.stringify(t) &&
    moved.every((ep) => sideRecord(context, 'traefik', rec.kind, `${String(ep)}-conflicted-${base}${provider}`) !== undefined);
}

const PRIORITY_TOO_HIGH = /^the router priority \d+ exceeds the max user-defined priority \d+$/;

/**
 * Whether a service's record differs (first) in the error and status only Portico gives it because
 * Traefik never built it: every router that uses it is refused by Traefik for a priority above the
 * maximum that Portico read rounded to below it (so Portico went on to build the service).
 */
function unbuiltBehindRoundedPriority(path: string, where: string, context?: DiffContext): boolean {
  const rec = recordOf(path);
  if (rec === undefined || !rec.kind.endsWith('/services') || !/^\. keys: traefik \[[^\]]*\] \/ portico \[[^\]]*\berror\b[^\]]*\]$|^\.status: traefik "enabled" \/ portico "disabled"$/.test(where)) return false;
  const t = sideRecord(context, 'traefik', rec.kind, rec.name);
  if (t === undefined || t.error !== undefined || t.status !== 'enabled' || !Array.isArray(t.usedBy) || t.usedBy.length === 0) return false;
  const routers = rec.kind.replace('/services', '/routers');
  return t.usedBy.every((r) => {
    const tr = sideRecord(context, 'traefik', routers, String(r));
    const pr = sideRecord(context, 'portico', routers, String(r));
    const tooHigh = (x: Obj | undefined) => Array.isArray(x?.error) && (x.error as unknown[]).some((e) => PRIORITY_TOO_HIGH.test(String(e)));
    return tooHigh(tr) && !tooHigh(pr) && typeof tr?.priorityStr === 'string' && tr.priorityStr !== pr?.priorityStr;
  });
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    id: 'entry-point-static-configuration',
    reason: 'Traefik writes its whole static entry point (transport timeouts, forwardedHeaders, http2, udp, asDefault); Portico knows only the name and address of the proxy\'s entry points (--management.entry-points)',
    matches: (path, where) => path.startsWith('/api/entrypoints') && /keys: traefik \[address,(asDefault,)?transport/.test(where),
  },
  {
    id: 'overview-certificates',
    reason: 'Traefik\'s overview has a certificates section; Portico serves no certificates',
    matches: re(/^\. keys: traefik \[http,tcp,udp,certificates,features,providers\] \/ portico \[http,tcp,udp,features,providers\]/),
  },
  {
    id: 'server-status-of-unbuilt-services',
    reason: 'Traefik shows serverStatus only for load balancers a router built; Portico shows it for every load balancer',
    matches: re(/keys: traefik \[([^\]]*)\] \/ portico \[\1,serverStatus\]$/),
  },
  {
    id: 'empty-lists-omitted',
    reason: 'Go omits empty lists (servers: [], services: []) from the JSON; Portico writes them as the file gave them',
    matches: re(/keys: traefik \[\] \/ portico \[(servers|services|mirrors)\]$/),
  },
  {
    id: 'option-defaults',
    reason: 'Traefik fills option defaults when it decodes the file (sticky cookie path, mirroring mirrorBody and maxBodySize, forwardAuth maxBodySize, compress encodings, …); Portico shows the options as written',
    matches: re(/keys: traefik \[[^\]]*\b(path|mirrorBody|maxBodySize|encodings|sameSite|httpOnly|defaultEncoding|minResponseBodyBytes|depth|statusCode)\b[^\]]*\] \/ portico/),
  },
  {
    id: 'option-defaults-nested',
    reason: 'The same as option-defaults for middleware options whose defaults Traefik writes (retry maxRequestBodyBytes, circuitBreaker checkPeriod, fallbackDuration, recoveryDuration, responseCode)',
    matches: (_path, where) => {
      const m = /^\.(?:\d+\.)?[a-zA-Z]+(?:\.[a-zA-Z]+)* keys: traefik \[([^\]]*)\] \/ portico \[([^\]]*)\]$/.exec(where);
      if (m === null) return false;
      const t = new Set((m[1] ?? '').split(','));
      return (m[2] ?? '').split(',').filter((k) => k !== '').every((k) => t.has(k)) && t.size > (m[2] ?? '').split(',').filter((k) => k !== '').length;
    },
  },
  {
    id: 'nested-references-qualified',
    reason: 'Traefik qualifies the names inside chain middlewares and a load balancer\'s serversTransport (name@file); Portico shows them as written',
    matches: re(/(chain\.middlewares\.\d+|serversTransport): traefik "[^"]+@[a-z]+" \/ portico "[^"@]+"$/),
  },
  {
    id: 'ping-internal',
    reason: 'Traefik knows ping@internal and refuses it with "ping is not enabled" when ping is off; Portico has no ping@internal and says the service does not exist',
    matches: re(/traefik "ping is not enabled"/),
  },
  {
    id: 'health-check-propagation',
    reason: 'Traefik 3.7 links the health of weighted and failover children to their parent and refuses children that cannot report it (no healthCheck, internal services); Portico does not check health at all',
    matches: re(/as updater for|not a healthcheck\.StatusUpdater/),
  },
  {
    id: 'option-key-order',
    reason: 'Nested options keep the key order the file wrote in Portico, Go\'s struct field order in Traefik',
    matches: (_path, where) => {
      const m = /keys: traefik \[([^\]]*)\] \/ portico \[([^\]]*)\]$/.exec(where);
      return m !== null && m[1] !== m[2] && (m[1] ?? '').split(',').sort().join() === (m[2] ?? '').split(',').sort().join();
    },
  },
  {
    id: 'priority-beyond-2^53',
    reason: 'Portico\'s YAML reader turns integers beyond 2^53 into doubles, so such priorities are rounded (9007199254740993 reads 9007199254740992); a priority just above the maximum can read below it, and then Portico builds the router\'s service, which Traefik, refusing the router first, does not',
    matches: (path, where, context) => /priority(Str)?: traefik "(int:)?-?\d{16,}" \/ portico "(int:)?-?\d{16,}"$/.test(where) ||
      unbuiltBehindRoundedPriority(path, where, context),
  },
  {
    id: 'rule-syntax-not-checked',
    reason: 'Portico does not parse router rules, so a rule that does not parse (or an unknown matcher, or the v2 syntax) leaves the router enabled where Traefik disables it with its parser\'s error',
    matches: re(/invalid rule|error while (parsing|adding|checking) rule|unsupported function|ruleSyntax/),
  },
  {
    id: 'tls-options-not-checked',
    reason: 'Portico does not check TLS options (unknown options, clientAuth without CA files, conflicting options on one host); Traefik disables such routers',
    matches: re(/unknown TLS options|building TLS config|TLSOptions configuration is conflicting/),
  },
  {
    id: 'entry-point-models',
    reason: 'Traefik splits a router whose TLS options conflict with another router\'s on one host into one copy per entry point (web-conflicted-<router>), and names them in usedBy; Portico keeps the one router (it splits only routers with TLS options and no host)',
    // A usedBy that names the copies (`<ep>-conflicted-<router>`) where Portico names the router.
    matches: (path, where, context) => /conflicted/.test(path) || /conflicted/.test(where) || usedByNamesCopies(where) || partlySplit(path, where, context) ||
      (/^status 404 \/ 200: \{"message":"router not found/.test(where) && path.startsWith('/api/http/routers/')),
  },
  {
    id: 'service-error-prefix',
    reason: 'Traefik prefixes the router\'s error with "building HTTP service \\"<name>\\": " when the service itself fails to build; Portico writes the inner text',
    matches: re(/traefik "(could not instantiate [^"]*, )?building HTTP service/),
  },
  {
    id: 'recursion-path-order',
    reason: 'When several children of a weighted or highest-random-weight service lead into cycles, Traefik\'s shuffled build order decides which cycle it reports (and so which service the error names); Portico reports the first in the file\'s order',
    matches: re(/error(\.\d+)?: traefik "could not instantiate service [^"]*recursion detected in service:[^"]*" \/ portico "could not instantiate service [^"]*recursion detected in service:[^"]*"$/),
  },
  {
    id: 'middlewares-qualified-before-build',
    reason: 'Traefik qualifies a router\'s middlewares (name@provider) only when it builds the router\'s handler, so a router that fails earlier shows them as written; Portico qualifies them for every router with a valid entry point',
    matches: re(/middlewares\.\d+: traefik "[^"@]+" \/ portico "[^"@]+@[a-z]+"$/),
  },
  {
    id: 'using-and-error-on-disabled-routers',
    reason: 'Which of using, error and usedBy a record carries differs where Traefik disables a router for a reason Portico does not compute (rules, TLS options, entry-point models: the entries above), and Traefik keeps using on routers disabled after their entry points were checked',
    matches: (_path, where) => {
      const m = /keys: traefik \[([^\]]*)\] \/ portico \[([^\]]*)\]$/.exec(where);
      if (m === null) return false;
      const a = new Set((m[1] ?? '').split(','));
      const b = new Set((m[2] ?? '').split(','));
      const only = [...a].filter((k) => !b.has(k)).concat([...b].filter((k) => !a.has(k)));
      return only.length > 0 && only.every((k) => k === 'using' || k === 'error' || k === 'usedBy');
    },
  },
];

/**
 * The Kubernetes side-by-side's own (test/kube/traefik-providers.kube.test.ts): the operator's
 * deliberate departures from Traefik's Kubernetes providers (docs/operator.md, "Where Traefik drops
 * things silently, Portico shows them"). That suite looks an answer's first difference up here
 * before KNOWN_DIFFERENCES; the file-provider suite never does.
 */
export const KUBERNETES_DIFFERENCES: readonly KnownDifference[] = [
  {
    id: 'kubernetes-router-kept-without-service',
    reason: 'Traefik\'s Kubernetes providers drop the router of an Ingress whose backend Service does not exist (or lacks the port, or is an ExternalName or empty Service the options refuse); the operator keeps the router, which the API shows disabled with Traefik\'s "the service … does not exist" error, and records a Warning Event',
    matches: (path, where) => porticoKeepsKubernetesRecords(where) ||
      /^list members: (whole list: )?traefik only \[\] \/ portico only \[([^\]]*)\]$/.test(where) && allKubernetes(/portico only \[([^\]]*)\]$/.exec(where)?.[1] ?? '') ||
      (/^status 404 \/ 200: \{"message":"router not found/.test(where) && /^\/api\/(http|tcp|udp)\/routers\/[^/?]+%40kubernetes(crd)?$/.test(path)),
  },
  {
    id: 'kubernetes-not-ready-servers',
    reason: 'Traefik\'s Kubernetes providers leave an endpoint that is not ready out of the load balancer\'s servers; the operator lists it with serverStatus DOWN, so the dashboard shows which pods are not ready',
    matches: re(/\.loadBalancer\.servers\.\d+: traefik undefined \/ portico \{"(url|address)":"[^"]+"\}$/),
  },
];
