/**
 * Hand-written configurations of the differential suite: what generation reaches rarely or not at
 * all (several files and sub-directories with the same names, priorities at the edges of int64,
 * reference cycles, the deprecated rule syntax, names with `@` and `/`, long lists for paging).
 * Each is loaded alone.
 */
import { bigInt, render, type DiffConfig } from './configs.js';

type Rec = Record<string, unknown>;

function one(id: string, note: string, doc: Rec): DiffConfig {
  return { id, note, files: { [`${id}.yaml`]: render(doc) } };
}

const lb = (url = 'http://127.0.0.1:1') => ({ loadBalancer: { servers: [{ url }] } });

function manyRouters(id: string, count: number): Rec {
  const routers: Rec = {};
  for (let i = 0; i < count; i++) {
    routers[`${id}-r${String(i).padStart(3, '0')}`] = {
      rule: i % 7 === 0 ? `Host(\`h${i}.test\`` : `Host(\`h${i}.test\`) && PathPrefix(\`/${'p'.repeat(i % 5)}\`)`,
      service: i % 5 === 0 ? 'nope' : `${id}-s${i % 3}`,
      ...(i % 4 === 0 ? { priority: (i * 7919) % 101 } : {}),
      ...(i % 6 === 0 ? { entryPoints: ['websecure', 'nope'] } : {}),
      ...(i % 3 === 0 ? { middlewares: [`${id}-m${i % 2}`] } : {}),
    };
  }
  return {
    http: {
      routers,
      services: { [`${id}-s0`]: lb(), [`${id}-s1`]: lb('http://127.0.0.1:2'), [`${id}-s2`]: { weighted: { services: [{ name: `${id}-s0`, weight: 1 }] } } },
      middlewares: { [`${id}-m0`]: { addPrefix: { prefix: '/x' } }, [`${id}-m1`]: { chain: { middlewares: [`${id}-m0`, 'missing'] } } },
    },
  };
}

