import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { AreaDeps } from '../area.js';
import { ConfigError, formatDuration, parseDuration, type ListenAddress } from '../config/flag-types.js';
import { RateLimitedLog } from '../http/rate-limited-log.js';
import { DurableGroupStore } from './store/durable-store.js';
import { WalDamageError } from './store/write-ahead-log.js';
import type { PushgatewayConfig } from './flags.js';
import { BasicAuthVerifier, parseBasicAuthorization } from '../http/basic-auth.js';
import { createApp } from '../http/create-app.js';
import { listenerLimits } from '../http/listener-flags.js';
import { formatAddress } from '../http/listen.js';
import { parseWebConfig, type WebConfig } from '../http/users-file.js';
import { errnoCode, readFlagFile } from '../config/start-up-errors.js';
import { PersistenceError, StoreUnavailableError, WalWriteError } from './errors.js';
import { isProtobufContentType } from './exposition/protobuf.js';
import { pushgatewayFlags } from './flags.js';
import { joinPath, normalizePrefix, type Gateway, type GatewaySettings } from './http/gateway.js';
import { InMemoryGroupStore } from './store/group-store.js';
import { ReplicatedGroupStore } from './store/replicated-store.js';
import { RedisOpLog } from './store/redis-op-log.js';
import { parseStoreLocation, type RedisLocation, type StoreLocation } from './store/store-location.js';
import { trailingSlashRedirect } from './http/trailing-slash.js';
import { OwnMetrics, type HandlerName } from './http/own-metrics.js';
import { Persister, loadGroups } from './store/persistence.js';
import { readBody } from './http/request-body.js';
import { LimitError, type PushLimits } from './store/limits.js';
import { registerApiRoutes } from './routes/api.js';
import { registerConsoleRoutes } from './routes/console.js';
import { registerExpositionRoute } from './routes/exposition.js';
import { registerLifecycleRoutes } from './routes/lifecycle.js';
import { automaticMethodAnswers } from './routes/options.js';
import { registerPushRoutes } from './routes/push.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Pushgateway's handler name for pushgateway_http_requests_total. */
    handler?: HandlerName;
  }
}

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Flags as Pushgateway's status shows them: strings, durations in Go form (`5m0s`). */
/** A byte count as the flag would be written: the largest binary unit that divides it (16MiB), else bytes. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
    if (n >= size && n % size === 0) return `${n / size}${unit}`;
  }
  return `${n}B`;
}

function flagStrings(config: PushgatewayConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(pushgatewayFlags)) {
    const value = (config as Record<string, unknown>)[name];
    // The file actually used (the default under --data.dir when the flag is empty).
    if (name === 'persistence.file') out[name] = persistenceFile(config) ?? 'off';
    else if (spec.kind === 'bytes') out[name] = formatBytes(value as number);
    else if (spec.kind === 'duration') out[name] = formatDuration(value as number);
    else if (spec.kind === 'address') out[name] = value === null ? 'off' : formatAddress(value as ListenAddress);
    else out[name] = String(value);
  }
  return out;
}

/** `--web.config.file`, read and checked: a missing file or a bad one stops start-up naming the flag. */
function loadWebConfig(file: string): WebConfig {
  const text = readFlagFile('web.config.file', file, 'create it (basic_auth_users: {USER: BCRYPT-HASH}) or leave the flag empty for no authentication');
  try {
    return parseWebConfig(text, file);
  } catch (err) {
    throw new ConfigError(`--web.config.file ${(err as Error).message}`, { cause: err });
  }
}

/** Resolves --persistence.file: default under --data.dir, "off" for memory only. */
export function persistenceFile(config: PushgatewayConfig): string | undefined {
  const raw = config['persistence.file'].trim();
  if (raw === 'off') return undefined;
  return raw === '' ? join(config['data.dir'], 'pushgateway.json') : raw;
}

function plainError(message: string): string {
  return message.endsWith('\n') ? message : `${message}\n`;
}

