import { describe, expect, it } from 'vitest';
import type { DynamicConfiguration } from '../../../src/dynamic-config/configuration.js';
import type { Router } from '../../../src/dynamic-config/http.js';
import { paginate, parseIntParam } from '../../../src/management/api/query.js';
import { apiFor, getJson, goldenStore, storeWith } from '../helpers.js';
import fc from 'fast-check';

type Rec = Record<string, unknown>;
const names = (body: unknown) => (body as Rec[]).map((r) => r.name);

function routers(n: number, make: (i: number) => Router = () => ({ entryPoints: ['web'], service: 'svc', rule: 'Path(`/`)' })): Record<string, Router> {
  const out: Record<string, Router> = {};
  for (let i = 0; i < n; i++) out[`r${String(i).padStart(2, '0')}`] = make(i);
  return out;
}

describe('pagination (criterion.go)', () => {
  const q = (s: string) => new URLSearchParams(s);

  it('defaults to page 1 and 100 per page', () => {
    expect(paginate(q(''), 250)).toEqual({ start: 0, end: 100, nextPage: '2' });
    expect(paginate(q(''), 100)).toEqual({ start: 0, end: 100, nextPage: '1' });
  });

  it('sets X-Next-Page to page+1 while more remain, else 1', () => {
    expect(paginate(q('page=2&per_page=1'), 3)).toEqual({ start: 1, end: 2, nextPage: '3' });
    expect(paginate(q('page=3&per_page=7'), 19)).toEqual({ start: 14, end: 19, nextPage: '1' });
  });

  it('accepts page 1 of an empty list', () => {
    expect(paginate(q(''), 0)).toEqual({ start: 0, end: 0, nextPage: '1' });
  });

  it('refuses a page that starts at or past the end', () => {
    expect(paginate(q('page=2&per_page=10'), 5)).toEqual({ error: 'invalid request: page: 2, per_page: 10' });
    expect(paginate(q('page=2&per_page=10'), 10)).toEqual({ error: 'invalid request: page: 2, per_page: 10' });
  });

  it('refuses values that do not parse or are not positive, with Atoi\'s value in the message', () => {
    expect(paginate(q('page=0'), 5)).toEqual({ error: 'invalid request: page: 0' });
    expect(paginate(q('page=abc'), 5)).toEqual({ error: 'invalid request: page: 0' });
    expect(paginate(q('page=-1'), 5)).toEqual({ error: 'invalid request: page: -1' });
    expect(paginate(q('per_page=0'), 5)).toEqual({ error: 'invalid request: per_page: 0' });
    expect(paginate(q('per_page=1.5'), 5)).toEqual({ error: 'invalid request: per_page: 0' });
    expect(parseIntParam(q('page=99999999999999999999'), 'page', 1)).toEqual({ error: 'invalid request: page: 9223372036854775807' });
  });

  it('checks per_page before page', () => {
    expect(paginate(q('page=0&per_page=0'), 5)).toEqual({ error: 'invalid request: per_page: 0' });
  });

  it('treats an empty value as absent and accepts a leading +', () => {
    expect(paginate(q('page=&per_page='), 5)).toEqual({ start: 0, end: 5, nextPage: '1' });
    expect(paginate(q('page=%2B1&per_page=%2B2'), 5)).toEqual({ start: 0, end: 2, nextPage: '2' });
  });
});

