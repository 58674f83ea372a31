import { describe, expect, it } from 'vitest';
import type { DynamicConfiguration } from '../../../src/dynamic-config/configuration.js';
import { computeRuntime, MAX_INT64, qualify, type EntryPointDef } from '../../../src/management/runtime/runtime.js';
import { internalProviderInput } from '../../../src/management/runtime/internal-records.js';
import { TRAEFIK, WEB, WEBSECURE } from '../helpers.js';

const EPS: EntryPointDef[] = [WEB, WEBSECURE, TRAEFIK];

function run(config: DynamicConfiguration, eps = EPS, provider = 'p') {
  return computeRuntime([{ provider, configuration: config }], eps);
}

describe('runtime: names and references', () => {
  it('qualifies names and keeps qualified references', () => {
    expect(qualify('a', 'p')).toBe('a@p');
    expect(qualify('a@q', 'p')).toBe('a@q');
  });

  it('qualifies router middlewares when built but keeps the service as written', () => {
    const rt = run({ http: {
      routers: { r: { entryPoints: ['web'], service: 's', rule: 'Path(`/`)', middlewares: ['m', 'x@q'] } },
      services: { s: { loadBalancer: { servers: [] } } },
      middlewares: { m: { addPrefix: { prefix: '/a' } } },
    } });
    const r = rt.routers.get('r@p');
    expect(r?.config.middlewares).toEqual(['m@p', 'x@q']);
    expect(r?.config.service).toBe('s');
  });

  it('fills usedBy on services and middlewares from routers only, sorted', () => {
    const rt = run({ http: {
      routers: {
        z: { entryPoints: ['web'], service: 's', rule: 'Path(`/z`)', middlewares: ['m'] },
        a: { entryPoints: ['web'], service: 's@p', rule: 'Path(`/a`)', middlewares: ['m@p'] },
      },
      services: { s: { loadBalancer: {} }, w: { weighted: { services: [{ name: 's' }] } } },
      middlewares: { m: { compress: {} } },
    } });
    expect(rt.services.get('s@p')?.usedBy).toEqual(['a@p', 'z@p']);
    expect(rt.services.get('w@p')?.usedBy).toEqual([]);
    expect(rt.middlewares.get('m@p')?.usedBy).toEqual(['a@p', 'z@p']);
  });

  it('gives routers without entry points the default ones, sorted', () => {
    const rt = run({ http: { routers: { r: { service: 'api@internal', rule: 'Path(`/`)' } } }, tcp: { routers: { t: { service: 's', rule: 'HostSNI(`*`)' } } } });
    expect(rt.routers.get('r@p')?.config.entryPoints).toEqual(['web', 'websecure']);
    expect(rt.routers.get('r@p')?.using).toEqual(['web', 'websecure']);
    expect(rt.tcpRouters.get('t@p')?.config.entryPoints).toEqual(['web', 'websecure']);
  });
});

