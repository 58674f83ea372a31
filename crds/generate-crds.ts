/**
 * The single source of Portico's CustomResourceDefinitions (group portico.dev, version v1alpha1).
 * Specs follow Traefik's traefik.io/v1alpha1 kinds field for field, so a Traefik manifest applies
 * after changing its apiVersion. Schemas are structural: every field typed, ports and durations
 * `x-kubernetes-int-or-string`, unknown fields kept only where Traefik's are open (plugin configs).
 *
 * Regenerate the YAML files after an edit: `npx tsx crds/generate-crds.ts` (a test fails when the
 * committed files are stale).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

type Schema = Record<string, unknown>;

const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
const bool = (): Schema => ({ type: 'boolean' });
const intOrString = (): Schema => ({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true });
const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
const obj = (properties: Record<string, Schema>, required?: string[], extra: Schema = {}): Schema =>
  ({ type: 'object', properties, ...(required && required.length > 0 ? { required } : {}), ...extra });
const map = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });
const open = (): Schema => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
const strings = (): Schema => arr(str());
const enumOf = (...values: string[]): Schema => str({ enum: values });

/**
 * CEL validation rules (`x-kubernetes-validations`): the API server refuses an object that breaks
 * one, where Traefik only reports the mistake at runtime. Each message names what to change.
 */
interface Rule { rule: string; message: string; fieldPath?: string; reason?: 'FieldValueInvalid' | 'FieldValueRequired' }
const withRules = (schema: Schema, ...rules: Rule[]): Schema => ({ ...schema, 'x-kubernetes-validations': rules });

/** A rule that exactly one of an object's `fields` is set (one type per object, as Traefik expects). */
function exactlyOneOf(what: string, fields: readonly string[]): Rule {
  return {
    rule: `[${fields.map((f) => `has(self.${f})`).join(', ')}].filter(x, x).size() == 1`,
    message: `a ${what} has exactly one type (${fields.join(', ')}); declare one ${what} per type`,
  };
}

/** IPs and CIDR ranges, checked by the server (Traefik refuses a bad range only when it builds the middleware). */
const sourceRange = (): Schema => withRules(
  arr(str({ maxLength: 64 }), { maxItems: 1024 }),
  { rule: 'self.all(r, isIP(r) || isCIDR(r))', message: 'every entry must be an IP address or a CIDR range, e.g. 10.0.0.0/8 or 192.168.1.7' },
);

// ---------------------------------------------------------------------------------------------
// Shared pieces

const nameNamespace = (what: string) => obj({
  name: str({ description: `Name of the ${what}.` }),
  namespace: str({ description: `Namespace of the ${what} (default: the object's own).` }),
}, ['name']);

const middlewareRef = nameNamespace('Middleware');

const domains = arr(obj({ main: str({ description: 'Main domain name.' }), sans: strings() }));

const cookie = obj({
  name: str(), secure: bool(), httpOnly: bool(), sameSite: enumOf('none', 'lax', 'strict'), maxAge: int(), path: str(), domain: str(),
  expires: int(), partitioned: bool(),
});
const sticky = obj({ cookie });

const serverHealthCheck = obj({
  scheme: str(), mode: str(), path: str(), method: str(), status: int(), port: int(), interval: intOrString(),
  unhealthyInterval: intOrString(), timeout: intOrString(), hostname: str(), followRedirects: bool(), headers: map(str()),
});
const passiveHealthCheck = obj({ failureWindow: intOrString(), maxFailedAttempts: int() });

/** Traefik's LoadBalancerSpec: an entry of `services` (a Kubernetes Service or a TraefikService). */
const loadBalancerFields = (): Record<string, Schema> => ({
  name: str({ description: 'Name of the Kubernetes Service or TraefikService (`name@provider` for another provider).' }),
  kind: enumOf('Service', 'TraefikService'),
  namespace: str(),
  port: intOrString(),
  scheme: str(),
  strategy: str({ description: 'Load-balancing strategy: wrr (default), p2c, hrw, leasttime.' }),
  passHostHeader: bool(),
  responseForwarding: obj({ flushInterval: str() }),
  serversTransport: str(),
  sticky,
  weight: int({ minimum: 0 }),
  nativeLB: bool(),
  nodePortLB: bool(),
  healthCheck: serverHealthCheck,
  passiveHealthCheck,
  middlewares: arr(middlewareRef),
});
const loadBalancerSpec = obj(loadBalancerFields(), ['name']);

const tlsStoreRef = nameNamespace('TLSStore');
const tlsOptionRef = nameNamespace('TLSOption');

