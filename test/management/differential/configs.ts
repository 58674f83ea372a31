/**
 * The dynamic configurations of the differential suite: generated with fast-check from a fixed seed
 * (HTTP, TCP and UDP routers; every service kind; every middleware kind Traefik's file provider
 * reads; TLS options and stores; priorities up to and beyond 2^53 and MaxInt64; rules with and
 * without syntax errors; missing, internal and cross-provider references; unknown entry points),
 * and hand-written cases for what generation reaches rarely. Each configuration is one YAML file
 * whose record names start with its own prefix, so several can be loaded side by side.
 *
 * Files are written as JSON (which YAML reads), with big integers spliced in as raw digits so that
 * neither side sees a rounded number.
 */
import fc from 'fast-check';

export interface DiffConfig {
  /** Name prefix of every record (`c017`). */
  readonly id: string;
  /** File name → text. */
  readonly files: Readonly<Record<string, string>>;
  readonly note: string;
}

/** Servers on closed loopback ports: nothing listens on port 1 or 2. */
const URLS = ['http://127.0.0.1:1', 'http://127.0.0.1:2/base', 'https://127.0.0.1:1'];
const ADDRESSES = ['127.0.0.1:1', '127.0.0.1:2'];

const BIG = '\u0000big:';
/** A raw integer in the written file. */
export function bigInt(digits: string): string {
  return `${BIG}${digits}\u0000`;
}

/** JSON text with big integers unquoted. */
export function render(doc: unknown): string {
  return JSON.stringify(doc, null, 1).replace(/"\\u0000big:(-?\d+)\\u0000"/g, '$1');
}

const HTTP_RULES = [
  'Host(`a.test`)', 'Host(`a.test`) && PathPrefix(`/api`)', 'PathPrefix(`/`)', 'Path(`/x`) || Method(`POST`)',
  'HostRegexp(`^[a-z]+\\.test$`)', 'Header(`X-A`, `1`)', 'ClientIP(`10.0.0.0/8`)', 'Query(`a`, `b`)',
  '!Host(`b.test`)', '(Host(`a.test`) || Host(`b.test`)) && Path(`/y`)', 'PathRegexp(`^/v[0-9]+`)',
  // syntax errors and unknown matchers
  'Host(`a.test`', 'Hots(`a.test`)', 'Host(a.test)', 'Host(`a.test`) &&', '', 'Path(`x`)', 'ClientIP(`nope`)',
  'PathRegexp(`[`)', 'Host(`a`, `b`)',
];
const TCP_RULES = ['HostSNI(`*`)', 'HostSNI(`a.test`)', 'HostSNI(`a.test`) || HostSNI(`b.test`)', 'ClientIP(`10.0.0.1`)',
  'HostSNIRegexp(`^.+\\.test$`)', 'ALPN(`h2`)', 'HostSNI(`a.test`', 'Host(`a.test`)', '', 'HostSNI(`*`) && ClientIP(`1.2.3.4`)'];
const PRIORITIES: (number | string | undefined)[] = [
  undefined, undefined, 0, 1, 7, 42, -3, 1000, bigInt('9007199254740993'), bigInt('9223372036854775000'),
  bigInt('9223372036854774807'), bigInt('9223372036854775806'), bigInt('-9007199254740993'), 2147483648,
];

/** Options that Traefik's file provider accepts for each HTTP middleware kind. */
export const HTTP_MIDDLEWARES: Record<string, unknown> = {
  addPrefix: { prefix: '/p' },
  stripPrefix: { prefixes: ['/a', '/b'] },
  stripPrefixRegex: { regex: ['^/v[0-9]+'] },
  replacePath: { path: '/r' },
  replacePathRegex: { regex: '^/a/(.*)', replacement: '/b/$1' },
  ipWhiteList: { sourceRange: ['10.0.0.0/8'] },
  ipAllowList: { sourceRange: ['127.0.0.1/32', '192.168.0.0/16'], ipStrategy: { depth: 1 } },
  headers: { customRequestHeaders: { 'X-A': 'b' }, frameDeny: true, stsSeconds: 31536000 },
  encodedCharacters: { allowEncodedSlash: true },
  errors: { status: ['500-599'], service: 'SVC', query: '/{status}.html' },
  rateLimit: { average: 100, burst: 50, period: '1s' },
  redirectRegex: { regex: '^http://a/(.*)', replacement: 'https://b/$1', permanent: true },
  redirectScheme: { scheme: 'https', port: '443', permanent: true },
  basicAuth: { users: ['u:$apr1$H6uskkkW$IgXLP6ewTrSuBkTrqE8wj/'], realm: 'r' },
  digestAuth: { users: ['u:r:5d41402abc4b2a76b9719d911017c592'] },
  forwardAuth: { address: 'http://127.0.0.1:1/auth', trustForwardHeader: true, authResponseHeaders: ['X-U'] },
  inFlightReq: { amount: 10 },
  buffering: { maxRequestBodyBytes: 1048576, retryExpression: 'IsNetworkError() && Attempts() < 2' },
  circuitBreaker: { expression: 'NetworkErrorRatio() > 0.5' },
  compress: {},
  passTLSClientCert: { pem: true },
  retry: { attempts: 3, initialInterval: '100ms' },
  contentType: {},
  grpcWeb: { allowOrigins: ['*'] },
};
const TCP_MIDDLEWARES: Record<string, unknown> = {
  inFlightConn: { amount: 5 },
  ipWhiteList: { sourceRange: ['10.0.0.0/8'] },
  ipAllowList: { sourceRange: ['127.0.0.1/32'] },
};

