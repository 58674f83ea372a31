/**
 * helm lint and helm template of charts/portico: every rendered manifest of every variant is valid
 * against the Kubernetes and Prometheus Operator schemas, and the pod matches the program's
 * contract (flags, ports, health endpoints, files) and is hardened (non-root, read-only root
 * filesystem, no privilege escalation, every capability dropped, resource requests and limits).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseHtpasswd, parseWebConfig } from '../../src/http/users-file.js';
import { repoRoot } from '../../scripts/helm-tool.js';
import { allFeaturesValues, chartDir, only, parseManifests, render, runHelm, SERVICE_MONITOR_API, type K8sObject, type RenderOptions } from './support/helm.js';
import { CrdSchemas, validateAll } from './support/validate-manifest.js';

interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  args: string[];
  ports: { name: string; containerPort: number }[];
  securityContext: Record<string, unknown>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
  resources: Record<string, unknown>;
}
interface Volume {
  name: string;
  secret?: { secretName: string; items?: { key: string; path: string }[] };
  persistentVolumeClaim?: { claimName: string };
  emptyDir?: Record<string, unknown>;
  projected?: { sources: Record<string, unknown>[] };
}
interface PodSpec {
  containers: Container[];
  volumes: Volume[];
  securityContext: Record<string, unknown>;
  automountServiceAccountToken: boolean;
}

const podSpec = (objects: K8sObject[]) => (only(objects, 'Deployment')['spec'] as { template: { spec: PodSpec } }).template.spec;
const container = (objects: K8sObject[], name: string): Container => {
  const found = podSpec(objects).containers.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no container ${name}`);
  return found;
};
/** The container `name`, once its args are checked to run `portico <command>` with at least `flags`. */
const containerRunning = (objects: K8sObject[], name: string, command: string, flags: readonly string[]): Container => {
  const found = container(objects, name);
  expect(found.args[0]).toBe(command);
  expect(found.args).toEqual(expect.arrayContaining([...flags]));
  return found;
};
const secretData = (secret: K8sObject, key: string): string => {
  const stringData = secret['stringData'] as Record<string, string> | undefined;
  if (stringData?.[key] !== undefined) return stringData[key];
  const data = secret['data'] as Record<string, string> | undefined;
  if (data?.[key] !== undefined) return Buffer.from(data[key], 'base64').toString('utf8');
  throw new Error(`Secret ${secret.metadata.name} has no key ${key}`);
};
/** The file a container sees at `path`, resolved through its mounts to a Secret volume item. */
const mountedSecret = (objects: K8sObject[], c: Container, path: string): { secret: string; key: string } => {
  const mount = c.volumeMounts.find((m) => path.startsWith(`${m.mountPath}/`));
  if (mount === undefined) throw new Error(`${c.name}: nothing mounted at ${path}`);
  const volume = podSpec(objects).volumes.find((v) => v.name === mount.name);
  const item = volume?.secret?.items?.find((i) => i.path === path.slice(mount.mountPath.length + 1));
  if (volume?.secret === undefined || item === undefined) throw new Error(`${c.name}: ${path} is not a Secret item`);
  return { secret: volume.secret.secretName, key: item.key };
};
const flagValue = (c: Container, flag: string): string | undefined =>
  c.args.find((a) => a.startsWith(`--${flag}=`))?.slice(flag.length + 3);

const crds = CrdSchemas.fromDirectory(join(chartDir, 'crds'));

/** Three replicas whose push gateways share Redis, the URL and both passwords from one Secret. */
const REDIS_REPLICAS = {
  replicas: 3,
  'persistence.enabled': false,
  'server.pushgateway.store.redis': { enabled: true, existingSecret: 'redis-creds', sentinelPasswordKey: 'sentinel-password', keyPrefix: 'pg-prod' },
};

