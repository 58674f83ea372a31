import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ensureHelm, repoRoot } from '../../../scripts/helm-tool.js';

/** A rendered Kubernetes object, as loosely typed as YAML gives it. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export const chartDir = join(repoRoot, 'charts', 'portico');
export const fixturesDir = join(repoRoot, 'test', 'fixtures', 'chart');
export const allFeaturesValues = join(fixturesDir, 'values-all-features.yaml');

/** The ServiceMonitor API as `helm template --api-versions` spells it. */
export const SERVICE_MONITOR_API = 'monitoring.coreos.com/v1/ServiceMonitor';

export interface HelmResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs helm (extracted from the devDependency on first use) and returns what it printed. */
export function runHelm(args: readonly string[]): HelmResult {
  const result = spawnSync(ensureHelm(), args, { encoding: 'utf8', cwd: repoRoot, maxBuffer: 32 * 1024 * 1024 });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

export interface RenderOptions {
  /** Values files, in order. */
  readonly values?: readonly string[];
  /** `--set-json key=json` pairs, applied after the files. */
  readonly setJson?: Readonly<Record<string, unknown>>;
  /** APIs the pretend cluster serves, e.g. SERVICE_MONITOR_API. */
  readonly apiVersions?: readonly string[];
  readonly release?: string;
  readonly namespace?: string;
  /** Also render the files of crds/ (helm template --include-crds). */
  readonly includeCrds?: boolean;
}

function templateArgs(options: RenderOptions): string[] {
  const args = ['template', options.release ?? 'portico', chartDir, '--namespace', options.namespace ?? 'portico'];
  if (options.includeCrds ?? false) args.push('--include-crds');
  for (const file of options.values ?? []) args.push('--values', file);
  for (const [key, value] of Object.entries(options.setJson ?? {})) args.push('--set-json', `${key}=${JSON.stringify(value)}`);
  for (const api of options.apiVersions ?? []) args.push('--api-versions', api);
  return args;
}

// Rendering is deterministic except for the random token, so one test file renders each set of
// values once (callers get freshly parsed objects every time, so they may modify them).
const rendered = new Map<string, string>();

/** `helm template` that must succeed; returns the raw output. */
export function renderText(options: RenderOptions = {}): string {
  const args = templateArgs(options);
  const key = JSON.stringify(args);
  const cached = rendered.get(key);
  if (cached !== undefined) return cached;
  const result = runHelm(args);
  if (result.status !== 0) throw new Error(`helm template failed (${result.status}):\n${result.stderr}`);
  rendered.set(key, result.stdout);
  return result.stdout;
}

/** `helm template` that must fail; returns helm's error output. */
export function renderError(options: RenderOptions): string {
  const result = runHelm(templateArgs(options));
  if (result.status === 0) throw new Error('helm template succeeded, but it was expected to fail');
  return result.stderr;
}

/** Parses a multi-document YAML stream into its non-empty documents; YAML errors throw. */
export function parseManifests(text: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`invalid YAML in rendered output: ${doc.errors[0]?.message ?? ''}`);
    const value = doc.toJS() as unknown;
    if (value == null) continue;
    objects.push(value as K8sObject);
  }
  return objects;
}

/** `helm template` parsed into objects. */
export function render(options: RenderOptions = {}): K8sObject[] {
  return parseManifests(renderText(options));
}

/** The only object of a kind (and name, if given); throws when there is not exactly one. */
export function only(objects: readonly K8sObject[], kind: string, name?: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name === undefined ? '' : ` ${name}`}, found ${found.length}`);
  return found[0] as K8sObject;
}
