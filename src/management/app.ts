import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AreaDeps } from '../area.js';
import type { SnapshotSink } from '../dynamic-config/configuration.js';
import { ConfigError, type ListenAddress } from '../config/flag-types.js';
import type { ManagementConfig } from './flags.js';
import type { BasicAuthVerifier } from '../http/basic-auth.js';
import { createApp } from '../http/create-app.js';
import { listenerLimits, type ListenerLimits } from '../http/listener-flags.js';
import { fastifyDialect } from '../http/listener-guard.js';
import { HeapReclaimer } from '../http/heap-reclaim.js';
import { AllowListError, IpAllowList } from '../http/ip-allow-list.js';
import { loadHtpasswdVerifier } from '../http/users-file.js';
import { registerAccessControl } from './api/access-control.js';
import { badUrlResponder, registerApiRoutes, sendPageNotFound, sendTraefikError } from './api/routes.js';
import { registerDashboard } from './dashboard/routes.js';
import { parseEntryPointList, mergeEntryPoints } from './runtime/entry-points.js';
import { managementErrors } from './errors.js';
import { TRAEFIK_ENTRY_POINT } from './runtime/internal-records.js';
import { readOrCreateToken } from './internal/token.js';
import { registerInternalRoutes } from './internal/routes.js';
import { RecordStore } from './record-store.js';
import type { EntryPointDef } from './runtime/runtime.js';

export interface ManagementApps {
  /** The Traefik-compatible API and dashboard. */
  readonly api: FastifyInstance;
  /** The loopback-only listener where providers (the operator) deliver snapshots; null when off. */
  readonly internal: FastifyInstance | null;
  /** The records both listeners share (tests and benchmarks read and feed it directly). */
  readonly store: RecordStore;
}

/** The Traefik version whose API the management listener reproduces (`/api/version`): the differential suite's peer, pinned in test/peers/traefik/go.mod. */
export const TRAEFIK_API_VERSION = '3.7.13';

/** Largest snapshot body the internal listener accepts (10,000 routers are a few MiB). */
const INTERNAL_BODY_LIMIT = 64 * 1024 * 1024;

function traefikAddress(a: ListenAddress): string {
  const host = a.host.includes(':') ? `[${a.host}]` : a.host;
  return `${host}:${a.port}`;
}

/** Portico's own listeners as entry points, plus the declared proxy entry points. */
export function entryPointsFor(config: ManagementConfig): EntryPointDef[] {
  const own: EntryPointDef[] = [];
  const addOwn = (name: string, a: ListenAddress | null) => {
    if (a) own.push({ name, address: traefikAddress(a), protocol: 'tcp', isDefault: false });
  };
  addOwn(TRAEFIK_ENTRY_POINT, config['management.listen-address']);
  addOwn('pushgateway', config['pushgateway.listen-address']);
  addOwn('search', config['search.listen-address']);
  let declared: EntryPointDef[];
  try {
    declared = parseEntryPointList(config['management.entry-points']);
  } catch (err) {
    throw new ConfigError(`--management.entry-points: ${(err as Error).message}`, { cause: err });
  }
  return mergeEntryPoints([own, declared]);
}

function loadAllowList(cidrs: readonly string[]): IpAllowList | null {
  if (cidrs.length === 0) return null;
  try {
    return new IpAllowList(cidrs);
  } catch (err) {
    if (err instanceof AllowListError) throw new ConfigError(`--management.ip-allow-list: ${err.message}`, { cause: err });
    throw err;
  }
}

export interface ManagementApiOptions {
  readonly store: RecordStore;
  readonly logger: Logger;
  /** Process start in ms since the epoch, for `/api/version`. */
  readonly startDate: number;
  readonly allowList?: IpAllowList | null;
  readonly verifier?: BasicAuthVerifier | null;
  /** Prefix of the API and dashboard, starting and ending with `/` (Traefik's `api.basePath`; default `/`). */
  readonly basePath?: string;
  /** The process's request id sequence (AreaDeps.nextRequestId). */
  readonly nextRequestId?: () => string;
  /** Timeouts and connection limit (`--http.*`); default: the flags' defaults. */
  readonly limits?: ListenerLimits;
  /** Collects the garbage of a large `/api/rawdata` body soon after it is built (`--management.heap-reclaim`). */
  readonly heap?: HeapReclaimer;
}

/** Normalises `--api.base-path`: a leading and a trailing slash, nothing else changed. */
export function normaliseBasePath(raw: string): string {
  const v = raw.trim();
  if (v === '' || v === '/') return '/';
  if (!/^\/?[A-Za-z0-9._~\-/]+$/.test(v) || v.includes('//')) {
    throw new ConfigError(`--api.base-path: "${raw}" is not a path prefix like /traefik/`);
  }
  return `${v.startsWith('/') ? '' : '/'}${v}${v.endsWith('/') ? '' : '/'}`;
}

