/**
 * The chart grants the operator exactly what it uses: the expected sets come from the operator's own
 * list of watched resources and its writes. A new watch in the operator fails this test until
 * charts/portico/templates/_rbac.tpl grants it; anything else the chart grants fails it too.
 */
import { describe, expect, it } from 'vitest';
import { PORTICO_GROUP, TRAEFIK_GROUP } from '../../src/providers/kubernetes/translate/crd/kinds.js';
import { watchedResources } from '../../src/providers/kubernetes/watch/object-cache.js';
import { only, render, type K8sObject } from './support/helm.js';

const resource = (r: { group: string; plural: string }) => `${r.group === '' ? 'core' : r.group}/${r.plural}`;

/** Cluster-scoped kinds the operator lists and watches (the chart passes no namespace selector). */
const CLUSTER_SCOPED = watchedResources({ traefikCrds: false })
  .filter((r) => !r.namespaced)
  .flatMap((r) => [`${resource(r)}:list`, `${resource(r)}:watch`]);

/**
 * What the operator needs in every namespace it watches: list+watch of every namespaced resource it
 * reflects (Secrets unless operator.readSecrets is off), PATCH of the CRDs' /status (conditions)
 * and of the Ingresses' /status (the ingress endpoint, on by default), POST of Events.
 */
function namespacedGrants(traefikCrds: boolean, options: { secrets?: boolean; ingressStatus?: boolean } = {}): string[] {
  const watched = watchedResources({ traefikCrds, secrets: options.secrets ?? true }).filter((r) => r.namespaced);
  const crds = watched.filter((r) => r.group === PORTICO_GROUP || r.group === TRAEFIK_GROUP);
  return [
    ...watched.flatMap((r) => [`${resource(r)}:list`, `${resource(r)}:watch`]),
    ...crds.map((r) => `${resource(r)}/status:patch`),
    ...(options.ingressStatus ?? true ? ['networking.k8s.io/ingresses/status:patch'] : []),
    'core/events:create',
  ];
}

const LEASE = ['coordination.k8s.io/leases:get', 'coordination.k8s.io/leases:create', 'coordination.k8s.io/leases:update'];

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** Flattens rules into sorted `group/resource:verb` grants; wildcards stay visible as `*`. */
function grants(role: K8sObject): string[] {
  const out = new Set<string>();
  for (const rule of (role['rules'] as PolicyRule[] | undefined) ?? []) {
    expect(rule.nonResourceURLs, 'no non-resource URLs').toBeUndefined();
    expect(rule.resourceNames, 'no resourceNames restrictions expected').toBeUndefined();
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        for (const verb of rule.verbs) out.add(`${group === '' ? 'core' : group}/${resource}:${verb}`);
      }
    }
  }
  return [...out].sort();
}

const sorted = (xs: string[]) => [...new Set(xs)].sort();

function bindingFor(objects: K8sObject[], kind: 'ClusterRoleBinding' | 'RoleBinding', roleName: string, namespace?: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind && (o['roleRef'] as { name: string }).name === roleName && o.metadata.namespace === namespace);
  expect(found, `${kind} for ${roleName}`).toHaveLength(1);
  return found[0] as K8sObject;
}

