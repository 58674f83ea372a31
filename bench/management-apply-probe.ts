/**
 * Server-side apply probe (`npx tsx bench/management-apply-probe.ts`): the server's share of the
 * operator benchmark, without the operator. Two providers shaped like the operator's snapshots of
 * 5,000 Ingresses and 5,000 IngressRoutes (per record a router, a service with 12 servers and their
 * server states: ~15,000 format 2 lines and ~6.5 MB per body) are PUT through Fastify in process,
 * then one-record changes (a router renamed with its service and states, as a changed host does)
 * and identical re-deliveries. Printed: CPU and wall time per PUT until the changed router is
 * served by the management API, first full snapshots apart. CPU time, because on a shared machine
 * the wall clock mostly measures the neighbours.
 *
 * BENCH_RECORDS (default 5000) sets the records per provider, BENCH_CHANGES (default 40) the
 * number of one-record changes. Run it as `node --expose-gc --import tsx bench/management-apply-probe.ts`
 * so that the garbage of making the bodies is collected before they are applied. `--first` applies
 * only the two first full snapshots, BENCH_RUNS (default 7) times, each time into a fresh server in
 * process, and prints the median CPU (later runs have warm code: the first run is the cold figure).
 *
 * With `--http` the server runs in a child process (as in the pod) and gets the bodies over HTTP
 * in 64 KB pieces, as the operator streams them: wall time is from the last byte sent to the
 * changed router served, CPU time the server process's. BENCH_SERVER_NODE_ARGS passes Node flags
 * to that process (e.g. `--trace-gc`). With `--delta` each body after a provider's first is sent
 * as a snapshot delta (src/dynamic-config/snapshot/delta.ts) from the one before.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp } from '../src/http/create-app.js';
import { createManagementApi } from '../src/management/app.js';
import { registerInternalRoutes } from '../src/management/internal/routes.js';
import { RecordStore } from '../src/management/record-store.js';
import type { EntryPointDef } from '../src/management/runtime/runtime.js';
import { SNAPSHOT_DELTA_MEDIA_TYPE, snapshotDeltaBody } from '../src/dynamic-config/snapshot/delta.js';
import { SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineEncoder, snapshotLinesBody, type EncodedSnapshot } from '../src/dynamic-config/snapshot/lines.js';

const N = Number(process.env.BENCH_RECORDS ?? 5000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 40);
const TOKEN = 'probe-token';
const ENTRY_POINTS: EntryPointDef[] = [
  { name: 'web', address: ':80', protocol: 'tcp', isDefault: true },
  { name: 'websecure', address: ':443', protocol: 'tcp', isDefault: true },
  { name: 'traefik', address: ':8080', protocol: 'tcp', isDefault: false },
];

type Rec = Record<string, unknown>;

/** Host of record i: the original one, or a changed one after change `c`. */
const hosts = new Map<string, string>();

function hostOf(provider: string, i: number): string {
  return hosts.get(`${provider}/${i}`) ?? (provider === 'kubernetes' ? `app-${i}.example.com` : `route-${i}.example.com`);
}

/** One provider's snapshot, its maps in key order as the operator sends them; records cached by content. */
const records = new Map<string, object>();
function cached<T extends object>(key: string, make: () => T): T {
  let r = records.get(key);
  if (r === undefined) records.set(key, (r = make()));
  return r as T;
}

