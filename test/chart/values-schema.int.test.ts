/**
 * Bad values fail at install time, before anything reaches the cluster, with a message that names
 * the value: values.schema.json for single values, the chart's own checks for combinations.
 */
import { describe, expect, it } from 'vitest';
import { allFeaturesValues, chartDir, renderError, runHelm } from './support/helm.js';

const BCRYPT = '$2y$10$7vGXxt70FatOptrttaMCTOPukP5ppb6Rhsd.s2Aa0tdbqiALrkcDy';

interface BadCase {
  readonly name: string;
  readonly set: Readonly<Record<string, unknown>>;
  /** Fragments the error must contain, in any order. */
  readonly says: readonly string[];
}

const SCHEMA_CASES: readonly BadCase[] = [
  { name: 'an unknown top-level key (typo)', set: { replica: 2 }, says: ["additional properties 'replica' not allowed"] },
  { name: 'more than one replica without the Redis store', set: { replicas: 2 }, says: ['/server/pushgateway/store/redis/enabled', 'value must be true', '/persistence/enabled', 'value must be false'] },
  { name: 'a Redis URL with a password in it', set: { 'server.pushgateway.store.redis.url': 'redis://u:secret@redis:6379/0' }, says: ['/server/pushgateway/store/redis/url'] },
  { name: 'a store the push gateway does not have', set: { 'server.pushgateway.store.postgres': {} }, says: ['/server/pushgateway/store', "'postgres' not allowed"] },
  { name: 'an unknown nested key', set: { 'serviceMonitor.honorlabels': false }, says: ['/serviceMonitor', "'honorlabels' not allowed"] },
  { name: 'a log level that does not exist', set: { 'server.logLevel': 'verbose' }, says: ['/server/logLevel', 'debug', 'error'] },
  { name: 'a port out of range', set: { 'service.ports.search.port': 70000 }, says: ['/service/ports/search/port', 'maximum'] },
  { name: 'a port given as a string', set: { 'service.ports.pushgateway.port': '9091' }, says: ['/service/ports/pushgateway/port', 'integer'] },
  { name: 'a port name that is not an IANA service name', set: { 'service.ports.management.name': 'HTTP_API' }, says: ['/service/ports/management/name'] },
  { name: 'a Service type Kubernetes does not have', set: { 'service.type': 'Ingress' }, says: ['/service/type', 'ClusterIP'] },
  { name: 'a plain password instead of a bcrypt hash', set: { 'server.auth.search.users': ['alice:wonderland'] }, says: ['/server/auth/search/users/0', 'alice:wonderland'] },
  { name: 'a plain password in the push gateway web config', set: { 'server.auth.pushgateway.users': { alice: 'secret' } }, says: ['/server/auth/pushgateway/users/alice'] },
  { name: 'a duration without a unit', set: { 'server.pushgateway.groupTTL': '10' }, says: ['/server/pushgateway/groupTTL'] },
  { name: 'a scrape interval without a unit', set: { 'serviceMonitor.interval': '30' }, says: ['/serviceMonitor/interval'] },
  { name: 'honorLabels cannot be switched off', set: { 'serviceMonitor.honorLabels': false }, says: ["'honorLabels' not allowed"] },
  { name: 'a boolean given as a string', set: { 'operator.leaderElection': 'yes' }, says: ['/operator/leaderElection', 'boolean'] },
  { name: 'a namespace name Kubernetes refuses', set: { 'operator.namespaces': ['Apps'] }, says: ['/operator/namespaces/0'] },
  { name: 'a CIDR that is not one', set: { 'server.management.ipAllowList': ['everyone'] }, says: ['/server/management/ipAllowList/0'] },
  { name: 'an image pull policy that does not exist', set: { 'image.pullPolicy': 'Sometimes' }, says: ['/image/pullPolicy', 'IfNotPresent'] },
  { name: 'a digest that is not sha256', set: { 'image.digest': 'latest' }, says: ['/image/digest'] },
  { name: 'a volume size that is not a quantity', set: { 'persistence.size': 'big' }, says: ['/persistence/size'] },
  { name: 'an access mode that does not exist', set: { 'persistence.accessModes': ['ReadWriteSometimes'] }, says: ['/persistence/accessModes/0'] },
  { name: 'extra args that are not flags', set: { 'server.extraArgs': ['serve'] }, says: ['/server/extraArgs/0'] },
  { name: 'a route prefix without a leading slash', set: { 'server.pushgateway.routePrefix': 'pushgateway' }, says: ['/server/pushgateway/routePrefix'] },
  { name: 'a published service without its namespace', set: { 'operator.ingressEndpoint.publishedService': 'portico' }, says: ['/operator/ingressEndpoint/publishedService'] },
  // The operator refuses these at start (--operator.ingress-endpoint.*): the chart must refuse them first.
  { name: 'an ingress endpoint IP that is not one', set: { 'operator.ingressEndpoint.ip': '300.1.2.3' }, says: ['/operator/ingressEndpoint/ip'] },
  { name: 'an ingress endpoint hostname that is an IP', set: { 'operator.ingressEndpoint.hostname': '203.0.113.7' }, says: ['/operator/ingressEndpoint/hostname'] },
  { name: 'an ingress endpoint hostname with an empty label', set: { 'operator.ingressEndpoint.hostname': 'lb..example.com' }, says: ['/operator/ingressEndpoint/hostname'] },
];

