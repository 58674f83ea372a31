/**
 * Operator benchmark (`npm run bench:operator`, after `npm run build`): 5,000 Ingresses and 5,000
 * IngressRoutes over 5,000 Services with 20,000 EndpointSlices, served by the in-process fake API
 * server in this process; the server (`dist/cli.js serve`) and the operator (`dist/cli.js operator`)
 * run as their own child processes, as they run in the pod's two containers. Measures:
 * - time from operator start to the management API showing all 10,000 routers (first full sync);
 * - delay from one object change to the management API showing it (p50/p99 over sequential changes);
 * - the operator's peak resident memory (VmHWM).
 * Prints a table with the targets (5 s, 250 ms, 300 MB) and the ratio measured/target.
 *
 * `-- --real` runs the same workload a second time against a real kube-apiserver and etcd
 * (test/kube/control-plane.ts, built by scripts/build-peers.sh), written by 64 parallel requests,
 * and prints its figures beside the fake's; the targets then are the real server's: first sync
 * under 10 s, change-to-visible p99 under 250 ms, operator peak RSS under 300 MB.
 *
 * The operator runs with the Node flags the Helm chart gives it (NODE_OPTIONS in
 * charts/portico/templates/deployment.yaml): `--max-semi-space-size=4`. BENCH_OPERATOR_NODE_ARGS
 * replaces them (e.g. to add `--cpu-prof`); BENCH_CHANGES (default 200: with fewer, p99 is simply the
 * slowest change; the slowest is printed too) changes the run's length.
 * BENCH_OPERATOR_CLI runs another build's `cli.js` as the operator (the server stays this one's),
 * for A/B pairs: copy `dist/` aside before a change, then run both back to back.
 *
 * Wall-clock times swing widely on a shared machine; the operator's CPU time (user + system, from
 * /proc) when its first full sync's last snapshot has arrived is printed too: it moves much less
 * with the load and is what the operator's own code changes.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCrds, ingressesPath, parallel, routesPath, send } from '../test/kube/cluster-objects.js';
import { startControlPlane } from '../test/kube/control-plane.js';
import { FakeKubeApiServer, fakeKubeconfig, type Obj } from '../test/support/fake-kube-apiserver.js';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 5000);
const SLICES_PER_SERVICE = 4;
const INGRESSES = Number(process.env.BENCH_INGRESSES ?? 5000);
const ROUTES = Number(process.env.BENCH_ROUTES ?? 5000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 200);
/** `--real`: the same workload against a real kube-apiserver and etcd too, after the fake's run. */
const REAL = process.argv.includes('--real');
const root = new URL('../', import.meta.url).pathname;

function ns(i: number): string {
  return `team-${i % 50}`;
}

function objects(): Obj[] {
  const out: Obj[] = [];
  for (let s = 0; s < SERVICES; s++) {
    const name = `svc-${s}`;
    out.push({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns(s) }, spec: { ports: [{ name: 'http', port: 80 }] } });
    for (let k = 0; k < SLICES_PER_SERVICE; k++) {
      out.push({
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
        metadata: { name: `${name}-${k}`, namespace: ns(s), labels: { 'kubernetes.io/service-name': name } },
        addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }],
        endpoints: [0, 1, 2].map((e) => ({ addresses: [`10.${s % 250}.${k * 16 + e}.${Math.floor(s / 250) + 1}`], conditions: { ready: e !== 2 } })),
      });
    }
  }
  for (let i = 0; i < INGRESSES; i++) out.push(ingress(i, `app-${i}.example.com`));
  for (let i = 0; i < ROUTES; i++) out.push(route(i, `route-${i}.example.com`));
  return out;
}

function ingress(i: number, host: string): Obj {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: `ing-${i}`, namespace: ns(i) },
    spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `svc-${i % SERVICES}`, port: { name: 'http' } } } }] } }] },
  };
}

function route(i: number, host: string): Obj {
  return {
    apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name: `ir-${i}`, namespace: ns(i) },
    spec: { entryPoints: ['web'], routes: [{ match: `Host(\`${host}\`)`, services: [{ name: `svc-${i % SERVICES}`, port: 80 }] }] },
  };
}

async function until(fn: () => Promise<boolean>, timeoutMs: number, intervalMs = 2): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await fn()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

interface Put {
  readonly at: number;
  /** The operator's CPU time (user + system, ms) when the PUT had arrived, while `cpuOf` is set. */
  readonly cpuMs: number | undefined;
  readonly provider: string;
  /** The body held the router the bench was waiting for when it arrived. */
  readonly awaited: boolean;
}

/** What the probe looks for in each PUT body: the JSON name of the router a change adds. */
interface Awaiting {
  needle: Buffer | undefined;
  /** The process whose CPU time each PUT notes (the operator, during its first full sync). */
  cpuOf: number | undefined;
}