describe('list endpoints: filters, sort and pages over HTTP', () => {
  const config: DynamicConfiguration = {
    http: {
      routers: {
        alpha: { entryPoints: ['web'], service: 'fii-service', rule: 'Host(`Alpha.example.com`)', middlewares: ['auth'] },
        beta: { entryPoints: ['web', 'websecure'], service: 'foo-service@other', rule: 'Host(`beta.example.com`)', priority: 5 },
        gamma: { entryPoints: ['nope'], service: 'fii-service', rule: 'PathPrefix(`/alpha`)', priority: 50 },
        delta: { entryPoints: ['web'], service: 'missing', rule: 'Path(`/d`)', middlewares: ['auth', 'compress'] },
      },
      services: {
        'fii-service': { loadBalancer: { servers: [{ url: 'http://a' }, { url: 'http://b' }] } },
        zeta: { weighted: { services: [{ name: 'fii-service', weight: 1 }] } },
        eta: { loadBalancer: { servers: [{ url: 'http://c' }] } },
      },
      middlewares: {
        auth: { basicAuth: { users: ['u:p'] } },
        compress: { compress: {} },
        addprefix: { addPrefix: { prefix: '/x' } },
      },
    },
  };
  const app = apiFor(storeWith({ myprovider: config }, { internalRecords: false }));

  it('sorts by name ascending by default and pages with X-Next-Page', async () => {
    const r = await getJson(app, '/api/http/routers?per_page=2');
    expect(r.status).toBe(200);
    expect(names(r.body)).toEqual(['alpha@myprovider', 'beta@myprovider']);
    expect(r.headers['x-next-page']).toBe('2');
    const r2 = await getJson(app, '/api/http/routers?per_page=2&page=2');
    expect(names(r2.body)).toEqual(['delta@myprovider', 'gamma@myprovider']);
    expect(r2.headers['x-next-page']).toBe('1');
  });

  it('answers a page past the end with Traefik\'s 400 and no X-Next-Page', async () => {
    const r = await getJson(app, '/api/http/routers?per_page=2&page=3');
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"message":"invalid request: page: 3, per_page: 2"}\n');
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['x-next-page']).toBeUndefined();
  });

  it('search matches the rule or the name, case-insensitively', async () => {
    expect(names((await getJson(app, '/api/http/routers?search=ALPHA')).body)).toEqual(['alpha@myprovider', 'gamma@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?search=beta.example')).body)).toEqual(['beta@myprovider']);
  });

  it('search on services and middlewares matches the name only', async () => {
    expect(names((await getJson(app, '/api/http/services?search=FII')).body)).toEqual(['fii-service@myprovider']);
    expect(names((await getJson(app, '/api/http/middlewares?search=basic')).body)).toEqual([]);
    expect(names((await getJson(app, '/api/http/middlewares?search=AUTH')).body)).toEqual(['auth@myprovider']);
  });

  it('status compares case-insensitively with the record status', async () => {
    // beta and delta name missing services, gamma names no existing entry point.
    expect(names((await getJson(app, '/api/http/routers?status=DISABLED')).body)).toEqual(['beta@myprovider', 'delta@myprovider', 'gamma@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?status=enabled')).body)).toEqual(['alpha@myprovider']);
  });

  it('serviceName: exact for qualified router services, else the part before @', async () => {
    expect(names((await getJson(app, '/api/http/routers?serviceName=fii-service@anything')).body)).toEqual(['alpha@myprovider', 'gamma@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?serviceName=fii-service')).body)).toEqual(['alpha@myprovider', 'gamma@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?serviceName=foo-service@other')).body)).toEqual(['beta@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?serviceName=foo-service')).body)).toEqual([]);
  });

  it('middlewareName is exact membership in the (qualified) middlewares list', async () => {
    expect(names((await getJson(app, '/api/http/routers?middlewareName=auth@myprovider')).body)).toEqual(['alpha@myprovider', 'delta@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?middlewareName=auth')).body)).toEqual([]);
  });

  it('combines filters and pages the filtered list', async () => {
    const r = await getJson(app, '/api/http/routers?status=disabled&search=alpha');
    expect(names(r.body)).toEqual(['gamma@myprovider']);
    const p = await getJson(app, '/api/http/routers?status=disabled&per_page=1');
    expect(names(p.body)).toEqual(['beta@myprovider']);
    expect(p.headers['x-next-page']).toBe('2');
    expect((await getJson(app, '/api/http/routers?status=disabled&per_page=1&page=3')).headers['x-next-page']).toBe('1');
    expect((await getJson(app, '/api/http/routers?status=disabled&per_page=1&page=4')).status).toBe(400);
  });

  it('direction: empty means asc, anything but "asc" means descending', async () => {
    expect(names((await getJson(app, '/api/http/routers?direction=desc')).body)).toEqual(['gamma@myprovider', 'delta@myprovider', 'beta@myprovider', 'alpha@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?direction=whatever')).body)).toEqual(['gamma@myprovider', 'delta@myprovider', 'beta@myprovider', 'alpha@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?direction=')).body)).toEqual(['alpha@myprovider', 'beta@myprovider', 'delta@myprovider', 'gamma@myprovider']);
  });

  it('sortBy priority uses the effective priority (len(rule) when unset), ties by name', async () => {
    // alpha: len 25, beta: 5, delta: len 9, gamma: 50 (not built: no valid entry point, but explicit)
    expect(names((await getJson(app, '/api/http/routers?sortBy=priority')).body)).toEqual(['beta@myprovider', 'delta@myprovider', 'alpha@myprovider', 'gamma@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?sortBy=priority&direction=desc')).body)).toEqual(['gamma@myprovider', 'alpha@myprovider', 'delta@myprovider', 'beta@myprovider']);
  });

  it('sortBy status, rule, service, entryPoints (count) and provider, ties broken by name', async () => {
    expect(names((await getJson(app, '/api/http/routers?sortBy=status')).body)).toEqual(['beta@myprovider', 'delta@myprovider', 'gamma@myprovider', 'alpha@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?sortBy=rule')).body)).toEqual(['alpha@myprovider', 'beta@myprovider', 'delta@myprovider', 'gamma@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?sortBy=service')).body)).toEqual(['alpha@myprovider', 'gamma@myprovider', 'beta@myprovider', 'delta@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?sortBy=entryPoints&direction=desc')).body)).toEqual(['beta@myprovider', 'gamma@myprovider', 'delta@myprovider', 'alpha@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?sortBy=provider')).body)).toEqual(['alpha@myprovider', 'beta@myprovider', 'delta@myprovider', 'gamma@myprovider']);
    expect(names((await getJson(app, '/api/http/routers?sortBy=unknown&direction=desc')).body)).toEqual(['gamma@myprovider', 'delta@myprovider', 'beta@myprovider', 'alpha@myprovider']);
  });

  it('sorts services by type and server count', async () => {
    expect(names((await getJson(app, '/api/http/services?sortBy=type')).body)).toEqual(['eta@myprovider', 'fii-service@myprovider', 'zeta@myprovider']);
    expect(names((await getJson(app, '/api/http/services?sortBy=servers&direction=desc')).body)).toEqual(['fii-service@myprovider', 'eta@myprovider', 'zeta@myprovider']);
  });

  it('sorts middlewares by type', async () => {
    expect(names((await getJson(app, '/api/http/middlewares?sortBy=type')).body)).toEqual(['addprefix@myprovider', 'auth@myprovider', 'compress@myprovider']);
  });

  it('ignores service and middleware filters on services', async () => {
    expect(names((await getJson(app, '/api/http/services?serviceName=nothing')).body)).toHaveLength(3);
  });

  it('pages entry points, sorted by name, ignoring filters', async () => {
    const r = await getJson(app, '/api/entrypoints?per_page=2&search=zzz');
    expect(names(r.body)).toEqual(['traefik', 'web']);
    expect(r.headers['x-next-page']).toBe('2');
    expect((await getJson(app, '/api/entrypoints?page=5')).status).toBe(400);
  });
});

