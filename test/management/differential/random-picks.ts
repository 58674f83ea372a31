/**
 * Where Traefik 3.7.13's answers are random, and how the suite sets that aside.
 *
 * Traefik builds the children of a weighted or highest-random-weight HTTP service, and of a
 * weighted TCP or UDP service, in a shuffled order (`shuffle(config.Services, m.rand)` in
 * pkg/server/service/service.go, tcp/service.go, udp/service.go) and stops at the first child that
 * fails. A failed service is not cached, so every router that reaches it (once per entry point)
 * builds it again with a new shuffle. When two or more children fail, which child's error a router
 * gets, and which of them (in which order) the service and its parents collect, changes from run
 * to run. Its lists are sorted by a total order (ties by name, pkg/api/sort.go), so this is the
 * only randomness the suite met: it made the count of unexplained answers move between runs.
 *
 * Portico reports the first failing child in the file's order, one of the answers Traefik can
 * give. The suite compares both sides' `error` lists with each "child does not exist" text of such
 * a service replaced by one token (then de-duplicated; one token for all such services, since the
 * same missing name is often the child of several): which missing child was picked, and how many
 * times, no longer counts; everything else (other errors, their order, the status) still does.
 */
import { parse } from 'yaml';

interface Named { name?: string }
interface Section { services?: Record<string, { weighted?: { services?: Named[] }; highestRandomWeight?: { services?: Named[] } }> }

function qualify(name: string, provider: string): string {
  return name.includes('@') ? name : `${name}@${provider}`;
}

/** Error text → token, for the missing children of every shuffled service of the loaded files (file provider). */
export function randomPicks(files: Readonly<Record<string, string>>): Map<string, string> {
  const docs: { http?: Section; tcp?: Section; udp?: Section }[] = [];
  for (const text of Object.values(files)) {
    try {
      const doc = parse(text) as unknown;
      if (typeof doc === 'object' && doc !== null) docs.push(doc as { http?: Section; tcp?: Section; udp?: Section });
    } catch {
      // A file that does not parse loads nothing on either side.
    }
  }
  const out = new Map<string, string>();
  for (const [proto, missingText] of [['http', 'the service'], ['tcp', 'the service'], ['udp', 'the UDP service']] as const) {
    const defined = new Set<string>();
    for (const d of docs) for (const n of Object.keys(d[proto]?.services ?? {})) defined.add(`${n}@file`);
    for (const d of docs) {
      for (const svc of Object.values(d[proto]?.services ?? {})) {
        const children = (svc.weighted ?? (proto === 'http' ? svc.highestRandomWeight : undefined))?.services ?? [];
        const missing = [...new Set(children.map((c) => c.name).filter((n): n is string => typeof n === 'string' && n !== '')
          .map((n) => qualify(n, 'file')).filter((n) => !defined.has(n) && !n.endsWith('@internal')))];
        if (missing.length < 2) continue;
        // One token for all: the same missing name (ghost@kubernetes) is often the child of several such services.
        for (const m of missing) out.set(`${missingText} "${m}" does not exist`, '<a missing child of a shuffled service>');
      }
    }
  }
  return out;
}

/** A copy of a parsed body with every `error` list's random picks replaced by their tokens. */
export function setPicksAside(body: unknown, picks: ReadonlyMap<string, string>): unknown {
  if (picks.size === 0 || typeof body !== 'object' || body === null) return body;
  if (Array.isArray(body)) return body.map((b) => setPicksAside(b, picks));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    out[k] = k === 'error' && Array.isArray(v) ? [...new Set(v.map((e) => (typeof e === 'string' ? picks.get(e) ?? e : e)))] : setPicksAside(v, picks);
  }
  return out;
}
