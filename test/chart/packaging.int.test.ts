/**
 * What ships beside the chart: the kind script (shellcheck), the Dockerfile's contract with the
 * build, the examples (valid manifests that refer to each other and to the chart correctly), the
 * push Job's script against a real Pushgateway, and the Prometheus scrape config (promtool).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { repoRoot } from '../../scripts/helm-tool.js';
import { goPeer, pythonPrometheus } from '../pushgateway/peer-processes.js';
import { only, parseManifests, render, type K8sObject } from './support/helm.js';
import { CrdSchemas, validateAll, validateObject } from './support/validate-manifest.js';
import { freePort } from '../support/free-port.js';

const examplesDir = join(repoRoot, 'examples');

/** Runs a peer tool; a missing one fails with the Debian package to install. */
function runPeer(command: string, args: readonly string[], debianPackage: string, env?: Readonly<Record<string, string>>) {
  const result = spawnSync(command, args, { encoding: 'utf8', cwd: repoRoot, env: { ...process.env, ...env } });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error(`${command} is not installed: apt-get install ${debianPackage}`);
  }
  if (result.error) throw result.error;
  return result;
}

function loadExample(file: string): K8sObject[] {
  return parseManifests(readFileSync(join(examplesDir, file), 'utf8'));
}

describe('scripts/e2e-kind.sh', () => {
  const script = join(repoRoot, 'scripts', 'e2e-kind.sh');

  it('passes shellcheck', () => {
    const result = runPeer('shellcheck', ['--severity=style', '--external-sources', script], 'shellcheck');
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('is valid bash and cleans up the cluster on every exit', () => {
    expect(runPeer('bash', ['-n', script], 'bash').status).toBe(0);
    const text = readFileSync(script, 'utf8');
    expect(text).toMatch(/^set -euo pipefail$/m);
    expect(text).toMatch(/^trap cleanup EXIT$/m);
    expect(text).toContain('kind delete cluster --name "$CLUSTER"');
    // It applies every example it promises.
    for (const example of ['whoami.yaml', 'ingress.yaml', 'ingressroute.yaml', 'pushgateway-job.yaml']) expect(text).toContain(`examples/${example}`);
  });

  it('is wired to make e2e-kind, with make image, helm-lint, helm-template and crds-sync', () => {
    const result = runPeer('make', ['-n', '-C', repoRoot, 'image', 'e2e-kind', 'helm-lint', 'helm-template', 'crds-sync'], 'make');
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('docker build');
    expect(result.stdout).toContain('scripts/e2e-kind.sh');
    expect(result.stdout).toContain('lint --strict charts/portico');
    expect(result.stdout).toContain('template portico charts/portico');
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1) ?? '';

  it('is multi-stage with a runtime stage that runs `node /app/dist/cli.js` as user 65532', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(runtime).toMatch(/^USER 65532:65532$/m);
    expect(runtime).toMatch(/^ENTRYPOINT \["node", "\/app\/dist\/cli\.js"\]$/m);
    expect(runtime).toMatch(/^CMD \["serve", "--data\.dir=\/data"\]$/m);
    // No compiler in the runtime stage; dependencies are the production ones.
    expect(runtime).not.toMatch(/g\+\+|build-essential/);
    expect(runtime).toContain('COPY --from=prod-deps /src/node_modules ./node_modules');
    expect(dockerfile).toContain('npm ci --omit=dev');
  });

  it('copies what the build emits: tsconfig.build.json compiles src/cli.ts to dist/cli.js', () => {
    const build = JSON.parse(readFileSync(join(repoRoot, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: { rootDir: string; outDir: string } };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    expect(readdirSync(join(repoRoot, 'src'))).toContain('cli.ts');
    expect(dockerfile).toContain('COPY --from=build /src/dist ./dist');
    // cli.ts reads ../package.json (the version) relative to dist/cli.js.
    expect(runtime).toMatch(/^COPY package\.json \.\/$/m);
  });

  it("fixes glibc's mmap threshold at 128 KiB in the runtime stage (the search index's doubled arrays left holes in the main heap otherwise)", () => {
    // bench/search-server.ts reads these lines to run the benchmarks' server as the image runs it.
    expect(runtime).toMatch(/^ENV MALLOC_MMAP_THRESHOLD_=131072$/m);
  });

  it('.dockerignore keeps node_modules, data and secrets out of the build context', () => {
    const ignore = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    expect(ignore[ignore.findIndex((l) => !l.startsWith('#'))]).toBe('*');
    expect(ignore).toEqual(expect.arrayContaining(['!src/', '!package.json', '!package-lock.json', '!tsconfig.build.json']));
    expect(ignore.some((l) => l.includes('node_modules') && l.startsWith('!'))).toBe(false);
  });
});

describe('examples', () => {
  const files = readdirSync(examplesDir).filter((f) => f.endsWith('.yaml')).sort();
  const all = files.flatMap((f) => loadExample(f));
  const crds = CrdSchemas.fromDirectory(join(repoRoot, 'crds'));

  it('has an Ingress, an IngressRoute with middlewares, a push Job and its backend', () => {
    expect(files).toEqual(expect.arrayContaining(['ingress.yaml', 'ingressroute.yaml', 'pushgateway-job.yaml', 'whoami.yaml']));
    expect(all.map((o) => o.kind)).toEqual(expect.arrayContaining(['Ingress', 'IngressRoute', 'Middleware', 'Job', 'Deployment', 'Service']));
  });

  it('built-in objects validate against the Kubernetes schemas', () => {
    expect(validateAll(all.filter((o) => !o.apiVersion.startsWith('portico.dev/')))).toEqual([]);
  });

  it.skipIf(crds.size === 0)('portico.dev objects validate against crds/ (skipped until crds/ holds the CRDs)', () => {
    expect(validateAll(all.filter((o) => o.apiVersion.startsWith('portico.dev/')), crds)).toEqual([]);
  });

  it('the CRD check refuses unknown fields the API server would prune', () => {
    const schemas = new CrdSchemas();
    schemas.add({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget' },
        versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
      },
    });
    const widget = (spec: unknown): K8sObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });
    expect(validateObject(widget({ size: 3 }), schemas)).toEqual([]);
    expect(validateObject(widget({ szie: 3 }), schemas)).toEqual(['Widget w: /spec must NOT have additional properties (szie)']);
    expect(validateObject(widget({ size: 'big' }), schemas)).toEqual(['Widget w: /spec/size must be integer']);
  });

  it('the Ingress and the IngressRoute point at the whoami Service and at middlewares that exist', () => {
    const service = only(all, 'Service', 'whoami')['spec'] as { ports: { name: string; port: number }[] };
    const ingress = only(all, 'Ingress', 'whoami')['spec'] as { rules: { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[] };
    for (const path of ingress.rules.flatMap((r) => r.http.paths)) {
      expect(path.backend.service.name).toBe('whoami');
      expect(service.ports.map((p) => p.name)).toContain(path.backend.service.port.name);
    }
    const route = only(all, 'IngressRoute')['spec'] as { routes: { middlewares: { name: string }[]; services: { name: string; port: number }[] }[] };
    const middlewares = all.filter((o) => o.kind === 'Middleware').map((o) => o.metadata.name);
    for (const r of route.routes) {
      expect(r.middlewares.length).toBeGreaterThanOrEqual(2);
      for (const m of r.middlewares) expect(middlewares).toContain(m.name);
      for (const s of r.services) expect(service.ports.map((p) => p.port)).toContain(s.port);
    }
    const auth = all.find((o) => o.kind === 'Middleware' && (o['spec'] as { basicAuth?: unknown }).basicAuth !== undefined);
    const secretName = (auth?.['spec'] as { basicAuth: { secret: string } }).basicAuth.secret;
    const users = (only(all, 'Secret', secretName)['stringData'] as { users: string }).users;
    expect(users).toMatch(/^alice:\$2[aby]\$\d\d\$/m);
  });

  it('the push Job pushes to the Service the chart creates for release "portico" in namespace "portico"', () => {
    const chart = render({ release: 'portico', namespace: 'portico' });
    const svc = only(chart, 'Service');
    const port = (svc['spec'] as { ports: { name: string; port: number }[] }).ports.find((p) => p.name === 'pushgateway')?.port;
    const job = only(all, 'Job')['spec'] as { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } };
    const url = job.template.spec.containers[0]?.env.find((e) => e.name === 'PUSHGATEWAY')?.value;
    expect(url).toBe(`http://${svc.metadata.name}.${svc.metadata.namespace}.svc:${port}`);
  });
});

describe('the push Job script against a real Pushgateway (1.11.1, from scripts/build-peers.sh)', () => {
  let port = 0;
  let gateway: ReturnType<typeof spawn> | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'portico-chart-'));

  beforeAll(async () => {
    port = await freePort();
    gateway = spawn(goPeer('pushgateway'), [`--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
    const failed = new Promise<never>((_, reject) => {
      gateway?.once('error', (err) => reject(new Error(`Pushgateway could not start: ${err.message}`)));
    });
    await Promise.race([waitForHttp(`http://127.0.0.1:${port}/-/ready`), failed]);
  });
  afterAll(() => {
    gateway?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pushes its metrics with the job and grouping labels (PyPI's prometheus_client)", async () => {
    const configMap = loadExample('pushgateway-job.yaml').find((o) => o.kind === 'ConfigMap');
    const script = (configMap?.['data'] as Record<string, string>)['push.py'] ?? '';
    writeFileSync(join(dir, 'push.py'), script);
    const result = runPeer(pythonPrometheus(), [join(dir, 'push.py')], 'python3-venv', {
      PUSHGATEWAY: `http://127.0.0.1:${port}`,
      CLUSTER: 'kind',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(body).toMatch(/^nightly_backup_rows\{cluster="kind",instance="",job="nightly-backup",table="orders"\} 1250$/m);
    expect(body).toMatch(/^nightly_backup_retries_total\{cluster="kind",instance="",job="nightly-backup"\} 2$/m);
    expect(body).toMatch(/^push_time_seconds\{cluster="kind",instance="",job="nightly-backup"\} /m);
  });
});

describe('examples/prometheus/prometheus.yml', () => {
  const file = join(examplesDir, 'prometheus', 'prometheus.yml');
  const config = parseYaml(readFileSync(file, 'utf8')) as { scrape_configs: Record<string, unknown>[] };

  it('every scrape job keeps pushed labels (honor_labels: true)', () => {
    expect(config.scrape_configs.length).toBeGreaterThan(0);
    for (const job of config.scrape_configs) expect(job['honor_labels'], String(job['job_name'])).toBe(true);
  });

  it('selects what the chart annotates: the prometheus.io/scrape Service and its pushgateway port', () => {
    const svc = only(render({ setJson: { 'prometheusScrapeAnnotations.enabled': true } }), 'Service');
    const annotations = svc.metadata.annotations ?? {};
    const k8sJob = config.scrape_configs.find((j) => j['kubernetes_sd_configs'] !== undefined);
    const relabels = (k8sJob?.['relabel_configs'] ?? []) as { source_labels: string[]; action?: string; regex?: string }[];
    const keep = relabels.filter((r) => r.action === 'keep');
    const scrapeRule = keep.find((r) => r.source_labels[0] === '__meta_kubernetes_service_annotation_prometheus_io_scrape');
    expect(annotations['prometheus.io/scrape']).toMatch(new RegExp(`^(?:${scrapeRule?.regex ?? 'missing'})$`));
    const portRule = keep.find((r) => r.source_labels[0] === '__meta_kubernetes_endpoint_port_name');
    expect('pushgateway').toMatch(new RegExp(`^(?:${portRule?.regex ?? 'missing'})$`));
    expect(annotations).toHaveProperty('prometheus.io/path');
  });

  it('passes promtool check config (Debian\'s prometheus package)', () => {
    // Debian's promtool (building the newest one from the module proxy would cost about 6 more
    // minutes on a cold machine) is built without Kubernetes service discovery, so the check runs on
    // a copy whose kubernetes_sd_configs become a static target; everything else is checked as is.
    const copy = structuredClone(config);
    for (const job of copy.scrape_configs) {
      if (job['kubernetes_sd_configs'] !== undefined) {
        delete job['kubernetes_sd_configs'];
        job['static_configs'] = [{ targets: ['127.0.0.1:9091'] }];
      }
    }
    const dir = mkdtempSync(join(tmpdir(), 'portico-promtool-'));
    try {
      writeFileSync(join(dir, 'prometheus.yml'), stringifyYaml(copy));
      const result = runPeer('promtool', ['check', 'config', join(dir, 'prometheus.yml')], 'prometheus');
      expect(result.stdout + result.stderr).toContain('SUCCESS');
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});


async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
