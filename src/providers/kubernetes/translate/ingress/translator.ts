import type { Router, RouterTLSConfig, Service, Sticky } from '../../../../dynamic-config/http.js';
import { resolveHttpServers, type ClusterView } from '../shared/endpoints-resolver.js';
import type { HTTPIngressPath, Ingress, IngressBackend, IngressClass, Service as KubeService } from '../../client/kube-objects.js';
import { objectKey } from '../../client/kube-objects.js';
import {
  compareKeys, DEFAULT_BACKEND_PRIORITY, DEFAULT_BACKEND_ROUTER, DEFAULT_BACKEND_SERVICE, ingressRouterKey, ingressRouterKeyWithHash,
  serviceKey,
} from '../shared/naming.js';
import { checkRule } from '../shared/rule-parser.js';
import type { ReferencePolicy } from '../shared/reference-policy.js';
import { compactFragment, ConfigBuilder, sourceOf, type OperatorEvent, type ObjectRef } from '../shared/translation-types.js';
import type { TranslationMemo } from '../shared/translation-memo.js';

/**
 * Ingress (`networking.k8s.io/v1`) → provider `kubernetes` records, following Traefik's Ingress
 * provider (reference §5.1): router keys from namespace, name, host and path; service keys from the
 * backend Service and port; router options from `traefik.ingress.kubernetes.io/router.*`
 * annotations on the Ingress, load-balancer options from `…/service.*` annotations on the Service.
 *
 * Where Traefik drops a path silently (missing Service, no endpoints) we keep the records the user
 * can see: a missing Service leaves the router pointing at a service record that does not exist
 * (the management API shows Traefik's `the service "…" does not exist` error on it), and a Service
 * without endpoints gets a load balancer with no servers. Both also raise a Warning event.
 */

const ANNOTATION = 'traefik.ingress.kubernetes.io/';
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
/** IngressClass controllers we answer for: Traefik's (so existing classes work) and ours. */
export const INGRESS_CONTROLLERS: readonly string[] = ['traefik.io/ingress-controller', 'portico.dev/ingress-controller'];
const DEFAULT_CLASSES: readonly string[] = ['traefik', 'portico'];

export interface IngressInputs {
  readonly ingresses: readonly Ingress[];
  readonly ingressClasses: readonly IngressClass[];
  readonly view: ClusterView;
  readonly ingressClass: string;
  /** ExternalName and empty-service rules (cross-namespace does not apply to Ingress backends). */
  readonly policy: ReferencePolicy;
}

function ingressRef(ing: Ingress): ObjectRef {
  return {
    group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress',
    namespace: ing.metadata?.namespace ?? '', name: ing.metadata?.name ?? '',
    uid: ing.metadata?.uid, resourceVersion: ing.metadata?.resourceVersion,
  };
}

/** Traefik's `shouldProcessIngress`, with our controller name and class accepted too. */
export function shouldProcessIngress(ing: Ingress, classes: readonly IngressClass[], providerClass: string): boolean {
  const className = ing.spec?.ingressClassName;
  if (className !== undefined && className !== '') {
    const cls = classes.find((c) => c.metadata?.name === className);
    if (!cls || !INGRESS_CONTROLLERS.includes(cls.spec?.controller ?? '')) return false;
    return providerClass === '' || providerClass === className;
  }
  const annotation = ing.metadata?.annotations?.[CLASS_ANNOTATION];
  if (providerClass !== '') return annotation === providerClass;
  return annotation === undefined || annotation === '' || DEFAULT_CLASSES.includes(annotation);
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  return items.length > 0 ? items : undefined;
}

interface RouterAnnotations {
  readonly entryPoints?: string[];
  readonly middlewares?: string[];
  readonly priority?: number;
  readonly ruleSyntax?: string;
  readonly pathMatcher?: string;
  readonly tls?: RouterTLSConfig;
}