type Rec = Record<string, unknown>;

interface Names {
  httpServices: string[];
  httpMiddlewares: string[];
  tcpServices: string[];
  tcpMiddlewares: string[];
  udpServices: string[];
  tlsOptions: string[];
}

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);

/** A reference: usually one of ours, sometimes missing, internal or of another provider. */
function ref(own: readonly string[], internal: readonly string[]): fc.Arbitrary<string> {
  const others: fc.Arbitrary<string>[] = [fc.constant('missing'), fc.constant('ghost@kubernetes'), fc.constant('x@docker')];
  for (const i of internal) others.push(fc.constant(i));
  if (own.length === 0) return fc.oneof(...others);
  return fc.oneof({ weight: 6, arbitrary: pick(own) }, { weight: 1, arbitrary: fc.oneof(...others) });
}

/**
 * Generated routers never name `traefik`: some of Traefik's routers there (TLS ones, TCP catch-alls)
 * take its API away from the suite; the hand-written h08 names it.
 */
const ENTRY_POINTS = ['web', 'websecure', 'udpep', 'nope'];

function entryPoints(usual: readonly string[], all: readonly string[] = ENTRY_POINTS): fc.Arbitrary<string[] | undefined> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.subarray([...usual], { minLength: 1 }) },
    { weight: 2, arbitrary: fc.subarray([...all], { minLength: 1 }) },
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
  );
}

