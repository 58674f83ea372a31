import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';
import { FakeKubeApiServer, fakeKubeconfig, type Obj } from '../support/fake-kube-apiserver.js';
import { freePort } from '../support/free-port.js';

// The real binaries end to end: `dist/cli.js serve` (management API + internal listener) and
// `dist/cli.js operator` against the in-process fake Kubernetes API server. Objects applied to the
// fake cluster must show up in the Traefik-compatible API, follow changes, and survive watch kills,
// an API server restart and a management server restart.

const root = new URL('../../', import.meta.url).pathname;
const cli = join(root, 'dist/cli.js');


interface Proc {
  readonly child: ChildProcess;
  readonly lines: Obj[];
  readonly exited: Promise<number | null>;
}

function run(args: string[]): Proc {
  const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Obj[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) => {
    try {
      lines.push(JSON.parse(l) as Obj);
    } catch {
      lines.push({ msg: l });
    }
  });
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (l) => lines.push({ msg: l, stderr: true }));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

async function stop(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  p.child.kill('SIGTERM');
  await p.exited;
}

/** Polls `fn` every 50 ms (the processes are real) until it gives a value or `timeoutMs` passes. */
function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  return eventually(fn, timeoutMs, what, 50);
}

const whoamiService: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'whoami', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } };
const whoamiSlice: Obj = {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: { name: 'whoami-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'whoami' } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }],
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }, { addresses: ['10.0.0.2'], conditions: { ready: false, serving: false } }],
};
function ingress(name: string, host: string, service = 'whoami'): Obj {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, namespace: 'default' },
    spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { name: 'http' } } } }] } }] },
  };
}

