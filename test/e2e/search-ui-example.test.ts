import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPortico, type RunningPortico } from '../support/portico-process.js';

// examples/search-ui (issue 22's search UI check): the page, its proxy (serve.mjs) and its loader
// (load.mjs) against a real Portico, driven in headless Chromium. Every figure the page shows is
// checked against the same question asked of Portico directly. Screenshots go to
// <tmpdir>/portico-search-ui-shots/.

const CHROMIUM = '/usr/bin/chromium';
const EXAMPLE = new URL('../../examples/search-ui/', import.meta.url).pathname;
const CORPUS = new URL('../../../shared/data/debian-packages.ndjson.gz', import.meta.url).pathname;
const SHOTS = join(tmpdir(), 'portico-search-ui-shots');
const DOCS = 3000;

let portico: RunningPortico;
let ui: ChildProcess;
let browser: Browser;
let page: Page;
let search = '';
let base = '';
const dir = mkdtempSync(join(tmpdir(), 'portico-search-ui-'));

interface Answer {
  hits: { total: { value: number }; hits: { _source: { package: string } }[] };
  aggregations: { section: { buckets: { key: string; doc_count: number }[] } };
}

async function direct(q: string, extra: Record<string, unknown> = {}, filter: unknown[] = []): Promise<Answer> {
  const body = {
    query: { bool: { must: { multi_match: { query: q, fields: ['package^3', 'summary^2', 'description'] } }, filter } },
    track_total_hits: true,
    aggs: { section: { terms: { field: 'section', size: 12 } } },
    ...extra,
  };
  const res = await fetch(`${search}/packages/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as Answer;
}

const status = async (): Promise<string> => (await page.locator('#status').textContent()) ?? '';
/** Waits until the page's status line satisfies `ok` (the page searches asynchronously). */
const statusShows = (ok: (text: string) => boolean) => expect.poll(status, { timeout: 15_000 }).toSatisfy(ok);
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install the Debian package "chromium"`);
  mkdirSync(SHOTS, { recursive: true });
  portico = await startPortico(['--data.dir', dir, '--search.listen-address', '127.0.0.1:0', '--pushgateway.listen-address', 'off', '--management.listen-address', 'off', '--internal.listen-address', 'off']);
  search = `http://127.0.0.1:${portico.ports.search as number}`;
  const loaded = execFileSync(process.execPath, [join(EXAMPLE, 'load.mjs'), CORPUS, 'packages', String(DOCS)], { env: { ...process.env, PORTICO_SEARCH_URL: search }, encoding: 'utf8' });
  expect(loaded).toContain(`loaded ${DOCS} documents into packages`);
  ui = spawn(process.execPath, [join(EXAMPLE, 'serve.mjs')], { env: { ...process.env, PORTICO_SEARCH_URL: search, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  base = await new Promise<string>((resolve, reject) => {
    ui.stdout?.on('data', (d: Buffer) => {
      const m = /on (http:\/\/[\d.]+:\d+\/)/.exec(d.toString());
      if (m) resolve(m[1] as string);
    });
    ui.once('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(base);
  // A string, evaluated in the page (this file is type-checked without the DOM library).
  await page.waitForFunction('document.querySelector("#status").textContent.startsWith("Results")');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  ui?.kill();
  await portico?.stop();
  rmSync(dir, { recursive: true, force: true });
  console.log(`search page screenshots in ${SHOTS}`);
});

describe('examples/search-ui in headless Chromium', () => {
  it('opens on every package, ten to a page', async () => {
    expect(await status()).toMatch(new RegExp(`^Results 1–10 of ${DOCS} \\(\\d+ ms\\)$`));
    expect(await page.locator('#results li').count()).toBe(10);
    await shot('1-all');
  });

  it('a misspelled query gets highlighted results and a "did you mean" that corrects it', async () => {
    await page.fill('#q', 'pyhton web');
    await page.press('#q', 'Enter');
    await page.waitForSelector('#suggestion:not([hidden])');
    const misspelled = await direct('pyhton web');
    expect(await status()).toContain(`of ${misspelled.hits.total.value} (`);
    expect(await page.locator('#corrected').textContent()).toBe('python web');
    // The matched words are marked in what the page shows, and the text around them is escaped text.
    expect(await page.locator('#results li mark').first().textContent()).toMatch(/^web$/i);
    await shot('2-did-you-mean');
    await page.click('#corrected');
    const corrected = await direct('python web');
    await statusShows((t) => t.includes(`of ${corrected.hits.total.value} (`));
    expect(corrected.hits.total.value).toBeGreaterThan(misspelled.hits.total.value);
    expect(await page.inputValue('#q')).toBe('python web');
    expect(await page.locator('#results li .title').first().textContent()).toContain(corrected.hits.hits[0]?._source.package as string);
    expect(await page.locator('#results mark', { hasText: /^python$/i }).count()).toBeGreaterThan(0);
    await shot('3-corrected');
  });

  it('facets show the counts of the aggregation and filter the results', async () => {
    const answer = await direct('python web');
    const buckets = answer.aggregations.section.buckets;
    const buttons = await page.locator('#facet-section button').all();
    const shown = await Promise.all(buttons.map(async (b) => [await b.getAttribute('data-value'), Number(await b.locator('.count').textContent())]));
    expect(shown).toEqual(buckets.map((b) => [b.key, b.doc_count]));
    const second = buckets[1] as { key: string; doc_count: number };
    await page.click(`#facet-section button[data-value="${second.key}"]`);
    await statusShows((t) => t.includes(`of ${second.doc_count} (`));
    expect(await page.locator(`#facet-section button[data-value="${second.key}"]`).getAttribute('aria-pressed')).toBe('true');
    const filtered = await direct('python web', {}, [{ term: { section: second.key } }]);
    expect(filtered.hits.total.value).toBe(second.doc_count);
    await shot('4-facet');
    // Pressing it again takes the filter off.
    await page.click(`#facet-section button[data-value="${second.key}"]`);
    await statusShows((t) => t.includes(`of ${answer.hits.total.value} (`));
  });

  it('pages with from/size: the second page holds hits 11 to 20', async () => {
    const answer = await direct('python web', { from: 10, size: 10 });
    await page.click('#next');
    await statusShows((t) => t.startsWith('Results 11–20'));
    const titles = (await page.locator('#results li .title').allInnerTexts()).map((t) => t.split(' ')[0]);
    expect(titles).toEqual(answer.hits.hits.map((h) => h._source.package));
    expect(await page.locator('#page').textContent()).toBe(`Page 2 of ${Math.ceil(answer.hits.total.value / 10)}`);
    expect(await page.locator('#prev').isDisabled()).toBe(false);
    await shot('5-page-2');
    await page.click('#prev');
    await statusShows((t) => t.startsWith('Results 1–10'));
    expect(await page.locator('#prev').isDisabled()).toBe(true);
  });

  it('says so when Portico refuses the search, in the page', async () => {
    await page.goto(`${base}?index=no-such-index`);
    await page.waitForSelector('#status .error');
    expect(await page.locator('#status').textContent()).toBe('Search failed: no such index [no-such-index]');
  });
});