function httpService(p: string, n: Names): fc.Arbitrary<Rec> {
  const child = ref(n.httpServices, ['noop@internal', 'api@internal']);
  const lb = fc.record({
    servers: fc.subarray(URLS, { minLength: 0 }).map((us) => us.map((url) => ({ url }))),
    passHostHeader: fc.option(fc.boolean(), { nil: undefined }),
    sticky: fc.option(fc.constant({ cookie: { name: `${p}-c`, secure: true } }), { nil: undefined }),
  }, { requiredKeys: ['servers'] });
  return fc.oneof(
    { weight: 4, arbitrary: lb.map((loadBalancer) => ({ loadBalancer })) },
    { weight: 2, arbitrary: fc.array(fc.record({ name: child, weight: fc.integer({ min: 0, max: 5 }) }), { minLength: 1, maxLength: 3 }).map((services) => ({ weighted: { services } })) },
    { weight: 2, arbitrary: fc.record({ service: child, mirrors: fc.array(fc.record({ name: child, percent: fc.integer({ min: 0, max: 100 }) }), { maxLength: 2 }) }).map((mirroring) => ({ mirroring })) },
    { weight: 2, arbitrary: fc.record({ service: child, fallback: child }).map((failover) => ({ failover })) },
    { weight: 1, arbitrary: fc.array(fc.record({ name: child, weight: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 2 }).map((services) => ({ highestRandomWeight: { services } })) },
    // two kinds, or none
    { weight: 1, arbitrary: fc.constant({ loadBalancer: { servers: [{ url: URLS[0] }] }, failover: { service: 'a', fallback: 'b' } }) },
    { weight: 1, arbitrary: fc.constant({}) },
  );
}

function httpMiddleware(p: string, n: Names, own: readonly string[]): fc.Arbitrary<Rec> {
  const kinds = Object.keys(HTTP_MIDDLEWARES);
  const one = pick(kinds).map((k) => {
    const opts = HTTP_MIDDLEWARES[k] as Rec;
    if (k === 'errors') return { errors: { ...opts, service: n.httpServices[0] ?? 'missing' } };
    return { [k]: opts };
  });
  return fc.oneof(
    { weight: 8, arbitrary: one },
    { weight: 2, arbitrary: fc.subarray([...own, 'missing', 'auth@kubernetescrd'], { minLength: 1, maxLength: 3 }).map((middlewares) => ({ chain: { middlewares } })) },
    { weight: 1, arbitrary: fc.constant({ addPrefix: { prefix: '/a' }, stripPrefix: { prefixes: ['/b'] } }) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant({ plugin: { [`${p}plug`]: { a: '1' } } }) },
  );
}

function httpRouter(n: Names): fc.Arbitrary<Rec> {
  return fc.record({
    rule: fc.oneof({ weight: 5, arbitrary: pick(HTTP_RULES.slice(0, 11)) }, { weight: 2, arbitrary: pick(HTTP_RULES.slice(11)) }),
    service: ref(n.httpServices, ['noop@internal', 'api@internal', 'dashboard@internal']),
    entryPoints: entryPoints(['web', 'websecure']),
    middlewares: fc.option(fc.subarray([...n.httpMiddlewares, 'missing', 'auth@kubernetescrd', 'dashboard_redirect@internal'], { maxLength: 3 }), { nil: undefined }),
    priority: pick(PRIORITIES),
    tls: fc.option(fc.oneof(fc.constant({}), pick([...n.tlsOptions, 'missing-opts', 'default']).map((options) => ({ options })),
      fc.constant({ certResolver: 'le' }), fc.constant({ domains: [{ main: 'a.test', sans: ['b.test'] }] })), { nil: undefined }),
  }, { requiredKeys: ['rule', 'service'] }).map(clean);
}

function tcpRouter(n: Names): fc.Arbitrary<Rec> {
  return fc.record({
    rule: pick(TCP_RULES),
    service: ref(n.tcpServices, []),
    entryPoints: entryPoints(['web', 'websecure']),
    middlewares: fc.option(fc.subarray([...n.tcpMiddlewares, 'missing'], { maxLength: Math.min(2, n.tcpMiddlewares.length + 1) }), { nil: undefined }),
    priority: pick(PRIORITIES),
    tls: fc.option(fc.oneof(fc.constant({}), fc.constant({ passthrough: true }), pick([...n.tlsOptions, 'missing-opts']).map((options) => ({ options }))), { nil: undefined }),
  }, { requiredKeys: ['rule', 'service'] }).map(clean);
}

function udpRouter(n: Names): fc.Arbitrary<Rec> {
  return fc.record({
    service: ref(n.udpServices, []),
    entryPoints: entryPoints(['udpep']),
  }, { requiredKeys: ['service'] }).map(clean);
}

/**
 * TCP and UDP weighted services name only services before them (or missing ones): Traefik 3.7.13
 * has no cycle check there, and a UDP cycle crashes it with a stack overflow (BuildUDP recursing).
 */
function tcpService(n: Names, i: number): fc.Arbitrary<Rec> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.subarray(ADDRESSES, { minLength: 0 }).map((as) => ({ loadBalancer: { servers: as.map((address) => ({ address })) } })) },
    { weight: 1, arbitrary: fc.array(fc.record({ name: ref(n.tcpServices.slice(0, i), []), weight: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 2 }).map((services) => ({ weighted: { services } })) },
    { weight: 1, arbitrary: fc.constant({}) },
  );
}

function udpService(n: Names, i: number): fc.Arbitrary<Rec> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.subarray(ADDRESSES, { minLength: 0 }).map((as) => ({ loadBalancer: { servers: as.map((address) => ({ address })) } })) },
    { weight: 1, arbitrary: fc.array(fc.record({ name: ref(n.udpServices.slice(0, i), []), weight: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 2 }).map((services) => ({ weighted: { services } })) },
    { weight: 1, arbitrary: fc.constant({ loadBalancer: { servers: [{ address: ADDRESSES[0] }] }, weighted: { services: [] } }) },
  );
}

function clean(r: Rec): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(r)) if (v !== undefined) out[k] = v;
  return out;
}

const names = (p: string, kind: string, count: number) => Array.from({ length: count }, (_, i) => `${p}-${kind}${i}`);

function keyed(ks: readonly string[], values: readonly Rec[]): Rec {
  const out: Rec = {};
  ks.forEach((k, i) => (out[k] = values[i]));
  return out;
}

