import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { delimiter, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ConfigError } from '../../config/flag-types.js';
import type { OperatorConfig } from './flags.js';
import { startHealthServer } from './health-server.js';
import { parsePublishedService } from './status/ingress-status.js';
import { nodeHttpFetch } from './deliver/http-fetch.js';
import { KubeConfigApi, type KubeApi } from './client/kube-client.js';
import { loadKubeConfigClass } from './client/kube-config-loader.js';
import { defaultKubeconfigEnvironment, inPod, kubeconfigSource, SERVICE_ACCOUNT_DIR } from './client/kubeconfig-source.js';
import { LabelSelectorError, parseLabelSelector } from './translate/shared/label-selector.js';
import { OperatorController } from './operator-controller.js';
import type { FetchLike } from './deliver/snapshot-delivery.js';
import { DEFAULT_TRANSLATE_OPTIONS } from './translate/shared/translation-types.js';

/**
 * Old-generation growth allowed between major GCs, in percent of the live heap, set for the
 * operator process once its first snapshots are delivered. V8's default lets a heap with ~150 MB live (10,000 routing objects over 20,000
 * EndpointSlices) grow by 60-100% before collecting, which made most of the operator's peak
 * resident memory: the garbage of thousands of status writes and snapshot deliveries waited for
 * a major GC that came late. Proportional to the live heap, so it is no cap: a bigger cluster
 * still gets the heap it needs; the price is more frequent major GCs (tens of ms each).
 */
export const STEADY_HEAP_GROWING_PERCENT = 20;

/**
 * Growth allowed while the first full sync builds the whole state: the heap goes from nothing to
 * its steady size then, and at 20% it took a dozen major GCs (over a second of CPU, most of the
 * first sync's GC time) to get there. The peak resident memory still comes after the sync
 * (status writes), not from it: measured with 5,000 Ingresses and 5,000 IngressRoutes, 50% here
 * cut the first sync's CPU by ~1.5 s at the same peak. 100% cut it by another ~0.5 s but raised
 * the change -> delivered p99 from ~240 to ~370 ms (paired runs): the heap limit set by the last
 * GC of the sync put a larger major GC among the first changes.
 */
export const SYNC_HEAP_GROWING_PERCENT = 50;

