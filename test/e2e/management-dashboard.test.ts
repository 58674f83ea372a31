import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/load-config.js';
import { serveFlags } from '../../src/flag-groups.js';
import { buildManagementApps } from '../../src/management/app.js';
import { inProcessProviders } from '../../src/server.js';
import { silentLogger } from '../management/helpers.js';

const CHROMIUM = '/usr/bin/chromium';

const DYNAMIC = `
http:
  routers:
    whoami:
      entryPoints: [web]
      rule: Host(\`whoami.test\`) && PathPrefix(\`/x\`)
      service: whoami
      middlewares: [strip]
    broken:
      entryPoints: [web]
      rule: Path(\`/broken\`)
      service: ghost
    "team/app":
      entryPoints: [web]
      rule: Path(\`/team\`)
      service: whoami
  services:
    whoami:
      loadBalancer:
        servers: [{ url: "http://10.0.0.1:80" }]
  middlewares:
    strip:
      stripPrefix: { prefixes: [/x] }
tcp:
  routers:
    db: { entryPoints: [websecure], rule: "HostSNI(\`db.test\`)", service: db, tls: { passthrough: true } }
  services:
    db: { loadBalancer: { servers: [{ address: "10.0.0.2:5432" }] } }
`;

describe('dashboard in headless Chromium', () => {
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install the Debian package "chromium"`);
    const dir = mkdtempSync(join(tmpdir(), 'portico-dash-'));
    const file = join(dir, 'dynamic.yaml');
    writeFileSync(file, DYNAMIC);
    const config = loadConfig(serveFlags, {
      argv: ['--data.dir', dir, '--providers.file.filename', file, '--providers.file.watch=false', '--internal.listen-address', 'off'],
      env: {},
      readFile: () => '',
    });
    const deps = { logger: silentLogger, now: Date.now, requestShutdown: () => undefined };
    const apps = await buildManagementApps(config, deps, inProcessProviders(config, deps));
    app = apps.api;
    await app.listen({ host: '127.0.0.1', port: 0 });
    const addr = app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('redirects / to the dashboard and lists HTTP routers with their status', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    await page.waitForSelector('#records tbody tr');
    const names = await page.$$eval('#records tbody tr', (rows) => rows.map((r) => r.getAttribute('data-name')));
    expect(names).toEqual(['api@internal', 'broken@file', 'dashboard@internal', 'team/app@file', 'whoami@file']);
    expect(await page.textContent('tr[data-name="broken@file"] .badge')).toBe('disabled');
    expect(await page.textContent('tr[data-name="whoami@file"] .badge')).toBe('enabled');
    expect(await page.textContent('[data-overview="http-routers"] .total')).toBe('5');
    expect(await page.textContent('#version')).toContain('3.7.9');
    expect(errors, errors.join('; ')).toEqual([]);
  });

  it('searches and filters by status', async () => {
    await page.fill('#search', 'whoami.test');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(1);
    expect(await page.getAttribute('#records tbody tr', 'data-name')).toBe('whoami@file');
    await page.fill('#search', '');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(5);
    await page.selectOption('#status', 'disabled');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(1);
    expect(await page.getAttribute('#records tbody tr', 'data-name')).toBe('broken@file');
  });

  it('sorts by a column and direction', async () => {
    await page.goto(`${base}/dashboard/#/http/routers`);
    await page.waitForSelector('#records tbody tr');
    await page.selectOption('#sort', 'priority');
    await expect.poll(() => new URL(page.url()).hash).toBe('#/http/routers?sortBy=priority');
    await page.waitForSelector('#records tbody tr');
    await page.click('#direction');
    await expect.poll(() => page.getAttribute('#records tbody tr:first-child', 'data-name')).toBe('api@internal');
    expect(new URL(page.url()).hash).toBe('#/http/routers?sortBy=priority&direction=desc');
    await page.selectOption('#status', 'disabled');
    await expect.poll(() => page.locator('#records tbody tr').count()).toBe(1);
  });

  it('opens a detail view with the error text', async () => {
    await page.click('tr[data-name="broken@file"]');
    await page.waitForSelector('#detail');
    expect(await page.textContent('#detail h2')).toBe('broken@file');
    expect(await page.textContent('#errors')).toContain('the service "ghost@file" does not exist');
  });

  it('opens a record whose name holds a slash', async () => {
    await page.goto(`${base}/dashboard/#/http/routers`);
    await page.waitForSelector('tr[data-name="team/app@file"]');
    await page.click('tr[data-name="team/app@file"]');
    await page.waitForSelector('#detail');
    expect(await page.textContent('#detail h2')).toBe('team/app@file');
  });

  it('shows services with used-by links and TCP routers', async () => {
    await page.goto(`${base}/dashboard/#/http/services/${encodeURIComponent('whoami@file')}`);
    await page.waitForSelector('#detail');
    expect(await page.textContent('#detail')).toContain('team/app@file');
    expect(await page.textContent('#detail')).toContain('http://10.0.0.1:80 UP');
    await page.click('nav.protocols a[data-protocol="tcp"]');
    await page.waitForSelector('#records tbody tr[data-name="db@file"]');
    await page.click('#kinds a:has-text("Services")');
    await page.waitForSelector('#records tbody tr[data-name="db@file"]');
    expect(await page.textContent('#records tbody tr[data-name="db@file"]')).toContain('loadbalancer');
  });

  it('pages with X-Next-Page', async () => {
    await page.goto(`${base}/dashboard/#/http/middlewares`);
    await page.waitForSelector('#records tbody tr');
    expect(await page.isDisabled('#next')).toBe(true);
    expect(await page.isDisabled('#prev')).toBe(true);
  });
});