/** The errors middleware's status codes and ranges: `500`, `500-599`. */
const statusRanges = (): Schema => withRules(
  arr(str({ maxLength: 16 }), { maxItems: 256 }),
  { rule: "self.all(s, s.matches('^[1-5][0-9][0-9](-[1-5][0-9][0-9])?$'))", message: 'every entry must be a status code or a range of them, e.g. 404 or 500-599' },
);

const ipStrategy = obj({ depth: int(), excludedIPs: strings(), ipv6Subnet: int() });
const sourceCriterion = obj({ ipStrategy, requestHeaderName: str(), requestHost: bool() });

// ---------------------------------------------------------------------------------------------
// Kinds

const ingressRoute = obj({
  ingressClassName: str({ description: 'Class of the object; processed when it matches --operator.ingress-class.' }),
  entryPoints: strings(),
  routes: arr(obj({
    match: str({ description: 'Rule, e.g. Host(`example.com`) && PathPrefix(`/api`).' }),
    kind: enumOf('Rule'),
    priority: int({ minimum: 0 }),
    syntax: enumOf('v3', 'v2'),
    services: arr(loadBalancerSpec),
    middlewares: arr(middlewareRef),
    observability: obj({ accessLogs: bool(), metrics: bool(), tracing: bool(), traceVerbosity: enumOf('minimal', 'detailed') }),
  }, ['match'])),
  tls: obj({
    secretName: str(), options: tlsOptionRef, store: tlsStoreRef, certResolver: str(), domains,
  }),
  parentRefs: arr(obj({ name: str(), namespace: str() }, ['name'])),
}, ['routes']);

const ingressRouteTCP = obj({
  ingressClassName: str(),
  entryPoints: strings(),
  routes: arr(obj({
    match: str({ description: 'Rule, e.g. HostSNI(`db.example.com`).' }),
    priority: int({ minimum: 0 }),
    syntax: enumOf('v3', 'v2'),
    middlewares: arr(middlewareRef),
    services: arr(obj({
      name: str(), namespace: str(), port: intOrString(), weight: int({ minimum: 0 }), terminationDelay: int(),
      proxyProtocol: obj({ version: int({ minimum: 1, maximum: 2 }) }), serversTransport: str(), tls: bool(),
      nativeLB: bool(), nodePortLB: bool(),
    }, ['name', 'port']), { minItems: 1 }),
  }, ['match', 'services'])),
  tls: obj({
    secretName: str(), passthrough: bool(), options: tlsOptionRef, store: tlsStoreRef, certResolver: str(), domains,
  }),
}, ['routes']);

const ingressRouteUDP = obj({
  ingressClassName: str(),
  entryPoints: strings(),
  routes: arr(obj({
    services: arr(obj({ name: str(), namespace: str(), port: intOrString(), weight: int({ minimum: 0 }), nativeLB: bool(), nodePortLB: bool() }, ['name', 'port']), { minItems: 1 }),
  }, ['services'])),
}, ['routes']);

const subjectInfo = obj({
  country: bool(), province: bool(), locality: bool(), organization: bool(), organizationalUnit: bool(),
  commonName: bool(), serialNumber: bool(), domainComponent: bool(),
});