/** The management listener's app (API, dashboard, /ping) over a record store. */
export function createManagementApi(opts: ManagementApiOptions): FastifyInstance {
  const { store, allowList = null, verifier = null, basePath = '/' } = opts;
  const onBadUrl = badUrlResponder(basePath);
  const api = createApp('management', opts.logger, {
    nextRequestId: opts.nextRequestId,
    limits: opts.limits,
    fastify: {
      // Kubernetes names run to 253 characters, qualified and percent-encoded even longer.
      routerOptions: { maxParamLength: 8192 },
      frameworkErrors: (error, request, reply) => {
        if (error.code === 'FST_ERR_BAD_URL') return onBadUrl(request, reply);
        return sendTraefikError(reply, managementErrors.internal());
      },
    },
  });
  api.setNotFoundHandler((_request, reply) => sendPageNotFound(reply));
  // Traefik's API never reads a request body: a body, whatever its type, size or encoding, is
  // left unread (Node closes the connection after the answer when much of it is left), so a POST
  // is the router's 405 and a GET with a body its 200, as there.
  api.removeAllContentTypeParsers();
  api.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  api.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    // A client's mistake is not the server's: answered with its status, logged at debug, no stack.
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.debug({ status: error.statusCode, reason: error.message, url: request.url }, 'management API request refused');
      return sendTraefikError(reply, managementErrors.badRequest(error.statusCode, error.message));
    }
    request.log.error({ err: error }, 'management API request failed');
    return sendTraefikError(reply, managementErrors.internal());
  });
  registerAccessControl(api, { allowList, verifier, openPaths: ['/ping'] });
  api.get('/ping', async (_req, reply) => reply.type('text/plain; charset=utf-8').send('OK'));
  registerApiRoutes(api, store, { version: TRAEFIK_API_VERSION, codename: 'portico', startDate: opts.startDate }, basePath, opts.heap);
  registerDashboard(api, store, basePath);
  return api;
}

/** A provider running in the server's process (the file provider), delivering into the record store. */
export interface InProcessProvider {
  /** The last read or parse error (shown by the internal GET endpoint), undefined when the last read succeeded. */
  readonly lastError: string | undefined;
  /** Delivers the first snapshot and starts watching; never throws for bad input. */
  start(): Promise<void>;
  stop(): void;
}

/**
 * How the server hands an in-process provider to this area: its name, and how to create it over the
 * store. The server (src/server.ts) picks and configures the providers, so this area imports none.
 */
export interface InProcessProviderSpec {
  readonly name: string;
  create(sink: SnapshotSink): InProcessProvider;
}

/**
 * Whether to collect after large changes (`--management.heap-reclaim`): `auto` only when this
 * process serves the management API alone. Beside the push gateway and search, their own
 * allocation pays for it: push p99 under bench:mixed was 60-196 ms with it, 30-53 ms without.
 */
export function reclaimsHeap(config: ManagementConfig): boolean {
  const mode = config['management.heap-reclaim'];
  return mode === 'on' || (mode === 'auto' && config['pushgateway.listen-address'] === null && config['search.listen-address'] === null);
}

/** Builds the management API listener and its internal snapshot listener, sharing one record store. */
export async function buildManagementApps(config: ManagementConfig, deps: AreaDeps, providers: readonly InProcessProviderSpec[] = []): Promise<ManagementApps> {
  const verifier = loadHtpasswdVerifier('management.users-file', config['management.users-file']) ?? null;
  const allowList = loadAllowList(config['management.ip-allow-list']);
  const heap = reclaimsHeap(config)
    ? new HeapReclaimer({ onCollected: (ms) => deps.logger.debug({ ms: Math.round(ms) }, 'heap collected after a large change') })
    : undefined;
  const store = new RecordStore({
    entryPoints: entryPointsFor(config),
    now: deps.now,
    staticProviders: providers.map((p) => p.name),
    ...(heap === undefined ? {} : { onLargeChange: () => heap.afterBurst() }),
  });

  const basePath = normaliseBasePath(config['api.base-path']);
  const limits = listenerLimits(config);
  const api = createManagementApi({ store, logger: deps.logger, startDate: deps.now(), allowList, verifier, basePath, nextRequestId: deps.nextRequestId, limits, heap });
  if (heap !== undefined) api.addHook('onClose', async () => heap.close());

  const running = new Map<string, InProcessProvider>();
  for (const spec of providers) {
    const provider = spec.create(store);
    await provider.start();
    running.set(spec.name, provider);
    api.addHook('onClose', async () => provider.stop());
  }

  let internal: FastifyInstance | null = null;
  if (config['internal.listen-address']) {
    const tokenFile = config['internal.token-file'] !== '' ? config['internal.token-file'] : join(config['data.dir'], 'internal-token');
    const token = await readOrCreateToken(tokenFile);
    internal = createApp('management-internal', deps.logger, { bodyLimit: INTERNAL_BODY_LIMIT, nextRequestId: deps.nextRequestId, limits, dialect: fastifyDialect });
    registerInternalRoutes(internal, {
      store,
      token,
      heap,
      providerError: (provider) => running.get(provider)?.lastError,
    });
  }
  return { api, internal, store };
}