/** The settings the routes read, derived once from the flags. */
function settingsOf(config: PushgatewayConfig, deps: AreaDeps): GatewaySettings {
  const prefix = normalizePrefix(config['web.route-prefix']);
  return {
    prefix,
    telemetryPath: joinPath(prefix, config['web.telemetry-path']),
    enableLifecycle: config['web.enable-lifecycle'],
    enableAdminApi: config['web.enable-admin-api'],
    checkConsistency: !config['push.disable-consistency-check'],
    utf8Names: config['push.enable-utf8-names'],
    openMetrics: config['web.enable-openmetrics'],
    groupTtlMs: config['push.group-ttl'],
    maxBodySize: config['push.max-body-size'],
    flags: flagStrings(config),
    version: readVersion(),
    startTimeMs: deps.now(),
  };
}

/** --push.max-groups, --push.max-series-per-group and --push.max-series (store/limits.ts). */
function limitsOf(config: PushgatewayConfig): PushLimits {
  return { maxGroups: config['push.max-groups'], maxSeriesPerGroup: config['push.max-series-per-group'], maxSeries: config['push.max-series'] };
}

/** --persistence.wal-sync-interval in ms, or undefined when the WAL is off. */
function walSyncInterval(config: PushgatewayConfig): number | undefined {
  const raw = config['persistence.wal-sync-interval'].trim();
  if (raw === 'off') return undefined;
  try {
    return parseDuration(raw);
  } catch {
    throw new ConfigError(`--persistence.wal-sync-interval "${raw}" is not a duration (like 2ms, 0) or off`);
  }
}

/** The in-memory store with its write-ahead log (durable-store.ts); the persistence file is its checkpoint. */
async function openDurableStore(config: PushgatewayConfig, deps: AreaDeps, own: OwnMetrics, checkConsistency: boolean, file: string, syncIntervalMs: number): Promise<OpenedStore> {
  const log = deps.logger.child({ area: 'pushgateway' });
  const warnings = new RateLimitedLog(log);
  const ref: { persister?: Persister } = {};
  const started = performance.now();
  let opened: Awaited<ReturnType<typeof DurableGroupStore.open>>;
  try {
    opened = await DurableGroupStore.open({
      file,
      syncIntervalMs,
      now: deps.now,
      ownTypes: own.types(),
      ownHelp: own.helps(),
      checkConsistency,
      onChange: () => ref.persister?.markDirty(),
      limits: limitsOf(config),
      utf8Names: config['push.enable-utf8-names'],
      maxLogBytes: config['persistence.wal-max-size'],
      onLogFull: () => ref.persister?.writeSoon(),
      onWriteError: (err) => warnings.warn('wal', { file, code: errnoCode(err) }, `writing the push write-ahead log beside ${file} failed (${errnoCode(err) || (err as Error).message}); pushes answer 500 until it works`),
    });
  } catch (err) {
    if (!(err instanceof WalDamageError)) throw err;
    throw new PersistenceError(`--persistence.file ${file}: ${err.message}; nothing after it can be trusted: move the WAL segments away to start from the checkpoint, or cut the segment at that offset (truncate -s ${err.offset} ${err.file}) to keep what precedes it`, { cause: err });
  }
  const { store, recovery } = opened;
  log.info({ file, ...recovery, groups: store.groupCount, ms: Math.round(performance.now() - started) }, `restored ${store.groupCount} push groups (checkpoint and ${recovery.replayed} logged writes)`);
  const p = new Persister({
    file,
    intervalMs: config['persistence.interval'],
    snapshot: () => store.groups(deps.now()),
    save: () => store.checkpoint(),
    now: deps.now,
    onError: (err) => log.error({ err, file }, 'writing the persistence file failed; retrying after --persistence.interval (the write-ahead log keeps the pushes)'),
    onRecovered: () => log.info({ file }, 'writing the persistence file works again'),
  });
  ref.persister = p;
  const close = async (): Promise<void> => {
    // A checkpoint that fails on shutdown loses nothing: the WAL holds every acknowledged write.
    await p.close().catch((err: unknown) => log.error({ file, code: errnoCode(err) }, `could not write the checkpoint ${file} on shutdown (${errnoCode(err) || (err as Error).message}); nothing is lost: the write-ahead log beside it holds every acknowledged push and is replayed at the next start`));
    await store.close();
  };
  return { store, close, poll: () => undefined };
}