/** CPU time (user + system) of a process in ms, from /proc/<pid>/stat (10 ms resolution). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state, field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Sits between the operator and the server's internal listener and notes when each snapshot PUT
 * has fully arrived, so the operator's share of a change's delay (translate + serialize + send)
 * is measured apart from the server's (parse, validate, rebuild its records).
 */
async function deliveryProbe(target: string, puts: Put[], awaiting: Awaiting): Promise<{ url: string; server: http.Server }> {
  // Streams each request on to the server as it arrives (a copy of the body is kept until it has
  // been searched for the awaited router), so the probe adds no store-and-forward delay to
  // "visible". Bodies are not kept: 80 of them (500 MB) made this process, which also runs the
  // fake API server whose watch events start every change, pause for its garbage collection.
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'content-length', 'transfer-encoding', 'if-match']) if (req.headers[h]) headers[h] = String(req.headers[h]);
    const upstream = http.request(`${target}${req.url ?? ''}`, { method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, { 'content-type': r.headers['content-type'] ?? 'application/json' });
      r.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.on('data', (c: Buffer) => {
      chunks.push(c);
      upstream.write(c);
    });
    req.on('end', () => {
      if (req.method === 'PUT') {
        const at = performance.now();
        const needle = awaiting.needle;
        const cpuMs = awaiting.cpuOf === undefined ? undefined : cpuMsOf(awaiting.cpuOf);
        puts.push({ at, cpuMs, provider: (req.url ?? '').split('/').pop() ?? '', awaited: needle !== undefined && Buffer.concat(chunks).includes(needle) });
      }
      upstream.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Where the workload lives: the in-process fake API server or a real control plane. */
interface Cluster {
  readonly name: string;
  /** A kubeconfig file for the operator. */
  readonly kubeconfig: string;
  /** Makes one change (an object of the workload, created before) as a user would. */
  change(obj: Obj): Promise<void>;
  /**
   * The real server only: when this process's own watch (one per kind, as the operator's) last saw a
   * change of `namespace/name` arrive, so that a change's delay splits into the API server's share
   * (write acknowledged, event dispatched) and the operator's.
   */
  seen?(key: string): number | undefined;
  close(): Promise<void>;
}

async function fakeCluster(dir: string): Promise<Cluster> {
  const kube = new FakeKubeApiServer({ bookmarkIntervalMs: 5000 });
  await kube.start();
  const t0 = performance.now();
  kube.applyAll(objects());
  process.stdout.write(`fake cluster: ${SERVICES} services, ${SERVICES * SLICES_PER_SERVICE} endpointslices, ${INGRESSES} ingresses, ${ROUTES} ingressroutes (${Math.round(performance.now() - t0)} ms to load)\n`);
  writeFileSync(join(dir, 'kubeconfig'), fakeKubeconfig(kube.url));
  return {
    name: 'fake',
    kubeconfig: join(dir, 'kubeconfig'),
    change: async (obj) => {
      kube.apply(obj);
    },
    close: () => kube.close(),
  };
}

/** The collection path of a workload object on a real API server. */
function pathOf(o: Obj): string {
  const ns = o.metadata.namespace as string;
  switch (o.kind) {
    case 'Service': return `/api/v1/namespaces/${ns}/services`;
    case 'EndpointSlice': return `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`;
    case 'Ingress': return ingressesPath(ns);
    case 'IngressRoute': return routesPath(ns);
    default: throw new Error(`no path for ${String(o.kind)}`);
  }
}

/**
 * Watches `collection` (all namespaces) from its current resourceVersion, as the operator does, and
 * notes when each object's MODIFIED event arrives; resolves once the watch is open.
 */
async function watchArrivals(cp: Awaited<ReturnType<typeof startControlPlane>>, collection: string, seen: Map<string, number>): Promise<() => void> {
  const list = (await send(cp, 'GET', `${collection}?limit=1`)) as { metadata: { resourceVersion: string } };
  const req = https.request(`${cp.server}${collection}?watch=1&resourceVersion=${list.metadata.resourceVersion}`, {
    ca: cp.ca, headers: { authorization: `Bearer ${cp.adminToken}` },
  });
  await new Promise<void>((resolve, reject) => {
    req.on('response', (res) => {
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffered += chunk;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { metadata: { namespace: string; name: string } } };
          buffered = buffered.slice(nl + 1);
          if (event.type === 'MODIFIED') seen.set(`${event.object.metadata.namespace}/${event.object.metadata.name}`, at);
        }
      });
      res.on('error', () => undefined);
      resolve();
    });
    req.on('error', reject);
    req.end();
  });
  return () => req.destroy();
}

/**
 * etcd and kube-apiserver (test/kube/control-plane.ts) with Portico's CRDs and the workload, written
 * by 64 requests at a time; the operator uses the admin's kubeconfig (over TLS, as in a cluster).
 */
