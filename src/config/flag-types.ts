/**
 * Typed flag definitions. A flag is declared once, with its default and help text; the same
 * declaration drives argv parsing, environment variables, the YAML config file, `--help` and the
 * README table. Parsers throw a ConfigError whose message names the bad value.
 */

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A parsed `host:port`; `host` is '' for "all interfaces" (Go's `:9091`). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export interface FlagSpec<T> {
  /** Value kind shown in `--help` (`<address>`, `<duration>` …); booleans have none. */
  readonly kind: 'boolean' | 'string' | 'address' | 'duration' | 'bytes' | 'int' | 'list' | 'enum';
  readonly help: string;
  /** Default as a user would write it, shown in `--help`; '' means none. */
  readonly defaultText: string;
  readonly parse: (raw: string) => T;
}

function spec<T>(kind: FlagSpec<T>['kind'], defaultText: string, help: string, parse: (raw: string) => T): FlagSpec<T> {
  return { kind, help, defaultText, parse };
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off', '']);

export function parseBoolean(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ConfigError(`"${raw}" is not a boolean (true or false)`);
}

/** `host:port`, `:port`, `[v6]:port`, or `off` (null: the listener is disabled). */
export function parseListenAddress(raw: string): ListenAddress | null {
  const v = raw.trim();
  if (v === 'off' || v === '') return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(v);
  if (!m) throw new ConfigError(`"${raw}" is not host:port, :port or off`);
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(`port ${port} in "${raw}" is out of range 0-65535`);
  return { host: m[1] ?? m[2] ?? '', port };
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Go/Prometheus durations (`5m`, `1h30m`, `250ms`, `0`), returned in milliseconds. */
export function parseDuration(raw: string): number {
  const v = raw.trim();
  if (v === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/y;
  let total = 0;
  let pos = 0;
  while (pos < v.length) {
    re.lastIndex = pos;
    const m = re.exec(v);
    if (!m) throw new ConfigError(`"${raw}" is not a duration (like 250ms, 30s, 5m, 1h30m)`);
    total += Number(m[1]) * (DURATION_UNITS[m[2] as string] as number);
    pos = re.lastIndex;
  }
  if (v.length === 0) throw new ConfigError(`"${raw}" is not a duration`);
  return total;
}

/** Go duration text for a millisecond count, as Pushgateway's status page shows flags (`5m0s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  let rest = ms / 1000;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  rest -= m * 60;
  const s = Number(rest.toFixed(3));
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

const BYTE_UNITS: Record<string, number> = {
  '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, k: 1024, m: 1024 ** 2, g: 1024 ** 3,
};

/** Sizes such as `10MiB`, `512kb`, `1048576`; returned in bytes. */
export function parseBytes(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(raw);
  const unit = m ? BYTE_UNITS[(m[2] ?? '').toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new ConfigError(`"${raw}" is not a size (like 1048576, 512KiB, 10MiB)`);
  return Math.floor(Number(m[1]) * unit);
}

export function parseInteger(raw: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  const v = raw.trim();
  if (!/^-?\d+$/.test(v)) throw new ConfigError(`"${raw}" is not an integer`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(`${n} is out of range ${min}..${max}`);
  return n;
}

/** Comma-separated list; empty entries dropped. */
export function parseList(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

export const flag = {
  boolean: (def: boolean, help: string) => spec('boolean', String(def), help, parseBoolean),
  string: (def: string, help: string) => spec('string', def, help, (raw) => raw),
  address: (def: string, help: string) => spec('address', def, help, parseListenAddress),
  duration: (def: string, help: string) => spec('duration', def, help, parseDuration),
  bytes: (def: string, help: string) => spec('bytes', def, help, parseBytes),
  int: (def: number, help: string, min?: number, max?: number) =>
    spec('int', String(def), help, (raw) => parseInteger(raw, min, max)),
  list: (def: string, help: string) => spec('list', def, help, parseList),
  enumOf: <const V extends string>(values: readonly V[], def: V, help: string) =>
    spec('enum', def, `${help} (one of: ${values.join(', ')})`, (raw): V => {
      const v = raw.trim() as V;
      if (!values.includes(v)) throw new ConfigError(`"${raw}" is not one of ${values.join(', ')}`);
      return v;
    }),
};

export type FlagTable = Record<string, FlagSpec<unknown>>;
export type FlagValues<T extends FlagTable> = { readonly [K in keyof T]: T[K] extends FlagSpec<infer V> ? V : never };