/** The group store, loaded from the persistence file and written back by a Persister unless persistence is off. */
async function openMemoryStore(config: PushgatewayConfig, deps: AreaDeps, own: OwnMetrics, checkConsistency: boolean): Promise<OpenedStore> {
  const walFile = persistenceFile(config);
  const syncIntervalMs = walSyncInterval(config);
  if (walFile !== undefined && syncIntervalMs !== undefined) return openDurableStore(config, deps, own, checkConsistency, walFile, syncIntervalMs);
  let persister: Persister | undefined;
  const store = new InMemoryGroupStore({
    ownTypes: own.types(),
    ownHelp: own.helps(),
    checkConsistency,
    onChange: () => persister?.markDirty(),
    limits: limitsOf(config),
    utf8Names: config['push.enable-utf8-names'],
  });
  const file = persistenceFile(config);
  if (file !== undefined) {
    // A corrupt or unreadable file throws here and stops start-up, naming the file.
    const started = performance.now();
    const groups = await loadGroups(file);
    store.load(groups);
    const log = deps.logger.child({ area: 'pushgateway' });
    log.info({ groups: groups.length, file, ms: Math.round(performance.now() - started) }, `restored ${groups.length} push groups`);
    persister = new Persister({
      file,
      intervalMs: config['persistence.interval'],
      snapshot: () => store.groups(deps.now()),
      now: deps.now,
      onError: (err) => log.error({ err, file }, 'writing the persistence file failed; retrying after --persistence.interval'),
      onRecovered: () => log.info({ file }, 'writing the persistence file works again'),
    });
  }
  return { store, close: () => closePersister(persister, store, deps, file), poll: () => undefined };
}

/** A secret read from the file a flag names, without the trailing newline editors and Secrets add. */
function secretFile(config: PushgatewayConfig, name: 'pushgateway.redis.password-file' | 'pushgateway.redis.sentinel-password-file'): string | undefined {
  const file = config[name];
  return file === '' ? undefined : readFlagFile(name, file, 'mount the Secret there or leave the flag empty').replace(/\r?\n$/, '');
}

/** Node's codes for a TLS peer certificate that fails verification (an untrusted CA, a wrong host name, expiry). */
const TLS_VERIFY_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The store shared with the other replicas through Redis (replicated-store.ts); start-up does not wait for Redis. */
function openRedisStore(config: PushgatewayConfig, deps: AreaDeps, own: OwnMetrics, location: RedisLocation, checkConsistency: boolean): OpenedStore {
  if (!['', 'off'].includes(config['persistence.file'].trim())) {
    throw new ConfigError(`--persistence.file ${config['persistence.file']} cannot be used with --pushgateway.store=${location.display}: Redis keeps the groups; leave --persistence.file empty`);
  }
  const log = deps.logger.child({ area: 'pushgateway', store: location.display });
  const caFile = config['pushgateway.redis.tls-ca-file'];
  let lastError = '';
  const opLog = new RedisOpLog({
    location,
    password: secretFile(config, 'pushgateway.redis.password-file'),
    sentinelPassword: secretFile(config, 'pushgateway.redis.sentinel-password-file'),
    ...(caFile !== '' && { tlsCa: readFlagFile('pushgateway.redis.tls-ca-file', caFile, 'point it at a PEM CA bundle or leave it empty') }),
    keyPrefix: config['pushgateway.redis.key-prefix'],
    onError: (err) => {
      if (err.message !== lastError) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== undefined && TLS_VERIFY_CODES.has(code)) {
          // Retrying cannot help until the certificate or the CA file changes: say which flag to look at.
          log.error(
            { err: err.message, code, caFile: caFile === '' ? '(system CAs)' : caFile },
            `Redis connection error: the server's TLS certificate is not trusted (${err.message}); check --pushgateway.redis.tls-ca-file and the certificate's host names; reconnecting`,
          );
        } else log.warn({ err: err.message }, 'Redis connection error; reconnecting');
      }
      lastError = err.message;
    },
  });
  const store = new ReplicatedGroupStore({
    log: opLog,
    replica: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    now: deps.now,
    ownTypes: own.types(),
    ownHelp: own.helps(),
    checkConsistency,
    // Every replica applies the shared log in the same order with the same limits (and name rules), so a refusal is the same everywhere.
    limits: limitsOf(config),
    utf8Names: config['push.enable-utf8-names'],
    onUnreachable: (err) => log.error({ err: (err as Error).message }, 'the shared store (Redis) is unreachable: pushes answer 503, scrapes serve the last state read'),
    onRecovered: () => {
      lastError = '';
      log.info('the shared store (Redis) is reachable again');
    },
  });
  // Polls wait for the first connection attempt, so that start-up does not report an outage.
  let connecting = true;
  opLog
    .connect()
    .then(() => store.sync())
    .catch(() => undefined)
    .finally(() => (connecting = false));
  return { store, close: () => store.close(), poll: () => void (connecting ? undefined : store.sync().catch(() => undefined)) };
}

