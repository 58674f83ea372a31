import { flag } from './flag-types.js';

/** Flags shared by every command. */
export const commonFlags = {
  'config.file': flag.string('', 'YAML file with flag values (keys are flag names, nested or dotted); flags and environment override it'),
  'data.dir': flag.string('./data', 'Directory for everything Portico stores (pushed metrics, search documents)'),
  'log.level': flag.enumOf(['debug', 'info', 'warn', 'error'] as const, 'info', 'Minimum level of the log lines written to stdout (debug adds one line per request and stack traces of start-up errors)'),
  'log.format': flag.enumOf(['auto', 'logfmt', 'json'] as const, 'auto', 'Format of the log lines: logfmt (as Prometheus writes it) or JSON, one object per line; auto is logfmt when stdout is a terminal and JSON otherwise'),
  'shutdown.timeout': flag.duration('30s', 'How long a graceful shutdown may take: half of it serves what still comes, then new requests get 503 while those in flight finish; past it Portico exits 1'),
};

/** Flags of the serving process alone (the operator sets its own heap growth: run-operator.ts). */
export const serveRuntimeFlags = {
  'runtime.optimize-for-size': flag.boolean(
    false,
    "Run V8 with --optimize-for-size: its heap grows less far ahead of the live data, so a store of 200,000 push groups takes about 40% less resident memory; off by default because the collector then runs far more often: under mixed load (bench:mixed) push p99 98-162 ms instead of 25-47 and management page p99 43-93 ms instead of 4-10, and a 50,000-router apply 1.0-1.6 s of CPU instead of 1.0-1.2 (bench/README.md)",
  ),
  'runtime.small-young-generation': flag.enumOf(
    ['auto', 'on', 'off'] as const,
    'auto',
    "Keep V8's young generation at about its first size, semi-spaces of 1-2 MiB (one doubling may happen while the process starts), instead of letting them grow to 16 MiB under allocation (V8's --semi-space-growth-factor=1): a young generation of 4 MiB where a search bulk load grows it to 32 MiB and keeps it (20-24 MiB less resident memory after loading the bench's corpus, issue 21), for more frequent minor collections (bench/README.md, \"Search server memory\"). auto: on when the search listener is on and the push gateway listener is off (the push p99 under mixed load was not measured with it; a management API alone kept a page p99 of 4.2-5.7 ms with it against 3.1-4.0 without, and has its own collection after large snapshots)",
  ),
};

/**
 * Whether `portico serve` keeps V8's young generation small (`--runtime.small-young-generation`):
 * `auto` when the search listener is on and the push gateway's is off.
 */
export function smallYoungGeneration(config: {
  readonly 'runtime.small-young-generation': 'auto' | 'on' | 'off';
  readonly 'pushgateway.listen-address': unknown;
  readonly 'search.listen-address': unknown;
}): boolean {
  const mode = config['runtime.small-young-generation'];
  return mode === 'on' || (mode === 'auto' && config['pushgateway.listen-address'] === null && config['search.listen-address'] !== null);
}
