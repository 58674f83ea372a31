import { readFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { createManagementApi, TRAEFIK_API_VERSION } from '../../../src/management/app.js';
import { pathUnescape } from '../../../src/management/api/routes.js';
import { BasicAuthVerifier } from '../../../src/http/basic-auth.js';
import { IpAllowList } from '../../../src/http/ip-allow-list.js';
import { apiFor, getJson, silentLogger, storeWith } from '../helpers.js';

const store = storeWith({
  file: {
    http: {
      routers: {
        'foo / bar': { entryPoints: ['web'], service: 'whoami', rule: 'Host(`a.test`) && PathPrefix(`/x`)' },
        secure: { entryPoints: ['websecure'], service: 'whoami', rule: 'Host(`b.test`)', tls: {} },
      },
      services: { whoami: { loadBalancer: { servers: [{ url: 'http://10.0.0.1' }], passHostHeader: true } } },
      middlewares: { strip: { stripPrefix: { prefixes: ['/x'] } } },
    },
    tcp: {
      routers: { db: { entryPoints: ['websecure'], service: 'db', rule: 'HostSNI(`db.test`)', tls: { passthrough: true } }, plain: { entryPoints: ['web'], service: 'db', rule: 'HostSNI(`*`)', tls: {} } },
      services: { db: { loadBalancer: { servers: [{ address: '10.0.0.2:5432' }] } } },
      middlewares: { limit: { inFlightConn: { amount: 10 } } },
    },
  },
});
const app = apiFor(store);

describe('built-in records', () => {
  it('has the api and dashboard routers exactly as Traefik with the API and dashboard on', async () => {
    const api = await app.inject('/api/http/routers/api@internal');
    expect(api.body).toBe('{"entryPoints":["traefik"],"service":"api@internal","rule":"PathPrefix(`/api`)","ruleSyntax":"default","priority":9223372036854775806,'
      + '"observability":{"accessLogs":true,"metrics":true,"tracing":true,"traceVerbosity":"minimal"},"status":"enabled","using":["traefik"],'
      + '"name":"api@internal","provider":"internal","priorityStr":"9223372036854775806"}\n');
    const dash = (await getJson(app, '/api/http/routers/dashboard@internal')).body as Record<string, unknown>;
    expect(dash.middlewares).toEqual(['dashboard_redirect@internal', 'dashboard_stripprefix@internal']);
    expect(dash.service).toBe('dashboard@internal');
    expect(dash.priorityStr).toBe('9223372036854775805');
    expect(dash.status).toBe('enabled');
  });

  it('has the api, dashboard and noop services with no type', async () => {
    expect((await app.inject('/api/http/services/api@internal')).body).toBe('{"status":"enabled","usedBy":["api@internal"],"name":"api@internal","provider":"internal"}\n');
    expect((await app.inject('/api/http/services/noop@internal')).body).toBe('{"status":"enabled","name":"noop@internal","provider":"internal"}\n');
    expect((await app.inject('/api/http/services/dashboard@internal')).statusCode).toBe(200);
  });

  it('has the dashboard middlewares', async () => {
    expect((await app.inject('/api/http/middlewares/dashboard_stripprefix@internal')).body).toBe(
      '{"stripPrefix":{"prefixes":["/dashboard/","/dashboard"]},"status":"enabled","usedBy":["dashboard@internal"],"name":"dashboard_stripprefix@internal","provider":"internal","type":"stripprefix"}\n');
    const redirect = (await getJson(app, '/api/http/middlewares/dashboard_redirect@internal')).body as Record<string, unknown>;
    expect(redirect.redirectRegex).toEqual({ regex: '^(http:\\/\\/(\\[[\\w:.]+\\]|[\\w\\._-]+)(:\\d+)?)\\/$', replacement: '${1}/dashboard/', permanent: true });
    expect(redirect.type).toBe('redirectregex');
  });

  it('stays when every provider is gone', async () => {
    const s = storeWith({ file: { http: { routers: { r: { service: 'api@internal', rule: 'Path(`/`)' } } } } });
    s.delete('file');
    const body = (await getJson(apiFor(s), '/api/http/routers')).body as { name: string }[];
    expect(body.map((r) => r.name)).toEqual(['api@internal', 'dashboard@internal']);
  });
});

describe('single records', () => {
  it('finds names with @ sent raw and / sent as %2F', async () => {
    const r = await getJson(app, '/api/http/routers/foo%20%2F%20bar@file');
    expect(r.status).toBe(200);
    expect((r.body as Record<string, unknown>).name).toBe('foo / bar@file');
    expect(r.headers['x-next-page']).toBeUndefined();
    expect((await app.inject('/api/http/routers/foo%20%2f%20bar%40file')).statusCode).toBe(200);
  });

  it('writes rules HTML-escaped like Go\'s encoder', async () => {
    const res = await app.inject('/api/http/routers/foo%20%2F%20bar@file');
    expect(res.body).toContain('"rule":"Host(`a.test`) \\u0026\\u0026 PathPrefix(`/x`)"');
    expect(res.headers['content-type']).toBe('application/json');
  });

  it('defaults empty HTTP TLS options to "default" but not TCP ones; TCP passthrough is always written', async () => {
    expect(((await getJson(app, '/api/http/routers/secure@file')).body as Record<string, unknown>).tls).toEqual({ options: 'default' });
    expect(((await getJson(app, '/api/tcp/routers/plain@file')).body as Record<string, unknown>).tls).toEqual({ passthrough: false });
    expect(((await getJson(app, '/api/tcp/routers/plain@file')).body as Record<string, unknown>).priorityStr).toBe('-1');
  });

  it('answers unknown names with Traefik\'s 404 messages', async () => {
    const cases: [string, string][] = [
      ['/api/http/routers/nope@file', 'router not found: nope@file'],
      ['/api/http/services/nope', 'service not found: nope'],
      ['/api/http/middlewares/a%2Fb', 'middleware not found: a/b'],
      ['/api/tcp/routers/x', 'router not found: x'],
      ['/api/tcp/services/x', 'service not found: x'],
      ['/api/tcp/middlewares/x', 'middleware not found: x'],
      ['/api/udp/routers/x', 'router not found: x'],
      ['/api/udp/services/x', 'service not found: x'],
      ['/api/entrypoints/x', 'entry point not found: x'],
    ];
    for (const [url, message] of cases) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toBe(`${JSON.stringify({ message })}\n`);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('refuses a bad escape with Traefik\'s 400', async () => {
    const res = await app.inject('/api/http/routers/a%zz');
    expect(res.statusCode).toBe(400);
    expect(res.body).toBe('{"message":"unable to decode routerID \\"a%zz\\": invalid URL escape \\"%zz\\""}\n');
    expect(pathUnescape('%4')).toEqual({ error: 'invalid URL escape "%4"' });
    expect(pathUnescape('a+b%41')).toEqual({ value: 'a+bA' });
  });

  it('serves TCP records with type and serverStatus', async () => {
    expect((await app.inject('/api/tcp/services/db@file')).body).toBe(
      '{"loadBalancer":{"servers":[{"address":"10.0.0.2:5432"}]},"status":"enabled","usedBy":["db@file","plain@file"],"name":"db@file","provider":"file","type":"loadbalancer","serverStatus":{"10.0.0.2:5432":"UP"}}\n');
    expect((await app.inject('/api/tcp/middlewares/limit@file')).body).toBe(
      '{"inFlightConn":{"amount":10},"status":"enabled","name":"limit@file","provider":"file","type":"inflightconn"}\n');
  });

  it('serves entry points, Portico\'s own listeners included', async () => {
    expect((await app.inject('/api/entrypoints/web')).body).toBe('{"address":":80","http":{},"name":"web"}\n');
    expect((await app.inject('/api/entrypoints/traefik')).statusCode).toBe(200);
  });
});

describe('other endpoints and errors', () => {
  it('answers /api/rawdata with maps keyed by qualified name, without name/provider/type', async () => {
    const res = await app.inject('/api/rawdata');
    expect(res.headers['content-type']).toBe('application/json');
    const body = JSON.parse(res.body) as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(body)).toEqual(['routers', 'middlewares', 'services', 'tcpRouters', 'tcpMiddlewares', 'tcpServices']);
    expect(Object.keys(body.routers ?? {})).toEqual(['api@internal', 'dashboard@internal', 'foo / bar@file', 'secure@file']);
    expect(body.services?.['whoami@file']).toEqual({
      loadBalancer: { servers: [{ url: 'http://10.0.0.1' }], passHostHeader: true }, status: 'enabled', usedBy: ['foo / bar@file', 'secure@file'], serverStatus: { 'http://10.0.0.1': 'UP' },
    });
    expect(body.routers?.['secure@file']).not.toHaveProperty('name');
    expect(body.routers?.['secure@file']).not.toHaveProperty('priorityStr');
    expect(res.body).toContain('"priority":9223372036854775806');
  });

  it('answers /api/overview with counts per kind', async () => {
    const body = (await getJson(app, '/api/overview')).body as Record<string, Record<string, unknown>>;
    expect(body.http?.routers).toEqual({ total: 4, warnings: 0, errors: 0 });
    expect(body.tcp?.middlewares).toEqual({ total: 1, warnings: 0, errors: 0 });
    expect(body.features).toEqual({ tracing: '', metrics: '', accessLog: false });
    expect(body.providers).toEqual(['File']);
  });

  it('answers /api/version as unrolled/render does', async () => {
    const res = await app.inject('/api/version');
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.body.endsWith('\n')).toBe(false);
    expect(JSON.parse(res.body)).toEqual({ Version: TRAEFIK_API_VERSION, Codename: 'portico', startDate: '2026-01-01T00:00:00.000Z', disableDashboardAd: true });
  });

  it('claims the version of the Traefik the differential suite compares it with', () => {
    const goMod = readFileSync(new URL('../../peers/traefik/go.mod', import.meta.url), 'utf8');
    expect(goMod).toContain(`github.com/traefik/traefik/v3 v${TRAEFIK_API_VERSION}\n`);
  });

  it('answers unknown paths with mux\'s 404 page not found', async () => {
    for (const url of ['/api', '/api/', '/api/nope', '/api/http', '/api/http/routers/', '/api/udp/middlewares', '/api/http/routers/a/b', '/nothing']) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toBe('404 page not found\n');
    }
  });

  it('refuses other methods on API paths with 405', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'] as const) {
      const res = await app.inject({ method, url: '/api/http/routers' });
      expect(res.statusCode, method).toBe(405);
    }
  });

  it('answers /ping', async () => {
    expect((await app.inject('/ping')).body).toBe('OK');
  });

  it('redirects / and /dashboard to /dashboard/ and serves the page with a strict CSP', async () => {
    const root = await app.inject('/');
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/dashboard/');
    expect((await app.inject({ url: '/', headers: { 'x-forwarded-prefix': '/traefik' } })).headers.location).toBe('/traefik/dashboard/');
    expect((await app.inject({ url: '/', headers: { 'x-forwarded-prefix': '//evil.example' } })).headers.location).toBe('/dashboard/');
    expect((await app.inject('/dashboard')).headers.location).toBe('/dashboard/');
    const page = await app.inject('/dashboard/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await app.inject('/dashboard/app.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('serves a record set after a new snapshot at once', async () => {
    const s = storeWith({});
    const a = apiFor(s);
    expect((await a.inject('/api/http/routers/r@kubernetes')).statusCode).toBe(404);
    s.set('kubernetes', { configuration: { http: { routers: { r: { service: 'api@internal', rule: 'Path(`/`)' } } } } });
    expect((await a.inject('/api/http/routers/r@kubernetes')).statusCode).toBe(200);
  });
});

describe('protection', () => {
  const hash = bcrypt.hashSync('s3cret', 4);
  const protectedApp = createManagementApi({
    store, logger: silentLogger, startDate: 0,
    verifier: new BasicAuthVerifier(new Map([['admin', hash]])),
    allowList: new IpAllowList(['127.0.0.0/8']),
  });
  const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

  it('asks for credentials on the API and the dashboard', async () => {
    for (const url of ['/api/http/routers', '/dashboard/', '/', '/api/nope']) {
      const res = await protectedApp.inject({ url, remoteAddress: '127.0.0.1' });
      expect(res.statusCode, url).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="portico"');
    }
    expect((await protectedApp.inject({ url: '/api/http/routers', remoteAddress: '127.0.0.1', headers: { authorization: basic('admin', 'wrong') } })).statusCode).toBe(401);
  });

  it('lets a good user in', async () => {
    const res = await protectedApp.inject({ url: '/api/http/routers', remoteAddress: '127.0.0.1', headers: { authorization: basic('admin', 's3cret') } });
    expect(res.statusCode).toBe(200);
  });

  it('refuses addresses outside the allow-list with 403, even with credentials', async () => {
    const res = await protectedApp.inject({ url: '/api/http/routers', remoteAddress: '10.1.2.3', headers: { authorization: basic('admin', 's3cret') } });
    expect(res.statusCode).toBe(403);
  });

  it('leaves /ping open for probes', async () => {
    expect((await protectedApp.inject({ url: '/ping', remoteAddress: '10.1.2.3' })).statusCode).toBe(200);
  });
});

describe('base path (api.basePath)', () => {
  const based = createManagementApi({ store, logger: silentLogger, startDate: 0, basePath: '/traefik/' });

  it('mounts the API and the dashboard under the prefix', async () => {
    expect((await based.inject('/traefik/api/http/routers/api@internal')).statusCode).toBe(200);
    expect((await based.inject('/api/http/routers')).statusCode).toBe(404);
    expect((await based.inject('/traefik/')).headers.location).toBe('/traefik/dashboard/');
    expect((await based.inject('/traefik/dashboard/')).statusCode).toBe(200);
    expect((await based.inject('/traefik/api/http/routers/a%zz')).statusCode).toBe(400);
    expect((await based.inject('/ping')).statusCode).toBe(200);
  });

  it('normalises the flag value', async () => {
    const { normaliseBasePath } = await import('../../../src/management/app.js');
    expect(normaliseBasePath('')).toBe('/');
    expect(normaliseBasePath('traefik')).toBe('/traefik/');
    expect(normaliseBasePath('/a/b')).toBe('/a/b/');
    expect(() => normaliseBasePath('/a b')).toThrow(/--api.base-path/);
  });
});

describe('long names', () => {
  it('finds a record whose encoded name is far longer than Fastify\'s default parameter limit', async () => {
    const name = `${'x'.repeat(250)}/${'y'.repeat(250)}`;
    const s = storeWith({ kubernetes: { http: { routers: { [name]: { service: 'api@internal', rule: 'Path(`/`)' } } } } });
    const res = await apiFor(s).inject(`/api/http/routers/${encodeURIComponent(`${name}@kubernetes`)}`);
    expect(res.statusCode).toBe(200);
  });
});