const middlewareFields = obj({
  addPrefix: obj({ prefix: str() }),
  stripPrefix: obj({ prefixes: strings(), forceSlash: bool() }),
  stripPrefixRegex: obj({ regex: strings() }),
  replacePath: obj({ path: str() }),
  replacePathRegex: obj({ regex: str(), replacement: str() }),
  chain: obj({ middlewares: arr(middlewareRef) }),
  ipWhiteList: obj({ sourceRange: sourceRange(), ipStrategy }),
  ipAllowList: obj({ sourceRange: sourceRange(), ipStrategy, rejectStatusCode: int() }),
  headers: obj({
    customRequestHeaders: map(str()), customResponseHeaders: map(str()),
    accessControlAllowCredentials: bool(), accessControlAllowHeaders: strings(), accessControlAllowMethods: strings(),
    accessControlAllowOriginList: strings(), accessControlAllowOriginListRegex: strings(), accessControlExposeHeaders: strings(),
    accessControlMaxAge: int(), addVaryHeader: bool(), allowedHosts: strings(), hostsProxyHeaders: strings(),
    sslProxyHeaders: map(str()), stsSeconds: int(), stsIncludeSubdomains: bool(), stsPreload: bool(), forceSTSHeader: bool(),
    frameDeny: bool(), customFrameOptionsValue: str(), contentTypeNosniff: bool(), browserXssFilter: bool(),
    customBrowserXSSValue: str(), contentSecurityPolicy: str(), contentSecurityPolicyReportOnly: str(), publicKey: str(),
    referrerPolicy: str(), permissionsPolicy: str(), featurePolicy: str(), isDevelopment: bool(),
    sslRedirect: bool(), sslTemporaryRedirect: bool(), sslHost: str(), sslForceHost: bool(),
  }),
  encodedCharacters: obj({
    allowEncodedSlash: bool(), allowEncodedBackSlash: bool(), allowEncodedNullCharacter: bool(), allowEncodedSemicolon: bool(),
    allowEncodedPercent: bool(), allowEncodedQuestionMark: bool(), allowEncodedHash: bool(),
  }),
  errors: obj({ status: statusRanges(), statusRewrites: map(int()), service: loadBalancerSpec, query: str() }),
  rateLimit: obj({
    average: intOrString(), period: intOrString(), burst: int(), sourceCriterion,
    redis: obj({
      endpoints: strings(), secret: str(), db: int(), poolSize: int(), minIdleConns: int(), maxActiveConns: int(),
      readTimeout: intOrString(), writeTimeout: intOrString(), dialTimeout: intOrString(),
      tls: obj({ caSecret: str(), certSecret: str(), insecureSkipVerify: bool() }),
    }),
  }),
  redirectRegex: obj({ regex: str(), replacement: str(), permanent: bool() }),
  redirectScheme: obj({ scheme: str(), port: str(), permanent: bool() }),
  basicAuth: obj({ secret: str({ minLength: 1 }), realm: str(), removeHeader: bool(), headerField: str() }, ['secret']),
  digestAuth: obj({ secret: str({ minLength: 1 }), realm: str(), removeHeader: bool(), headerField: str() }, ['secret']),
  forwardAuth: obj({
    address: str(), trustForwardHeader: bool(), authResponseHeaders: strings(), authResponseHeadersRegex: str(),
    authRequestHeaders: strings(), addAuthCookiesToResponse: strings(), headerField: str(), forwardBody: bool(),
    maxBodySize: int(), preserveLocationHeader: bool(), preserveRequestMethod: bool(),
    tls: obj({ caSecret: str(), certSecret: str(), insecureSkipVerify: bool(), caOptional: bool() }),
  }),
  inFlightReq: obj({ amount: int({ minimum: 0 }), sourceCriterion }),
  buffering: obj({
    maxRequestBodyBytes: int(), memRequestBodyBytes: int(), maxResponseBodyBytes: int(), memResponseBodyBytes: int(), retryExpression: str(),
  }),
  circuitBreaker: obj({ expression: str(), checkPeriod: intOrString(), fallbackDuration: intOrString(), recoveryDuration: intOrString(), responseCode: int() }),
  compress: obj({ excludedContentTypes: strings(), includedContentTypes: strings(), minResponseBodyBytes: int(), defaultEncoding: str(), encodings: strings() }),
  passTLSClientCert: obj({
    pem: bool(),
    info: obj({ notAfter: bool(), notBefore: bool(), sans: bool(), serialNumber: bool(), subject: subjectInfo, issuer: subjectInfo }),
  }),
  retry: obj({ attempts: int({ minimum: 0 }), initialInterval: intOrString() }),
  contentType: obj({ autoDetect: bool() }),
  grpcWeb: obj({ allowOrigins: strings() }),
  // Plugin configuration is whatever the plugin accepts: the one open part of the schema.
  plugin: map(open()),
});

const middleware = withRules(middlewareFields, exactlyOneOf('Middleware', Object.keys(middlewareFields.properties as Schema)));

const middlewareTCPFields = obj({
  inFlightConn: obj({ amount: int({ minimum: 0 }) }),
  ipWhiteList: obj({ sourceRange: sourceRange() }),
  ipAllowList: obj({ sourceRange: sourceRange() }),
});
const middlewareTCP = withRules(middlewareTCPFields, exactlyOneOf('MiddlewareTCP', Object.keys(middlewareTCPFields.properties as Schema)));

