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
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';

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
  /** A kubeconfig file for the admin (`user`: admin) or the operator's identity. */
  kubeconfig(user: 'admin' | 'operator'): string;
  /** An authenticated JSON request as the admin (or `token`); the body is parsed when it is JSON. */
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Kubernetes objects of every kind
  stop(): Promise<void>;
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

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
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

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
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

/** Starts etcd and kube-apiserver and waits until `/readyz` answers `ok` to the admin. */
export async function startControlPlane(): Promise<ControlPlane> {
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
  const etcd = startProcess(bins.etcd, [
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
    `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
    `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
    '--unsafe-no-fsync',
    '--log-level=warn',
  ]);
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
  let apiserver: ReturnType<typeof startProcess> | undefined;
  const stop = async () => {
    if (apiserver) await stopProcess(apiserver.child);
    await stopProcess(etcd.child);
    await dispatcher.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor('etcd', etcd, async () => {
      const res = await request(`http://127.0.0.1:${etcdPort}/health`);
      return res.statusCode === 200 && (await res.body.text()).includes('true');
    }, 60_000);
    apiserver = startProcess(bins.kubeApiserver, [
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
    ]);
    const running = apiserver;
    await waitFor('kube-apiserver', running, async () => {
      const res = await call('GET', '/readyz');
      return res.status === 200;
    }, 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const kubeconfig = (user: 'admin' | 'operator') => {
    const file = join(dir, `kubeconfig-${user}.yaml`);
    const token = user === 'admin' ? adminToken : operatorToken;
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: test\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`,
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
  return { server, ca, adminToken, operatorToken, kubeconfig, call, stop };
}