/** Variants that between them switch every value path of the templates on and off. */
const VARIANTS: Readonly<Record<string, RenderOptions>> = {
  'default values': {},
  'default values, Prometheus Operator installed': { apiVersions: [SERVICE_MONITOR_API] },
  'every optional feature on': { values: [allFeaturesValues] },
  'persistence off': { setJson: { 'persistence.enabled': false } },
  'existing claim, token and users Secrets': {
    setJson: {
      'persistence.existingClaim': 'portico-data',
      'internalToken.existingSecret': 'portico-token',
      'server.auth': {
        pushgateway: { enabled: true, existingSecret: 'pg-web-config' },
        management: { enabled: true, existingSecret: 'mgmt-users' },
        search: { enabled: true, existingSecret: 'search-users' },
      },
    },
  },
  'operator off, no ServiceAccount, no probes': {
    setJson: {
      'operator.enabled': false,
      'serviceAccount.create': false,
      'server.startupProbe': null,
      'server.livenessProbe': null,
      'server.readinessProbe': null,
    },
  },
  'three replicas sharing Redis, credentials from a Secret': { setJson: REDIS_REPLICAS, apiVersions: [SERVICE_MONITOR_API] },
  'LoadBalancer, storage class "-", PDB by minAvailable': {
    setJson: {
      'service.type': 'LoadBalancer',
      'persistence.storageClass': '-',
      podDisruptionBudget: { enabled: true, minAvailable: 1, maxUnavailable: null },
      'networkPolicy.enabled': true,
    },
  },
};