function routerAnnotations(ing: Ingress, problems: string[]): RouterAnnotations {
  const a = ing.metadata?.annotations ?? {};
  const get = (k: string) => a[ANNOTATION + k];
  let priority: number | undefined;
  const rawPriority = get('router.priority');
  if (rawPriority !== undefined) {
    if (/^-?\d+$/.test(rawPriority.trim())) priority = Number(rawPriority.trim());
    else problems.push(`annotation ${ANNOTATION}router.priority: "${rawPriority}" is not an integer`);
  }
  const pathMatcher = get('router.pathmatcher');
  if (pathMatcher !== undefined && !['Path', 'PathPrefix', 'PathRegexp'].includes(pathMatcher)) {
    problems.push(`annotation ${ANNOTATION}router.pathmatcher: "${pathMatcher}" is not Path, PathPrefix or PathRegexp`);
  }
  let tls: RouterTLSConfig | undefined;
  const certResolver = get('router.tls.certresolver');
  const options = get('router.tls.options');
  const domains: { main?: string; sans?: string[] }[] = [];
  for (let i = 0; get(`router.tls.domains.${i}.main`) !== undefined; i++) {
    const d: { main?: string; sans?: string[] } = { main: get(`router.tls.domains.${i}.main`) };
    const sans = list(get(`router.tls.domains.${i}.sans`));
    if (sans) d.sans = sans;
    domains.push(d);
  }
  if (get('router.tls') === 'true' || certResolver !== undefined || options !== undefined || domains.length > 0) {
    tls = {};
    if (options !== undefined) tls.options = options;
    if (certResolver !== undefined) tls.certResolver = certResolver;
    if (domains.length > 0) tls.domains = domains;
  }
  return {
    entryPoints: list(get('router.entrypoints')),
    middlewares: list(get('router.middlewares')),
    priority,
    ruleSyntax: get('router.rulesyntax'),
    pathMatcher: pathMatcher !== undefined && ['Path', 'PathPrefix', 'PathRegexp'].includes(pathMatcher) ? pathMatcher : undefined,
    tls,
  };
}

/** Go's `%q` for the strings that appear in Kubernetes hosts and paths. */
function quote(s: string): string {
  return JSON.stringify(s);
}

export function buildIngressRule(host: string, path: HTTPIngressPath, pathMatcher: string | undefined): string {
  const parts: string[] = [];
  if (host !== '') parts.push(`Host(${quote(host)})`);
  const p = path.path ?? '';
  if (p !== '') {
    let matcher = 'PathPrefix';
    const type = path.pathType ?? '';
    if (type === 'Exact') matcher = 'Path';
    else if ((type === '' || type === 'ImplementationSpecific') && pathMatcher) matcher = pathMatcher;
    parts.push(`${matcher}(${quote(p)})`);
  }
  return parts.join(' && ');
}

function boolAnnotation(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  return v.trim().toLowerCase() === 'true';
}

/** Load-balancer options Traefik reads from `traefik.ingress.kubernetes.io/service.*` on the Service. */
function serviceOptions(svc: KubeService | undefined): { scheme?: string; serversTransport?: string; passHostHeader?: boolean; sticky?: Sticky; nativeLB?: boolean } {
  const a = svc?.metadata?.annotations ?? {};
  const get = (k: string) => a[ANNOTATION + k];
  let sticky: Sticky | undefined;
  if (boolAnnotation(get('service.sticky.cookie')) === true) {
    const cookie: NonNullable<Sticky['cookie']> = {};
    const name = get('service.sticky.cookie.name');
    if (name !== undefined) cookie.name = name;
    const secure = boolAnnotation(get('service.sticky.cookie.secure'));
    if (secure !== undefined) cookie.secure = secure;
    const httpOnly = boolAnnotation(get('service.sticky.cookie.httponly'));
    if (httpOnly !== undefined) cookie.httpOnly = httpOnly;
    const sameSite = get('service.sticky.cookie.samesite');
    if (sameSite !== undefined) cookie.sameSite = sameSite;
    const maxAge = get('service.sticky.cookie.maxage');
    if (maxAge !== undefined && /^-?\d+$/.test(maxAge)) cookie.maxAge = Number(maxAge);
    const path = get('service.sticky.cookie.path');
    if (path !== undefined) cookie.path = path;
    const domain = get('service.sticky.cookie.domain');
    if (domain !== undefined) cookie.domain = domain;
    sticky = { cookie };
  }
  return {
    scheme: get('service.serversscheme'),
    serversTransport: get('service.serverstransport'),
    passHostHeader: boolAnnotation(get('service.passhostheader')),
    sticky,
    nativeLB: boolAnnotation(get('service.nativelb')),
  };
}

interface BackendResult {
  readonly key: string;
  readonly portText: string;
}