function setHeapGrowth(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

export interface OperatorDeps {
  readonly logger: Logger;
  readonly now: () => number;
  /** Aborted on SIGTERM/SIGINT: the operator stops its watches and returns. */
  readonly signal: AbortSignal;
  /** The Kubernetes API; default: built from `kubeconfig` / the in-cluster service account. */
  readonly api?: KubeApi;
  /** Default: the global fetch. */
  readonly fetch?: FetchLike;
  /** Default: real timers. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly random?: () => number;
  /** Called once the health listener is bound (tests listen on port 0). */
  readonly onHealthListening?: (port: number) => void;
  /** Whether to tighten V8's heap growth for this process (see above). Default true. */
  readonly tuneHeap?: boolean;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

async function loadKubeConfig(flag: string): Promise<KubeConfig> {
  const source = kubeconfigSource(flag, defaultKubeconfigEnvironment(homedir()));
  if (source.kind === 'none') throw new ConfigError(source.message);
  const kc = new (await loadKubeConfigClass())();
  const named = source.kind === 'files' ? ` "${source.files.join(delimiter)}"` : ' of the in-cluster service account';
  try {
    if (source.kind === 'in-cluster') kc.loadFromCluster();
    else {
      const [first, ...rest] = source.files;
      kc.loadFromFile(first as string);
      for (const file of rest) {
        const more = new (await loadKubeConfigClass())();
        more.loadFromFile(file);
        kc.mergeConfig(more);
      }
    }
  } catch (err) {
    throw new ConfigError(`cannot load the kubeconfig${named}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new ConfigError(`the kubeconfig${named} has no current cluster`);
  if (cluster.server.startsWith('http://') && cluster.skipTLSVerify !== true) {
    // The client refuses plain HTTP on every request; say it once, at start.
    throw new ConfigError(`the kubeconfig${named} names a plain-HTTP server (${cluster.server}); use https, or set insecure-skip-tls-verify: true on the cluster to allow http`);
  }
  return kc;
}

/** Runs the operator until `deps.signal` aborts. */
export async function runOperator(config: OperatorConfig, deps: OperatorDeps): Promise<void> {
  // Every reflector and timer listens on the same signal.
  setMaxListeners(1000, deps.signal);
  if (deps.tuneHeap !== false) setHeapGrowth(SYNC_HEAP_GROWING_PERCENT);
  const inCluster = inPod(defaultKubeconfigEnvironment(homedir()));
  const labelSelector = config['operator.label-selector'];
  const namespaceSelector = config['operator.namespace-selector'];
  for (const [flagName, value] of [['operator.label-selector', labelSelector], ['operator.namespace-selector', namespaceSelector]] as const) {
    try {
      parseLabelSelector(value);
    } catch (err) {
      if (err instanceof LabelSelectorError) throw new ConfigError(`--${flagName}: ${err.message}`);
      throw err;
    }
  }
  const publishedService = config['operator.ingress-endpoint.published-service'];
  if (publishedService !== '') {
    const parsed = parsePublishedService(publishedService);
    if ('error' in parsed) throw new ConfigError(`--operator.ingress-endpoint.published-service: ${parsed.error}`);
  }
  const api = deps.api ?? new KubeConfigApi(await loadKubeConfig(config.kubeconfig));
  const tokenFile = config['operator.token-file'] !== '' ? config['operator.token-file'] : join(config['data.dir'], 'internal-token');
  const election = config['operator.leader-election'] === 'auto' ? inCluster : config['operator.leader-election'] === 'true';
  const identity = config['operator.identity'] !== '' ? config['operator.identity'] : `${hostname()}-${process.pid}`;
  let leaseNamespace = config['operator.lease-namespace'];
  if (leaseNamespace === '') {
    leaseNamespace = inCluster ? readFileSync(join(SERVICE_ACCOUNT_DIR, 'namespace'), 'utf8').trim() : 'default';
  }
  const namespaces = config['operator.namespaces'];
  const http = deps.fetch ? undefined : nodeHttpFetch();
  const controller = new OperatorController(
    {
      translate: {
        ...DEFAULT_TRANSLATE_OPTIONS,
        ingressClass: config['operator.ingress-class'],
        namespaces,
        labelSelector,
        namespaceSelector,
        maxObjectBytes: config['operator.max-object-bytes'],
        readSecrets: config['operator.read-secrets'],
        allowCrossNamespace: config['operator.allow-cross-namespace'],
        allowExternalNameServices: config['operator.allow-external-name-services'],
        allowEmptyServices: config['operator.allow-empty-services'],
      },
      namespaces,
      labelSelector,
      namespaceSelector,
      traefikCrds: config['operator.traefik-crds'],
      debounceMs: config['operator.debounce'],
      resyncMs: config['operator.resync'],
      deliveryCheckMs: Math.max(100, config['operator.delivery-check']),
      serverUrl: config['operator.server-url'],
      lease: election ? { namespace: leaseNamespace, name: config['operator.lease-name'], identity } : null,
      alwaysLeader: true,
      identity,
      ingressEndpoint: {
        ip: config['operator.ingress-endpoint.ip'],
        hostname: config['operator.ingress-endpoint.hostname'],
        publishedService,
      },
    },
    {
      api,
      logger: deps.logger,
      now: deps.now,
      sleep: deps.sleep ?? sleep,
      random: deps.random ?? Math.random,
      fetch: deps.fetch ?? (http as { fetch: FetchLike }).fetch,
      onSynced: () => {
        if (deps.tuneHeap !== false) setHeapGrowth(STEADY_HEAP_GROWING_PERCENT);
      },
      readToken: async () => {
        try {
          return (await readFile(tokenFile, 'utf8')).trim();
        } catch (err) {
          throw new Error(`cannot read the internal token file ${tokenFile}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
      },
    },
    deps.signal,
  );
  const healthAddress = config['operator.health-address'];
  const health = healthAddress ? await startHealthServer(healthAddress, { notReadyReason: () => controller.notReadyReason() }) : null;
  if (health) deps.onHealthListening?.(health.port);
  deps.logger.info({
    serverUrl: config['operator.server-url'], namespaces: namespaces.length > 0 ? namespaces : 'all', labelSelector,
    ingressClass: config['operator.ingress-class'], traefikCrds: config['operator.traefik-crds'], leaderElection: election,
    healthPort: health?.port ?? null,
  }, 'operator started');
  try {
    await controller.run();
  } finally {
    http?.close();
    await health?.close();
    deps.logger.info('operator stopped');
  }
}
