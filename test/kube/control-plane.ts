/**
 * A real Kubernetes control plane for tests, in the spirit of controller-runtime's envtest: etcd on
 * a temporary directory and kube-apiserver in front of it, both on free loopback ports, with a CA,
 * a serving certificate and service-account keys made with openssl, RBAC authorization and a token
 * file (an admin in system:masters and the chart's ServiceAccount identity). The binaries come from
 * scripts/build-peers.sh (built from the Go module proxy, pinned in test/peers/, cached outside the
 * repository).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { freePort } from '../support/free-port.js';
export { freePort } from '../support/free-port.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The identity the chart gives the operator (its ServiceAccount in the release namespace). */
export const OPERATOR_USER = 'system:serviceaccount:portico:portico';

export interface ControlPlane {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** PEM of the CA that signed the API server's certificate. */
  readonly ca: string;
  readonly adminToken: string;
  readonly operatorToken: string;
  /**
   * A kubeconfig file for the admin (`user`: admin) or the operator's identity, pointing at `server`
   * (default the API server itself; a proxy's `server` to go through it).
   */
  kubeconfig(user: 'admin' | 'operator', server?: string): string;
  /** An authenticated JSON request as the admin (or `token`); the body is parsed when it is JSON. */
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Kubernetes objects of every kind
  /**
   * Stops kube-apiserver (SIGTERM, or SIGKILL with `kill`), waits `downMs` (default 0) and starts
   * it again on the same port, resolving when `/readyz` is ok. Clients see their connections drop.
   */
  restartApiServer(options?: { kill?: boolean; downMs?: number }): Promise<void>;
  /** Stops etcd and starts it again on the same data and ports; resolves when etcd is healthy again
   * (the API server reconnects by itself; `/readyz` is awaited too). */
  restartEtcd(options?: { downMs?: number }): Promise<void>;
  /**
   * Loses the whole cluster: stops the API server and etcd, deletes etcd's data, starts etcd empty
   * on the same ports and the API server again (which bootstraps its RBAC roles and default
   * namespaces anew). Every resourceVersion a client holds is then from another etcd history.
   */
  wipeEtcd(): Promise<void>;
  /**
   * A TCP proxy on a free loopback port in front of the API server (TLS passes through; the
   * certificate names 127.0.0.1), whose connections a test can cut. `kubeconfig(user, proxy.server)`
   * points a client at it.
   */
  startProxy(): Promise<TcpProxy>;
  stop(): Promise<void>;
}