describe('paging many records', () => {
  it('19 routers: page 3 of 7 is the last page', async () => {
    const app = apiFor(goldenStore({ p: { http: { routers: routers(19) } } }));
    const r = await getJson(app, '/api/http/routers?page=3&per_page=7');
    expect(names(r.body)).toEqual(['r14@p', 'r15@p', 'r16@p', 'r17@p', 'r18@p']);
    expect(r.headers['x-next-page']).toBe('1');
  });

  it('an empty list is [] with X-Next-Page 1', async () => {
    const app = apiFor(goldenStore({}));
    for (const path of ['http/routers', 'http/services', 'http/middlewares', 'tcp/routers', 'tcp/services', 'tcp/middlewares', 'udp/routers', 'udp/services']) {
      const res = await app.inject({ method: 'GET', url: `/api/${path}` });
      expect(res.body).toBe('[]\n');
      expect(res.headers['x-next-page']).toBe('1');
    }
  });

  it('TCP and UDP lists filter the same way', async () => {
    const app = apiFor(goldenStore({
      p: {
        tcp: { routers: { t1: { entryPoints: ['web'], service: 's', rule: 'HostSNI(`a`)', middlewares: ['m'] }, t2: { entryPoints: ['web'], service: 'x@q', rule: 'HostSNI(`b`)' } } },
        udp: { routers: { u1: { entryPoints: ['web'], service: 's' }, u2: { entryPoints: ['web'], service: 'other' } } },
      },
    }));
    expect(names((await getJson(app, '/api/tcp/routers?search=hostsni(`b')).body)).toEqual(['t2@p']);
    expect(names((await getJson(app, '/api/tcp/routers?middlewareName=m')).body)).toEqual(['t1@p']);
    expect(names((await getJson(app, '/api/tcp/routers?serviceName=x@q')).body)).toEqual(['t2@p']);
    expect(names((await getJson(app, '/api/udp/routers?serviceName=s@p')).body)).toEqual(['u1@p']);
    expect(names((await getJson(app, '/api/udp/routers?search=U2')).body)).toEqual(['u2@p']);
    expect(names((await getJson(app, '/api/udp/routers?middlewareName=m')).body)).toEqual(['u1@p', 'u2@p']);
  });
});

describe('paging invariants (property)', () => {
  it('a page is inside the list, and X-Next-Page is 1 exactly on the last page', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), (total, page, perPage) => {
      const r = paginate(new URLSearchParams({ page: String(page), per_page: String(perPage) }), total);
      const start = (page - 1) * perPage;
      if (start !== 0 && start >= total) {
        expect(r).toEqual({ error: `invalid request: page: ${page}, per_page: ${perPage}` });
        return;
      }
      if ('error' in r) throw new Error(r.error);
      expect(r.start).toBe(start);
      expect(r.end).toBe(Math.min(total, start + perPage));
      expect(r.nextPage === '1').toBe(page * perPage >= total);
    }));
  });
});
