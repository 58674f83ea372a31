/**
 * Where Traefik 3.7.13's answers are random, and how the suite sets that aside.
 *
 * Traefik builds the children of a weighted or highest-random-weight HTTP service, and of a
 * weighted TCP or UDP service, in a shuffled order (`shuffle(config.Services, m.rand)` in
 * pkg/server/service/service.go getWRRServiceHandler and getHRWServiceHandler, tcp/service.go and
 * udp/service.go BuildTCP/BuildUDP; `m.rand` is seeded with the time) and stops at the first child
 * that fails. A failed service is disabled, and a later build of it returns its errors without
 * building again (`conf.Status == runtime.StatusDisabled` in BuildHTTP), so the first build
 * decides. When two or more children can fail, the shuffle decides:
 * - which child's error the service, the services above it and the routers that reach it show
 *   (a missing child's "does not exist", a cycle's recursion path, a child's multi-types text);
 * - which children (and their own children) are built at all: a child after the failing one is
 *   never built, so it shows no error and stays `enabled` where the other order disables it.
 * Portico builds the children in the file's order, one of the orders Traefik can take. Traefik's
 * lists are sorted by a total order (ties by name, pkg/api/sort.go), so this is the randomness the
 * suite meets: it made the count of unexplained answers move between runs.
 *
 * What is set aside, narrowly, from the loaded files alone (both sides get the same treatment):
 * - a *random service* is a shuffled service with two or more distinct children that can fail
 *   (missing, of two kinds or none, a negative TCP/UDP weight, or leading to such a service or
 *   into a cycle);
 * - in the records of its *zone* (the random service, every service that reaches it, every
 *   service it reaches, and the routers whose service is one of these), each `error` text that a
 *   failing child of the zone can give is replaced by one token (then de-duplicated): the missing
 *   names of the zone's services, the multi-types text, "does not have any type defined" of a zone
 *   service, a recursion path through zone services only, Traefik's `building HTTP service "…": `
 *   prefix before any of these, and their `, `-joined lists. Every other error, and every other
 *   field, is still compared;
 * - a service the random service reaches (which may be built or not) whose errors are all such
 *   texts shows neither `error` nor `status` on either side, its status being the token
 *   `BUILT_OR_NOT`; compare.ts lets such a record sort and filter by status either way.
 */
import { parse } from 'yaml';

export type Proto = 'http' | 'tcp' | 'udp';

/** The token an error text a shuffled build may or may not give is replaced by. */
export const RANDOM_FAILURE = '<a failure a shuffled build may give>';
/** The status of a service that a shuffled build may or may not reach and build. */
export const BUILT_OR_NOT = '<built or not, as a shuffled build goes>';

/** Traefik 3.7.13's service kinds (the non-nil fields of dynamic.Service, TCPService, UDPService). */
const SERVICE_KINDS: Record<Proto, readonly string[]> = {
  http: ['loadBalancer', 'weighted', 'mirroring', 'failover', 'highestRandomWeight'],
  tcp: ['loadBalancer', 'weighted'],
  udp: ['loadBalancer', 'weighted'],
};

/** HTTP internal services Traefik builds without error in the suite's static configuration (API on). */
const BUILDABLE_INTERNAL = new Set(['api@internal', 'dashboard@internal', 'noop@internal']);

const MULTI_TYPES = 'cannot create service: multi-types service not supported, consider declaring two different pieces of service instead';

interface Child { readonly name: string; readonly weight?: unknown; readonly status?: unknown }
type ServiceConfig = Record<string, { services?: Child[]; service?: string; mirrors?: Child[]; fallback?: string } | null | undefined>;
interface Section { routers?: Record<string, { service?: unknown } | null>; services?: Record<string, ServiceConfig | null> }

interface ProtoPicks {
  /** Records whose `error` lists may hold a random pick, by API kind ('services', 'routers'). */
  readonly services: Set<string>;
  readonly routers: Set<string>;
  /** Services a random service reaches: built or not, as its shuffle goes. */
  readonly maybeBuilt: Set<string>;
  /** Names (qualified) that zone services reference and that do not exist. */
  readonly missing: Set<string>;
}

export interface Picks {
  /** How many random services the loaded files have; 0: nothing is set aside. */
  readonly size: number;
  readonly byProto: Readonly<Record<Proto, ProtoPicks>>;
}

function qualify(name: string, provider: string): string {
  return name.includes('@') ? name : `${name}@${provider}`;
}