const traefikServiceFields = obj({
  weighted: obj({ services: arr(loadBalancerSpec), sticky }),
  mirroring: obj({
    ...loadBalancerFields(),
    mirrorBody: bool(),
    maxBodySize: int(),
    mirrors: arr(obj({ ...loadBalancerFields(), percent: int({ minimum: 0, maximum: 100 }) }, ['name'])),
  }, ['name'], {
    'x-kubernetes-validations': [{
      rule: '!has(self.mirrors) || self.mirrors.map(m, has(m.percent) ? m.percent : 0).sum() <= 100',
      message: 'the mirrors\' percents add up to more than 100',
      fieldPath: '.mirrors',
    } satisfies Rule],
  }),
  highestRandomWeight: obj({ services: arr(loadBalancerSpec) }),
  failover: obj({
    service: str(), fallback: str(), healthCheck: obj({}),
    errors: obj({ status: strings(), maxRequestBodyBytes: int() }),
  }),
});

const traefikService = withRules(traefikServiceFields, exactlyOneOf('TraefikService', Object.keys(traefikServiceFields.properties as Schema)));

// ---------------------------------------------------------------------------------------------
// CRD documents

const statusSchema = obj({
  conditions: arr(obj({
    type: str({ description: 'Accepted or ResolvedRefs.' }),
    status: enumOf('True', 'False', 'Unknown'),
    reason: str(),
    message: str(),
    observedGeneration: int({ minimum: 0 }),
    lastTransitionTime: str({ format: 'date-time' }),
  }, ['type', 'status']), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
}, undefined, { description: 'Written by the leading operator replica.' });

interface KindDef {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly description: string;
  readonly spec: Schema;
  readonly entryPoints: boolean;
}

const KINDS: readonly KindDef[] = [
  { kind: 'IngressRoute', plural: 'ingressroutes', singular: 'ingressroute', spec: ingressRoute, entryPoints: true, description: 'HTTP routes: rules, services and middlewares (Traefik IngressRoute).' },
  { kind: 'IngressRouteTCP', plural: 'ingressroutetcps', singular: 'ingressroutetcp', spec: ingressRouteTCP, entryPoints: true, description: 'TCP routes (Traefik IngressRouteTCP).' },
  { kind: 'IngressRouteUDP', plural: 'ingressrouteudps', singular: 'ingressrouteudp', spec: ingressRouteUDP, entryPoints: true, description: 'UDP routes (Traefik IngressRouteUDP).' },
  { kind: 'Middleware', plural: 'middlewares', singular: 'middleware', spec: middleware, entryPoints: false, description: 'One HTTP middleware (Traefik Middleware).' },
  { kind: 'MiddlewareTCP', plural: 'middlewaretcps', singular: 'middlewaretcp', spec: middlewareTCP, entryPoints: false, description: 'One TCP middleware (Traefik MiddlewareTCP).' },
  { kind: 'TraefikService', plural: 'traefikservices', singular: 'traefikservice', spec: traefikService, entryPoints: false, description: 'A weighted, mirroring, highest-random-weight or failover service (Traefik TraefikService).' },
];

export const CRD_GROUP = 'portico.dev';

export function buildCrd(def: KindDef): Schema {
  const columns: Schema[] = [];
  if (def.entryPoints) columns.push({ name: 'EntryPoints', type: 'string', jsonPath: '.spec.entryPoints' });
  columns.push(
    { name: 'Accepted', type: 'string', jsonPath: '.status.conditions[?(@.type=="Accepted")].status' },
    { name: 'Refs', type: 'string', jsonPath: '.status.conditions[?(@.type=="ResolvedRefs")].status' },
    { name: 'Reason', type: 'string', priority: 1, jsonPath: '.status.conditions[?(@.type=="Accepted")].reason' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  );
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${CRD_GROUP}`, labels: { 'app.kubernetes.io/name': 'portico' } },
    spec: {
      group: CRD_GROUP,
      names: { kind: def.kind, listKind: `${def.kind}List`, plural: def.plural, singular: def.singular, categories: ['portico'] },
      scope: 'Namespaced',
      versions: [{
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: columns,
        schema: {
          openAPIV3Schema: {
            description: def.description,
            type: 'object',
            properties: {
              apiVersion: str(),
              kind: str(),
              metadata: { type: 'object' },
              spec: def.spec,
              status: statusSchema,
            },
            required: ['metadata', 'spec'],
          },
        },
      }],
    },
  };
}

/** File name → CRD document. */
export function buildCrds(): Map<string, Schema> {
  return new Map(KINDS.map((d) => [`${CRD_GROUP}_${d.plural}.yaml`, buildCrd(d)]));
}

export function renderCrd(doc: Schema): string {
  return `# Generated by crds/generate-crds.ts; do not edit by hand.\n${stringify(doc, { lineWidth: 0 })}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = fileURLToPath(new URL('.', import.meta.url));
  for (const [file, doc] of buildCrds()) writeFileSync(`${dir}${file}`, renderCrd(doc));
}
