/**
 * The ServiceMonitor scrapes the push gateway port's /metrics with honorLabels: true (pushed job and
 * instance labels are kept), is created only where the Prometheus Operator's API exists unless
 * forced, and the annotation mode serves clusters without the operator.
 */
import { describe, expect, it } from 'vitest';
import { allFeaturesValues, only, render, SERVICE_MONITOR_API, type K8sObject } from './support/helm.js';
import { validateAll } from './support/validate-manifest.js';

interface Endpoint {
  port: string;
  path: string;
  honorLabels: boolean;
  interval?: string;
  scrapeTimeout?: string;
  scheme?: string;
  relabelings?: unknown[];
  metricRelabelings?: unknown[];
  basicAuth?: { username: { name: string; key: string }; password: { name: string; key: string } };
}
interface ServiceMonitorSpec {
  selector: { matchLabels: Record<string, string> };
  namespaceSelector: { matchNames: string[] };
  endpoints: Endpoint[];
}
interface ServicePort {
  name: string;
  port: number;
  targetPort: string;
}

const spec = (sm: K8sObject) => sm['spec'] as ServiceMonitorSpec;
const servicePorts = (objects: K8sObject[]) => (only(objects, 'Service')['spec'] as { ports: ServicePort[] }).ports;

describe('ServiceMonitor', () => {
  it('is created when the cluster serves monitoring.coreos.com/v1 and targets the push gateway port with honorLabels', () => {
    const objects = render({ apiVersions: [SERVICE_MONITOR_API] });
    const sm = only(objects, 'ServiceMonitor');
    expect(validateAll([sm])).toEqual([]);
    const { endpoints, selector, namespaceSelector } = spec(sm);
    expect(endpoints).toHaveLength(1);
    const [endpoint] = endpoints as [Endpoint];
    expect(endpoint.honorLabels).toBe(true);
    expect(endpoint.port).toBe('pushgateway');
    expect(endpoint.path).toBe('/metrics');
    expect(endpoint.interval).toBe('30s');

    // The port name resolves to the Service port that forwards to the server's push gateway port.
    const port = servicePorts(objects).find((p) => p.name === endpoint.port);
    expect(port).toMatchObject({ port: 9091, targetPort: 'pushgateway' });
    // The selector matches the Service, in the release namespace.
    const service = only(objects, 'Service');
    for (const [k, v] of Object.entries(selector.matchLabels)) expect(service.metadata.labels?.[k]).toBe(v);
    expect(namespaceSelector.matchNames).toEqual(['portico']);
  });

  it('is not created where the Prometheus Operator is missing, nor when switched off', () => {
    expect(render().filter((o) => o.kind === 'ServiceMonitor')).toEqual([]);
    const off = render({ apiVersions: [SERVICE_MONITOR_API], setJson: { 'serviceMonitor.enabled': false } });
    expect(off.filter((o) => o.kind === 'ServiceMonitor')).toEqual([]);
  });

  it('skipCapabilityCheck renders it without the API (helm template for GitOps)', () => {
    const objects = render({ setJson: { 'serviceMonitor.skipCapabilityCheck': true } });
    expect(spec(only(objects, 'ServiceMonitor')).endpoints[0]?.honorLabels).toBe(true);
  });

  it('follows the port name, the route prefix, and carries interval, relabelings and basic auth from values', () => {
    const objects = render({ values: [allFeaturesValues] });
    const sm = only(objects, 'ServiceMonitor');
    expect(validateAll([sm])).toEqual([]);
    expect(sm.metadata.namespace).toBe('monitoring');
    expect(sm.metadata.labels?.['release']).toBe('kube-prometheus-stack');
    const endpoint = spec(sm).endpoints[0] as Endpoint;
    expect(endpoint).toMatchObject({
      port: 'pushgateway',
      path: '/pushgateway/metrics',
      honorLabels: true,
      interval: '15s',
      scrapeTimeout: '5s',
      relabelings: [{ sourceLabels: ['__meta_kubernetes_pod_node_name'], targetLabel: 'portico_node' }],
      metricRelabelings: [{ sourceLabels: ['__name__'], regex: 'go_.*', action: 'drop' }],
      basicAuth: {
        username: { name: 'portico-scrape-credentials', key: 'username' },
        password: { name: 'portico-scrape-credentials', key: 'password' },
      },
    });
    // Scraped from the release namespace even though the ServiceMonitor lives elsewhere.
    expect(spec(sm).namespaceSelector.matchNames).toEqual(['portico']);

    const renamed = render({ apiVersions: [SERVICE_MONITOR_API], setJson: { 'service.ports.pushgateway.name': 'metrics-push' } });
    expect(spec(only(renamed, 'ServiceMonitor')).endpoints[0]?.port).toBe('metrics-push');
    expect(servicePorts(renamed).map((p) => p.name)).toEqual(['traefik', 'metrics-push', 'search']);
  });

  it('annotation mode puts prometheus.io/* on the Service for clusters without the operator', () => {
    const plain = only(render(), 'Service');
    expect(plain.metadata.annotations ?? {}).not.toHaveProperty('prometheus.io/scrape');
    const annotated = only(render({ setJson: { 'prometheusScrapeAnnotations.enabled': true, 'server.pushgateway.routePrefix': '/pg' } }), 'Service');
    expect(annotated.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9091',
      'prometheus.io/path': '/pg/metrics',
    });
  });
});
