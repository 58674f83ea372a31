import { parse as parseYaml } from 'yaml';
import { ConfigError, type FlagTable, type FlagValues } from './flag-types.js';

export interface ConfigSources {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads the optional YAML config file; injected so tests need no files. */
  readonly readFile: (path: string) => string;
}

/** `pushgateway.listen-address` -> `PORTICO_PUSHGATEWAY_LISTEN_ADDRESS`. */
export function envName(flagName: string): string {
  return `PORTICO_${flagName.replace(/[.-]/g, '_').toUpperCase()}`;
}

/**
 * Splits argv into flag values. Accepts `--name value`, `--name=value`, `--bool`, `--no-bool` and
 * `--bool=false`, as Go's kingpin does for Prometheus tools. Positional arguments are refused.
 */
export function parseArgv(table: FlagTable, argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}" (flags start with --)`);
    const eq = arg.indexOf('=');
    let name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    if (!(name in table) && name.startsWith('no-') && table[name.slice(3)]?.kind === 'boolean' && value === undefined) {
      name = name.slice(3);
      value = 'false';
    }
    const spec = table[name];
    if (!spec) throw new ConfigError(`unknown flag --${name}${suggest(table, name)}`);
    if (value === undefined) {
      if (spec.kind === 'boolean') value = 'true';
      else {
        const next = argv[i + 1];
        if (next === undefined) throw new ConfigError(`flag --${name} needs a value`);
        value = next;
        i++;
      }
    }
    out.set(name, value);
  }
  return out;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/** " (did you mean --x?)" for a near miss (a typo of at most a third of the name), else "". */
function suggest(table: FlagTable, name: string): string {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const key of Object.keys(table)) {
    const d = editDistance(name, key);
    if (d < bestDistance) [best, bestDistance] = [key, d];
  }
  return best === undefined ? '' : ` (did you mean --${best}?)`;
}

/** Flattens `{pushgateway: {listen-address: x}}` and `{pushgateway.listen-address: x}` alike. */
function flattenYaml(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flattenYaml(v, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  if (Array.isArray(value)) out.set(prefix, value.map(String).join(','));
  else out.set(prefix, value === null ? '' : String(value));
}

/**
 * Resolves every flag of `table` once: argv over environment over config file over default.
 * All problems are collected so the user sees every bad key at once.
 */
export function loadConfig<T extends FlagTable>(table: T, sources: ConfigSources): FlagValues<T> {
  const fromArgv = parseArgv(table, sources.argv);
  const configFile = fromArgv.get('config.file') ?? sources.env[envName('config.file')] ?? '';
  const fromFile = new Map<string, string>();
  if (configFile !== '' && 'config.file' in table) {
    let text: string;
    try {
      text = sources.readFile(configFile);
    } catch (err) {
      throw new ConfigError(`cannot read config file ${configFile}: ${(err as Error).message}`, { cause: err });
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw new ConfigError(`config file ${configFile} is not valid YAML: ${(err as Error).message}`, { cause: err });
    }
    if (doc != null) flattenYaml(doc, '', fromFile);
    for (const key of fromFile.keys()) {
      if (!(key in table)) throw new ConfigError(`config file ${configFile}: unknown key "${key}"${suggest(table, key)}`);
    }
  }
  const errors: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const env = sources.env[envName(name)];
    const [raw, origin] = fromArgv.has(name)
      ? [fromArgv.get(name) as string, `--${name}`]
      : env !== undefined
        ? [env, `${envName(name)}`]
        : fromFile.has(name)
          ? [fromFile.get(name) as string, `"${name}" in ${configFile}`]
          : [spec.defaultText, `default of --${name}`];
    try {
      values[name] = spec.parse(raw);
    } catch (err) {
      errors.push(`invalid ${origin}: ${(err as Error).message}`);
    }
  }
  if (errors.length > 0) throw new ConfigError(errors.join('\n'));
  return values as FlagValues<T>;
}

/** `--help` text for a command's flag groups. */
export function formatHelp(usage: string, groups: Record<string, FlagTable>): string {
  const lines = [usage, ''];
  for (const [group, table] of Object.entries(groups)) {
    lines.push(`${group}:`);
    for (const [name, spec] of Object.entries(table)) {
      const arg = spec.kind === 'boolean' ? '' : ` <${spec.kind}>`;
      const def = spec.defaultText === '' ? '' : ` (default: ${spec.defaultText})`;
      lines.push(`  --${name}${arg}`);
      lines.push(`      ${spec.help}${def}`);
      lines.push(`      env: ${envName(name)}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