/** See ControlPlane.startProxy. */
export interface TcpProxy {
  /** `https://127.0.0.1:<proxy port>` */
  readonly server: string;
  /** Connections open now. */
  readonly connections: number;
  /** Destroys every open connection (both sides), as a network cut does; new ones are accepted. */
  cut(): number;
  /**
   * While `true`, cuts every open connection and closes each new one at once (the API server
   * unreachable for this client only); `false` lets connections through again.
   */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

export interface ControlPlaneOptions {
  /**
   * Extra kube-apiserver flags after the harness's own, e.g. `--watch-cache=false`,
   * `--etcd-compaction-interval=10s`; a flag given twice takes its last value.
   */
  readonly apiServerFlags?: readonly string[];
}

/** The peers' binaries, built (or found in the cache) by scripts/build-peers.sh. */
export function peerBinaries(): { etcd: string; kubeApiserver: string } {
  let out: string;
  try {
    out = execFileSync('bash', [join(ROOT, 'scripts/build-peers.sh'), 'etcd', 'kube-apiserver'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (err) {
    throw new Error(`scripts/build-peers.sh failed: the real-Kubernetes tests need Go 1.26 and the Go module proxy (${(err as Error).message})`, { cause: err });
  }
  const [etcd, kubeApiserver] = out.trim().split('\n');
  if (etcd === undefined || kubeApiserver === undefined) throw new Error(`scripts/build-peers.sh printed no binary paths: ${out}`);
  return { etcd, kubeApiserver };
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a serving certificate for 127.0.0.1 and localhost, and the service-account key pair. */
function makeKeys(dir: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=portico-test-ca']);
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=kube-apiserver']);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n');
  openssl(dir, ['x509', '-req', '-in', 'apiserver.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'apiserver.crt', '-days', '2', '-extfile', 'san.ext']);
  openssl(dir, ['genrsa', '-out', 'sa.key', '2048']);
  openssl(dir, ['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
}

/** Starts a process and keeps the tail of its output for the error message when it dies early. */
function startProcess(bin: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => tail };
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function waitFor(what: string, proc: { child: ChildProcess; output: () => string }, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`${what} exited with ${proc.child.exitCode}:\n${proc.output()}`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} was not ready within ${timeoutMs} ms:\n${proc.output()}`);
}

/** A TCP proxy to 127.0.0.1:`targetPort` on a free loopback port. */
async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  const cut = () => {
    const n = pairs.size;
    for (const [a, b] of [...pairs]) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
    return n;
  };
  return {
    server: `https://127.0.0.1:${port}`,
    get connections() {
      return pairs.size;
    },
    cut,
    refuse(on) {
      refusing = on;
      if (on) cut();
    },
    async close() {
      cut();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

type Proc = ReturnType<typeof startProcess>;

/** Starts etcd and kube-apiserver and waits until `/readyz` answers `ok` to the admin. */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const bins = peerBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'portico-kube-'));
  makeKeys(dir);
  const adminToken = `admin-${process.pid}-${Date.now()}`;
  const operatorToken = `operator-${process.pid}-${Date.now()}`;
  writeFileSync(
    join(dir, 'tokens.csv'),
    `${adminToken},admin,admin-uid,"system:masters"\n${operatorToken},${OPERATOR_USER},operator-uid,"system:serviceaccounts,system:serviceaccounts:portico"\n`,
  );
  const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcdArgs = [
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
    `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
    `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
  const apiArgs = [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${apiPort}`,
    `--cert-dir=${join(dir, 'certs')}`,
    `--tls-cert-file=${join(dir, 'apiserver.crt')}`,
    `--tls-private-key-file=${join(dir, 'apiserver.key')}`,
    `--service-account-key-file=${join(dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    '--authorization-mode=RBAC',
    '--service-cluster-ip-range=10.96.0.0/16',
    '--allow-privileged=true',
    '--endpoint-reconciler-type=none',
    // No controller-manager runs, so no namespace gets its default ServiceAccount (as envtest does).
    '--disable-admission-plugins=ServiceAccount',
    ...(options.apiServerFlags ?? []),
  ];
  const ca = readFileSync(join(dir, 'ca.crt'), 'utf8');
  const dispatcher = new Agent({ connect: { ca } });
  const server = `https://127.0.0.1:${apiPort}`;
  const call: ControlPlane['call'] = async (method, path, body, token = adminToken) => {
    const res = await request(server + path, {
      method: method as 'GET',
      dispatcher,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (readyz answers plain text)
    }
    return { status: res.statusCode, body: parsed };
  };
  let etcd: Proc | undefined;
  let apiserver: Proc | undefined;
  const proxies = new Set<TcpProxy>();
  const startEtcd = async () => {
    const proc = startProcess(bins.etcd, etcdArgs);
    etcd = proc;
    await waitFor('etcd', proc, async () => {
      const res = await request(`http://127.0.0.1:${etcdPort}/health`);
      return res.statusCode === 200 && (await res.body.text()).includes('true');
    }, 60_000);
  };
  const waitReady = async (proc: Proc) => {
    await waitFor('kube-apiserver', proc, async () => (await call('GET', '/readyz')).status === 200, 120_000);
  };
  const startApiServer = async () => {
    const proc = startProcess(bins.kubeApiserver, apiArgs);
    apiserver = proc;
    await waitReady(proc);
  };
  const pause = (ms = 0) => new Promise((r) => setTimeout(r, ms));
  const stop = async () => {
    for (const p of proxies) await p.close();
    if (apiserver) await stopProcess(apiserver.child);
    if (etcd) await stopProcess(etcd.child);
    await dispatcher.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await startEtcd();
    await startApiServer();
  } catch (err) {
    await stop();
    throw err;
  }
  const kubeconfig = (user: 'admin' | 'operator', via: string = server) => {
    const file = join(dir, `kubeconfig-${user}-${via.replace(/\W+/g, '-')}.yaml`);
    const token = user === 'admin' ? adminToken : operatorToken;
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: test\n  cluster:\n    server: ${via}\n    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`,
        'users:',
        `- name: ${user}\n  user:\n    token: ${token}`,
        'contexts:',
        `- name: test\n  context:\n    cluster: test\n    user: ${user}`,
        'current-context: test',
        '',
      ].join('\n'),
    );
    return file;
  };
  return {
    server,
    ca,
    adminToken,
    operatorToken,
    kubeconfig,
    call,
    stop,
    async restartApiServer(opts = {}) {
      if (apiserver) await stopProcess(apiserver.child, opts.kill === true ? 'SIGKILL' : 'SIGTERM');
      await pause(opts.downMs);
      await startApiServer();
    },
    async restartEtcd(opts = {}) {
      if (etcd) await stopProcess(etcd.child);
      await pause(opts.downMs);
      await startEtcd();
      if (apiserver) await waitReady(apiserver);
    },
    async wipeEtcd() {
      if (apiserver) await stopProcess(apiserver.child);
      if (etcd) await stopProcess(etcd.child);
      rmSync(join(dir, 'etcd'), { recursive: true, force: true });
      await startEtcd();
      await startApiServer();
    },
    async startProxy() {
      const proxy = await startTcpProxy(apiPort);
      proxies.add(proxy);
      return proxy;
    },
  };
}