/** One generated configuration with the prefix `p`. */
export function configArbitrary(p: string): fc.Arbitrary<Rec> {
  return fc.record({
    hs: fc.integer({ min: 0, max: 4 }), hm: fc.integer({ min: 0, max: 3 }), hr: fc.integer({ min: 0, max: 4 }),
    ts: fc.integer({ min: 0, max: 2 }), tm: fc.integer({ min: 0, max: 2 }), tr: fc.integer({ min: 0, max: 2 }),
    us: fc.integer({ min: 0, max: 2 }), ur: fc.integer({ min: 0, max: 2 }), to: fc.integer({ min: 0, max: 2 }),
  }).chain((c) => {
    const n: Names = {
      httpServices: names(p, 'svc', c.hs), httpMiddlewares: names(p, 'mw', c.hm), tcpServices: names(p, 'tsvc', c.ts),
      tcpMiddlewares: names(p, 'tmw', c.tm), udpServices: names(p, 'usvc', c.us), tlsOptions: names(p, 'opts', c.to),
    };
    return fc.record({
      httpServices: fc.tuple(...n.httpServices.map(() => httpService(p, n))),
      httpMiddlewares: fc.tuple(...n.httpMiddlewares.map(() => httpMiddleware(p, n, n.httpMiddlewares))),
      httpRouters: fc.array(httpRouter(n), { minLength: c.hr, maxLength: c.hr }),
      tcpServices: fc.tuple(...n.tcpServices.map((_, i) => tcpService(n, i))),
      tcpMiddlewares: fc.tuple(...n.tcpMiddlewares.map(() => pick(Object.keys(TCP_MIDDLEWARES)).map((k) => ({ [k]: TCP_MIDDLEWARES[k] })))),
      tcpRouters: fc.array(tcpRouter(n), { minLength: c.tr, maxLength: c.tr }),
      udpServices: fc.tuple(...n.udpServices.map((_, i) => udpService(n, i))),
      udpRouters: fc.array(udpRouter(n), { minLength: c.ur, maxLength: c.ur }),
      tlsOptions: fc.tuple(...n.tlsOptions.map(() => fc.oneof(fc.constant({ minVersion: 'VersionTLS12' }),
        fc.constant({ sniStrict: true, cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] }), fc.constant({ clientAuth: { clientAuthType: 'RequireAndVerifyClientCert' } })))),
      store: fc.boolean(),
    }).map((g) => {
      const doc: Rec = {};
      const http: Rec = {};
      if (g.httpRouters.length > 0) http.routers = keyed(names(p, 'r', g.httpRouters.length), g.httpRouters);
      if (n.httpServices.length > 0) http.services = keyed(n.httpServices, g.httpServices as Rec[]);
      if (n.httpMiddlewares.length > 0) http.middlewares = keyed(n.httpMiddlewares, g.httpMiddlewares as Rec[]);
      if (Object.keys(http).length > 0) doc.http = http;
      const tcp: Rec = {};
      if (g.tcpRouters.length > 0) tcp.routers = keyed(names(p, 'tr', g.tcpRouters.length), g.tcpRouters);
      if (n.tcpServices.length > 0) tcp.services = keyed(n.tcpServices, g.tcpServices as Rec[]);
      if (n.tcpMiddlewares.length > 0) tcp.middlewares = keyed(n.tcpMiddlewares, g.tcpMiddlewares as Rec[]);
      if (Object.keys(tcp).length > 0) doc.tcp = tcp;
      const udp: Rec = {};
      if (g.udpRouters.length > 0) udp.routers = keyed(names(p, 'ur', g.udpRouters.length), g.udpRouters);
      if (n.udpServices.length > 0) udp.services = keyed(n.udpServices, g.udpServices as Rec[]);
      if (Object.keys(udp).length > 0) doc.udp = udp;
      if (n.tlsOptions.length > 0 || g.store) {
        const tls: Rec = {};
        if (n.tlsOptions.length > 0) tls.options = keyed(n.tlsOptions, g.tlsOptions as Rec[]);
        if (g.store) tls.stores = { [`${p}-store`]: { defaultCertificate: { certFile: '/nonexistent.crt', keyFile: '/nonexistent.key' } } };
        doc.tls = tls;
      }
      return doc;
    });
  });
}

/** `count` generated configurations, c000 … , from the seed. */
export function generatedConfigs(count: number, seed: number): DiffConfig[] {
  const out: DiffConfig[] = [];
  const samples = fc.sample(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { seed, numRuns: count });
  samples.forEach((s, i) => {
    const id = `c${String(i).padStart(3, '0')}`;
    const [doc] = fc.sample(configArbitrary(id), { seed: s, numRuns: 1 });
    out.push({ id, files: { [`${id}.yaml`]: render(doc) }, note: 'generated' });
  });
  return out;
}