export const HAND_WRITTEN: readonly DiffConfig[] = [
  {
    id: 'h00', note: 'several files and a sub-directory defining the same names: the first file wins',
    files: {
      'h00-a.yaml': render({ http: { routers: { 'h00-r': { rule: 'Host(`a.test`)', service: 'h00-s' } }, services: { 'h00-s': lb() } } }),
      'h00-b.yml': render({ http: { routers: { 'h00-r': { rule: 'Host(`b.test`)', service: 'h00-s' }, 'h00-r2': { rule: 'Path(`/b`)', service: 'h00-s' } }, services: { 'h00-s': lb('http://127.0.0.1:2') } } }),
      'h00-sub/c.yaml': render({ http: { routers: { 'h00-r2': { rule: 'Path(`/c`)', service: 'h00-s' }, 'h00-r3': { rule: 'Path(`/d`)', service: 'h00-s' } } }, tcp: { routers: { 'h00-t': { rule: 'HostSNI(`*`)', service: 'h00-ts' } }, services: { 'h00-ts': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }] } } } } }),
      'h00-ignored.txt': 'not read',
      'h00-ignored.json': '{"http":{"routers":{"h00-json":{"rule":"Path(`/j`)","service":"h00-s"}}}}',
    },
  },
  one('h01', 'priorities at and beyond 2^53 and at the ends of int64', {
    http: {
      routers: {
        'h01-a': { rule: 'Path(`/a`)', service: 'h01-s', priority: bigInt('9007199254740993') },
        'h01-b': { rule: 'Path(`/b`)', service: 'h01-s', priority: bigInt('9223372036854775807') },
        'h01-c': { rule: 'Path(`/c`)', service: 'h01-s', priority: bigInt('-9223372036854775808') },
        'h01-d': { rule: 'Path(`/d`)', service: 'h01-s', priority: bigInt('9223372036854774806') },
        'h01-e': { rule: 'Path(`/e`)', service: 'h01-s', priority: bigInt('9223372036854774808') },
        'h01-f': { rule: 'Path(`/f`)', service: 'h01-s', priority: bigInt('18014398509481985') },
      },
      services: { 'h01-s': lb() },
    },
    tcp: { routers: { 'h01-t': { rule: 'HostSNI(`*`)', service: 'h01-ts', priority: bigInt('9007199254740995') } }, services: { 'h01-ts': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }] } } } },
  }),
  one('h02', 'the deprecated v2 rule syntax, and an unknown syntax', {
    http: {
      routers: {
        'h02-v2': { rule: 'Host(`a.test`, `b.test`)', ruleSyntax: 'v2', service: 'h02-s' },
        'h02-v2bad': { rule: 'Hosts(`a.test`)', ruleSyntax: 'v2', service: 'h02-s' },
        'h02-v3': { rule: 'Host(`a.test`)', ruleSyntax: 'v3', service: 'h02-s' },
        'h02-v9': { rule: 'Host(`a.test`)', ruleSyntax: 'v9', service: 'h02-s' },
      },
      services: { 'h02-s': lb() },
    },
    tcp: { routers: { 'h02-t': { rule: 'HostSNI(`a.test`, `b.test`)', ruleSyntax: 'v2', service: 'h02-ts', tls: {} } }, services: { 'h02-ts': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }] } } } },
  }),
  one('h03', 'service reference cycles', {
    http: {
      routers: { 'h03-r': { rule: 'Path(`/`)', service: 'h03-a' }, 'h03-self': { rule: 'Path(`/s`)', service: 'h03-self' }, 'h03-m': { rule: 'Path(`/m`)', service: 'h03-mir' } },
      services: {
        'h03-a': { weighted: { services: [{ name: 'h03-b', weight: 1 }] } },
        'h03-b': { failover: { service: 'h03-a', fallback: 'h03-leaf' } },
        'h03-leaf': lb(),
        'h03-self': { weighted: { services: [{ name: 'h03-self', weight: 1 }] } },
        'h03-mir': { mirroring: { service: 'h03-leaf', mirrors: [{ name: 'h03-mir', percent: 10 }], maxBodySize: 1024, mirrorBody: false } },
      },
    },
  }),
  one('h04', 'middleware chains with cycles and chains of chains', {
    http: {
      routers: { 'h04-r': { rule: 'Path(`/`)', service: 'h04-s', middlewares: ['h04-c1'] }, 'h04-loop': { rule: 'Path(`/l`)', service: 'h04-s', middlewares: ['h04-self'] } },
      services: { 'h04-s': lb() },
      middlewares: {
        'h04-c1': { chain: { middlewares: ['h04-c2', 'h04-add'] } },
        'h04-c2': { chain: { middlewares: ['h04-strip'] } },
        'h04-add': { addPrefix: { prefix: '/x' } },
        'h04-strip': { stripPrefix: { prefixes: ['/y'] } },
        'h04-self': { chain: { middlewares: ['h04-self'] } },
      },
    },
  }),
  one('h05', 'TLS options, stores and routers naming them (own, missing, of another provider)', {
    http: {
      routers: {
        'h05-a': { rule: 'Host(`a.test`)', service: 'h05-s', tls: { options: 'h05-modern' } },
        'h05-b': { rule: 'Host(`b.test`)', service: 'h05-s', tls: { options: 'h05-missing' } },
        'h05-c': { rule: 'Host(`c.test`)', service: 'h05-s', tls: { options: 'x@kubernetescrd' } },
        'h05-d': { rule: 'Host(`d.test`)', service: 'h05-s', tls: { options: 'default', certResolver: 'nope' } },
      },
      services: { 'h05-s': lb() },
    },
    tcp: { routers: { 'h05-t': { rule: 'HostSNI(`a.test`)', service: 'h05-ts', tls: { options: 'h05-modern' } } }, services: { 'h05-ts': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }] } } } },
    tls: {
      options: { 'h05-modern': { minVersion: 'VersionTLS13' }, default: { minVersion: 'VersionTLS12' } },
      stores: { default: { defaultGeneratedCert: { resolver: 'nope', domain: { main: 'a.test' } } } },
    },
  }),
  one('h06', 'TCP rules that need TLS, TCP on a UDP entry point, UDP on TCP entry points', {
    tcp: {
      routers: {
        'h06-sni': { rule: 'HostSNI(`a.test`)', service: 'h06-ts' },
        'h06-star': { rule: 'HostSNI(`*`)', service: 'h06-ts', entryPoints: ['udpep'] },
        'h06-alpn': { rule: 'ALPN(`h2`)', service: 'h06-ts' },
        'h06-ip': { rule: 'ClientIP(`10.0.0.1`)', service: 'h06-ts', priority: -1 },
        'h06-mw': { rule: 'HostSNI(`*`)', service: 'h06-ts', middlewares: ['h06-tm', 'missing', 'h06-tm@file'] },
      },
      services: { 'h06-ts': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }], proxyProtocol: { version: 2 } } } },
      middlewares: { 'h06-tm': { inFlightConn: { amount: 1 } } },
    },
    udp: {
      routers: { 'h06-u': { entryPoints: ['web'], service: 'h06-us' }, 'h06-u2': { service: 'h06-us' }, 'h06-u3': { entryPoints: ['udpep', 'nope'], service: 'missing' } },
      services: { 'h06-us': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }] } } },
    },
  }),
  one('h07', 'names with @ and / and upper case, and references to them', {
    http: {
      routers: {
        'h07/slash': { rule: 'Path(`/a`)', service: 'h07-s' },
        'H07-Upper': { rule: 'Path(`/b`)', service: 'h07-s@file' },
        'h07-ü': { rule: 'Path(`/d`)', service: 'h07-s', middlewares: ['h07-m@file'] },
      },
      services: { 'h07-s': lb() },
      middlewares: { 'h07-m': { headers: { customResponseHeaders: { 'X-Ä': 'ö' } } } },
    },
  }),
  one('h08', 'routers naming internal services and middlewares, and the traefik entry point', {
    http: {
      routers: {
        'h08-api': { rule: 'PathPrefix(`/api`)', service: 'api@internal', entryPoints: ['traefik'] },
        'h08-dash': { rule: 'PathPrefix(`/d`)', service: 'dashboard@internal', middlewares: ['dashboard_redirect@internal', 'dashboard_stripprefix@internal'] },
        'h08-noop': { rule: 'Path(`/n`)', service: 'noop@internal', entryPoints: ['web', 'traefik'] },
        'h08-ping': { rule: 'Path(`/p`)', service: 'ping@internal' },
      },
    },
  }),
  one('h09', 'kinds that do not match: a router naming a TCP service, a weighted HTTP service naming a UDP one', {
    http: {
      routers: { 'h09-r': { rule: 'Path(`/`)', service: 'h09-ts' }, 'h09-w': { rule: 'Path(`/w`)', service: 'h09-wrr' } },
      services: { 'h09-wrr': { weighted: { services: [{ name: 'h09-us', weight: 1 }], sticky: { cookie: { name: 'c' } } } } },
    },
    tcp: { services: { 'h09-ts': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }] } } } },
    udp: { services: { 'h09-us': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }] } } } },
  }),
  one('h10', '150 routers, for paging, sorting and filtering over several pages', manyRouters('h10', 150)),
  one('h11', 'load balancers with every option Traefik reads', {
    http: {
      routers: { 'h11-r': { rule: 'Path(`/`)', service: 'h11-s' }, 'h11-r2': { rule: 'Path(`/2`)', service: 'h11-p2c' } },
      services: {
        'h11-s': {
          loadBalancer: {
            servers: [{ url: 'http://127.0.0.1:1', weight: 3 }, { url: 'http://127.0.0.1:2', preservePath: true }],
            sticky: { cookie: { name: 'c', secure: true, httpOnly: true, sameSite: 'lax', maxAge: 10, path: '/x' } },
            passHostHeader: false, responseForwarding: { flushInterval: '1s' }, serversTransport: 'h11-st',
          },
        },
        'h11-p2c': { loadBalancer: { strategy: 'p2c', servers: [{ url: 'http://127.0.0.1:1' }] } },
        'h11-unused': { loadBalancer: { servers: [{ url: 'http://127.0.0.1:2' }] } },
      },
      serversTransports: { 'h11-st': { insecureSkipVerify: true, maxIdleConnsPerHost: 7 } },
    },
  }),
  one('h12', 'an empty file', {}),
  one('h13', 'services with middlewares of their own', {
    http: {
      routers: { 'h13-r': { rule: 'Path(`/`)', service: 'h13-s' } },
      services: { 'h13-s': { middlewares: ['h13-m', 'missing'], loadBalancer: { servers: [{ url: 'http://127.0.0.1:1' }] } } },
      middlewares: { 'h13-m': { addPrefix: { prefix: '/a' } } },
    },
  }),
  one('h14', 'a router without a rule, and without a service', {
    http: { routers: { 'h14-norule': { service: 'h14-s' }, 'h14-nosvc': { rule: 'Path(`/`)' } }, services: { 'h14-s': lb() } },
    tcp: { routers: { 'h14-t': { service: 'h14-ts' } }, services: { 'h14-ts': { loadBalancer: { servers: [{ address: '127.0.0.1:1' }] } } } },
  }),
];