describe('Chart.yaml', () => {
  it('deploys the Portico version of package.json by default', () => {
    const chart = parseYaml(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as { appVersion: string; apiVersion: string };
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(chart.apiVersion).toBe('v2');
    expect(chart.appVersion).toBe(pkg.version);
    expect(container(render(), 'server').image).toBe(`portico:${pkg.version}`);
  });
});

describe('helm lint', () => {
  it('passes --strict with default values', () => {
    const result = runHelm(['lint', '--strict', chartDir]);
    expect(result.stdout).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });
});

describe('every rendered manifest validates against the Kubernetes and Prometheus Operator schemas', () => {
  for (const [name, options] of Object.entries(VARIANTS)) {
    it(name, () => {
      const objects = render({ ...options, includeCrds: true });
      expect(objects.length).toBeGreaterThan(3);
      expect(validateAll(objects, crds)).toEqual([]);
      // Every object the templates make carries the release's labels (CRDs are plain files).
      for (const o of objects.filter((x) => x.kind !== 'CustomResourceDefinition')) {
        expect(o.metadata.labels?.['app.kubernetes.io/instance'], `${o.kind} ${o.metadata.name} labels`).toBe('portico');
      }
    });
  }

  it('the validator does catch mistakes (wrong type, unknown field)', () => {
    const objects = render();
    const broken = structuredClone(objects);
    const spec = podSpec(broken) as unknown as { containers: Record<string, unknown>[] };
    (spec.containers[0] as Record<string, unknown>)['volumeMount'] = [];
    ((only(broken, 'Service')['spec'] as { ports: Record<string, unknown>[] }).ports[0] as Record<string, unknown>)['port'] = '8080';
    const errors = validateAll(broken, crds);
    expect(errors).toContain('Deployment.spec.template.spec.containers[0].volumeMount: unknown field (not in V1Container)');
    expect(errors.some((e) => e.includes('ports/0/port must be integer'))).toBe(true);
  });

  it('default values render exactly the expected objects', () => {
    const kinds = render().map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(kinds).toEqual([
      'ClusterRole/portico-operator',
      'ClusterRoleBinding/portico-operator',
      'Deployment/portico',
      'PersistentVolumeClaim/portico',
      'Role/portico-leader-election',
      'RoleBinding/portico-leader-election',
      'Secret/portico-internal-token',
      'Service/portico',
      'ServiceAccount/portico',
    ]);
  });
});

describe('the pod', () => {
  const objects = render();

  it('runs the server and the operator from one image, hardened', () => {
    const spec = podSpec(objects);
    expect(spec.containers.map((c) => c.name)).toEqual(['server', 'operator']);
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    for (const c of spec.containers) {
      expect(c.image).toBe(container(objects, 'server').image);
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(c.resources).toHaveProperty('requests');
      expect(c.resources).toHaveProperty('limits');
      // Writable places on a read-only root filesystem: /tmp always, /data for the server.
      expect(c.volumeMounts.find((m) => m.mountPath === '/tmp')).toBeDefined();
    }
    expect(only(objects, 'Deployment')['spec']).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' } });
  });

  it('starts `portico serve` with the contract flags, and probes its real health endpoints', () => {
    const server = containerRunning(objects, 'server', 'serve', [
      '--data.dir=/data',
      '--pushgateway.listen-address=:9091', '--management.listen-address=:8080', '--search.listen-address=:9200',
      '--internal.listen-address=127.0.0.1:8081', '--internal.token-file=/var/run/portico/token/token',
    ]);
    expect(server.ports.map((p) => [p.name, p.containerPort])).toEqual([['management', 8080], ['pushgateway', 9091], ['search', 9200]]);
    expect(server.livenessProbe?.httpGet).toEqual({ path: '/-/healthy', port: 'pushgateway' });
    expect(server.readinessProbe?.httpGet).toEqual({ path: '/-/ready', port: 'pushgateway' });
    expect(server.startupProbe?.httpGet).toEqual({ path: '/-/healthy', port: 'pushgateway' });
    expect(server.volumeMounts.find((m) => m.mountPath === '/data')?.name).toBe('data');
    expect(podSpec(objects).volumes.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe('portico');
  });

  it('starts `portico operator` pointed at the server over loopback with the shared token', () => {
    const operator = containerRunning(objects, 'operator', 'operator', [
      '--operator.server-url=http://127.0.0.1:8081', '--operator.token-file=/var/run/portico/token/token',
      '--operator.health-address=:8082',
      '--operator.leader-election=true', '--operator.lease-namespace=portico', '--operator.traefik-crds=false',
    ]);
    expect(operator.ports).toEqual([{ name: 'operator-health', containerPort: 8082, protocol: 'TCP' }]);
    expect(operator.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'operator-health' });
    expect(operator.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'operator-health' });
    // The operator never sees the data directory; only the operator gets the Kubernetes API token.
    expect(operator.volumeMounts.find((m) => m.mountPath === '/data')).toBeUndefined();
    expect(podSpec(objects).automountServiceAccountToken).toBe(false);
    const apiAccess = '/var/run/secrets/kubernetes.io/serviceaccount';
    expect(operator.volumeMounts.find((m) => m.mountPath === apiAccess)).toEqual({ name: 'kube-api-access', mountPath: apiAccess, readOnly: true });
    expect(container(objects, 'server').volumeMounts.find((m) => m.mountPath.startsWith('/var/run/secrets/kubernetes.io'))).toBeUndefined();
    const projected = podSpec(objects).volumes.find((v) => v.name === 'kube-api-access')?.projected;
    expect(projected?.sources.map((s) => Object.keys(s)[0])).toEqual(['serviceAccountToken', 'configMap', 'downwardAPI']);

    // Both ends read the same token from the generated Secret.
    const server = container(objects, 'server');
    const fromServer = mountedSecret(objects, server, flagValue(server, 'internal.token-file') ?? '');
    const fromOperator = mountedSecret(objects, operator, flagValue(operator, 'operator.token-file') ?? '');
    expect(fromOperator).toEqual(fromServer);
    const token = secretData(only(objects, 'Secret', fromServer.secret), fromServer.key);
    expect(token).toMatch(/^[A-Za-z0-9]{48}$/);
  });

  it('exposes the three APIs on a Service with configurable port names', () => {
    const ports = (only(objects, 'Service')['spec'] as { ports: unknown[] }).ports;
    expect(ports).toEqual([
      { name: 'traefik', port: 8080, targetPort: 'management', protocol: 'TCP', appProtocol: 'http' },
      { name: 'pushgateway', port: 9091, targetPort: 'pushgateway', protocol: 'TCP', appProtocol: 'http' },
      { name: 'search', port: 9200, targetPort: 'search', protocol: 'TCP', appProtocol: 'http' },
    ]);
    const renamed = render({ setJson: { 'service.ports.management.name': 'http-api' } });
    expect((only(renamed, 'Service')['spec'] as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['http-api', 'pushgateway', 'search']);
  });
});

describe('users files and storage', () => {
  it('writes users Secrets that Portico\'s own parsers accept, mounted where the flags point', () => {
    const objects = render({ values: [allFeaturesValues] });
    const server = container(objects, 'server');
    const webConfig = mountedSecret(objects, server, flagValue(server, 'web.config.file') ?? '');
    const parsedWeb = parseWebConfig(secretData(only(objects, 'Secret', webConfig.secret), webConfig.key), 'web-config.yml');
    expect([...parsedWeb.basicAuthUsers.keys()]).toEqual(['pusher']);
    for (const [flag, user] of [['management.users-file', 'admin'], ['search.users-file', 'reader']] as const) {
      const file = mountedSecret(objects, server, flagValue(server, flag) ?? '');
      const users = parseHtpasswd(secretData(only(objects, 'Secret', file.secret), file.key), flag);
      expect([...users.keys()]).toEqual([user]);
    }
    expect(flagValue(server, 'management.ip-allow-list')).toBe('10.0.0.0/8,192.168.0.0/16,fd00::/8');
    // Probes follow the route prefix.
    expect(server.readinessProbe?.httpGet).toEqual({ path: '/pushgateway/-/ready', port: 'pushgateway' });
  });

  it('uses existing Secrets and an existing claim by name, and an emptyDir without persistence', () => {
    const existing = render(VARIANTS['existing claim, token and users Secrets']);
    const server = container(existing, 'server');
    expect(mountedSecret(existing, server, flagValue(server, 'web.config.file') ?? '')).toEqual({ secret: 'pg-web-config', key: 'web-config.yml' });
    expect(mountedSecret(existing, server, flagValue(server, 'search.users-file') ?? '')).toEqual({ secret: 'search-users', key: 'users' });
    expect(mountedSecret(existing, server, flagValue(server, 'internal.token-file') ?? '')).toEqual({ secret: 'portico-token', key: 'token' });
    expect(existing.filter((o) => o.kind === 'Secret' || o.kind === 'PersistentVolumeClaim')).toEqual([]);
    expect(podSpec(existing).volumes.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe('portico-data');

    const ephemeral = render({ setJson: { 'persistence.enabled': false } });
    expect(ephemeral.filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([]);
    expect(podSpec(ephemeral).volumes.find((v) => v.name === 'data')?.emptyDir).toEqual({ sizeLimit: '1Gi' });
  });

  it('sets the storage class, or none for "-"', () => {
    const pvc = (options: RenderOptions) => only(render(options), 'PersistentVolumeClaim')['spec'] as Record<string, unknown>;
    expect(pvc({})).not.toHaveProperty('storageClassName');
    expect(pvc({ setJson: { 'persistence.storageClass': 'fast' } })['storageClassName']).toBe('fast');
    expect(pvc({ setJson: { 'persistence.storageClass': '-' } })['storageClassName']).toBe('');
  });
});

describe('optional objects', () => {
  const objects = render({ values: [allFeaturesValues] });

  it('PodDisruptionBudget and NetworkPolicy select the pod', () => {
    const podLabels = (only(objects, 'Deployment')['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    for (const kind of ['PodDisruptionBudget', 'NetworkPolicy']) {
      const spec = only(objects, kind)['spec'] as { selector?: { matchLabels: Record<string, string> }; podSelector?: { matchLabels: Record<string, string> } };
      const selector = (spec.selector ?? spec.podSelector)?.matchLabels ?? {};
      expect(Object.keys(selector).length).toBeGreaterThan(0);
      for (const [k, v] of Object.entries(selector)) expect(podLabels[k]).toBe(v);
    }
    const np = only(objects, 'NetworkPolicy')['spec'] as { policyTypes: string[]; ingress: { ports: { port: string }[] }[] };
    expect(np.policyTypes).toEqual(['Ingress', 'Egress']);
    const named = np.ingress.flatMap((r) => r.ports.map((p) => p.port));
    expect(named).toEqual(expect.arrayContaining(['management', 'pushgateway', 'search', 'operator-health']));
  });

  it('NOTES.txt tells how to reach each API', () => {
    const result = runHelm(['install', 'portico', chartDir, '--namespace', 'portico', '--dry-run=client']);
    expect(result.status).toBe(0);
    const notes = result.stdout.slice(result.stdout.indexOf('NOTES:'));
    for (const fragment of [
      'http://portico.portico.svc:8080',
      'http://portico.portico.svc:9091',
      'http://portico.portico.svc:9200',
      'port-forward svc/portico 8080 9091 9200',
      '/api/http/routers',
      '/metrics/job/',
      '/_search',
      'honor_labels',
    ]) expect(notes).toContain(fragment);
  });
});

describe('several replicas sharing Redis', () => {
  const objects = render({ setJson: REDIS_REPLICAS, apiVersions: [SERVICE_MONITOR_API] });
  const deployment = only(objects, 'Deployment')['spec'] as { replicas: number; strategy: { type: string } };
  const server = container(objects, 'server');

  it('runs the replicas with the store flags, the URL and passwords from the Secret, never in the manifest', () => {
    expect(deployment.replicas).toBe(3);
    expect(deployment.strategy.type).toBe('RollingUpdate');
    expect(flagValue(server, 'pushgateway.store')).toBeUndefined();
    const env = (server as unknown as { env: { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } }[] }).env;
    expect(env.find((e) => e.name === 'PORTICO_PUSHGATEWAY_STORE')?.valueFrom.secretKeyRef).toEqual({ name: 'redis-creds', key: 'url' });
    expect(mountedSecret(objects, server, flagValue(server, 'pushgateway.redis.password-file') as string)).toEqual({ secret: 'redis-creds', key: 'password' });
    expect(mountedSecret(objects, server, flagValue(server, 'pushgateway.redis.sentinel-password-file') as string)).toEqual({ secret: 'redis-creds', key: 'sentinel-password' });
    expect(flagValue(server, 'pushgateway.redis.key-prefix')).toBe('pg-prod');
    expect(flagValue(server, 'persistence.file')).toBeUndefined();
    expect(podSpec(objects).volumes.find((v) => v.name === 'data')?.emptyDir).toBeDefined();
  });

  it('spreads the replicas over nodes and zones and keeps a disruption budget', () => {
    const spread = (podSpec(objects) as unknown as { topologySpreadConstraints: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } }[] }).topologySpreadConstraints;
    expect(spread.map((c) => c.topologyKey)).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    const pdb = only(objects, 'PodDisruptionBudget')['spec'] as { maxUnavailable: number; selector: { matchLabels: Record<string, string> } };
    expect(pdb.maxUnavailable).toBe(1);
    expect(spread[0]?.labelSelector.matchLabels).toEqual(pdb.selector.matchLabels);
  });

  it('makes the ServiceMonitor scrape one target, the Service, instead of each replica', () => {
    const endpoint = (only(objects, 'ServiceMonitor')['spec'] as { endpoints: { relabelings: Record<string, string>[] }[] }).endpoints[0];
    expect(endpoint?.relabelings).toEqual([
      { targetLabel: '__address__', replacement: 'portico.portico.svc:9091' },
      { action: 'labeldrop', regex: 'pod|container' },
    ]);
  });

  it('takes the URL inline when it is given', () => {
    const inline = render({ setJson: { ...REDIS_REPLICAS, 'server.pushgateway.store.redis': { enabled: true, url: 'redis+sentinel://s1:26379,s2:26379/mymaster/0', passwordKey: '' } } });
    const c = container(inline, 'server');
    expect(flagValue(c, 'pushgateway.store')).toBe('redis+sentinel://s1:26379,s2:26379/mymaster/0');
    expect(flagValue(c, 'pushgateway.redis.password-file')).toBeUndefined();
  });
});

describe('CRDs', () => {
  const rootDir = join(repoRoot, 'crds');
  const chartCrds = join(chartDir, 'crds');
  const yamlFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort() : []);

  it('the chart carries byte-identical copies of crds/ (make crds-sync)', () => {
    expect(yamlFiles(chartCrds)).toEqual(yamlFiles(rootDir));
    for (const file of yamlFiles(rootDir)) {
      expect(readFileSync(join(chartCrds, file)).equals(readFileSync(join(rootDir, file))), `${file} differs: run make crds-sync`).toBe(true);
    }
  });

  it('every CRD the chart installs is a valid apiextensions.k8s.io/v1 CustomResourceDefinition', () => {
    const rendered = render({ includeCrds: true }).filter((o) => o.kind === 'CustomResourceDefinition');
    const inFiles = yamlFiles(chartCrds).flatMap((f) => parseManifests(readFileSync(join(chartCrds, f), 'utf8')));
    expect(rendered).toHaveLength(inFiles.length);
    expect(validateAll(rendered)).toEqual([]);
    for (const crd of rendered) expect((crd['spec'] as { group: string }).group).toBe('portico.dev');
  });
});
