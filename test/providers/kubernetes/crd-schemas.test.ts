import { readdirSync, readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { buildCrds, renderCrd } from '../../../crds/generate-crds.js';

// The CRD YAML files: up to date with their generator, structural, and accepting the samples and
// Traefik manifests (apiVersion swapped) while refusing malformed objects.

type Schema = Record<string, unknown>;
const crdDir = new URL('../../../crds/', import.meta.url).pathname;
const examplesDir = new URL('../../../examples/crds/', import.meta.url).pathname;
const fixtures = new URL('../../fixtures/kubernetes/', import.meta.url).pathname;

function loadCrds(): Map<string, Schema> {
  const out = new Map<string, Schema>();
  for (const f of readdirSync(crdDir).filter((n) => n.endsWith('.yaml'))) {
    const doc = parse(readFileSync(crdDir + f, 'utf8')) as Schema;
    const spec = doc.spec as { names: { kind: string }; versions: { schema: { openAPIV3Schema: Schema } }[] };
    out.set(spec.names.kind, (spec.versions[0] as { schema: { openAPIV3Schema: Schema } }).schema.openAPIV3Schema);
  }
  return out;
}

/** Kubernetes structural-schema rules we rely on; returns the paths that break them. */
function structuralProblems(s: Schema, path: string, out: string[]): string[] {
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (typeof s.type !== 'string' && !intOrString) out.push(`${path}: no type`);
  if (s.type === 'array' && typeof s.items !== 'object') out.push(`${path}: array without items`);
  if (s.properties && s.additionalProperties) out.push(`${path}: both properties and additionalProperties`);
  if (s['x-kubernetes-preserve-unknown-fields'] === true && !path.startsWith('spec.plugin')) out.push(`${path}: preserves unknown fields`);
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) structuralProblems(v, path === '' ? k : `${path}.${k}`, out);
  if (typeof s.items === 'object') structuralProblems(s.items as Schema, `${path}[]`, out);
  if (typeof s.additionalProperties === 'object') structuralProblems(s.additionalProperties as Schema, `${path}.*`, out);
  return out;
}

/**
 * OpenAPI v3 (Kubernetes flavour) → JSON Schema for ajv. Unknown fields are refused, as
 * `kubectl apply` does with strict field validation (its default), except where the schema keeps them.
 */
function toJsonSchema(s: Schema, isMetadata = false): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith('x-kubernetes-') || k === 'format' || k === 'description') continue;
    if (k === 'properties') {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, Schema>).map(([p, ps]) => [p, toJsonSchema(ps, p === 'metadata')]));
    } else if (k === 'items' || k === 'additionalProperties') {
      out[k] = typeof v === 'object' ? toJsonSchema(v as Schema) : v;
    } else if (k === 'anyOf') {
      out.anyOf = (v as Schema[]).map((x) => toJsonSchema(x));
    } else {
      out[k] = v;
    }
  }
  if (s.type === 'object' && !isMetadata && s['x-kubernetes-preserve-unknown-fields'] !== true && s.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

describe('CRD schemas', () => {
  const crds = loadCrds();
  const ajv = new Ajv({ allErrors: false, strict: false });
  const validators = new Map<string, ValidateFunction>([...crds].map(([kind, schema]) => [kind, ajv.compile(toJsonSchema(schema))]));
  const validate = (obj: Schema): string | null => {
    const v = validators.get(String(obj.kind));
    if (!v) return `no CRD for kind ${String(obj.kind)}`;
    return v(obj) ? null : ajv.errorsText(v.errors, { dataVar: '' });
  };

  it('are the generator output (run `npx tsx crds/generate-crds.ts` after editing it)', () => {
    for (const [file, doc] of buildCrds()) expect(readFileSync(crdDir + file, 'utf8'), file).toBe(renderCrd(doc));
    expect(crds.size).toBe(6);
  });

  it('are structural, with a status subresource and printer columns', () => {
    for (const f of readdirSync(crdDir).filter((n) => n.endsWith('.yaml'))) {
      const doc = parse(readFileSync(crdDir + f, 'utf8')) as { spec: { group: string; versions: Schema[] } };
      expect(doc.spec.group).toBe('portico.dev');
      const version = doc.spec.versions[0] as { name: string; subresources: Schema; additionalPrinterColumns: unknown[]; schema: { openAPIV3Schema: Schema } };
      expect(version.name).toBe('v1alpha1');
      expect(version.subresources).toEqual({ status: {} });
      expect(version.additionalPrinterColumns.length).toBeGreaterThanOrEqual(3);
      expect(structuralProblems(version.schema.openAPIV3Schema, '', []), f).toEqual([]);
    }
  });

  it('accept every sample manifest in examples/crds', () => {
    let count = 0;
    for (const f of readdirSync(examplesDir).filter((n) => n.endsWith('.yaml'))) {
      for (const d of parseAllDocuments(readFileSync(examplesDir + f, 'utf8'))) {
        const obj = d.toJS() as Schema;
        expect(validate(obj), `${f} ${String((obj.metadata as Schema).name)}`).toBeNull();
        count++;
      }
    }
    expect(count).toBeGreaterThanOrEqual(15);
  });

  it('accept Traefik manifests once their apiVersion says portico.dev', () => {
    for (const d of parseAllDocuments(readFileSync(`${fixtures}traefik-manifests.yaml`, 'utf8'))) {
      const obj = d.toJS() as Schema;
      expect(obj.apiVersion).toBe('traefik.io/v1alpha1');
      expect(validate({ ...obj, apiVersion: 'portico.dev/v1alpha1' }), String((obj.metadata as Schema).name)).toBeNull();
    }
  });

  it('refuse malformed objects', () => {
    // Cases with only `server` break a CEL rule, which only the real API server runs (test/kube/).
    const all = parse(readFileSync(`${fixtures}crd-invalid/cases.yaml`, 'utf8')) as { expect?: string; object: Schema }[];
    const cases = all.filter((c): c is { expect: string; object: Schema } => c.expect !== undefined);
    expect(cases.length).toBeGreaterThanOrEqual(10);
    for (const c of cases) {
      const error = validate(c.object);
      expect(error, String((c.object.metadata as Schema).name)).not.toBeNull();
      expect(error, String((c.object.metadata as Schema).name)).toContain(c.expect);
    }
  });
});