const TEMPLATE_CASES: readonly BadCase[] = [
  {
    name: 'auth switched on without users or a Secret',
    set: { 'server.auth.management.enabled': true },
    says: ['server.auth.management.enabled is true but neither server.auth.management.users nor server.auth.management.existingSecret is set'],
  },
  {
    name: 'two Service ports with one name',
    set: { 'service.ports.search.name': 'pushgateway' },
    says: ['service.ports names must differ'],
  },
  {
    name: 'the operator health port on a server port',
    set: { 'operator.healthPort': 9200 },
    says: ['must all differ', '9200'],
  },
  {
    name: 'the Redis store without a URL or a Secret holding it',
    set: { 'server.pushgateway.store.redis.enabled': true },
    says: ['server.pushgateway.store.redis.enabled is true but neither server.pushgateway.store.redis.url nor .existingSecret'],
  },
  {
    name: 'a disruption budget with both minAvailable and maxUnavailable',
    set: { 'podDisruptionBudget.enabled': true, 'podDisruptionBudget.minAvailable': 1, 'podDisruptionBudget.maxUnavailable': 1 },
    says: ['set minAvailable or maxUnavailable, not both'],
  },
];

describe('values.schema.json refuses bad values with a message naming them', () => {
  for (const bad of SCHEMA_CASES) {
    it(bad.name, () => {
      const error = renderError({ setJson: bad.set });
      expect(error).toContain("values don't meet the specifications of the schema");
      for (const fragment of bad.says) expect(error).toContain(fragment);
    });
  }

  it('helm lint fails on bad values too', () => {
    const result = runHelm(['lint', chartDir, '--set-json', 'server.logLevel="verbose"']);
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('/server/logLevel');
  });
});

describe('the chart refuses combinations of values that cannot work', () => {
  for (const bad of TEMPLATE_CASES) {
    it(bad.name, () => {
      const error = renderError({ setJson: bad.set });
      for (const fragment of bad.says) expect(error).toContain(fragment);
    });
  }
});

describe('good values pass', () => {
  it('every optional feature on', () => {
    const result = runHelm(['lint', '--strict', chartDir, '--values', allFeaturesValues]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('a bcrypt hash, a CIDR list, an existing Secret, percentages and null node ports', () => {
    const result = runHelm([
      'lint', '--strict', chartDir,
      '--set-json', `server.auth.search={"enabled":true,"users":["alice:${BCRYPT}"]}`,
      '--set-json', 'server.auth.management={"enabled":true,"existingSecret":"mgmt-users"}',
      '--set-json', 'server.management.ipAllowList=["10.0.0.0/8","::1","2001:db8::/32"]',
      '--set-json', 'podDisruptionBudget={"enabled":true,"minAvailable":"50%","maxUnavailable":null}',
      '--set-json', 'service.type="LoadBalancer"',
    ]);
    expect(result.stdout + result.stderr).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });
});
