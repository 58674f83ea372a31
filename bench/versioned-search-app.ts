/**
 * A search app of another checkout's code beside this one's, for in-process before/after probes
 * (search-query-probe.ts --against, search-phrase-probe.ts --against): the version in `root` is
 * loaded from its own sources, so both run in one process and can be timed request by request.
 */
import { resolve } from 'node:path';
import { pino } from 'pino';
import { serveFlags } from '../src/flag-groups.js';
import { loadConfig } from '../src/config/load-config.js';
import { buildSearchApp } from '../src/search/app.js';

export type SearchApp = Awaited<ReturnType<typeof buildSearchApp>>;

/** A search app of the version in `root` (this one when undefined), on a fresh data dir. */
export async function buildVersionedApp(root: string | undefined, dataDir: string): Promise<SearchApp> {
  const load = root === undefined ? loadConfig : ((await import(resolve(root, 'src/config/load-config.ts'))) as { loadConfig: typeof loadConfig }).loadConfig;
  const flags = root === undefined ? serveFlags : ((await import(resolve(root, 'src/flag-groups.ts'))) as { serveFlags: typeof serveFlags }).serveFlags;
  const build = root === undefined ? buildSearchApp : ((await import(resolve(root, 'src/search/app.ts'))) as { buildSearchApp: typeof buildSearchApp }).buildSearchApp;
  const config = load(flags, { argv: ['--data.dir', dataDir, '--search.durability', 'async'], env: {}, readFile: () => '' });
  return build(config, { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
}
