/**
 * The dashboard in headless Chromium: one browser and one management API for the file, every
 * view (overview, lists, filters, each detail kind, flow, sources, problems, live refresh, dark
 * theme, keyboard). Screenshots go to <tmpdir>/portico-dashboard-shots/ for review.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { DynamicConfiguration, ProviderSnapshot } from '../../src/dynamic-config/configuration.js';
import type { RecordStore } from '../../src/management/record-store.js';
import { apiFor, storeWith } from '../management/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(tmpdir(), 'portico-dashboard-shots');

const FILE: DynamicConfiguration = {
  http: {
    routers: {
      whoami: { entryPoints: ['web'], rule: 'Host(`whoami.test`) && PathPrefix(`/x`)', service: 'whoami', middlewares: ['strip', 'secure'] },
      broken: { entryPoints: ['web'], rule: 'Path(`/broken`)', service: 'ghost' },
      'team/app': { entryPoints: ['web'], rule: 'Path(`/team`)', service: 'whoami' },
      shopfront: {
        entryPoints: ['websecure'], rule: 'Host(`shop.test`)', service: 'canary',
        tls: { options: 'modern', certResolver: 'le', domains: [{ main: 'shop.test', sans: ['www.shop.test'] }] },
      },
      mirrored: { entryPoints: ['web'], rule: 'Path(`/m`)', service: 'mirror' },
      guarded: { entryPoints: ['web'], rule: 'Path(`/g`)', service: 'safe', middlewares: ['auth'] },
      stray: { entryPoints: ['web', 'nowhere'], rule: 'Path(`/s`)', service: 'whoami' },
    },
    services: {
      whoami: { loadBalancer: { servers: [{ url: 'http://10.0.0.1:80' }, { url: 'http://10.0.0.2:80' }], passHostHeader: true } },
      v2: { loadBalancer: { servers: [{ url: 'http://10.0.1.1:80' }] } },
      canary: { weighted: { services: [{ name: 'whoami', weight: 3 }, { name: 'v2', weight: 1 }] } },
      mirror: { mirroring: { service: 'whoami', mirrors: [{ name: 'v2', percent: 10 }] } },
      safe: { failover: { service: 'whoami', fallback: 'v2' } },
    },
    middlewares: {
      strip: { stripPrefix: { prefixes: ['/x'] } },
      headers: { headers: { customRequestHeaders: { 'X-Team': 'blue' }, stsSeconds: 31536000 } },
      secure: { chain: { middlewares: ['headers', 'strip'] } },
      auth: { basicAuth: { users: ['alice:$2y$10$abcdefghijklmnopqrstuv'], realm: 'shop' } },
    },
  },
  tcp: {
    routers: { db: { entryPoints: ['websecure'], rule: 'HostSNI(`db.test`)', service: 'db', tls: { passthrough: true } } },
    services: { db: { loadBalancer: { servers: [{ address: '10.0.0.3:5432' }] } } },
  },
};

function crdSnapshot(extraRouters: number, version: string): ProviderSnapshot {
  const routers: Record<string, { entryPoints: string[]; rule: string; service: string; middlewares?: string[] }> = {
    'default-shop-1a2b': { entryPoints: ['websecure'], rule: 'Host(`api.shop.test`)', service: 'default-api-80', middlewares: ['default-limit'] },
    'team-a-orders-9f9f': { entryPoints: ['web'], rule: 'Host(`orders.test`)', service: 'team-a-missing-80' },
  };
  const sources: Record<string, { apiVersion: string; kind: string; namespace: string; name: string; uid?: string; resourceVersion?: string }> = {
    'default-shop-1a2b': { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'default', name: 'shop', uid: '5f1c-shop', resourceVersion: '4711' },
    'team-a-orders-9f9f': { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'team-a', name: 'orders' },
  };
  for (let i = 0; i < extraRouters; i++) {
    const name = `default-bulk-${String(i).padStart(2, '0')}`;
    routers[name] = { entryPoints: ['web'], rule: `Path(\`/bulk/${i}\`)`, service: 'default-api-80' };
    sources[name] = { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'default', name: `bulk-${i}` };
  }
  return {
    version,
    configuration: {
      http: {
        routers,
        services: { 'default-api-80': { loadBalancer: { servers: [{ url: 'http://10.1.0.1:80' }, { url: 'http://10.1.0.2:80' }] } } },
        middlewares: { 'default-limit': { rateLimit: { average: 100, burst: 50 } } },
      },
    },
    serverStatus: { 'default-api-80': { 'http://10.1.0.2:80': 'DOWN' } },
    sources: {
      http: {
        routers: sources,
        services: { 'default-api-80': { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'default', name: 'shop' } },
        middlewares: { 'default-limit': { apiVersion: 'portico.dev/v1alpha1', kind: 'Middleware', namespace: 'default', name: 'limit' } },
      },
    },
  };
}

describe('dashboard in headless Chromium', () => {
  let app: FastifyInstance;
  let store: RecordStore;
  let browser: Browser;
  let page: Page;
  let base: string;
  const errors: string[] = [];

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }
  async function open(hash: string, selector: string): Promise<void> {
    await page.goto(`${base}/dashboard/${hash}`);
    await page.waitForSelector(selector);
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install the Debian package "chromium"`);
    mkdirSync(SHOTS, { recursive: true });
    console.log(`dashboard screenshots: ${SHOTS}`);
    store = storeWith({ file: FILE });
    store.set('kubernetescrd', crdSnapshot(30, 'v1'));
    app = apiFor(store);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const addr = app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    // No external calls: every request the page makes goes to the server under test.
    page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) errors.push(`external request ${r.url()}`); });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    console.log(`dashboard screenshots written to ${SHOTS}`);
  });

  it('redirects / to the overview: entry points, features, providers, health charts with counts said right', async () => {
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    await page.waitForSelector('#overview .card');
    expect(await page.$$eval('#entrypoints tbody tr', (rows) => rows.map((r) => r.getAttribute('data-name')))).toEqual(['traefik', 'web', 'websecure']);
    expect(await page.textContent('#features')).toContain('Access log');
    expect(await page.$$eval('#providers li', (li) => li.map((l) => l.textContent))).toEqual(['File', 'KubernetesCRD']);
    expect(await page.locator('#overview .card').count()).toBe(8);
    // 7 file routers + 32 CRD routers + 2 internal; broken@file and the orders router are errors, stray@file a warning.
    const card = page.locator('[data-overview="http-routers"]');
    expect(await card.locator('.total').textContent()).toBe('41');
    expect(await card.locator('.legend').textContent()).toContain('1 warning');
    expect(await card.locator('.legend').textContent()).toContain('2 errors');
    expect(await page.locator('[data-overview="tcp-routers"] .legend').textContent()).toContain('0 errors');
    expect(await page.textContent('[data-overview="tcp-routers"] .legend')).toContain('1 success');
    expect(await card.locator('svg[role="img"] circle.seg').count()).toBe(3);
    expect(await card.locator('svg').getAttribute('aria-label')).toBe('HTTP Routers health: 38 successes, 1 warning, 2 errors');
    expect(await page.textContent('#problems-link')).toBe('3 problems: see what is wrong and why');
    expect(await page.locator('#kinds').isHidden()).toBe(true);
    await shot('01-overview');
  });

  it('lists HTTP routers with why a router is disabled, no count cards, and pages with X-Next-Page', async () => {
    await open('#/http/routers', '#records tbody tr');
    expect(await page.locator('#overview').count()).toBe(0);
    expect(await page.locator('#records tbody tr').count()).toBe(25);
    expect(await page.textContent('tr[data-name="broken@file"] .why')).toContain('the service "ghost@file" does not exist');
    expect(await page.textContent('#page')).toBe('Page 1');
    await shot('02-http-routers');
    await page.click('#next');
    await expect.poll(() => new URL(page.url()).hash).toBe('#/http/routers?page=2');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(16);
    expect(await page.isDisabled('#next')).toBe(true);
    expect(await page.textContent('tr[data-name="stray@file"] .badge')).toBe('warning');
    expect(await page.textContent('tr[data-name="stray@file"] .why')).toContain('entryPoint "nowhere" doesn\'t exist');
  });

  it('searches, filters by status, sorts', async () => {
    await open('#/http/routers', '#records tbody tr');
    await page.fill('#search', 'whoami.test');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(1);
    expect(await page.getAttribute('#records tbody tr', 'data-name')).toBe('whoami@file');
    await page.fill('#search', '');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(25);
    await page.selectOption('#status', 'disabled');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(2);
    await page.selectOption('#sort', 'priority');
    await page.waitForSelector('#records tbody tr');
    await page.click('#direction');
    await expect.poll(() => new URL(page.url()).hash).toBe('#/http/routers?status=disabled&sortBy=priority&direction=desc');
    await expect.poll(() => page.getAttribute('#records tbody tr:first-child', 'data-name')).toBe('team-a-orders-9f9f@kubernetescrd');
  });

  it('filters by namespace and by entry point (Portico\'s list endpoint)', async () => {
    await open('#/http/routers', '#namespace');
    expect(await page.$$eval('#namespace option', (o) => o.map((x) => x.getAttribute('value')))).toEqual(['', 'default', 'team-a']);
    await page.selectOption('#namespace', 'team-a');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(1);
    expect(await page.getAttribute('#records tbody tr', 'data-name')).toBe('team-a-orders-9f9f@kubernetescrd');
    expect(await page.textContent('#records tbody tr')).toContain('team-a/orders');
    await page.selectOption('#namespace', '');
    await page.waitForSelector('#entrypoint');
    await page.selectOption('#entrypoint', 'websecure');
    await expect.poll(async () => (await page.$$eval('#records tbody tr', (r) => r.map((x) => x.getAttribute('data-name')))).join(' '))
      .toBe('default-shop-1a2b@kubernetescrd shopfront@file');
    expect(new URL(page.url()).hash).toBe('#/http/routers?entryPoint=websecure');
    await shot('03-filter-entrypoint');
  });

  it('shows a router with its TLS section, source and the flow to its servers', async () => {
    await open(`#/http/routers/${encodeURIComponent('shopfront@file')}`, '#flow ol.flow');
    expect(await page.textContent('#tls')).toContain('modern');
    expect(await page.textContent('#tls')).toContain('shop.test (also www.shop.test)');
    expect(await page.textContent('#tls')).toContain('Cert resolver');
    expect(await page.textContent('#flow-entrypoints')).toContain('websecure');
    expect(await page.textContent('#flow-service')).toContain('canary@file');
    // The weighted service's children, each with its servers.
    expect(await page.textContent('#flow-servers')).toContain('whoami@file');
    expect(await page.textContent('#flow-servers')).toContain('http://10.0.1.1:80');
    expect(await page.locator('#raw').isVisible()).toBe(false);
    await shot('04-router-tls-flow');
    await open(`#/http/routers/${encodeURIComponent('whoami@file')}`, '#flow ol.flow');
    expect(await page.$$eval('#flow-middlewares li a', (a) => a.map((x) => x.textContent))).toEqual(['strip@file', 'secure@file']);
    expect(await page.textContent('#flow-servers')).toContain('http://10.0.0.2:80');
    await shot('05-router-flow');
  });

  it('highlights a DOWN server and does not call its service plainly enabled; shows the Kubernetes source', async () => {
    await open(`#/http/routers/${encodeURIComponent('default-shop-1a2b@kubernetescrd')}`, '#flow ol.flow');
    expect(await page.textContent('#kubectl')).toBe('kubectl get ingressroute.portico.dev shop -n default -o yaml');
    expect(await page.textContent('#source')).toContain('IngressRoute');
    expect(await page.textContent('#source')).toContain('5f1c-shop');
    expect(await page.textContent('#source')).toContain('4711 (as translated)');
    expect(await page.locator('#flow-servers li.down').textContent()).toContain('http://10.1.0.2:80');
    expect(await page.textContent('#flow-service .badge')).toBe('degraded');
    await shot('06-crd-router-source-flow');
    await open(`#/http/services/${encodeURIComponent('default-api-80@kubernetescrd')}`, '#servers');
    expect(await page.textContent('#detail-title .badge')).toBe('degraded');
    expect(await page.textContent('#health-note')).toBe('Health: degraded \u2014 1 of 2 servers DOWN');
    expect(await page.locator('#servers tr.down').count()).toBe(1);
    expect(await page.textContent('#servers tr.down')).toContain('DOWN');
    await shot('07-service-down');
    await open('#/http/services', '#records tbody tr');
    expect(await page.textContent('tr[data-name="default-api-80@kubernetescrd"] .badge')).toBe('degraded');
    expect(await page.textContent('tr[data-name="default-api-80@kubernetescrd"]')).toContain('1 of 2 up');
  });

  it('renders every service kind as fields with children as links', async () => {
    await open(`#/http/services/${encodeURIComponent('canary@file')}`, '#children');
    expect(await page.$$eval('#children tbody tr', (r) => r.map((x) => x.getAttribute('data-child')))).toEqual(['whoami@file', 'v2@file']);
    expect(await page.textContent('#children')).toContain('3');
    await shot('08-service-weighted');
    await page.click('#children a:has-text("v2@file")');
    await page.waitForSelector('#servers');
    expect(await page.textContent('#detail-title .name')).toBe('v2@file');
    await open(`#/http/services/${encodeURIComponent('mirror@file')}`, '#mirroring');
    expect(await page.textContent('#mirroring')).toContain('whoami@file');
    expect(await page.textContent('#children')).toContain('10');
    await shot('09-service-mirroring');
    await open(`#/http/services/${encodeURIComponent('safe@file')}`, '#failover');
    expect(await page.textContent('#failover')).toContain('Fallback');
    expect(await page.textContent('#failover a >> nth=1')).toBe('v2@file');
    await shot('10-service-failover');
    await open(`#/http/services/${encodeURIComponent('whoami@file')}`, '#lb-options');
    expect(await page.textContent('#lb-options')).toContain('Pass host header');
    expect(await page.textContent('#used-by')).toContain('team/app@file');
    await open(`#/tcp/services/${encodeURIComponent('db@file')}`, '#servers');
    expect(await page.textContent('#servers')).toContain('10.0.0.3:5432');
  });

  it('renders middleware kinds as readable fields: chain links, hidden password hashes, header maps', async () => {
    await open(`#/http/middlewares/${encodeURIComponent('secure@file')}`, '#options');
    expect(await page.$$eval('#options a', (a) => a.map((x) => x.textContent))).toEqual(['headers@file', 'strip@file']);
    await open(`#/http/middlewares/${encodeURIComponent('auth@file')}`, '#options');
    expect(await page.textContent('#options')).toContain('alice (password hash hidden)');
    expect(await page.textContent('#options')).not.toContain('$2y$');
    await shot('11-middleware-basicauth');
    await open(`#/http/middlewares/${encodeURIComponent('headers@file')}`, '#options');
    expect(await page.textContent('#options')).toContain('Custom request headers');
    expect(await page.textContent('#options')).toContain('X-Team');
    expect(await page.textContent('#options')).toContain('31536000');
    await shot('12-middleware-headers');
    await open(`#/http/middlewares/${encodeURIComponent('default-limit@kubernetescrd')}`, '#source');
    expect(await page.textContent('#kubectl')).toBe('kubectl get middleware.portico.dev limit -n default -o yaml');
  });

  it('lists every problem with its error and source', async () => {
    await open('#/problems', '#problem-table');
    expect(await page.textContent('#problems-summary')).toBe('3 problems: 2 errors, 1 warning.');
    const names = await page.$$eval('#problem-table tbody tr', (r) => r.map((x) => x.getAttribute('data-name')));
    expect(names.sort()).toEqual(['broken@file', 'stray@file', 'team-a-orders-9f9f@kubernetescrd']);
    const orders = page.locator('tr[data-name="team-a-orders-9f9f@kubernetescrd"]');
    expect(await orders.textContent()).toContain('the service "team-a-missing-80@kubernetescrd" does not exist');
    expect(await orders.textContent()).toContain('kubectl get ingressroute.portico.dev orders -n team-a -o yaml');
    expect(await page.textContent('tr[data-name="stray@file"]')).toContain('entryPoint "nowhere" doesn\'t exist');
    await shot('13-problems');
  });

  it('refreshes live when records change, keeping the search being typed', async () => {
    await open('#/http/routers?search=bulk', '#records tbody tr');
    expect(await page.locator('#records tbody tr').count()).toBe(25);
    await page.focus('#search');
    store.set('kubernetescrd', crdSnapshot(0, 'v2'));
    await expect.poll(() => page.locator('#records tbody tr').count(), { timeout: 20_000 }).toBe(0);
    expect(await page.isVisible('#empty')).toBe(true);
    expect(await page.textContent('#live')).toMatch(/^Updated at /);
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('search');
    store.set('kubernetescrd', crdSnapshot(3, 'v3'));
    await expect.poll(() => page.locator('#records tbody tr').count(), { timeout: 20_000 }).toBe(3);
    await shot('14-live-refresh');
    // The poll is answered 304 while nothing changes.
    const first = await fetch(`${base}/api/portico/changes`);
    const etag = first.headers.get('etag') ?? '';
    expect((await fetch(`${base}/api/portico/changes`, { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('follows prefers-color-scheme and the theme toggle', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await open('#/', '#overview .card');
    const bg = () => page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(await bg()).toBe('rgb(18, 22, 30)');
    expect(await page.getAttribute('#theme', 'aria-pressed')).toBe('true');
    await shot('15-overview-dark');
    await open(`#/http/routers/${encodeURIComponent('default-shop-1a2b@kubernetescrd')}`, '#flow ol.flow');
    await shot('16-router-dark');
    await page.click('#theme');
    expect(await bg()).toBe('rgb(246, 247, 250)');
    await page.reload();
    await page.waitForSelector('#detail');
    expect(await bg()).toBe('rgb(246, 247, 250)');
    expect(await page.getAttribute('#theme', 'aria-pressed')).toBe('false');
    await page.click('#theme');
    expect(await bg()).toBe('rgb(18, 22, 30)');
    await page.evaluate('localStorage.removeItem("portico-theme")');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('works from the keyboard with labelled controls', async () => {
    await open('#/http/routers', '#records tbody tr');
    await page.locator('body').focus();
    await page.keyboard.press('/');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('search');
    expect(await page.getAttribute('#search', 'aria-label')).toBe('Search routers');
    expect(await page.getAttribute('nav.main a[data-nav="http"]', 'aria-current')).toBe('page');
    await page.focus('tr[data-name="broken@file"] a');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#detail');
    expect(await page.textContent('#errors')).toContain('the service "ghost@file" does not exist');
    // Every form control has an accessible name.
    await open('#/http/routers', '#entrypoint');
    const unlabelled = await page.$$eval('input, select, button', (els) => els.filter((e) => !e.getAttribute('aria-label') && !(e.textContent ?? '').trim()).length);
    expect(unlabelled).toBe(0);
    expect(errors, errors.join('; ')).toEqual([]);
  });
});
