/**
 * What the Helm suite needs beside the control plane: helm run against it (with its own cache and
 * config directories, so nothing leaks into the user's), the ServiceMonitor CRD from the peer cache,
 * the REST path of any object (from the server's discovery, so custom resources work too), and a
 * comparison of what the chart rendered with what the server stored.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { parseAllDocuments } from 'yaml';
import { expect } from 'vitest';
import { ensureHelm } from '../../scripts/helm-tool.js';
import { eventually, FakeInternalEndpoint } from '../providers/kubernetes/fake-internal-endpoint.js';
import type { ControlPlane } from './control-plane.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A Kubernetes object as YAML or JSON gives it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

/** The Prometheus Operator's ServiceMonitor CRD, fetched once into the peer cache by scripts/build-peers.sh. */
export function serviceMonitorCrdFile(): string {
  let out: string;
  try {
    out = execFileSync('bash', [join(ROOT, 'scripts/build-peers.sh'), 'servicemonitor-crd'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (err) {
    throw new Error(`scripts/build-peers.sh servicemonitor-crd failed: it needs Go and the Go module proxy (${(err as Error).message})`, { cause: err });
  }
  return out.trim();
}

/**
 * Parses a multi-document YAML stream the way Helm and the API server read it: YAML 1.1, where
 * `defaultMode: 0444` is octal (292), not the decimal 444 of YAML 1.2.
 */
export function parseObjects(text: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(text, { version: '1.1' })) {
    if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]?.message ?? ''}`);
    const value = doc.toJS() as KubeObject | null;
    if (value !== null) out.push(value);
  }
  return out;
}

export interface HelmResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Helm {
  /** Runs helm against the control plane as the admin; never throws on a non-zero exit. */
  run(args: readonly string[]): HelmResult;
  /** Runs helm and returns its output; a non-zero exit throws with what helm printed. */
  ok(args: readonly string[]): string;
  /** The objects of a release's manifest (`helm get manifest`), optionally at a revision. */
  manifest(release: string, namespace: string, revision?: number): KubeObject[];
  /** Removes helm's temporary cache and config directories. */
  close(): void;
}

export function helmFor(cp: ControlPlane): Helm {
  const home = mkdtempSync(join(tmpdir(), 'portico-helm-'));
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
  };
  const bin = ensureHelm();
  const kubeconfig = cp.kubeconfig('admin');
  const run = (args: readonly string[]): HelmResult => {
    const result = spawnSync(bin, [...args, '--kubeconfig', kubeconfig], { encoding: 'utf8', cwd: ROOT, env, maxBuffer: 32 * 1024 * 1024, timeout: 120_000 });
    if (result.error) throw result.error;
    return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
  };
  const ok = (args: readonly string[]): string => {
    const result = run(args);
    if (result.status !== 0) throw new Error(`helm ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
    return result.stdout;
  };
  return {
    run,
    ok,
    manifest: (release, namespace, revision) =>
      parseObjects(ok(['get', 'manifest', release, '--namespace', namespace, ...(revision === undefined ? [] : ['--revision', String(revision)])])),
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** REST paths from the server's discovery documents, fetched once per group version. */
export class ApiPaths {
  private readonly lists = new Map<string, ApiResource[]>();

  constructor(private readonly cp: ControlPlane) {}

  /** `/api/v1/namespaces/<ns>/<plural>/<name>` and the like; throws for a kind the server does not serve. */
  async of(obj: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>, defaultNamespace: string): Promise<string> {
    const base = obj.apiVersion === 'v1' ? '/api/v1' : `/apis/${obj.apiVersion}`;
    let resource = (await this.resources(base, false)).find((r) => r.kind === obj.kind && !r.name.includes('/'));
    // A CRD installed after the first look: ask again.
    resource ??= (await this.resources(base, true)).find((r) => r.kind === obj.kind && !r.name.includes('/'));
    if (resource === undefined) throw new Error(`the server serves no ${obj.kind} in ${obj.apiVersion}`);
    const ns = resource.namespaced ? `/namespaces/${obj.metadata.namespace ?? defaultNamespace}` : '';
    return `${base}${ns}/${resource.name}/${obj.metadata.name}`;
  }

  private async resources(base: string, fresh: boolean): Promise<ApiResource[]> {
    const cached = this.lists.get(base);
    if (cached !== undefined && !fresh) return cached;
    const res = await this.cp.call('GET', base);
    const list = res.status === 200 ? (res.body.resources as ApiResource[]) : [];
    this.lists.set(base, list);
    return list;
  }
}

/**
 * Where the server's copy differs from what the chart rendered: every field the chart set must be
 * stored with the same value (the server may add defaults, never drop or change a field). A
 * Secret's stringData is compared with its base64 data, which is where the server keeps it.
 */
export function storedDifferences(rendered: KubeObject, stored: Record<string, unknown>): string[] {
  const expected: Record<string, unknown> = { ...rendered };
  if (rendered.kind === 'Secret' && rendered['stringData'] !== undefined) {
    const data = { ...(rendered['data'] as Record<string, string> | undefined) };
    for (const [k, v] of Object.entries(rendered['stringData'] as Record<string, string>)) data[k] = Buffer.from(v).toString('base64');
    delete expected['stringData'];
    expected['data'] = data;
  }
  const out: string[] = [];
  compare(expected, stored, `${rendered.kind}/${rendered.metadata.name}`, out);
  return out;
}

function compare(expected: unknown, actual: unknown, path: string, out: string[]): void {
  // A null value renders no field: the server stores nothing.
  if (expected === null) {
    if (actual !== undefined && actual !== null) out.push(`${path}: rendered null, stored ${JSON.stringify(actual)}`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      out.push(`${path}: rendered ${JSON.stringify(expected)}, stored ${JSON.stringify(actual)}`);
      return;
    }
    expected.forEach((e, i) => compare(e, actual[i], `${path}[${i}]`, out));
    return;
  }
  if (typeof expected === 'object') {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) {
      out.push(`${path}: rendered an object, stored ${JSON.stringify(actual)}`);
      return;
    }
    for (const [k, v] of Object.entries(expected)) compare(v, (actual as Record<string, unknown>)[k], `${path}.${k}`, out);
    return;
  }
  if (expected !== actual) out.push(`${path}: rendered ${JSON.stringify(expected)}, stored ${JSON.stringify(actual)}`);
}

/**
 * A server-side apply of one object straight to the API server (no Helm in between), as a dry run:
 * what the server itself says about the object.
 */
export async function applyDryRun(cp: ControlPlane, path: string, obj: KubeObject): Promise<{ status: number; message: string }> {
  const dispatcher = new Agent({ connect: { ca: cp.ca } });
  try {
    const res = await request(`${cp.server}${path}?fieldManager=portico-test&dryRun=All&force=true`, {
      method: 'PATCH',
      dispatcher,
      headers: { authorization: `Bearer ${cp.adminToken}`, 'content-type': 'application/apply-patch+yaml' },
      body: JSON.stringify(obj),
    });
    const body = (await res.body.json()) as { message?: string };
    return { status: res.statusCode, message: body.message ?? '' };
  } finally {
    await dispatcher.close();
  }
}

/** A `dist/cli.js` process whose JSON log lines are kept. */
export interface CliProcess {
  readonly lines: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** Starts `node dist/cli.js <args>` (run `npm run build` first). */
export function startCli(args: readonly string[]): CliProcess {
  const cli = join(ROOT, 'dist/cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [cli, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const keep = (stderr: boolean) => (line: string) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ msg: line, stderr });
    }
  };
  createInterface({ input: child.stdout }).on('line', keep(false));
  createInterface({ input: child.stderr }).on('line', keep(true));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    lines,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Objects in `default` for the operator to translate: a Service with endpoints, an Ingress, an IngressRoute. */
export async function createWorkload(cp: ControlPlane): Promise<void> {
  const create = async (path: string, body: unknown) => {
    const res = await cp.call('POST', path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await create('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'whoami' }, spec: { ports: [{ name: 'http', port: 80 }] } });
  await create('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'whoami-1', labels: { 'kubernetes.io/service-name': 'whoami' } },
    addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
  });
  await create('/apis/networking.k8s.io/v1/namespaces/default/ingresses', {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' },
    spec: { rules: [{ host: 'web.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'whoami', port: { name: 'http' } } } }] } }] },
  });
  await create('/apis/portico.dev/v1alpha1/namespaces/default/ingressroutes', {
    apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name: 'route' },
    spec: { entryPoints: ['web'], routes: [{ match: 'Host(`route.test`)', kind: 'Rule', services: [{ name: 'whoami', port: 80 }] }] },
  });
}

/**
 * Runs `dist/cli.js` with the operator container's args as the installed Deployment has them, as the
 * control plane's operator identity (the chart's ServiceAccount of release `portico` in namespace
 * `portico`), until it has synced, led, delivered the workload and written the IngressRoute's
 * status; returns the operator's args and fails on any forbidden request it logged.
 * `release.fullname` names the Deployment and prefixes the internal token Secret.
 */
export async function runOperatorAsDeployed(cp: ControlPlane, paths: ApiPaths, release: { fullname: string; namespace: string }, identity: string, scratch: string): Promise<string[]> {
  const get = async (obj: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>) => (await cp.call('GET', await paths.of(obj, release.namespace))).body;
  const deployment = await get({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: release.fullname } });
  const container = (deployment.spec.template.spec.containers as { name: string; args: string[] }[]).find((c) => c.name === 'operator');
  if (container === undefined) throw new Error('the Deployment has no operator container');
  const secret = await get({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${release.fullname}-internal-token` } });
  const token = Buffer.from(secret.data.token as string, 'base64').toString('utf8');
  const endpoint = new FakeInternalEndpoint(token);
  await endpoint.start();
  const dir = mkdtempSync(join(scratch, 'operator-'));
  writeFileSync(join(dir, 'token'), token);
  // Only what the pod itself provides is replaced: the server's loopback listener, the mounted
  // token file and the health port; the in-cluster credentials become the identity's kubeconfig.
  const replaced: Record<string, string> = { '--operator.server-url': endpoint.url, '--operator.token-file': join(dir, 'token'), '--operator.health-address': '127.0.0.1:0' };
  const args = container.args.map((a) => {
    const flag = a.split('=')[0] as string;
    return flag in replaced ? `${flag}=${replaced[flag]}` : a;
  });
  expect(container.args.filter((a) => (a.split('=')[0] as string) in replaced)).toHaveLength(3);
  const operator = startCli([...args, `--kubeconfig=${cp.kubeconfig('operator')}`, `--operator.identity=${identity}`, `--data.dir=${dir}`]);
  try {
    const started = await eventually(() => operator.lines.find((l) => l['msg'] === 'operator started'), 30_000, 'operator started', 50);
    await eventually(async () => (await fetch(`http://127.0.0.1:${String(started['healthPort'])}/readyz`)).status === 200, 30_000, 'operator ready', 100);
    await eventually(() => {
      const delivered = JSON.stringify([...endpoint.snapshots.values()]);
      return delivered.includes('web.test') && delivered.includes('route.test');
    }, 30_000, 'the Ingress and the IngressRoute delivered', 100);
    // The Lease in the release namespace (GET, POST or PUT, as the chart grants).
    await eventually(async () => {
      const leases = (await cp.call('GET', `/apis/coordination.k8s.io/v1/namespaces/${release.namespace}/leases`)).body.items as { spec: { holderIdentity?: string } }[];
      return leases.some((l) => l.spec.holderIdentity === identity);
    }, 30_000, `${identity} leads`, 100);
    // As leader it writes the IngressRoute's status (PATCH on /status).
    await eventually(async () => {
      const conditions = ((await cp.call('GET', '/apis/portico.dev/v1alpha1/namespaces/default/ingressroutes/route')).body.status?.conditions ?? []) as { type: string; status: string }[];
      return conditions.some((c) => c.type === 'Accepted' && c.status === 'True');
    }, 30_000, 'IngressRoute status Accepted', 100);
    expect(operator.lines.filter((l) => /forbidden|\b403\b/i.test(JSON.stringify(l)))).toEqual([]);
    return args;
  } finally {
    await operator.stop();
    await endpoint.close();
  }
}