describe('runtime: status and error texts', () => {
  it('warns about unknown entry points and disables a router with none valid', () => {
    const rt = run({ http: {
      routers: {
        some: { entryPoints: ['web', 'nope'], service: 's', rule: 'Path(`/`)' },
        none: { entryPoints: ['nope'], service: 's', rule: 'Path(`/`)' },
      },
      services: { s: { loadBalancer: {} } },
    } });
    const some = rt.routers.get('some@p');
    expect(some?.status).toBe('warning');
    expect(some?.errors).toEqual(['entryPoint "nope" doesn\'t exist']);
    expect(some?.using).toEqual(['web']);
    const none = rt.routers.get('none@p');
    expect(none?.status).toBe('disabled');
    expect(none?.errors).toEqual(['entryPoint "nope" doesn\'t exist', 'no valid entryPoint for this router']);
    expect(none?.using).toEqual([]);
  });

  it('disables a router whose service does not exist, naming it qualified', () => {
    const rt = run({ http: { routers: { r: { entryPoints: ['web'], service: 'ghost', rule: 'Path(`/`)' } } } });
    expect(rt.routers.get('r@p')?.status).toBe('disabled');
    expect(rt.routers.get('r@p')?.errors).toEqual(['the service "ghost@p" does not exist']);
  });

  it('disables a router whose middleware does not exist; the last failing one reports (alice order)', () => {
    const rt = run({ http: {
      routers: { r: { entryPoints: ['web'], service: 's', rule: 'Path(`/`)', middlewares: ['m1', 'm2'] } },
      services: { s: { loadBalancer: {} } },
    } });
    expect(rt.routers.get('r@p')?.errors).toEqual(['middleware "m2@p" does not exist']);
    expect(rt.routers.get('r@p')?.status).toBe('disabled');
  });

  it('checks the service before the middlewares', () => {
    const rt = run({ http: { routers: { r: { entryPoints: ['web'], service: 'ghost', rule: 'Path(`/`)', middlewares: ['m'] } } } });
    expect(rt.routers.get('r@p')?.errors).toEqual(['the service "ghost@p" does not exist']);
  });

  it('keeps a warning and adds a critical error: disabled wins', () => {
    const rt = run({ http: { routers: { r: { entryPoints: ['web', 'x'], service: 'ghost', rule: 'Path(`/`)' } } } });
    expect(rt.routers.get('r@p')?.status).toBe('disabled');
    expect(rt.routers.get('r@p')?.errors).toEqual(['entryPoint "x" doesn\'t exist', 'the service "ghost@p" does not exist']);
  });

  it('refuses multi-type and typeless services, and propagates errors to routers', () => {
    const rt = run({ http: {
      routers: {
        a: { entryPoints: ['web'], service: 'multi', rule: 'Path(`/a`)' },
        b: { entryPoints: ['web'], service: 'empty', rule: 'Path(`/b`)' },
      },
      services: { multi: { loadBalancer: {}, weighted: {} }, empty: {} },
    } });
    const multi = 'cannot create service: multi-types service not supported, consider declaring two different pieces of service instead';
    expect(rt.services.get('multi@p')?.errors).toEqual([multi]);
    expect(rt.services.get('multi@p')?.status).toBe('disabled');
    expect(rt.routers.get('a@p')?.errors).toEqual([multi]);
    expect(rt.services.get('empty@p')?.errors).toEqual(['the service "empty@p" does not have any type defined']);
  });

  it('checks the children of weighted, mirroring and failover services', () => {
    const rt = run({ http: {
      routers: { r: { entryPoints: ['web'], service: 'w', rule: 'Path(`/`)' } },
      services: { w: { weighted: { services: [{ name: 'ok' }, { name: 'gone' }] } }, ok: { loadBalancer: {} } },
    } });
    expect(rt.services.get('w@p')?.errors).toEqual(['the service "gone@p" does not exist']);
    expect(rt.routers.get('r@p')?.errors).toEqual(['the service "gone@p" does not exist']);
    expect(rt.services.get('ok@p')?.status).toBe('enabled');
  });

  it('disables a middleware of no known type or several types, and its routers', () => {
    const rt = run({ http: {
      routers: { r: { entryPoints: ['web'], service: 's', rule: 'Path(`/`)', middlewares: ['odd'] }, q: { entryPoints: ['web'], service: 's', rule: 'Path(`/q`)', middlewares: ['two'] } },
      services: { s: { loadBalancer: {} } },
      middlewares: { odd: { notAKind: {} }, two: { compress: {}, retry: {} } },
    } });
    expect(rt.middlewares.get('odd@p')?.errors).toEqual(['invalid middleware "odd@p" configuration: invalid middleware type or middleware does not exist']);
    expect(rt.routers.get('r@p')?.status).toBe('disabled');
    // Traefik 3.7.13's text, unprefixed, on the middleware and its router alike.
    const multi = 'cannot create middleware: multi-types middleware not supported, consider declaring two different pieces of middleware instead';
    expect(rt.middlewares.get('two@p')?.errors).toEqual([multi]);
    expect(rt.routers.get('q@p')?.errors).toEqual([multi]);
  });

  it('lets a TCP middleware of several types through, as Traefik\'s TCP builder does', () => {
    const rt = run({ tcp: {
      routers: { t: { entryPoints: ['web'], service: 's', rule: 'HostSNI(`*`)', middlewares: ['two'] } },
      services: { s: { loadBalancer: { servers: [{ address: '10.0.0.1:1' }] } } },
      middlewares: { two: { inFlightConn: { amount: 1 }, ipAllowList: { sourceRange: ['10.0.0.0/8'] } } },
    } });
    expect(rt.tcpMiddlewares.get('two@p')?.status).toBe('enabled');
    expect(rt.tcpRouters.get('t@p')?.status).toBe('enabled');
  });

  it('follows chains and detects recursion', () => {
    const rt = run({ http: {
      routers: { r: { entryPoints: ['web'], service: 's', rule: 'Path(`/`)', middlewares: ['c'] } },
      services: { s: { loadBalancer: {} } },
      middlewares: { c: { chain: { middlewares: ['missing'] } }, loop: { chain: { middlewares: ['loop'] } } },
    } });
    expect(rt.middlewares.get('c@p')?.errors).toEqual(['middleware "missing@p" does not exist']);
    expect(rt.routers.get('r@p')?.errors).toEqual(['middleware "missing@p" does not exist']);
    const rt2 = run({ http: {
      routers: { r: { entryPoints: ['web'], service: 's', rule: 'Path(`/`)', middlewares: ['loop'] } },
      services: { s: { loadBalancer: {} } },
      middlewares: { loop: { chain: { middlewares: ['loop'] } } },
    } });
    expect(rt2.middlewares.get('loop@p')?.status).toBe('disabled');
    // Traefik 3.7.13 names each step of the path with its kind.
    expect(rt2.middlewares.get('loop@p')?.errors).toEqual(['could not instantiate middleware loop@p: recursion detected in middleware:loop@p->middleware:loop@p']);
    const rt3 = run({ http: {
      routers: { r: { entryPoints: ['web'], service: 'a', rule: 'Path(`/`)' } },
      services: { a: { weighted: { services: [{ name: 'b' }] } }, b: { failover: { service: 'a', fallback: 'a' } } },
    } });
    expect(rt3.routers.get('r@p')?.errors).toEqual(['could not instantiate service a@p: recursion detected in service:a@p->service:b@p->service:a@p']);
  });

  it('refuses a user priority above MaxInt64-1000', () => {
    const rt = run({ http: { routers: { r: { entryPoints: ['web'], service: 's', rule: 'Path(`/`)', priority: 9.3e18 } }, services: { s: { loadBalancer: {} } } } });
    expect(rt.routers.get('r@p')?.status).toBe('disabled');
    expect(rt.routers.get('r@p')?.errors[0]).toMatch(/^the router priority 9300000000000000000 exceeds the max user-defined priority 9223372036854774807$/);
  });

  it('reports a router without a service', () => {
    const rt = run({ http: { routers: { r: { entryPoints: ['web'], rule: 'Path(`/`)' }, n: { entryPoints: ['nope'] } } }, tcp: { routers: { t: { entryPoints: ['web'], rule: 'HostSNI(`a`)' } } } });
    // Traefik 3.7.13 still builds the root router, and its handler builder refuses it again.
    expect(rt.routers.get('r@p')?.errors).toEqual(['router has no service and no child routers', 'router must have either a service or child routers']);
    expect(rt.routers.get('n@p')?.errors).toEqual(['router has no service and no child routers', 'entryPoint "nope" doesn\'t exist', 'no valid entryPoint for this router']);
    expect(rt.tcpRouters.get('t@p')?.errors).toEqual(['the service is missing on the router']);
  });

  it('checks the router tree: dead ends and parents with a service', () => {
    const rt = run({ http: {
      routers: {
        dead: { entryPoints: ['web'], rule: 'Path(`/`)' },
        parent: { entryPoints: ['web'], rule: 'Path(`/p`)', service: 's' },
        child: { rule: 'Path(`/p/c`)', service: 's', parentRefs: ['parent'] },
      },
      services: { s: { loadBalancer: {} } },
    } });
    expect(rt.routers.get('dead@p')?.errors).toEqual(['router has no service and no child routers', 'router must have either a service or child routers']);
    expect(rt.routers.get('parent@p')?.errors).toEqual(['router has both a service and is referenced as a parent by other routers']);
  });

  it('refuses a TCP router without a rule', () => {
    const rt = run({ tcp: { routers: { t: { entryPoints: ['web'], service: 's' } }, services: { s: { loadBalancer: {} } } } });
    expect(rt.tcpRouters.get('t@p')?.errors).toEqual(['router has no rule']);
  });

  it('TCP and UDP routers get the same cross-checks; UDP needs UDP entry points', () => {
    const udp: EntryPointDef = { name: 'dns', address: ':53/udp', protocol: 'udp', isDefault: false };
    const rt = run({
      tcp: { routers: { t: { entryPoints: ['web'], service: 'gone', rule: 'HostSNI(`a`)' } }, services: {} },
      udp: {
        routers: { u: { entryPoints: ['dns'], service: 'd' }, v: { entryPoints: ['web'], service: 'd' } },
        services: { d: { loadBalancer: { servers: [{ address: '10.0.0.1:53' }] } } },
      },
    }, [...EPS, udp]);
    expect(rt.tcpRouters.get('t@p')?.errors).toEqual(['the service "gone@p" does not exist']);
    expect(rt.udpRouters.get('u@p')?.status).toBe('enabled');
    expect(rt.udpRouters.get('v@p')?.errors).toEqual(['entryPoint "web" doesn\'t exist', 'no valid entryPoint for this router']);
    expect(rt.udpServices.get('d@p')?.usedBy).toEqual(['u@p', 'v@p']);
  });
});