function emptyPicks(): ProtoPicks {
  return { services: new Set(), routers: new Set(), maybeBuilt: new Set(), missing: new Set() };
}

/** Whether a service has exactly one kind: one of two kinds or none fails before it builds anything. */
function oneKind(proto: Proto, svc: ServiceConfig): boolean {
  return SERVICE_KINDS[proto].filter((k) => svc[k] != null).length === 1;
}

/** Children a service builds, qualified; `shuffled` those of its weighted or HRW list (when it has one kind). */
function childrenOf(proto: Proto, svc: ServiceConfig): { all: string[]; shuffled: string[]; negativeWeight: boolean } {
  const all: string[] = [];
  const shuffled: string[] = [];
  let negativeWeight = false;
  const listed = (list: unknown, into: string[][]) => {
    if (!Array.isArray(list)) return;
    for (const c of list as Child[]) {
      if (c === null || typeof c !== 'object' || typeof c.name !== 'string' || c.name === '') continue;
      // An HTTP weighted child with a status code answers it and builds nothing (getServiceHandler).
      if (proto === 'http' && c.status != null) continue;
      if (proto !== 'http' && typeof c.weight === 'number' && c.weight < 0) negativeWeight = true;
      for (const l of into) l.push(qualify(c.name, 'file'));
    }
  };
  // A service of two kinds or none fails before it builds any child.
  if (!oneKind(proto, svc)) return { all, shuffled, negativeWeight };
  listed(svc.weighted?.services, [all, shuffled]);
  if (proto === 'http') {
    listed(svc.highestRandomWeight?.services, [all, shuffled]);
    for (const n of [svc.mirroring?.service, svc.failover?.service, svc.failover?.fallback]) if (typeof n === 'string' && n !== '') all.push(qualify(n, 'file'));
    listed(svc.mirroring?.mirrors, [all]);
  }
  return { all, shuffled, negativeWeight };
}

/** The random services of the loaded files (file provider) and their zones; see the file's comment. */
export function randomPicks(files: Readonly<Record<string, string>>): Picks {
  const docs: Partial<Record<Proto, Section>>[] = [];
  for (const name of Object.keys(files).sort()) {
    try {
      const doc = parse(files[name] as string) as unknown;
      if (typeof doc === 'object' && doc !== null) docs.push(doc as Partial<Record<Proto, Section>>);
    } catch {
      // A file that does not parse loads nothing on either side.
    }
  }
  let size = 0;
  const byProto = { http: emptyPicks(), tcp: emptyPicks(), udp: emptyPicks() };
  for (const proto of ['http', 'tcp', 'udp'] as const) {
    const picks = byProto[proto];
    // The first definition of a name wins (the file provider skips later ones).
    const defs = new Map<string, ServiceConfig>();
    for (const d of docs) {
      for (const [n, svc] of Object.entries(d[proto]?.services ?? {})) {
        if (svc !== null && typeof svc === 'object' && !defs.has(`${n}@file`)) defs.set(`${n}@file`, svc);
      }
    }
    const children = new Map([...defs].map(([n, svc]) => [n, childrenOf(proto, svc)] as const));
    const bad = (n: string): boolean => {
      const def = defs.get(n);
      if (def === undefined) return proto !== 'http' || !BUILDABLE_INTERNAL.has(n);
      return !oneKind(proto, def) || (children.get(n)?.negativeWeight ?? false);
    };
    const reach = new Map<string, Set<string>>();
    const reachOf = (n: string): Set<string> => {
      let r = reach.get(n);
      if (r !== undefined) return r;
      r = new Set();
      const todo = [...(children.get(n)?.all ?? [])];
      while (todo.length > 0) {
        const c = todo.pop() as string;
        if (r.has(c)) continue;
        r.add(c);
        todo.push(...(children.get(c)?.all ?? []));
      }
      reach.set(n, r);
      return r;
    };
    // Can fail: itself bad, or it reaches a bad service or a cycle (a service that reaches itself).
    const canFail = (n: string): boolean => bad(n) || [n, ...reachOf(n)].some((m) => bad(m) || reachOf(m).has(m));
    const random = [...defs.keys()].filter((n) => new Set((children.get(n)?.shuffled ?? []).filter(canFail)).size >= 2);
    size += random.length;
    for (const s of random) {
      const below = [...reachOf(s)].filter((m) => defs.has(m));
      for (const m of below) picks.maybeBuilt.add(m);
      picks.services.add(s);
      for (const m of below) picks.services.add(m);
      for (const [n] of defs) if (reachOf(n).has(s)) picks.services.add(n);
    }
    for (const n of picks.services) for (const c of children.get(n)?.all ?? []) if (!defs.has(c)) picks.missing.add(c);
    for (const d of docs) {
      for (const [n, r] of Object.entries(d[proto]?.routers ?? {})) {
        if (r !== null && typeof r === 'object' && typeof r.service === 'string' && picks.services.has(qualify(r.service, 'file'))) picks.routers.add(`${n}@file`);
      }
    }
  }
  return { size, byProto };
}