function providerSnapshot(provider: string): Rec {
  const routers: Rec = {};
  const services: Rec = {};
  const serverStatus: Rec = {};
  const names: [string, number][] = [];
  for (let i = 0; i < N; i++) {
    const host = hostOf(provider, i);
    names.push([provider === 'kubernetes' ? `team-${i % 50}-ing-${i}-${host.replaceAll('.', '-')}` : `team-${i % 50}-ir-${i}-${host.length}${host.slice(0, 12)}`, i]);
  }
  names.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  for (const [name, i] of names) {
    const host = hostOf(provider, i);
    const svc = provider === 'kubernetes' ? `team-${i % 50}-svc-${i}-http` : name;
    routers[name] = cached(`${provider}/r/${name}/${host}`, () => (provider === 'kubernetes'
      ? { service: svc, rule: `Host("${host}") && PathPrefix("/")`, observability: { metadata: { ingress: { namespace: `team-${i % 50}`, ingressName: `ing-${i}`, serviceName: `svc-${i}`, servicePort: 'http' } } } }
      : { entryPoints: ['web'], service: svc, rule: `Host(\`${host}\`)` }));
    const urls: string[] = [];
    for (const k of [0, 1, 2, 16, 17, 18, 32, 33, 34, 48, 49, 50]) urls.push(`http://10.${i % 250}.${k}.${Math.floor(i / 250) + 1}:8080`);
    services[svc] = cached(`${provider}/s/${svc}`, () => ({
      loadBalancer: { servers: urls.map((url) => ({ url })), strategy: 'wrr', passHostHeader: true, responseForwarding: { flushInterval: '100ms' } },
    }));
    serverStatus[svc] = cached(`${provider}/st/${svc}`, () => Object.fromEntries(urls.map((u, k) => [u, k % 3 === 2 ? 'DOWN' : 'UP'])));
  }
  const sortedServices: Rec = {};
  for (const k of Object.keys(services).sort()) sortedServices[k] = services[k];
  const sortedStatus: Rec = {};
  for (const k of Object.keys(serverStatus).sort()) sortedStatus[k] = serverStatus[k];
  return { configuration: { http: { routers, services: sortedServices, middlewares: {} } }, serverStatus: sortedStatus };
}

function routerName(provider: string, i: number): string {
  const host = hostOf(provider, i);
  return provider === 'kubernetes' ? `team-${i % 50}-ing-${i}-${host.replaceAll('.', '-')}@kubernetes` : `team-${i % 50}-ir-${i}-${host.length}${host.slice(0, 12)}@kubernetescrd`;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

function buildApps() {
  const logger = pino({ level: 'silent' });
  const store = new RecordStore({ entryPoints: ENTRY_POINTS, now: Date.now });
  const internal = createApp('internal', logger, { bodyLimit: 64 * 1024 * 1024 });
  registerInternalRoutes(internal, { store, token: TOKEN });
  const api = createManagementApi({ store, logger, startDate: Date.now() });
  return { internal, api };
}

/** Child mode (`--serve`): the server alone; reports its ports, and its CPU time when asked. */
async function serve(): Promise<void> {
  const { internal, api } = buildApps();
  await api.listen({ host: '127.0.0.1', port: 0 });
  await internal.listen({ host: '127.0.0.1', port: 0 });
  const port = (a: ReturnType<typeof api.server.address>) => (typeof a === 'object' && a ? a.port : 0);
  process.on('message', (m) => {
    // Exits by itself, so that a --cpu-prof profile is written.
    if (m === 'exit') process.exit(0);
    const c = process.cpuUsage();
    process.send?.({ cpu: (c.user + c.system) / 1000 });
  });
  process.send?.({ api: port(api.server.address()), internal: port(internal.server.address()) });
}

function request(url: string, method: string, headers: Record<string, string>, payload?: Buffer): Promise<{ status: number; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = NaN;
    const req = http.request(url, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, sent }));
    });
    req.on('error', reject);
    if (payload !== undefined) {
      for (let at = 0; at < payload.length; at += 64 * 1024) req.write(payload.subarray(at, at + 64 * 1024));
    }
    req.end(() => {
      sent = performance.now();
    });
  });
}

/**
 * `--first`: only the two first full snapshots, BENCH_RUNS times (default 7), each time into a
 * fresh server (in process); prints each run and the median, which is steadier than one run on
 * a shared machine.
 */