function addBackend(out: ConfigBuilder, view: ClusterView, policy: ReferencePolicy, ns: string, backend: IngressBackend, key: string | undefined, events: (reason: string, message: string) => void): BackendResult | undefined {
  const svc = backend.service;
  if (!svc?.name) {
    events('InvalidBackend', backend.resource ? `resource backends (${backend.resource.kind ?? '?'}/${backend.resource.name ?? '?'}) are not supported` : 'backend has no service name');
    return undefined;
  }
  const port = svc.port?.name !== undefined && svc.port.name !== '' ? svc.port.name : svc.port?.number;
  const portText = port === undefined ? '' : String(port);
  const name = key ?? serviceKey(ns, svc.name, portText);
  if (out.httpServices[name]) return { key: name, portText };
  const kubeSvc = view.service(ns, svc.name);
  const opts = serviceOptions(kubeSvc);
  const resolved = resolveHttpServers(view, {
    namespace: ns, name: svc.name, port, scheme: opts.scheme, nativeLB: opts.nativeLB, allowExternalName: policy.allowExternalNameServices,
  });
  if (resolved.error && (resolved.error.reason !== 'NoEndpoints' || !policy.allowEmptyServices)) {
    // The router still points at `name`; the missing record makes the management API show the error.
    events(resolved.error.reason, resolved.error.message);
    return { key: name, portText };
  }
  if (resolved.error) events(resolved.error.reason, resolved.error.message);
  const lb: Service['loadBalancer'] = {};
  if (opts.sticky) lb.sticky = opts.sticky;
  lb.servers = resolved.servers;
  lb.strategy = 'wrr';
  lb.passHostHeader = opts.passHostHeader ?? true;
  lb.responseForwarding = { flushInterval: '100ms' };
  if (opts.serversTransport !== undefined) lb.serversTransport = opts.serversTransport;
  out.httpServices[name] = { loadBalancer: lb };
  if (Object.keys(resolved.status).length > 0) out.serverStatus[name] = resolved.status;
  return { key: name, portText };
}

function applyAnnotations(rt: Router, ann: RouterAnnotations): void {
  if (ann.entryPoints) rt.entryPoints = ann.entryPoints;
  if (ann.middlewares) rt.middlewares = ann.middlewares;
  if (ann.tls) rt.tls = ann.tls;
}

export interface IngressFragment {
  readonly records: ConfigBuilder;
  readonly events: readonly OperatorEvent[];
  readonly ref: ObjectRef;
}

/** One Ingress into its own records (a fragment); merged into the provider's records afterwards. */
// eslint-disable-next-line complexity -- Traefik's Ingress provider reads an Ingress in this one order (TLS, default backend, each rule and path, the annotations' router options), and the branch per field is that order
export function translateOneIngress(ing: Ingress, view: ClusterView, policy: ReferencePolicy): IngressFragment {
  const out = new ConfigBuilder();
  const events: OperatorEvent[] = [];
  const ref = ingressRef(ing);
  out.source = sourceOf(ref);
  const ns = ing.metadata?.namespace ?? '';
  const name = ing.metadata?.name ?? '';
  const warn = (reason: string, message: string) => events.push({ ref, type: 'Warning', reason, message });
  const problems: string[] = [];
  const ann = routerAnnotations(ing, problems);
  for (const p of problems) warn('InvalidAnnotation', p);

  const defaultBackend = ing.spec?.defaultBackend;
  if (defaultBackend) {
    const backend = addBackend(out, view, policy, ns, defaultBackend, DEFAULT_BACKEND_SERVICE, warn);
    if (backend) {
      const rt: Router = { rule: 'PathPrefix("/")', ruleSyntax: 'default', priority: DEFAULT_BACKEND_PRIORITY, service: DEFAULT_BACKEND_SERVICE };
      applyAnnotations(rt, ann);
      out.httpRouters[DEFAULT_BACKEND_ROUTER] = rt;
    }
  }

  // Keys that collide inside one Ingress all get the rule hash, as Traefik does.
  const byKey = new Map<string, Router[]>();
  for (const rule of ing.spec?.rules ?? []) {
    const host = rule.host ?? '';
    for (const path of rule.http?.paths ?? []) {
      if (!path.backend) {
        warn('InvalidBackend', `path ${path.path ?? ''} has no backend`);
        continue;
      }
      const backend = addBackend(out, view, policy, ns, path.backend, undefined, warn);
      if (!backend) continue;
      const rt: Router = {};
      applyAnnotations(rt, { entryPoints: ann.entryPoints, middlewares: ann.middlewares });
      rt.service = backend.key;
      rt.rule = buildIngressRule(host, path, ann.pathMatcher);
      if (ann.ruleSyntax !== undefined) rt.ruleSyntax = ann.ruleSyntax;
      if (ann.priority !== undefined) rt.priority = ann.priority;
      if (ann.tls) rt.tls = ann.tls;
      rt.observability = {
        metadata: { ingress: { namespace: ns, ingressName: name, serviceName: path.backend.service?.name ?? '', servicePort: backend.portText } },
      };
      const check = checkRule(rt.rule, 'http');
      if (!check.ok) warn('InvalidRule', check.error);
      const key = ingressRouterKey(ns, name, host, path.path ?? '');
      const group = byKey.get(key);
      if (group) group.push(rt);
      else byKey.set(key, [rt]);
    }
  }
  for (const [key, routers] of byKey) {
    if (routers.length === 1) {
      if (out.httpRouters[key]) warn('DuplicateName', `router ${key} is defined twice in this Ingress`);
      else out.httpRouters[key] = routers[0] as Router;
      continue;
    }
    for (const rt of routers) {
      const hashed = ingressRouterKeyWithHash(key, rt.rule ?? '');
      if (out.httpRouters[hashed]) warn('DuplicateName', `router ${hashed} is already defined`);
      else out.httpRouters[hashed] = rt;
    }
  }
  return { records: compactFragment(out), events, ref };
}