/** Whether `text` is an error a failing child of `proto`'s zones can give (see the file's comment). */
export function isRandomFailure(proto: Proto, text: string, picks: Picks): boolean {
  const p = picks.byProto[proto];
  if (p.services.size === 0) return false;
  const one = (t: string): boolean => {
    const inner = proto === 'http' ? /^building HTTP service "[^"]+": (.*)$/s.exec(t)?.[1] ?? t : t;
    if (inner === MULTI_TYPES) return true;
    let m = /^the (?:UDP )?service "([^"]+)" does not exist$/.exec(inner);
    if (m !== null) return p.missing.has(m[1] as string);
    m = /^the (?:UDP )?service "([^"]+)" does not have any type defined$/.exec(inner);
    if (m !== null) return p.services.has(m[1] as string);
    m = /^could not instantiate service (\S+): recursion detected in (\S+)$/.exec(inner);
    if (m !== null) return p.services.has(m[1] as string) && (m[2] as string).split('->').every((s) => s.startsWith('service:') && p.services.has(s.slice('service:'.length)));
    return /^invalid negative weight -?\d+ for (?:UDP )?service "[^"]+"$/.test(inner) && proto !== 'http';
  };
  const joined = (t: string): boolean => {
    if (one(t)) return true;
    // A disabled service built again answers its errors joined with ", " (BuildHTTP).
    for (let i = t.indexOf(', '); i >= 0; i = t.indexOf(', ', i + 1)) if (one(t.slice(0, i)) && joined(t.slice(i + 2))) return true;
    return false;
  };
  return joined(text);
}

const RAW_KINDS: Record<string, [Proto, 'routers' | 'services']> = {
  routers: ['http', 'routers'], services: ['http', 'services'], tcpRouters: ['tcp', 'routers'], tcpServices: ['tcp', 'services'],
  udpRouters: ['udp', 'routers'], udpServices: ['udp', 'services'],
};

function setRecordAside(rec: unknown, name: string, proto: Proto, kind: 'routers' | 'services', picks: Picks): unknown {
  if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) return rec;
  const p = picks.byProto[proto];
  if (!p[kind].has(name)) return rec;
  const out: Record<string, unknown> = { ...(rec as Record<string, unknown>) };
  if (Array.isArray(out.error)) out.error = [...new Set(out.error.map((e) => (typeof e === 'string' && isRandomFailure(proto, e, picks) ? RANDOM_FAILURE : e)))];
  if (kind === 'services' && p.maybeBuilt.has(name) && (out.error === undefined || (out.error as unknown[]).every((e) => e === RANDOM_FAILURE)) &&
    (out.status === 'enabled' || out.status === 'disabled')) {
    delete out.error;
    out.status = BUILT_OR_NOT;
  }
  return out;
}

/**
 * A copy of a parsed answer of `path` with Traefik's random picks set aside (see the file's
 * comment): records of the eight lists and by name, and `/api/rawdata`; other answers as they are.
 */
export function setPicksAside(body: unknown, picks: Picks, path: string): unknown {
  if (picks.size === 0 || typeof body !== 'object' || body === null) return body;
  const p = path.split('?')[0] ?? '';
  if (p === '/api/rawdata') {
    if (Array.isArray(body)) return body;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) {
      const kind = RAW_KINDS[k];
      out[k] = kind === undefined || typeof v !== 'object' || v === null ? v
        : Object.fromEntries(Object.entries(v).map(([n, r]) => [n, setRecordAside(r, n, kind[0], kind[1], picks)]));
    }
    return out;
  }
  const m = /^\/api\/(http|tcp|udp)\/(routers|services)(?:\/|$)/.exec(p);
  if (m === null) return body;
  const [proto, kind] = [m[1] as Proto, m[2] as 'routers' | 'services'];
  const one = (r: unknown) => setRecordAside(r, typeof r === 'object' && r !== null ? String((r as { name?: unknown }).name) : '', proto, kind, picks);
  return Array.isArray(body) ? body.map(one) : one(body);
}
