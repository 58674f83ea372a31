#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import type { Logger } from 'pino';
import { ConfigError, type FlagTable } from './config/flag-types.js';
import { EnvironmentError } from './config/start-up-errors.js';
import { requestIdSequence } from './http/request-ids.js';
import { createLogger } from './log/logger.js';
import { operatorCommandFlags, operatorFlagGroups, serveFlagGroups, serveFlags } from './flag-groups.js';
import { formatHelp, loadConfig } from './config/load-config.js';
import { smallYoungGeneration } from './config/common-flags.js';
import { keepYoungGenerationSmall } from './http/young-generation.js';

const USAGE = `Usage: portico <command> [flags]

Commands:
  serve       Start the push gateway (:9091), management API (:8080) and search (:9200) listeners
  operator    Watch a Kubernetes cluster and deliver its routing records to the management API

Flags: portico serve --help, portico operator --help. Also: portico --version.`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Whether a start-up failure prints its stack (set once the flags are read: --log.level debug). */
let stacksWanted = false;

function load<T extends FlagTable>(table: T, argv: string[]) {
  return loadConfig(table, { argv, env: process.env, readFile: (p) => readFileSync(p, 'utf8') });
}

function processLogger(config: { readonly 'log.level': 'debug' | 'info' | 'warn' | 'error'; readonly 'log.format': 'auto' | 'logfmt' | 'json' }): Logger {
  stacksWanted = config['log.level'] === 'debug';
  return createLogger({ level: config['log.level'], format: config['log.format'], stdoutIsTerminal: process.stdout.isTTY === true });
}

/**
 * Turns SIGTERM/SIGINT (and /-/quit) into one graceful shutdown: stop accepting, finish in-flight
 * requests, flush state, exit 0. A second signal, or the shutdown timeout, exits at once.
 */
function onShutdown(logger: Logger, timeoutMs: number, close: () => Promise<void>): (reason: string) => void {
  let started = false;
  const shutdown = (reason: string) => {
    if (started) {
      logger.warn({ reason }, 'second shutdown request, exiting now');
      process.exit(1);
    }
    started = true;
    logger.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'graceful shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    close().then(
      () => {
        logger.info('shutdown complete');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  return shutdown;
}

async function serve(argv: string[]): Promise<void> {
  const startedAt = performance.now();
  const config = load(serveFlags, argv);
  // V8 reads --optimize-for-size whenever it sizes the heap after a collection, so setting it before
  // anything is built applies it to everything the stores keep (bench/README.md, push gateway).
  if (config['runtime.optimize-for-size']) setFlagsFromString('--optimize-for-size');
  if (smallYoungGeneration(config)) keepYoungGenerationSmall();
  const logger = processLogger(config);
  let shutdown: (reason: string) => void = () => undefined;
  // Each command loads only its own code: the operator starts (and syncs) without the server's.
  const { buildServer } = await import('./server.js');
  const server = await buildServer(config, {
    logger,
    now: Date.now,
    requestShutdown: (reason) => shutdown(reason),
    // One sequence for the process: a request id names one request whichever listener took it.
    nextRequestId: requestIdSequence(),
  });
  shutdown = onShutdown(logger, config['shutdown.timeout'], () => server.close());
  const ports = await server.start();
  logger.info({ listeners: Object.fromEntries(ports), version: version(), ms: Math.round(performance.now() - startedAt) }, 'portico started');
}

async function operator(argv: string[]): Promise<void> {
  const config = load(operatorCommandFlags, argv);
  const logger = processLogger(config);
  const controller = new AbortController();
  let running: Promise<void> = Promise.resolve();
  // Wait for the operator to stop its watches and release its Lease before exiting.
  onShutdown(logger, config['shutdown.timeout'], async () => {
    controller.abort();
    await running.catch(() => undefined);
  });
  const { runOperator } = await import('./providers/kubernetes/run-operator.js');
  running = runOperator(config, { logger, now: Date.now, signal: controller.signal });
  await running;
}

async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  switch (command) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return;
    case '--version':
    case 'version':
      process.stdout.write(`portico ${version()}\n`);
      return;
    case 'serve':
      if (wantsHelp) process.stdout.write(formatHelp('Usage: portico serve [flags]', serveFlagGroups));
      else await serve(rest);
      return;
    case 'operator':
      if (wantsHelp) process.stdout.write(formatHelp('Usage: portico operator [flags]', operatorFlagGroups));
      else await operator(rest);
      return;
    default:
      throw new ConfigError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

/** The cause chain's stacks, for --log.level debug. */
function stacks(err: Error): string {
  const cause = err.cause instanceof Error ? `\ncaused by: ${stacks(err.cause)}` : '';
  return `${err.stack ?? err.message}${cause}`;
}

main(process.argv.slice(2)).catch((err: unknown) => {
  // Expected failures are one line (naming the flag and what to do); a bug keeps its stack.
  if (err instanceof ConfigError || err instanceof EnvironmentError) {
    process.stderr.write(`portico: ${err.message}\n`);
    if (stacksWanted) process.stderr.write(`${stacks(err)}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
  process.stderr.write(`portico: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