async function firstRuns(
  steps: readonly { provider: string; body: { payload: Buffer; base?: string }; router: string }[],
  put: (provider: string, body: { payload: Buffer; base?: string }, router: string) => Promise<{ cpu: number; wall: number }>,
  fresh: () => void,
): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 7);
  const cpu: number[][] = steps.map(() => []);
  for (let r = 0; r < runs; r++) {
    fresh();
    (globalThis as { gc?: () => void }).gc?.();
    const line: string[] = [];
    for (const [k, step] of steps.entries()) {
      const m = await put(step.provider, step.body, step.router);
      cpu[k]?.push(m.cpu);
      line.push(`${step.provider} ${m.cpu.toFixed(0)} ms CPU (${m.wall.toFixed(0)} wall)`);
    }
    process.stdout.write(`run ${r + 1}: ${line.join(', ')}\n`);
  }
  const med = steps.map((s, k) => `${s.provider} ${quantile([...(cpu[k] ?? [])].sort((a, b) => a - b), 0.5).toFixed(0)} ms`);
  process.stdout.write(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; first full snapshots, median CPU of ${runs}: ${med.join(', ')}\n`);
}

async function main(): Promise<void> {
  const overHttp = process.argv.includes('--http');
  const firstOnly = process.argv.includes('--first') && !overHttp;
  let child: ChildProcess | undefined;
  let ports = { api: 0, internal: 0 };
  let apps: ReturnType<typeof buildApps> | undefined;
  if (overHttp) {
    const execArgv = [...process.execArgv, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')];
    child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    ports = await new Promise((resolve, reject) => {
      child?.once('message', (m) => resolve(m as typeof ports));
      child?.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
  } else {
    apps = buildApps();
  }
  const serverCpu = async (): Promise<number> => {
    if (child === undefined) {
      const c = process.cpuUsage();
      return (c.user + c.system) / 1000;
    }
    const reply = new Promise<number>((resolve) => child?.once('message', (m) => resolve((m as { cpu: number }).cpu)));
    child.send('cpu');
    return reply;
  };
  const encoders = new Map([['kubernetes', new SnapshotLineEncoder()], ['kubernetescrd', new SnapshotLineEncoder()]]);
  // With --delta, every body after a provider's first is a delta from the one before.
  const asDelta = process.argv.includes('--delta');
  const last = new Map<string, EncodedSnapshot>();
  const body = (provider: string): { payload: Buffer; base?: string } => {
    const encoded = (encoders.get(provider) as SnapshotLineEncoder).encode(providerSnapshot(provider), { configuration: 3, serverStatus: 1 });
    const base = last.get(provider);
    last.set(provider, encoded);
    if (asDelta && base !== undefined) return { payload: Buffer.from(snapshotDeltaBody(base, encoded)), base: base.version };
    return { payload: Buffer.from(snapshotLinesBody(encoded)) };
  };

  /** CPU and wall ms of one PUT until `router` is served. */
  const put = async (provider: string, { payload, base }: { payload: Buffer; base?: string }, router: string): Promise<{ cpu: number; wall: number }> => {
    const headers: Record<string, string> = base === undefined
      ? { authorization: `Bearer ${TOKEN}`, 'content-type': SNAPSHOT_LINES_MEDIA_TYPE }
      : { authorization: `Bearer ${TOKEN}`, 'content-type': SNAPSHOT_DELTA_MEDIA_TYPE, 'if-match': `"${base}"` };
    const c0 = await serverCpu();
    let t0 = performance.now();
    if (apps === undefined) {
      const res = await request(`http://127.0.0.1:${ports.internal}/internal/v1/providers/${provider}`, 'PUT', { ...headers, 'content-length': String(payload.length) }, payload);
      if (res.status !== 200) throw new Error(`PUT: ${res.status}`);
      t0 = res.sent;
      const got = await request(`http://127.0.0.1:${ports.api}/api/http/routers/${encodeURIComponent(router)}`, 'GET', {});
      if (got.status !== 200) throw new Error(`GET ${router}: ${got.status}`);
    } else {
      const res = await apps.internal.inject({ method: 'PUT', url: `/internal/v1/providers/${provider}`, payload, headers });
      if (res.statusCode !== 200) throw new Error(`PUT: ${res.statusCode} ${res.body}`);
      const got = await apps.api.inject({ method: 'GET', url: `/api/http/routers/${encodeURIComponent(router)}` });
      if (got.statusCode !== 200) throw new Error(`GET ${router}: ${got.statusCode}`);
    }
    const wall = performance.now() - t0;
    return { cpu: (await serverCpu()) - c0, wall };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

  // Every body is made before any is applied (and the garbage of making them collected), so the
  // figures hold the server's work and its own garbage only.
  const plan: { provider: string; body: { payload: Buffer; base?: string }; router: string; kind: 'first' | 'warm-up' | 'change' | 'again' }[] = [];
  for (const provider of ['kubernetes', 'kubernetescrd']) plan.push({ provider, body: body(provider), router: routerName(provider, 0), kind: 'first' });
  if (firstOnly) {
    await firstRuns(plan.slice(0, 2), put, () => {
      apps = buildApps();
    });
    return;
  }
  for (let c = -6; c < CHANGES; c++) {
    const provider = c % 2 === 0 ? 'kubernetes' : 'kubernetescrd';
    const i = ((c + 6) * 37) % N;
    hosts.set(`${provider}/${i}`, `changed-${c + 6}.example.com`);
    plan.push({ provider, body: body(provider), router: routerName(provider, i), kind: c < 0 ? 'warm-up' : 'change' });
  }
  for (let c = 0; c < 6; c++) {
    const provider = c % 2 === 0 ? 'kubernetes' : 'kubernetescrd';
    plan.push({ provider, body: body(provider), router: routerName(provider, 1), kind: 'again' });
  }
  records.clear();
  encoders.clear();
  (globalThis as { gc?: () => void }).gc?.();

  const first: string[] = [];
  const bytes = plan[0]?.body.payload.length ?? 0;
  const changeBytes = plan.find((p) => p.kind === 'change')?.body.payload.length ?? 0;
  const cpu: number[] = [];
  const wall: number[] = [];
  const again: number[] = [];
  const cpuInOrder: number[] = [];
  for (const step of plan) {
    const r = await put(step.provider, step.body, step.router);
    if (step.kind === 'first') first.push(`${step.provider} ${r.cpu.toFixed(1)} ms CPU (${r.wall.toFixed(1)} ms wall)`);
    else if (step.kind === 'change') {
      cpu.push(r.cpu);
      cpuInOrder.push(r.cpu);
      wall.push(r.wall);
    } else if (step.kind === 'again') again.push(r.cpu);
    await settle();
  }
  cpu.sort((a, b) => a - b);
  wall.sort((a, b) => a - b);
  again.sort((a, b) => a - b);
  process.stdout.write(`${overHttp ? 'server in its own process, bodies over HTTP' : 'in process (inject)'}${asDelta ? `, changes as deltas (${changeBytes} bytes)` : ''}; `);
  process.stdout.write(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${N} records per provider, bodies of ${(bytes / 1e6).toFixed(1)} MB\n`);
  process.stdout.write(`first full snapshots: ${first.join(', ')}\n`);
  process.stdout.write(`one-record change, PUT to served (${cpu.length}): CPU p50 ${quantile(cpu, 0.5).toFixed(1)} p99 ${quantile(cpu, 0.99).toFixed(1)} ms; wall p50 ${quantile(wall, 0.5).toFixed(1)} p99 ${quantile(wall, 0.99).toFixed(1)} ms\n`);
  if (process.env.BENCH_VERBOSE) process.stdout.write(`all changes (CPU ms, in order): ${cpuInOrder.map((x) => x.toFixed(0)).join(' ')}\n`);
  process.stdout.write(`identical re-delivery: CPU p50 ${quantile(again, 0.5).toFixed(1)} max ${(again[again.length - 1] ?? NaN).toFixed(1)} ms\n`);
  child?.send('exit');
}

(process.argv.includes('--serve') ? serve() : main()).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