async function realCluster(): Promise<Cluster> {
  const t0 = performance.now();
  const cp = await startControlPlane();
  try {
    await installCrds(cp);
    const namespaces = [...new Set(objects().map((o) => o.metadata.namespace as string))];
    await parallel(namespaces, 16, (name) => send(cp, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, [201]));
    const t1 = performance.now();
    const all = objects();
    await parallel(all, 64, (o) => send(cp, 'POST', pathOf(o), o, [201]));
    process.stdout.write(`real cluster (kube-apiserver v1.37.2, etcd v3.7.0): up in ${Math.round(t1 - t0)} ms, ${all.length} objects written in ${Math.round(performance.now() - t1)} ms\n`);
  } catch (err) {
    await cp.stop();
    throw err;
  }
  const seen = new Map<string, number>();
  const stops = [
    await watchArrivals(cp, '/apis/networking.k8s.io/v1/ingresses', seen),
    await watchArrivals(cp, '/apis/portico.dev/v1alpha1/ingressroutes', seen),
  ];
  return {
    name: 'real',
    kubeconfig: cp.kubeconfig('admin'),
    change: async (obj) => {
      await send(cp, 'PATCH', `${pathOf(obj)}/${obj.metadata.name as string}`, { spec: obj.spec });
    },
    seen: (key) => seen.get(key),
    close: async () => {
      for (const stop of stops) stop();
      await cp.stop();
    },
  };
}

interface Figures {
  readonly syncMs: number;
  readonly deliveredSyncMs: number;
  readonly deliveredSyncCpuMs: number;
  readonly visible: number[];
  readonly delivered: number[];
  /** The real server only: change → PATCH answered, and change → this process's watch saw it. */
  readonly acked: number[];
  readonly watched: number[];
  /** Snapshot PUTs the server received during the changes, per change (1 when nothing else is sent). */
  readonly putsPerChange: number;
  readonly peakRssMb: number;
}

