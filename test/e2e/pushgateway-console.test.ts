import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, listenGateway, type Harness } from '../pushgateway/gateway-harness.js';
import { requireBinary } from '../pushgateway/peer-processes.js';

let browser: Browser | undefined;
let gw: (Harness & { url: string }) | undefined;

beforeAll(async () => {
  const executablePath = requireBinary('/usr/bin/chromium', 'chromium');
  gw = await listenGateway(['--web.enable-admin-api', '--web.route-prefix=/pg'], TestClock.real());
  browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
});

afterAll(async () => {
  await browser?.close();
  await gw?.app.close();
});

async function push(path: string, body: string): Promise<void> {
  const res = await fetch(`${gw?.url}/pg/metrics/${path}`, { method: 'PUT', body });
  expect(res.status).toBe(200);
}

describe('web console in headless Chromium', () => {
  it('lists pushed groups, shows their metrics, deletes one group, then all', async () => {
    await push('job/console_job/instance/i1', '# HELP batch_duration Seconds.\n# TYPE batch_duration gauge\nbatch_duration 12.5\n');
    await push('job/other/path@base64/L3Zhci90bXA', 'other_metric 1\n');
    const page = await (browser as Browser).newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${gw?.url}/pg/`);
    const groups = page.locator('details.group');
    await expect.poll(() => groups.count()).toBe(2);
    const first = groups.filter({ hasText: 'job="console_job"' });
    await first.locator('summary .labels').click();
    expect(await first.getAttribute('open')).not.toBeNull();
    await expect.poll(async () => (await first.locator('.family h4').allTextContents()).some((t) => /^batch_duration GAUGE last pushed \d{4}-/.test(t))).toBe(true);
    expect(await first.locator('td.value').first().textContent()).toBe('12.5');
    await Promise.all([page.waitForEvent('load'), first.locator('button.delete-group').click()]);
    await expect.poll(() => page.locator('details.group').count()).toBe(1);
    expect(await page.locator('details.group').textContent()).toContain('path="/var/tmp"');
    const api = (await (await fetch(`${gw?.url}/pg/api/v1/metrics`)).json()) as { data: unknown[] };
    expect(api.data).toHaveLength(1);

    await page.click('a[data-tab="status"]');
    await expect.poll(() => page.locator('#status').isVisible()).toBe(true);
    expect(await page.locator('#status').textContent()).toContain('web.route-prefix');
    await page.click('a[data-tab="help"]');
    await expect.poll(() => page.locator('#help').isVisible()).toBe(true);
    expect(await page.locator('#status').isVisible()).toBe(false);
    expect(await page.locator('#help').textContent()).toContain('/pg/metrics/job/backup/instance/db-1');

    await page.click('a[data-tab="metrics"]');
    await Promise.all([page.waitForEvent('load'), page.click('#delete-all')]);
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No groups pushed yet.');
    await page.close();
  });
});