describe('runtime: priorities', () => {
  it('computes len(rule) in bytes for HTTP routers without a priority', () => {
    const rt = run({ http: { routers: {
      r: { entryPoints: ['web'], service: 'api@internal', rule: 'Host("whoami.test") && PathPrefix("/whoami")' },
      u: { entryPoints: ['web'], service: 'api@internal', rule: 'Host(`é`)' },
      e: { entryPoints: ['web'], service: 'api@internal', rule: 'Path(`/`)', priority: 7 },
    } } });
    expect(rt.routers.get('r@p')?.priority).toBe(44n);
    expect(rt.routers.get('u@p')?.priority).toBe(10n);
    expect(rt.routers.get('e@p')?.priority).toBe(7n);
  });

  it('gives the TCP catch-all HostSNI(`*`) -1', () => {
    const rt = run({ tcp: {
      routers: { a: { entryPoints: ['web'], service: 's', rule: 'HostSNI(`*`)' }, b: { entryPoints: ['web'], service: 's', rule: 'HostSNI(`x.y`)' } },
      services: { s: { loadBalancer: {} } },
    } });
    expect(rt.tcpRouters.get('a@p')?.priority).toBe(-1n);
    expect(rt.tcpRouters.get('b@p')?.priority).toBe(14n);
  });

  it('keeps priority 0 unbuilt (Traefik\'s API test harness)', () => {
    const rt = computeRuntime([{ provider: 'p', configuration: { http: { routers: { r: { entryPoints: ['web'], service: 's', rule: 'Path(`/`)', middlewares: ['m'] } } } } }], EPS, { buildRouters: false });
    expect(rt.routers.get('r@p')?.priority).toBe(0n);
    expect(rt.routers.get('r@p')?.config.middlewares).toEqual(['m']);
    expect(rt.routers.get('r@p')?.status).toBe('enabled');
  });

  it('internal routers sit at MaxInt64-1 and MaxInt64-2, exactly', () => {
    const rt = computeRuntime([internalProviderInput()], EPS);
    expect(rt.routers.get('api@internal')?.priority).toBe(MAX_INT64 - 1n);
    expect(rt.routers.get('dashboard@internal')?.priority).toBe(MAX_INT64 - 2n);
    expect(rt.routers.get('api@internal')?.status).toBe('enabled');
    expect(rt.routers.get('dashboard@internal')?.status).toBe('enabled');
    expect(rt.middlewares.get('dashboard_redirect@internal')?.usedBy).toEqual(['dashboard@internal']);
    expect(rt.services.get('noop@internal')?.status).toBe('enabled');
  });
});

describe('runtime: server status', () => {
  it('marks every server UP unless the snapshot says otherwise', () => {
    const rt = computeRuntime([{
      provider: 'p',
      configuration: {
        http: { services: { s: { loadBalancer: { servers: [{ url: 'http://a' }, { url: 'http://b' }] } } } },
        tcp: { services: { t: { loadBalancer: { servers: [{ address: '1.2.3.4:5' }] } } } },
      },
      serverStatus: { s: { 'http://b': 'DOWN' }, t: { '1.2.3.4:5': 'DOWN' } },
    }], EPS);
    expect(rt.services.get('s@p')?.serverStatus).toEqual({ 'http://a': 'UP', 'http://b': 'DOWN' });
    expect(rt.tcpServices.get('t@p')?.serverStatus).toEqual({ '1.2.3.4:5': 'DOWN' });
  });
});
