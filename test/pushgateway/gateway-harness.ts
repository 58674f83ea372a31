import { afterEach } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { serveFlags, type ServeConfig } from '../../src/flag-groups.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildPushgatewayApp } from '../../src/pushgateway/app.js';
import type { MetricFamily } from '../../src/pushgateway/model.js';

/** A ServeConfig from flags, persistence off unless asked, as the CLI would build it. */
export function gatewayConfig(argv: string[] = []): ServeConfig {
  const withPersistence = argv.some((a) => a.startsWith('--persistence.file'));
  return loadConfig(serveFlags, {
    argv: [...(withPersistence ? [] : ['--persistence.file=off']), ...argv],
    env: {},
    readFile: () => {
      throw new Error('no config file in tests');
    },
  });
}

/** A settable clock for TTL and push-time tests. */
export class TestClock {
  constructor(public ms = Date.UTC(2026, 0, 2, 3, 4, 5, 678), private readonly real = false) {}
  /** A clock that follows the wall clock (for tests against real peers). */
  static real(): TestClock {
    return new TestClock(0, true);
  }
  now = (): number => (this.real ? Date.now() : this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface Harness {
  readonly app: FastifyInstance;
  readonly clock: TestClock;
  readonly shutdowns: string[];
}

export async function buildGateway(argv: string[] = [], clock = new TestClock()): Promise<Harness> {
  const shutdowns: string[] = [];
  const app = await buildPushgatewayApp(gatewayConfig(argv), {
    logger: pino({ level: 'silent' }),
    now: clock.now,
    requestShutdown: (r) => shutdowns.push(r),
  });
  await app.ready();
  return { app, clock, shutdowns };
}

/** The text exposition without the gateway's own metrics (process_, nodejs_, pushgateway_). */
export function pushedOnly(text: string): string {
  const out: string[] = [];
  let keep = true;
  for (const line of text.split('\n')) {
    const m = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    const name = m ? m[1] : line.split(/[{ ]/, 1)[0];
    if (m) keep = !/^(process_|nodejs_|pushgateway_)/.test(name ?? '');
    if (keep && line !== '') out.push(line);
  }
  return out.join('\n') + (out.length > 0 ? '\n' : '');
}

/** Builds the app and listens on 127.0.0.1 port 0; returns the base URL. */
export async function listenGateway(argv: string[] = [], clock = new TestClock()): Promise<Harness & { url: string }> {
  const h = await buildGateway(argv, clock);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = h.app.server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return { ...h, url: `http://127.0.0.1:${port}` };
}

/**
 * A family of one unlabelled histogram without help, as the parsers read one; `buckets` are
 * `[upperBound, cumulativeCount]` pairs.
 */
export function histogramFamily(name: string, sampleCount: number, sampleSum: number, buckets: readonly (readonly [number, number])[]): MetricFamily {
  const histogram = { sampleCount, sampleSum, buckets: buckets.map(([upperBound, cumulativeCount]) => ({ upperBound, cumulativeCount })) };
  return { name, help: undefined, type: 'histogram', metrics: [{ labels: [], histogram }] };
}

/**
 * For test files that build one gateway per test: returns buildGateway, and closes the last
 * gateway it built after each test of the file.
 */
export function gatewaysClosedAfterEach(): (argv?: string[], clock?: TestClock) => Promise<Harness> {
  let open: Harness | undefined;
  afterEach(async () => {
    await open?.app.close();
    open = undefined;
  });
  return async (argv = [], clock = new TestClock()) => (open = await buildGateway(argv, clock));
}