describe('portico operator end to end (dist/cli.js)', () => {
  let kube: FakeKubeApiServer;
  let serve: Proc | undefined;
  let operator: Proc | undefined;
  let dir: string;
  let api: string;
  let serveArgs: string[];
  let healthPort: number;

  const routers = async (): Promise<Obj[]> => (await (await fetch(`${api}/api/http/routers?per_page=1000`)).json()) as Obj[];
  const router = async (name: string): Promise<Obj | undefined> => {
    const res = await fetch(`${api}/api/http/routers/${encodeURIComponent(name)}`);
    return res.status === 200 ? ((await res.json()) as Obj) : undefined;
  };

  beforeAll(async () => {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` before the integration tests`);
    kube = new FakeKubeApiServer({ bookmarkIntervalMs: 500 });
    await kube.start();
    dir = mkdtempSync(join(tmpdir(), 'portico-operator-e2e-'));
    writeFileSync(join(dir, 'kubeconfig'), fakeKubeconfig(kube.url));
    const [mgmtPort, internalPort] = [await freePort(), await freePort()];
    api = `http://127.0.0.1:${mgmtPort}`;
    serveArgs = [
      'serve', '--data.dir', dir, '--providers.file.filename', '', '--log.level', 'warn',
      '--management.listen-address', `127.0.0.1:${mgmtPort}`, '--internal.listen-address', `127.0.0.1:${internalPort}`,
      '--pushgateway.listen-address', 'off', '--search.listen-address', 'off',
    ];
    serve = run(serveArgs);
    await until('management API', async () => (await fetch(`${api}/api/overview`)).status === 200);
    kube.applyAll([whoamiService, whoamiSlice, ingress('web', 'a.test')]);
    operator = run([
      'operator', '--kubeconfig', join(dir, 'kubeconfig'), '--data.dir', dir,
      '--operator.server-url', `http://127.0.0.1:${internalPort}`, '--operator.health-address', '127.0.0.1:0',
      '--operator.debounce', '50ms', '--operator.delivery-check', '200ms', '--operator.leader-election', 'true',
      '--operator.lease-namespace', 'default', '--operator.identity', 'e2e',
    ]);
    const started = await until('operator start', () => operator?.lines.find((l) => l.msg === 'operator started'));
    healthPort = started.healthPort as number;
  }, 90_000);

  afterAll(async () => {
    await stop(operator);
    await stop(serve);
    await kube?.close();
  });

  it('shows Ingress records with server status and becomes ready', async () => {
    const r = await until('ingress router', () => router('default-web-a-test@kubernetes'));
    expect(r).toMatchObject({ provider: 'kubernetes', service: 'default-whoami-http', rule: 'Host("a.test") && PathPrefix("/")', status: 'enabled' });
    const svc = (await (await fetch(`${api}/api/http/services/default-whoami-http@kubernetes`)).json()) as Obj;
    expect(svc.loadBalancer.servers).toEqual([{ url: 'http://10.0.0.1:8080' }, { url: 'http://10.0.0.2:8080' }]);
    expect(svc.serverStatus).toEqual({ 'http://10.0.0.1:8080': 'UP', 'http://10.0.0.2:8080': 'DOWN' });
    await until('readyz', async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200);
  });

  it('follows applies, changes and deletes of Ingresses and CRDs', async () => {
    kube.apply({
      apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name: 'test.route', namespace: 'default' },
      spec: { entryPoints: ['web'], routes: [{ match: 'Host(`foo.com`) && PathPrefix(`/bar`)', middlewares: [{ name: 'strip' }], services: [{ name: 'whoami', port: 80 }] }] },
    });
    kube.apply({ apiVersion: 'portico.dev/v1alpha1', kind: 'Middleware', metadata: { name: 'strip', namespace: 'default' }, spec: { stripPrefix: { prefixes: ['/bar'] } } });
    // The route may be delivered before its middleware (changes go out at once), and is then
    // disabled for a moment, as in Traefik; it must end up enabled.
    const crd = await until('crd router enabled', async () => {
      const r = await router('default-test-route-6b204d94623b3df4370c@kubernetescrd');
      return r?.status === 'enabled' ? r : undefined;
    });
    expect(crd).toMatchObject({ provider: 'kubernetescrd', status: 'enabled', service: 'default-test-route-6b204d94623b3df4370c' });
    await until('middleware', async () => (await fetch(`${api}/api/http/middlewares/default-strip@kubernetescrd`)).status === 200);

    kube.apply(ingress('web', 'b.test'));
    await until('renamed ingress router', async () => (await router('default-web-b-test@kubernetes')) && !(await router('default-web-a-test@kubernetes')));
    kube.remove('portico.dev/v1alpha1', 'IngressRoute', 'default', 'test.route');
    await until('crd router removed', async () => !(await router('default-test-route-6b204d94623b3df4370c@kubernetescrd')));
  });

  it('shows a missing Service as a router error instead of dropping it, and writes CRD status', async () => {
    kube.apply(ingress('ghost', 'ghost.test', 'nothere'));
    const r = await until('ghost router', () => router('default-ghost-ghost-test@kubernetes'));
    expect(r.status).toBe('disabled');
    expect(JSON.stringify(r.error)).toContain('does not exist');
    kube.apply({
      apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name: 'broken', namespace: 'default' },
      spec: { routes: [{ match: 'Host(`broken.test`', services: [{ name: 'whoami', port: 80 }] }] },
    });
    const conditions = await until('status', () => {
      const c = kube.get('portico.dev/v1alpha1', 'IngressRoute', 'default', 'broken')?.status?.conditions as Obj[] | undefined;
      return c && c.length === 2 ? c : undefined;
    });
    expect(conditions[0]).toMatchObject({ type: 'Accepted', status: 'False', reason: 'InvalidRule' });
    expect((await routers()).some((x) => x.name === 'default-web-b-test@kubernetes')).toBe(true);
  });

  it('keeps following after watches die mid-stream and the API server restarts', async () => {
    kube.killWatches();
    kube.apply(ingress('after-kill', 'k.test'));
    await until('after kill', () => router('default-after-kill-k-test@kubernetes'));
    await kube.restart({ downMs: 300, compact: true });
    kube.apply(ingress('after-restart', 'r.test'));
    await until('after restart', () => router('default-after-restart-r-test@kubernetes'), 15_000);
  });

  it('re-delivers everything to a restarted management server', async () => {
    await stop(serve);
    serve = run(serveArgs);
    await until('management API again', async () => (await fetch(`${api}/api/overview`)).status === 200);
    await until('records re-delivered', () => router('default-after-restart-r-test@kubernetes'), 10_000);
    expect(await router('default-web-b-test@kubernetes')).toBeDefined();
  });
});
