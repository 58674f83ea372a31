/**
 * The references between records, by which the incremental runtime (incremental.ts) finds the
 * records a change can reach: a router names its service, middlewares and parent routers, a
 * service its child services, a chain its middlewares. Records are nodes `<kind>:<qualified name>`.
 */
import type { DynamicConfiguration } from '../../dynamic-config/configuration.js';
import type { ProviderInput, RuntimeConfiguration } from './runtime.js';
import { qualify } from './records.js';

/** Record kinds, each with its own name space; a node id is `<kind>:<qualified name>`. */
export type Kind = 'hr' | 'hs' | 'hm' | 'tr' | 'ts' | 'tm' | 'ur' | 'us';

export const KIND_KEYS: readonly (readonly [Kind, 'http' | 'tcp' | 'udp', 'routers' | 'services' | 'middlewares', keyof RuntimeConfiguration])[] = [
  ['hr', 'http', 'routers', 'routers'], ['hs', 'http', 'services', 'services'], ['hm', 'http', 'middlewares', 'middlewares'],
  ['tr', 'tcp', 'routers', 'tcpRouters'], ['ts', 'tcp', 'services', 'tcpServices'], ['tm', 'tcp', 'middlewares', 'tcpMiddlewares'],
  ['ur', 'udp', 'routers', 'udpRouters'], ['us', 'udp', 'services', 'udpServices'],
];

export type Rec = Record<string, unknown>;

export function recordMap(c: DynamicConfiguration, protocol: 'http' | 'tcp' | 'udp', key: 'routers' | 'services' | 'middlewares'): Rec | undefined {
  const section = c[protocol] as Record<string, Rec | undefined> | undefined;
  return section?.[key] ?? undefined;
}

/** Calls `fn` with each object record of a provider's configuration, kind by kind. */
export function forEachRecord(input: ProviderInput, fn: (kind: Kind, name: string, value: Rec) => void): void {
  for (const [kind, protocol, key] of KIND_KEYS) {
    const map = recordMap(input.configuration, protocol, key);
    if (map === undefined) continue;
    for (const name in map) {
      if (!Object.prototype.hasOwnProperty.call(map, name)) continue;
      const value = map[name];
      if (typeof value === 'object' && value !== null) fn(kind, name, value as Rec);
    }
  }
}

export type Visit = (kind: Kind, name: string) => void;

/** Visits each name in `list` (strings or `{name}` objects). */
function visitNames(kind: Kind, list: unknown, visit: Visit): void {
  if (!Array.isArray(list)) return;
  for (const item of list) {
    const name = typeof item === 'string' ? item : typeof item === 'object' && item !== null ? (item as { name?: unknown }).name : undefined;
    if (typeof name === 'string') visit(kind, name);
  }
}

function visitName(kind: Kind, name: unknown, visit: Visit): void {
  if (typeof name === 'string') visit(kind, name);
}

/**
 * Visits the kind and name, as written (unqualified or qualified), of each record a record
 * references, whether it exists or not.
 */
export function visitReferences(kind: Kind, record: Rec, visit: Visit): void {
  switch (kind) {
    case 'hr':
    case 'tr':
      visitName(kind === 'hr' ? 'hs' : 'ts', record.service, visit);
      visitNames(kind === 'hr' ? 'hm' : 'tm', record.middlewares, visit);
      visitNames(kind, record.parentRefs, visit);
      break;
    case 'ur':
      visitName('us', record.service, visit);
      break;
    case 'hs': {
      const { weighted, highestRandomWeight, mirroring, failover } = record as Record<string, Rec | undefined>;
      if (weighted === undefined && highestRandomWeight === undefined && mirroring === undefined && failover === undefined) break;
      visitNames('hs', weighted?.services, visit);
      visitNames('hs', highestRandomWeight?.services, visit);
      if (mirroring) {
        visitName('hs', mirroring.service, visit);
        visitNames('hs', mirroring.mirrors, visit);
      }
      if (failover) {
        visitName('hs', failover.service, visit);
        visitName('hs', failover.fallback, visit);
      }
      break;
    }
    case 'ts':
    case 'us':
      if (record.weighted === undefined) break;
      visitNames(kind, (record.weighted as Rec | undefined)?.services, visit);
      break;
    case 'hm':
      if (record.chain === undefined) break;
      visitNames('hm', (record.chain as Rec | undefined)?.middlewares, visit);
      break;
    case 'tm':
      break;
  }
}

export const NO_REFS: readonly string[] = Object.freeze([]);

/**
 * Node ids a record references, whether they exist or not. Most records (load balancers, plain
 * middlewares) reference nothing: they get the shared empty list.
 */
export function referencesOf(kind: Kind, record: Rec, provider: string): readonly string[] {
  let out: string[] | undefined;
  visitReferences(kind, record, (k, name) => {
    (out ??= []).push(`${k}:${qualify(name, provider)}`);
  });
  return out ?? NO_REFS;
}

/** A record's identity for change detection: its object and, for services, its given server states. */
export function sameRecord(kind: Kind, a: ProviderInput, b: ProviderInput, name: string, ra: unknown, rb: unknown): boolean {
  if (ra !== rb) return false;
  if (kind === 'hs' || kind === 'ts') {
    const sa = a.serverStatus;
    const sb = b.serverStatus;
    if (sa !== sb && (sa?.[name] ?? sa?.[`${name}@${a.provider}`]) !== (sb?.[name] ?? sb?.[`${name}@${b.provider}`])) return false;
  }
  if (kind === 'hr' && a.priorities !== b.priorities && a.priorities?.[name] !== b.priorities?.[name]) return false;
  return true;
}