describe('operator RBAC', () => {
  it('watching every namespace: one ClusterRole with exactly the operator grants, the Lease in the release namespace only', () => {
    const objects = render();
    const clusterRole = only(objects, 'ClusterRole');
    expect(grants(clusterRole)).toEqual(sorted([...CLUSTER_SCOPED, ...namespacedGrants(false)]));

    const roles = objects.filter((o) => o.kind === 'Role');
    expect(roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual(['portico/portico-leader-election']);
    expect(grants(roles[0] as K8sObject)).toEqual(sorted(LEASE));

    const sa = only(objects, 'ServiceAccount');
    const subject = { kind: 'ServiceAccount', name: sa.metadata.name, namespace: 'portico' };
    const crb = bindingFor(objects, 'ClusterRoleBinding', clusterRole.metadata.name);
    expect(crb['subjects']).toEqual([subject]);
    expect(crb['roleRef']).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole.metadata.name });
    const rb = bindingFor(objects, 'RoleBinding', 'portico-leader-election', 'portico');
    expect(rb['subjects']).toEqual([subject]);
    expect(rb['roleRef']).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'portico-leader-election' });

    // The pod runs under that ServiceAccount.
    const pod = (only(objects, 'Deployment')['spec'] as { template: { spec: { serviceAccountName: string } } }).template.spec;
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
  });

  it('with operator.traefikCrds the traefik.io kinds are readable, never writable', () => {
    const clusterRole = only(render({ setJson: { 'operator.traefikCrds': true } }), 'ClusterRole');
    expect(grants(clusterRole)).toEqual(sorted([...CLUSTER_SCOPED, ...namespacedGrants(true)]));
  });

  it('with operator.namespaces the namespaced grants become Roles in those namespaces only', () => {
    const objects = render({ setJson: { 'operator.namespaces': ['apps', 'web'] } });
    expect(grants(only(objects, 'ClusterRole'))).toEqual(sorted(CLUSTER_SCOPED));
    const operatorRoles = objects.filter((o) => o.kind === 'Role' && o.metadata.name === 'portico-operator');
    expect(operatorRoles.map((r) => r.metadata.namespace).sort()).toEqual(['apps', 'web']);
    for (const role of operatorRoles) {
      expect(grants(role)).toEqual(sorted(namespacedGrants(false)));
      bindingFor(objects, 'RoleBinding', 'portico-operator', role.metadata.namespace);
    }
    const args = operatorArgs(objects);
    expect(args).toContain('--operator.namespaces=apps,web');

    // The chart's own Service (the published service) is outside those namespaces: GET of it alone.
    const published = objects.filter((o) => o.kind === 'Role' && o.metadata.name === 'portico-published-service');
    expect(published.map((r) => r.metadata.namespace)).toEqual(['portico']);
    expect((published[0] as K8sObject)['rules']).toEqual([{ apiGroups: [''], resources: ['services'], resourceNames: ['portico'], verbs: ['get'] }]);
    bindingFor(objects, 'RoleBinding', 'portico-published-service', 'portico');
    expect(args).toContain('--operator.ingress-endpoint.published-service=portico/portico');
  });

  it('Secrets and Ingress status are granted only when used', () => {
    const objects = render({ setJson: { 'operator.readSecrets': false, 'operator.ingressEndpoint': { enabled: false } } });
    expect(grants(only(objects, 'ClusterRole'))).toEqual(sorted([...CLUSTER_SCOPED, ...namespacedGrants(false, { secrets: false, ingressStatus: false })]));
    expect(grants(only(objects, 'ClusterRole')).some((g) => g.startsWith('core/secrets'))).toBe(false);
    const args = operatorArgs(objects);
    expect(args).toContain('--operator.read-secrets=false');
    expect(args.some((a) => a.startsWith('--operator.ingress-endpoint'))).toBe(false);

    // A fixed address needs no Service read; a published Service in a watched namespace is in the cache.
    const fixed = render({ setJson: { 'operator.namespaces': ['apps'], 'operator.ingressEndpoint': { enabled: true, ip: '203.0.113.9' } } });
    expect(fixed.filter((o) => o.metadata.name === 'portico-published-service')).toEqual([]);
    expect(operatorArgs(fixed)).toContain('--operator.ingress-endpoint.ip=203.0.113.9');
    const watched = render({ setJson: { 'operator.namespaces': ['apps', 'portico'] } });
    expect(watched.filter((o) => o.metadata.name === 'portico-published-service')).toEqual([]);
  });

  it('without leader election there is no Lease permission; without the operator no RBAC at all', () => {
    const noLease = render({ setJson: { 'operator.leaderElection': false } });
    expect(noLease.filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding')).toEqual([]);
    expect(operatorArgs(noLease)).toContain('--operator.leader-election=false');

    const noOperator = render({ setJson: { 'operator.enabled': false } });
    expect(noOperator.filter((o) => /Role/.test(o.kind))).toEqual([]);
    const pod = (only(noOperator, 'Deployment')['spec'] as { template: { spec: { automountServiceAccountToken: boolean; containers: { name: string }[] } } }).template.spec;
    expect(pod.containers.map((c) => c.name)).toEqual(['server']);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(JSON.stringify(pod)).not.toContain('kube-api-access');
  });

  it('rbac.create=false creates no roles; the ServiceAccount never automounts its token by itself', () => {
    const objects = render({ setJson: { 'rbac.create': false } });
    expect(objects.filter((o) => /Role/.test(o.kind))).toEqual([]);
    expect(only(objects, 'ServiceAccount')['automountServiceAccountToken']).toBe(false);
  });
});

function operatorArgs(objects: K8sObject[]): string[] {
  const spec = (only(objects, 'Deployment')['spec'] as { template: { spec: { containers: { name: string; args: string[] }[] } } }).template.spec;
  const operator = spec.containers.find((c) => c.name === 'operator');
  if (operator === undefined) throw new Error('no operator container');
  return operator.args;
}
