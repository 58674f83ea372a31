import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { expect } from 'vitest';
import { serveFlags, type ServeConfig } from '../../src/flag-groups.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildSearchApp } from '../../src/search/app.js';

/** A search app on a fresh temporary data directory. */
export interface SearchHarness {
  readonly app: FastifyInstance;
  readonly dataDir: string;
  /** Closes the app (and its store) and builds a new one on the same data directory. */
  restart(): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export function searchConfig(dataDir: string, extra: string[] = []): ServeConfig {
  return loadConfig(serveFlags, {
    // No indexing warm-up (about half a second per app): tests that want it pass the flag in `extra`.
    argv: ['--data.dir', dataDir, '--search.durability', 'async', '--search.warmup-docs', '0', ...extra],
    env: {},
    readFile: () => '',
  });
}

export async function startSearch(extra: string[] = []): Promise<SearchHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-search-'));
  const deps = { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined };
  let app = await buildSearchApp(searchConfig(dataDir, extra), deps);
  return {
    get app() {
      return app;
    },
    dataDir,
    async restart() {
      await app.close();
      app = await buildSearchApp(searchConfig(dataDir, extra), deps);
      return app;
    },
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `POST <url>` with a JSON body, expecting 200; the answer's text with `took` left out, so that two
 * answers can be compared byte for byte.
 */
export async function searchText(h: SearchHarness, url: string, body: unknown): Promise<string> {
  const res = await h.app.inject({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(res.statusCode).toBe(200);
  return res.body.replace(/^\{"took":\d+,/, '{');
}

/**
 * `method url` on `app` with `body` (none when undefined; a string is sent as NDJSON, anything else
 * as JSON): the status and the parsed answer.
 */
export async function injectJson<B = Record<string, unknown>>(app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown): Promise<{ status: number; body: B }> {
  const res = await app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' } }),
  });
  return { status: res.statusCode, body: res.json() as B };
}
