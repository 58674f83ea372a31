import { isIP } from 'node:net';
import type { commonFlags } from '../../config/common-flags.js';
import { ConfigError, flag, type FlagSpec, type FlagValues } from '../../config/flag-types.js';

/**
 * `--operator.ingress-endpoint.ip`: '' or an IPv4/IPv6 address. The API server refuses anything
 * else in an Ingress status, so a bad value is refused at start, not by every status PATCH.
 */
export function parseEndpointIp(raw: string): string {
  if (raw !== '' && isIP(raw) === 0) throw new ConfigError(`"${raw}" is not an IP address`);
  return raw;
}

/** A DNS-1123 subdomain, as the API server requires of an Ingress status hostname. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `--operator.ingress-endpoint.hostname`: '' or a DNS name (lower case, at most 253 characters, not an IP). */
export function parseEndpointHostname(raw: string): string {
  if (raw !== '' && (raw.length > 253 || !DNS_SUBDOMAIN.test(raw) || isIP(raw) !== 0)) {
    throw new ConfigError(`"${raw}" is not a DNS hostname (lower case, e.g. lb.example.com)`);
  }
  return raw;
}

/** A string flag, default '', checked when the configuration is read. */
function validatedString(help: string, parse: (raw: string) => string): FlagSpec<string> {
  return { ...flag.string('', help), parse };
}

/** Operator (`portico operator`) flags. */
export const operatorFlags = {
  'operator.health-address': flag.address(':8082', 'Address of the operator\'s health and readiness endpoints (host:port, or off)'),
  kubeconfig: flag.string('', 'Kubeconfig file (default: the in-cluster service account when running in a pod, else ~/.kube/config)'),
  'operator.server-url': flag.string('http://127.0.0.1:8081', 'Base URL of the server\'s internal listener, where snapshots are delivered'),
  'operator.token-file': flag.string('', 'File holding the internal listener\'s token (default: <data.dir>/internal-token, as the server writes it)'),
  'operator.namespaces': flag.list('', 'Comma-separated namespaces to watch (empty: all namespaces)'),
  'operator.namespace-selector': flag.string('', 'Label selector on Namespace objects: only namespaces matching it are read (e.g. portico=enabled; empty: off)'),
  'operator.label-selector': flag.string('', 'Label selector Ingresses and CRD objects must match (e.g. app=web,tier!=db; empty: all)'),
  'operator.ingress-class': flag.string('', 'Ingress class to serve (empty: objects with no class or class traefik/portico)'),
  'operator.traefik-crds': flag.boolean(false, 'Also read Traefik\'s own traefik.io/v1alpha1 CRD kinds (the CRDs must be installed)'),
  'operator.leader-election': flag.enumOf(['auto', 'true', 'false'] as const, 'auto', 'Elect one status writer through a Lease (auto: on when running in a cluster)'),
  'operator.lease-namespace': flag.string('', 'Namespace of the leader election Lease (default: the pod\'s namespace, else default)'),
  'operator.lease-name': flag.string('portico-operator', 'Name of the leader election Lease'),
  'operator.identity': flag.string('', 'This replica\'s identity in the Lease and in Events (default: <hostname>-<pid>)'),
  'operator.debounce': flag.duration('100ms', 'Longest wait of changes made while a snapshot is being delivered (they are batched into the next one); a change while none is under way is delivered at once'),
  'operator.resync': flag.duration('5m', 'Interval of full re-translation and status re-check (0 turns it off)'),
  'operator.delivery-check': flag.duration('2s', 'How often to ask the server which snapshot it holds, to re-deliver after a server restart'),
  'operator.max-object-bytes': flag.bytes('512KiB', 'Largest CRD spec accepted; bigger objects are refused with an event'),
  'operator.read-secrets': flag.boolean(true, 'Watch Secrets to resolve basicAuth/digestAuth middleware users (false: no Secret access, users stay empty)'),
  'operator.allow-cross-namespace': flag.boolean(false, 'Let CRD objects reference Services, Middlewares, TraefikServices and TLSOptions in other namespaces (Traefik\'s allowCrossNamespace)'),
  'operator.allow-external-name-services': flag.boolean(false, 'Accept ExternalName Services as backends (Traefik\'s allowExternalNameServices); refused backends show an error on their router'),
  'operator.allow-empty-services': flag.boolean(false, 'Give a Service without endpoints a load balancer with no servers (Traefik\'s allowEmptyServices); else its router shows an error'),
  'operator.ingress-endpoint.ip': validatedString('IP written to status.loadBalancer.ingress of the Ingresses served (Traefik\'s ingressEndpoint.ip)', parseEndpointIp),
  'operator.ingress-endpoint.hostname': validatedString('Hostname written to status.loadBalancer.ingress of the Ingresses served (ingressEndpoint.hostname)', parseEndpointHostname),
  'operator.ingress-endpoint.published-service': flag.string('', 'Service <namespace>/<name> whose load balancer status (else cluster IP) is copied to the Ingresses served; wins over ip and hostname'),
};

/** The slice of the configuration this area reads: its own flags and the general ones. */
export type OperatorConfig = FlagValues<typeof commonFlags & typeof operatorFlags>;