interface OpenedStore {
  readonly store: InMemoryGroupStore | ReplicatedGroupStore | DurableGroupStore;
  /** Called every second: catches up with the shared store (a no-op in memory). */
  readonly poll: () => void;
  readonly close: () => Promise<void>;
}

/** Own metrics of the shared store, registered before the store reads the own types. */
function storeMetrics(own: OwnMetrics, store: () => ReplicatedGroupStore | undefined): void {
  own.addGauge('portico_pushgateway_store_up', 'Whether this replica reaches the shared store (Redis): 1 yes, 0 no (pushes answer 503).', () => (store()?.up ? 1 : 0));
  own.addGauge(
    'portico_pushgateway_store_staleness_seconds',
    'Seconds since this replica last read the shared store (Redis); what it serves is the state of that moment. Below a second while Redis answers.',
    () => store()?.stalenessSeconds() ?? 0,
  );
  own.addGauge('portico_pushgateway_store_applied_sequence', 'Sequence number of the last write of the shared store (Redis) this replica applied.', () => store()?.appliedSeq ?? 0);
}

async function openStore(config: PushgatewayConfig, deps: AreaDeps, own: OwnMetrics, checkConsistency: boolean): Promise<OpenedStore> {
  let location: StoreLocation;
  try {
    location = parseStoreLocation(config['pushgateway.store']);
  } catch (err) {
    throw new ConfigError((err as Error).message, { cause: err });
  }
  if (location.kind === 'memory') return openMemoryStore(config, deps, own, checkConsistency);
  const ref: { store?: ReplicatedGroupStore } = {};
  storeMetrics(own, () => ref.store);
  const opened = openRedisStore(config, deps, own, location, checkConsistency);
  ref.store = opened.store as ReplicatedGroupStore;
  return opened;
}

/**
 * Writes what is pending on shutdown; when that fails (a full disk), one line says which file,
 * why, and which groups are lost with the process, before the failure ends the shutdown (exit 1).
 */
async function closePersister(persister: Persister | undefined, store: InMemoryGroupStore | DurableGroupStore, deps: AreaDeps, file: string | undefined): Promise<void> {
  try {
    await persister?.close();
  } catch (err) {
    const groups = store.groups(deps.now()).map((g) => g.labels.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(','));
    const code = errnoCode(err);
    deps.logger.child({ area: 'pushgateway' }).error(
      { file, code, groups: groups.length, unsaved: groups.slice(0, 50) },
      `could not save the push groups to ${file ?? ''} (${code !== '' ? code : (err as Error).message}); the ${groups.length} groups pushed since its last successful write are lost: ${groups.slice(0, 10).join('; ')}${groups.length > 10 ? '; …' : ''}`,
    );
    throw err;
  }
}

/**
 * Pushgateway parses every body itself whatever its Content-Type (text unless it is delimited
 * protobuf), so one parser takes them all, gunzipping and enforcing the size limit.
 */
function parseEveryBody(app: FastifyInstance, maxBodySize: number): void {
  app.removeAllContentTypeParsers();
  // Fastify refuses a malformed Content-Type with 415 before any parser runs; Pushgateway reads
  // such a body as text, so anything that is not the protobuf type is presented as text.
  app.addHook('onRequest', async (request) => {
    const ct = request.headers['content-type'];
    if (ct !== undefined && !isProtobufContentType(ct)) request.headers['content-type'] = 'text/plain';
  });
  app.addContentTypeParser('*', (request, payload, done) => {
    readBody(payload, request.headers['content-encoding'], maxBodySize).then(
      (body) => done(null, body),
      (err: Error) => done(err as FastifyError),
    );
  });
}

