/**
 * Validates rendered manifests offline, the way `kubectl apply --validate=strict` would:
 *  - the JSON schemas of the Kubernetes API (kubernetes-models) and of the Prometheus Operator
 *    (@kubernetes-models/prometheus-operator): types, required fields, enums;
 *  - unknown fields, which those schemas let through: checked against the field lists of
 *    @kubernetes/client-node's generated models (the same OpenAPI document);
 *  - custom resources of our own CRDs (portico.dev): against the CRD's openAPIV3Schema, with
 *    unknown fields refused where the API server would silently prune them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { parseManifests, type K8sObject } from './helm.js';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

/** Every built-in kind the chart and the examples produce, by `apiVersion/kind`. */
const MODELS: Readonly<Record<string, ModelClass>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/IngressClass': IngressClass,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': CustomResourceDefinition,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

interface Attribute {
  readonly baseName: string;
  readonly type: string;
}

function attributesOf(type: string): readonly Attribute[] | undefined {
  const model = (k8s as unknown as Record<string, unknown>)[type];
  if (typeof model !== 'function') return undefined;
  const getter = (model as { getAttributeTypeMap?: () => Attribute[] }).getAttributeTypeMap;
  return typeof getter === 'function' ? getter.call(model) : undefined;
}

/** Reports fields that the Kubernetes model `type` does not have, recursively. */
function unknownFields(value: unknown, type: string, path: string, errors: string[]): void {
  if (value == null) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) value.forEach((item, i) => unknownFields(item, array[1] as string, `${path}[${i}]`, errors));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) unknownFields(item, map[1] as string, `${path}.${key}`, errors);
    }
    return;
  }
  const attributes = attributesOf(type);
  if (attributes === undefined || typeof value !== 'object' || Array.isArray(value)) return;
  const known = new Map(attributes.map((a) => [a.baseName, a.type]));
  for (const [key, item] of Object.entries(value)) {
    const itemType = known.get(key);
    if (itemType === undefined) errors.push(`${path}.${key}: unknown field (not in ${type})`);
    else unknownFields(item, itemType, `${path}.${key}`, errors);
  }
}

/** Validators for custom resources, by `apiVersion/kind`, built from CRD files. */
export class CrdSchemas {
  private readonly validators = new Map<string, ValidateFunction>();
  // ajv-formats is CommonJS: its plugin is the module's `default` under Node's ESM interop.
  private readonly ajv = ajvFormats.default(new Ajv({ strict: false, allErrors: true }));

  /** Loads every CustomResourceDefinition in the YAML files of `dir`. */
  static fromDirectory(dir: string): CrdSchemas {
    const schemas = new CrdSchemas();
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
    } catch {
      return schemas;
    }
    for (const file of files) {
      for (const doc of parseManifests(readFileSync(join(dir, file), 'utf8'))) {
        if (doc.kind === 'CustomResourceDefinition') schemas.add(doc);
      }
    }
    return schemas;
  }

  get size(): number {
    return this.validators.size;
  }

  has(apiVersion: string, kind: string): boolean {
    return this.validators.has(`${apiVersion}/${kind}`);
  }

  add(crd: K8sObject): void {
    const spec = crd['spec'] as { group: string; names: { kind: string }; versions: { name: string; schema?: { openAPIV3Schema?: unknown } }[] };
    for (const version of spec.versions) {
      const schema = version.schema?.openAPIV3Schema;
      if (schema === undefined) continue;
      // apiVersion, kind and metadata are always allowed at the top, whether the schema names them or not.
      const root = closeObjects(schema) as { properties?: Record<string, unknown> };
      root.properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, ...root.properties };
      this.validators.set(`${spec.group}/${version.name}/${spec.names.kind}`, this.ajv.compile(root));
    }
  }

  validate(obj: K8sObject): string[] {
    const validator = this.validators.get(`${obj.apiVersion}/${obj.kind}`);
    if (validator === undefined) return [`no CRD for ${obj.apiVersion} ${obj.kind}`];
    if (validator(obj)) return [];
    return (validator.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
  }
}

/**
 * The API server prunes fields a structural schema does not name; in a test a pruned field is a
 * typo, so objects with `properties` are closed unless they preserve unknown fields.
 */
function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === 'enum' || key === 'default' || key === 'example' ? value : closeObjects(value);
  }
  if (out['properties'] !== undefined && out['additionalProperties'] === undefined && out['x-kubernetes-preserve-unknown-fields'] !== true) {
    out['additionalProperties'] = false;
  }
  return out;
}

/**
 * Every problem with one object (empty when it is valid). `crds` validates custom resources;
 * an object of a kind nothing here knows is itself a problem, so nothing goes unchecked.
 */
export function validateObject(obj: K8sObject, crds?: CrdSchemas): string[] {
  const where = `${obj.kind} ${obj.metadata?.name ?? '<no name>'}`;
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return [`${where}: apiVersion and kind are required`];
  const key = `${obj.apiVersion}/${obj.kind}`;
  const Model = MODELS[key];
  if (Model === undefined) {
    if (crds?.has(obj.apiVersion, obj.kind)) return crds.validate(obj).map((e) => `${where}: ${e}`);
    return [`${where}: no schema known for ${key}`];
  }
  const errors: string[] = [];
  try {
    new Model(obj as never).validate();
  } catch (err) {
    errors.push(`${where}: ${(err as Error).message}`);
  }
  if (!obj.apiVersion.startsWith('monitoring.coreos.com/')) {
    const version = obj.apiVersion.split('/').pop() ?? '';
    const type = `${version.charAt(0).toUpperCase()}${version.slice(1)}${obj.kind}`;
    if (attributesOf(type) === undefined) errors.push(`${where}: no field list for ${type}`);
    unknownFields(obj, type, obj.kind, errors);
  }
  return errors;
}

/** Validates every object; returns all problems, each naming its object. */
export function validateAll(objects: readonly K8sObject[], crds?: CrdSchemas): string[] {
  return objects.flatMap((o) => validateObject(o, crds));
}
