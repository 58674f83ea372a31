/**
 * The few fields of Kubernetes objects the translation reads, typed loosely on purpose: objects come
 * straight from the API server's JSON (never through the client's model classes), and a bad object
 * must be reported, not crash the operator, so every field is optional and checked where it is used.
 */

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: unknown;
  status?: unknown;
}

export interface ServiceBackendPort {
  name?: string;
  number?: number;
}

export interface IngressBackend {
  service?: { name?: string; port?: ServiceBackendPort };
  resource?: { apiGroup?: string; kind?: string; name?: string };
}

export interface HTTPIngressPath {
  path?: string;
  pathType?: string;
  backend?: IngressBackend;
}

export interface IngressRule {
  host?: string;
  http?: { paths?: HTTPIngressPath[] };
}

export interface Ingress extends KubeObject {
  spec?: {
    ingressClassName?: string;
    defaultBackend?: IngressBackend;
    rules?: IngressRule[];
    tls?: { hosts?: string[]; secretName?: string }[];
  };
}

export interface IngressClass extends KubeObject {
  spec?: { controller?: string };
}

export interface ServicePort {
  name?: string;
  port?: number;
  targetPort?: number | string;
  protocol?: string;
  nodePort?: number;
}

export interface Service extends KubeObject {
  spec?: {
    type?: string;
    clusterIP?: string;
    externalName?: string;
    ports?: ServicePort[];
  };
}

export interface EndpointConditions {
  ready?: boolean | null;
  serving?: boolean | null;
  terminating?: boolean | null;
}

export interface Endpoint {
  addresses?: string[];
  conditions?: EndpointConditions;
}

export interface EndpointPort {
  name?: string | null;
  port?: number | null;
  protocol?: string;
}

export interface EndpointSlice extends KubeObject {
  addressType?: string;
  endpoints?: Endpoint[] | null;
  ports?: EndpointPort[] | null;
}

/** A Secret as the cache keeps it: `data` values are base64, as the API server sends them. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string> | null;
}

/** The label an EndpointSlice carries to name its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? '';
  return ns === '' ? name : `${ns}/${name}`;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