/** Adds one Ingress's records: router names are claimed (a clash is an error), services shared. */
function mergeIngress(fragment: IngressFragment, out: ConfigBuilder, events: OperatorEvent[]): void {
  events.push(...fragment.events);
  const warn = (reason: string, message: string) => events.push({ ref: fragment.ref, type: 'Warning', reason, message });
  const f = fragment.records;
  const skipDefault = f.httpRouters[DEFAULT_BACKEND_ROUTER] !== undefined && out.httpRouters[DEFAULT_BACKEND_ROUTER] !== undefined;
  if (skipDefault) warn('DuplicateDefaultBackend', 'the default backend already exists (only one Ingress in the cluster may set one)');
  for (const [key, rt] of Object.entries(f.httpRouters)) {
    if (key === DEFAULT_BACKEND_ROUTER && skipDefault) continue;
    if (out.httpRouters[key]) {
      warn('DuplicateName', `router ${key} is already defined by another Ingress`);
    } else {
      out.httpRouters[key] = rt;
      out.noteSource('httpRouters', key, f);
    }
  }
  for (const [key, svc] of Object.entries(f.httpServices)) {
    if ((key === DEFAULT_BACKEND_SERVICE && skipDefault) || out.httpServices[key] !== undefined) continue;
    out.httpServices[key] = svc;
    out.noteSource('httpServices', key, f);
  }
  for (const [key, status] of Object.entries(f.serverStatus)) {
    if (key === DEFAULT_BACKEND_SERVICE && skipDefault) continue;
    out.serverStatus[key] ??= status;
  }
}

/**
 * Translates the Ingresses into `out`; returns Warning events for what could not be used. With a
 * memo, an Ingress whose object and backends did not change reuses its previous fragment.
 */
export function translateIngresses(
  inputs: IngressInputs, out: ConfigBuilder, memo?: TranslationMemo, served?: ObjectRef[], recorder?: IngressRecorder,
): OperatorEvent[] {
  const events: OperatorEvent[] = [];
  const sorted = [...inputs.ingresses].sort((a, b) => compareKeys(objectKey(a), objectKey(b)));
  for (const ing of sorted) {
    if (!shouldProcessIngress(ing, inputs.ingressClasses, inputs.ingressClass)) continue;
    const ref = ingressRef(ing);
    served?.push(ref);
    const key = ingressMemoKey(ing);
    const fragment = memo
      ? memo.get(key, ing, null, inputs.view, (view) => translateOneIngress(ing, view, inputs.policy))
      : translateOneIngress(ing, inputs.view, inputs.policy);
    const before = events.length;
    mergeIngress(fragment, out, events);
    recorder?.({ key, object: ing, ref, fragment, events: events.slice(before) });
  }
  return events;
}

/** What the full translation did with one Ingress (for the incremental translation's state). */
export interface IngressRecord {
  /** The memo key, which sorts as the Ingresses are visited. */
  readonly key: string;
  readonly object: Ingress;
  /** The `servedIngresses` entry. */
  readonly ref: ObjectRef;
  readonly fragment: IngressFragment;
  /** The fragment's events and the merge's warnings for it, in order. */
  readonly events: readonly OperatorEvent[];
}

export type IngressRecorder = (record: IngressRecord) => void;

export function ingressMemoKey(ing: Ingress): string {
  return `ing|${objectKey(ing)}`;
}

export { ingressRef };