/** Basic auth on every path but the health probes, as Pushgateway's web config asks. */
function requireBasicAuth(app: FastifyInstance, verifier: BasicAuthVerifier, prefix: string): void {
  const open = new Set([`${prefix}/-/healthy`, `${prefix}/-/ready`]);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0] as string;
    if (open.has(path)) return;
    if (await verifier.verify(parseBasicAuthorization(request.headers.authorization))) return;
    await reply.code(401).header('www-authenticate', 'Basic').type('text/plain; charset=utf-8').send('Unauthorized\n');
  });
}

/**
 * Errors and unknown paths answered in plain text, as Pushgateway answers them, and its router's
 * trailing-slash redirects.
 */
function answerErrorsAsText(app: FastifyInstance, prefix: string, own: OwnMetrics): void {
  app.setErrorHandler((err: FastifyError & { statusCode?: number }, request, reply) => {
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500;
    // A store outage is answered in its own words (they hold nothing internal) and logged once by the store.
    const told = err instanceof StoreUnavailableError || err instanceof WalWriteError;
    if (err instanceof LimitError) own.countLimitRefusal(err.limit);
    else if (err.code === 'body_too_large') own.countLimitRefusal('max-body-size');
    if (status >= 500 && !told) request.log.error({ err }, 'push gateway request failed');
    else request.log.debug({ err: err.message, url: request.url }, 'push gateway request refused');
    return reply
      .code(status)
      .type('text/plain; charset=utf-8')
      .header('x-content-type-options', 'nosniff')
      .send(plainError(status >= 500 && !told ? 'internal server error' : err.message));
  });
  app.setNotFoundHandler((request, reply) => {
    const redirect = trailingSlashRedirect(request.method, request.url, prefix);
    if (redirect === undefined) {
      return reply.code(404).type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send('404 page not found\n');
    }
    reply.code(redirect.status).header('location', redirect.location);
    return redirect.body === undefined ? reply.send() : reply.type('text/html; charset=utf-8').send(redirect.body);
  });
}

/** Builds the push gateway listener's app (Pushgateway-compatible). */
export async function buildPushgatewayApp(config: PushgatewayConfig, deps: AreaDeps): Promise<FastifyInstance> {
  const settings = settingsOf(config, deps);
  const prefix = settings.prefix;

  const webConfigFile = config['web.config.file'];
  const verifier = webConfigFile === '' ? undefined : new BasicAuthVerifier(loadWebConfig(webConfigFile).basicAuthUsers);

  const own = new OwnMetrics({ version: settings.version, revision: '', branch: '' });
  const { store, poll, close } = await openStore(config, deps, own, settings.checkConsistency);

  const gw: Gateway = { store, own, settings, now: deps.now, requestShutdown: deps.requestShutdown };
  const app = createApp('pushgateway', deps.logger, {
    bodyLimit: settings.maxBodySize,
    nextRequestId: deps.nextRequestId,
    limits: listenerLimits(config),
    // No automatic HEAD routes: Pushgateway answers HEAD with 405 everywhere (automaticMethodAnswers).
    fastify: { exposeHeadRoutes: false, routerOptions: { maxParamLength: 65_536 } },
  });

  parseEveryBody(app, settings.maxBodySize);
  if (verifier !== undefined) requireBasicAuth(app, verifier, prefix);
  app.addHook('onResponse', async (request, reply) => {
    const handler = request.routeOptions.config.handler;
    if (handler !== undefined && handler !== 'metrics') own.countRequest(handler, request.method, reply.statusCode);
  });
  answerErrorsAsText(app, prefix, own);

  const registerMethodAnswers = automaticMethodAnswers(app, `${prefix}/api/v1/`);
  registerLifecycleRoutes(app, gw);
  registerPushRoutes(app, gw);
  registerExpositionRoute(app, gw);
  registerApiRoutes(app, gw);
  registerConsoleRoutes(app, gw);
  registerMethodAnswers();

  // TTL expiry also happens lazily on every read and write; this sweep makes expired groups leave
  // memory and the persistence file when nobody is calling.
  // With Redis, the same beat catches up with the shared log (pub/sub only hints at new entries).
  const sweep = setInterval(() => {
    store.expire(deps.now());
    poll();
  }, 1000);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await close();
  });
  return app;
}
