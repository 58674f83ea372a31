import type { FastifyInstance } from 'fastify';
import type { AreaDeps } from './area.js';
import type { ListenAddress } from './config/flag-types.js';
import type { ServeConfig } from './flag-groups.js';
import { EnvironmentError, errnoCode, prepareDataDir } from './config/start-up-errors.js';
import { formatAddress, listenOn } from './http/listen.js';
import { drainListeners } from './http/shutdown-gate.js';
import { buildManagementApps, type InProcessProviderSpec } from './management/app.js';
import { FILE_PROVIDER, FileProvider } from './providers/file/file-provider.js';
import { buildPushgatewayApp } from './pushgateway/app.js';
import { buildSearchApp } from './search/app.js';

export type ListenerName = 'pushgateway' | 'management' | 'internal' | 'search';

export interface Listener {
  readonly name: ListenerName;
  readonly app: FastifyInstance;
  readonly address: ListenAddress;
}

export interface PorticoServer {
  readonly listeners: readonly Listener[];
  /** Listens on every configured address; returns the bound ports by listener name. */
  start(): Promise<Map<ListenerName, number>>;
  /** Stops accepting, finishes in-flight requests, then runs each area's shutdown (state flush). */
  close(): Promise<void>;
}

/**
 * The providers that run in the server's process, as the configuration turns them on: the file
 * provider when `--providers.file.filename` or `--providers.file.directory` is set. Created here, not by the management area, so
 * that area depends on no provider; it creates them over its record store and starts them.
 */
export function inProcessProviders(config: ServeConfig, deps: AreaDeps): InProcessProviderSpec[] {
  const filename = config['providers.file.filename'];
  const directory = config['providers.file.directory'];
  if (filename === '' && directory === '') return [];
  const logger = deps.logger.child({ area: 'management', provider: FILE_PROVIDER });
  return [{
    name: FILE_PROVIDER,
    create: (sink) => new FileProvider({ filename, ...(directory === '' ? {} : { directory }), watch: config['providers.file.watch'], sink, logger }),
  }];
}

/** Whether any enabled part keeps a file under `--data.dir` (its default places). */
function usesDataDir(config: ServeConfig): boolean {
  const search = config['search.listen-address'] !== null;
  const pushgateway = config['pushgateway.listen-address'] !== null && config['persistence.file'].trim() === '';
  const token = config['management.listen-address'] !== null && config['internal.listen-address'] !== null && config['internal.token-file'] === '';
  return search || pushgateway || token;
}

/** What to do when a listener cannot bind, by the reason Node gives. */
function listenFailure(l: Listener, err: unknown): Error {
  const code = errnoCode(err);
  const head = `--${l.name}.listen-address ${formatAddress(l.address)}`;
  if (code === 'EADDRINUSE') return new EnvironmentError(`${head} is in use by another process; stop that process or choose another address (host:port, or off)`, { cause: err });
  if (code === 'EACCES') return new EnvironmentError(`${head}: binding port ${l.address.port} is not permitted for this user (EACCES); use a port above 1023 or grant CAP_NET_BIND_SERVICE`, { cause: err });
  if (code === 'EADDRNOTAVAIL') return new EnvironmentError(`${head}: ${l.address.host} is not an address of this machine (EADDRNOTAVAIL); use one of its addresses, or :${l.address.port} for all`, { cause: err });
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new EnvironmentError(`${head}: the host name ${l.address.host} does not resolve (${code}); use an IP address`, { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Builds every enabled listener's Fastify app without listening, so that tests can use the apps
 * with inject() or start() on port 0; only src/cli.ts starts the real thing.
 */
export async function buildServer(config: ServeConfig, deps: AreaDeps): Promise<PorticoServer> {
  if (usesDataDir(config)) prepareDataDir(config['data.dir']);
  const listeners: Listener[] = [];
  const add = (name: ListenerName, app: FastifyInstance, address: ListenAddress) => listeners.push({ name, app, address });

  const pushAddr = config['pushgateway.listen-address'];
  if (pushAddr) add('pushgateway', await buildPushgatewayApp(config, deps), pushAddr);

  const mgmtAddr = config['management.listen-address'];
  if (mgmtAddr) {
    const apps = await buildManagementApps(config, deps, inProcessProviders(config, deps));
    add('management', apps.api, mgmtAddr);
    const internalAddr = config['internal.listen-address'];
    if (apps.internal && internalAddr) add('internal', apps.internal, internalAddr);
  }

  const searchAddr = config['search.listen-address'];
  if (searchAddr) add('search', await buildSearchApp(config, deps), searchAddr);

  let closing: Promise<void> | undefined;
  return {
    listeners,
    async start() {
      const ports = new Map<ListenerName, number>();
      for (const l of listeners) {
        try {
          ports.set(l.name, await listenOn(l.app, l.address));
        } catch (err) {
          throw listenFailure(l, err);
        }
      }
      return ports;
    },
    close() {
      closing ??= drainListeners(
        listeners.map((l) => l.app),
        // Half of --shutdown.timeout serves what comes (a Service's endpoints take a moment to
        // drop a terminating pod); the other half finishes what is in flight.
        config['shutdown.timeout'] / 2,
        (inFlight) => deps.logger.info({ inFlight }, 'no longer taking requests; finishing those in flight'),
      )
        .then(() => Promise.allSettled(listeners.map((l) => l.app.close())))
        .then((results) => {
          const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
          if (failed.length > 0) throw new AggregateError(failed.map((f) => f.reason as unknown), 'shutdown failed');
        });
      return closing;
    },
  };
}