/** Starts serve and the operator against `cluster`, measures the first sync and `CHANGES` changes. */
async function measure(cluster: Cluster, dir: string): Promise<Figures> {
  // The server runs as its own process, as in the pod (its own container beside the operator's),
  // so that its work does not share this process's event loop with the fake API server.
  const [managementPort, internalPort] = [await freePort(), await freePort()];
  const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const serverChild = spawn(process.execPath, [...serverNodeArgs, join(root, 'dist/cli.js'), 'serve', '--data.dir', dir, '--providers.file.filename', '',
    '--management.listen-address', `127.0.0.1:${managementPort}`, '--internal.listen-address', `127.0.0.1:${internalPort}`,
    '--pushgateway.listen-address', 'off', '--search.listen-address', 'off', '--log.level', 'warn'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const api = `http://127.0.0.1:${managementPort}`;
  await until(async () => (await fetch(`${api}/api/overview`).catch(() => undefined))?.status === 200, 30_000, 50);

  const puts: Put[] = [];
  const awaiting: Awaiting = { needle: undefined, cpuOf: undefined };
  const { url: probe, server: probeServer } = await deliveryProbe(`http://127.0.0.1:${internalPort}`, puts, awaiting);
  const started = performance.now();
  // As in the chart's operator container (see the header).
  const nodeArgs = (process.env.BENCH_OPERATOR_NODE_ARGS ?? '--max-semi-space-size=4').split(' ').filter((a) => a !== '');
  const operatorCli = process.env.BENCH_OPERATOR_CLI ?? join(root, 'dist/cli.js');
  const child = spawn(process.execPath, [...nodeArgs, operatorCli, 'operator', '--kubeconfig', cluster.kubeconfig, '--data.dir', dir,
    '--operator.server-url', probe, '--operator.health-address', 'off', '--operator.leader-election', 'false',
    '--log.level', process.env.BENCH_OPERATOR_LOG ?? 'warn'], { stdio: ['ignore', 'inherit', 'inherit'] });
  awaiting.cpuOf = child.pid;
  const total = INGRESSES + ROUTES;
  try {
    const overview = async () => {
      const o = (await (await fetch(`${api}/api/overview`)).json()) as { http: { routers: { total: number } } };
      return o.http.routers.total >= total;
    };
    await until(overview, 60_000, 20);
    const syncMs = performance.now() - started;
    const deliveredSyncMs = Math.max(...puts.map((p) => p.at)) - started;
    const deliveredSyncCpuMs = Math.max(...puts.map((p) => p.cpuMs ?? NaN));
    awaiting.cpuOf = undefined;
    const delivered: number[] = [];
    const acked: number[] = [];
    const watched: number[] = [];

    const delays: number[] = [];
    const putsBefore = puts.length;
    for (let c = 0; c < CHANGES; c++) {
      const i = (c * 37) % Math.min(INGRESSES, ROUTES);
      const host = `changed-${c}.example.com`;
      let name: string;
      if (c % 2 === 0) {
        name = `${ns(i)}-ing-${i}-changed-${c}-example-com@kubernetes`;
      } else {
        const hash = createHash('sha256').update(`Host(\`${host}\`)`).digest('hex').slice(0, 20);
        name = `${ns(i)}-ir-${i}-${hash}@kubernetescrd`;
      }
      awaiting.needle = Buffer.from(`"${name.slice(0, name.indexOf('@'))}"`);
      const t = performance.now();
      const obj = c % 2 === 0 ? ingress(i, host) : route(i, host);
      await cluster.change(obj);
      acked.push(performance.now() - t);
      await until(async () => (await fetch(`${api}/api/http/routers/${encodeURIComponent(name)}`)).status === 200, 30_000);
      delays.push(performance.now() - t);
      const put = puts.find((p) => p.at >= t && p.awaited);
      if (put) delivered.push(put.at - t);
      const seenAt = cluster.seen?.(`${String(obj.metadata.namespace)}/${String(obj.metadata.name)}`);
      if (seenAt !== undefined && seenAt >= t) watched.push(seenAt - t);
    }
    const putsPerChange = (puts.length - putsBefore) / CHANGES;
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    return { syncMs, deliveredSyncMs, deliveredSyncCpuMs, visible: delays, delivered, acked, watched, putsPerChange, peakRssMb: hwmKb / 1024 };
  } finally {
    child.kill('SIGTERM');
    // The operator's keep-alive connections would hold the probe (and this process) open.
    probeServer.closeAllConnections();
    probeServer.close();
    serverChild.kill('SIGTERM');
    await new Promise((resolve) => serverChild.once('exit', resolve));
  }
}


/**
 * The table: one column per cluster (the fake, and with `--real` the real API server beside it),
 * each figure with its target and the ratio of the last column to it.
 */
function printTable(results: readonly [string, Figures][]): void {
  const rows: [string, (f: Figures) => number, number | undefined][] = [
    ['first full sync (ms)', (f) => f.syncMs, REAL ? 10_000 : 5000],
    ['  of which delivered (ms)', (f) => f.deliveredSyncMs, undefined],
    ['  operator CPU then (ms)', (f) => f.deliveredSyncCpuMs, undefined],
    ['change → visible p50 (ms)', (f) => percentile(f.visible, 50), undefined],
    ['change → visible p99 (ms)', (f) => percentile(f.visible, 99), 250],
    ['change → visible max (ms)', (f) => Math.max(...f.visible), undefined],
    ['change → delivered p50 (ms)', (f) => percentile(f.delivered, 50), undefined],
    ['change → delivered p99 (ms)', (f) => percentile(f.delivered, 99), undefined],
    ['change → write answered p50 (ms)', (f) => percentile(f.acked, 50), undefined],
    ['change → write answered p99 (ms)', (f) => percentile(f.acked, 99), undefined],
    ['change → watch event p50 (ms)', (f) => percentile(f.watched, 50), undefined],
    ['change → watch event p99 (ms)', (f) => percentile(f.watched, 99), undefined],
    ['snapshot PUTs per change', (f) => f.putsPerChange, undefined],
    ['operator peak RSS (MB)', (f) => f.peakRssMb, 300],
  ];
  const head = results.map(([name]) => name.padStart(12)).join('');
  process.stdout.write(`\n${'metric'.padEnd(34)}${head}${'target'.padStart(10)}${'ratio'.padStart(8)}\n`);
  for (const [name, get, target] of rows) {
    const values = results.map(([, f]) => get(f));
    const last = values[values.length - 1] ?? NaN;
    process.stdout.write(`${name.padEnd(34)}${values.map((v) => v.toFixed(1).padStart(12)).join('')}` +
      `${(target === undefined ? '' : String(target)).padStart(10)}${(target === undefined ? '' : (last / target).toFixed(2)).padStart(8)}\n`);
  }
  process.stdout.write(`(${CHANGES} sequential changes, alternating Ingress and IngressRoute; "delivered" = the snapshot PUT fully received\n` +
    ' by the server, "visible" = the management API answers for the new router; the ratio is of the last column; < 1 meets the target' +
    `${REAL ? ';\n with the real API server a change includes its write to kube-apiserver and etcd' : ''})\n`);
}

async function main(): Promise<void> {
  const results: [string, Figures][] = [];
  for (const make of REAL ? [fakeCluster, realCluster] : [fakeCluster]) {
    const dir = mkdtempSync(join(tmpdir(), 'portico-operator-bench-'));
    const cluster = await make(dir);
    try {
      results.push([cluster.name, await measure(cluster, dir)]);
    } finally {
      await cluster.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  printTable(results);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
