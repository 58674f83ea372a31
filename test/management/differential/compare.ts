/**
 * How two answers are compared: status code, `X-Next-Page` and the body's exact text (JSON as
 * Traefik writes it, order included; error texts), once each side's own API address is replaced by
 * a placeholder. An answer that differs may still be explained by a listed difference
 * (known-differences.ts): its first difference must match one of them.
 *
 * Lists of records are compared record by record, by name, not by position: Traefik 3.7.13 sorts
 * every list by a total order (each `sortBy` key, ties broken by name in the same direction,
 * pkg/api/sort.go; names are unique), so Portico must give the same order; but when a record's
 * content differs (its status, say), that one difference also moves it in a sorted list, drops it
 * from a filtered one and shifts every page boundary after it. Counting such lists as differences
 * of their own, at whatever position the shift first shows, hid the cause behind a misalignment.
 * So a list's first difference is, in this order:
 * 1. `list order`: the records both sides list come in another order although none of them
 *    differs in a field a sort reads: a real order difference, never explained away;
 * 2. the first record (by Traefik's position, `.N`) that both sides list and that differs;
 * 3. a record only one side lists (filtered or paged out by the other): its difference with the
 *    other side's record of the same name (taken from that side's whole list);
 * 4. otherwise the page boundaries moved because of records neither page shows: the first record
 *    that differs in the whole list, or `list members` naming the records one side lacks.
 * An `X-Next-Page` that differs under equal bodies is looked at the same way as 4, and so is a page
 * one side refuses as beyond the end (400) while the other shows records: as an empty page.
 * In a query that filters or sorts by status, a record whose status Traefik's shuffled build
 * decides (random-picks.ts) may fall anywhere: the order is compared without it, and members or
 * pages that differ by it alone are random.
 */
import type { Answer } from './peers.js';
import { KNOWN_DIFFERENCES, type DiffContext } from './known-differences.js';
import { BUILT_OR_NOT, setPicksAside, type Picks } from './random-picks.js';

export interface Side {
  readonly status: number;
  readonly nextPage: string | null;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: unknown;
}

export function side(a: Answer, ownAddress: string): Side {
  const text = a.body.split(ownAddress).join('API-ADDRESS');
  let body: unknown = text;
  if (a.contentType?.startsWith('application/json') === true) {
    try {
      // Integers a double cannot hold are kept as text (`int:…`), so no rounding hides a difference.
      body = JSON.parse(text.replace(/([:[,])(-?\d{16,})(?=[,\]}])/g, '$1"int:$2"'));
    } catch {
      body = text;
    }
  }
  return { status: a.status, nextPage: a.nextPage, body };
}

/** `random`: equal once Traefik's random picks are set aside (random-picks.ts). */
export type Verdict = { kind: 'equal' } | { kind: 'random' } | { kind: 'known'; id: string; where: string } | { kind: 'different'; where: string };

/** Every record of the listed kind on each side (the whole list), by name. */
export interface AllRecords {
  readonly traefik: ReadonlyMap<string, unknown>;
  readonly portico: ReadonlyMap<string, unknown>;
}

/**
 * Compares the raw texts first (order included). When they differ, the first difference (status,
 * `X-Next-Page`, or the first differing place in the body; for lists, see the file's comment) is
 * looked up in the listed differences; a response counts as explained by the difference that its
 * first difference matches.
 */
export function compare(
  path: string, t: Answer, p: Answer, traefikAddress: string, porticoAddress: string, all?: AllRecords,
  picks?: Picks, context?: DiffContext,
): Verdict {
  const tt = t.body.split(traefikAddress).join('API-ADDRESS');
  const pt = p.body.split(porticoAddress).join('API-ADDRESS');
  if (t.status === p.status && t.nextPage === p.nextPage && tt === pt) return { kind: 'equal' };
  const ts = side(t, traefikAddress);
  const ps = side(p, porticoAddress);
  if (picks !== undefined) {
    ts.body = setPicksAside(ts.body, picks, path);
    ps.body = setPicksAside(ps.body, picks, path);
    if (picks.size > 0 && ts.status === ps.status && ts.nextPage === ps.nextPage && JSON.stringify(ts.body) === JSON.stringify(ps.body) &&
      typeof ts.body !== 'string') return { kind: 'random' };
  }
  // A list query whose page one side refuses as beyond the end while the other shows records: the
  // lists have other lengths, which the records they show (or the whole lists) explain, as when
  // page boundaries move (see the file's comment). Both sides' text of that refusal is checked.
  // (Traefik writes it as text/plain: `{"message":"invalid request: page: 3, per_page: 2"}`.)
  const beyond = (s: Side) => s.status === 400 && typeof s.body === 'string' &&
    /^\{"message":"invalid request: page: \d+, per_page: \d+"\}\n?$/.test(s.body);
  const pageRefused = ts.status !== ps.status && path.includes('?') && ((beyond(ts) && ps.status === 200 && isRecordList(ps.body)) ||
    (beyond(ps) && ts.status === 200 && isRecordList(ts.body)));
  const statusDependent = /[?&](status=|sortBy=status(&|$))/.test(path);
  const where = ts.status !== ps.status && !pageRefused ? `status ${ts.status} / ${ps.status}: ${tt.slice(0, 200)} / ${pt.slice(0, 200)}`
    : (pageRefused ? listDifference(isRecordList(ts.body) ? ts.body : [], isRecordList(ps.body) ? ps.body : [], all, statusDependent) ||
      `status ${ts.status} / ${ps.status}: ${tt.slice(0, 200)} / ${pt.slice(0, 200)}`
      : (isRecordList(ts.body) && isRecordList(ps.body) ? listDifference(ts.body, ps.body, all, statusDependent) : firstDifference(ts.body, ps.body)) ||
      (ts.nextPage !== ps.nextPage ? pageShift(all, statusDependent) || `X-Next-Page ${ts.nextPage} / ${ps.nextPage}` : 'same JSON, other text (key order or spacing)'));
  if (where === UNSETTLED) return { kind: 'random' };
  const known = KNOWN_DIFFERENCES.find((d) => d.matches(path, where, context));
  return known === undefined ? { kind: 'different', where } : { kind: 'known', id: known.id, where };
}

/**
 * listDifference's answer when a list filtered or sorted by status differs only by where records
 * whose status a shuffled build decides (random-picks.ts) fall: its order, members or pages.
 */
export const UNSETTLED = 'random: records a shuffled build may or may not build sort and filter by status either way';

type Rec = Record<string, unknown> & { name: string };

function isRecordList(v: unknown): v is Rec[] {
  return Array.isArray(v) && v.every((r) => typeof r === 'object' && r !== null && typeof (r as { name?: unknown }).name === 'string');
}

/** What Traefik's sorts read of a record (pkg/api/sort.go): a difference here may move it. */
function sortFields(r: Rec): string {
  const lb = r.loadBalancer as { servers?: unknown[] } | undefined;
  return JSON.stringify([r.status, r.priority, r.provider, r.rule, r.service, (r.entryPoints as unknown[] | undefined)?.length,
    r.type, lb?.servers?.length]);
}

/** A record whose status a shuffled build decides (random-picks.ts). */
function unsettled(r: unknown): boolean {
  return typeof r === 'object' && r !== null && (r as { status?: unknown }).status === BUILT_OR_NOT;
}

/**
 * The first difference of two lists of records; see the file's comment. '' when equal. With
 * `statusDependent` (the query filters or sorts by status), records whose status a shuffled build
 * decides may sort or filter either way: the order is compared without them, a page may lack
 * them, and pages that moved with them are UNSETTLED when nothing else differs.
 */
export function listDifference(a: readonly Rec[], b: readonly Rec[], all?: AllRecords, statusDependent = false): string {
  const inA = new Map(a.map((r, i) => [r.name, i]));
  const inB = new Map(b.map((r, i) => [r.name, i]));
  const common = a.filter((r) => inB.has(r.name));
  const settled = (r: Rec) => !statusDependent || !unsettled(r);
  const orderA = common.filter(settled).map((r) => r.name);
  const orderB = b.filter((r) => inA.has(r.name) && settled(r)).map((r) => r.name);
  const sortMoved = common.some((r) => sortFields(r) !== sortFields(b[inB.get(r.name) as number] as Rec));
  if (orderA.join('\n') !== orderB.join('\n') && !sortMoved) {
    return `list order: traefik [${orderA.join()}] / portico [${orderB.join()}]`;
  }
  for (const r of common) {
    const d = firstDifference(r, b[inB.get(r.name) as number], `.${inA.get(r.name)}`);
    if (d !== '') return d;
  }
  for (const r of a.filter((x) => !inB.has(x.name))) {
    const other = all?.portico.get(r.name);
    if (other === undefined) continue;
    const d = firstDifference(r, other, `.${inA.get(r.name)}`);
    if (d !== '') return d;
  }
  for (const r of b.filter((x) => !inA.has(x.name))) {
    const other = all?.traefik.get(r.name);
    if (other === undefined) continue;
    const d = firstDifference(other, r, `.${inB.get(r.name)}`);
    if (d !== '') return d;
  }
  const onlyA = a.filter((r) => !inB.has(r.name) && settled(r)).map((r) => r.name);
  const onlyB = b.filter((r) => !inA.has(r.name) && settled(r)).map((r) => r.name);
  if (onlyA.length > 0 || onlyB.length > 0) {
    return pageShift(all, statusDependent) || `list members: traefik only [${onlyA.join()}] / portico only [${onlyB.join()}]`;
  }
  if (orderA.join('\n') !== orderB.join('\n')) return `list order: traefik [${orderA.join()}] / portico [${orderB.join()}]`;
  // Equal but for where unsettled records fall (JSON.stringify: the answers' texts differ).
  return JSON.stringify(a) === JSON.stringify(b) ? '' : UNSETTLED;
}

/**
 * Why pages moved although the records they show are equal: the whole lists' first difference
 * (wholeListDifference), else, for a query that filters or sorts by status, UNSETTLED when a record
 * of the whole list has a status a shuffled build decides. '' when neither.
 */
function pageShift(all: AllRecords | undefined, statusDependent: boolean): string {
  const d = wholeListDifference(all);
  if (d !== '' || !statusDependent || all === undefined) return d;
  return [...all.traefik.values(), ...all.portico.values()].some(unsettled) ? UNSETTLED : '';
}

/**
 * Where a page's members (or `X-Next-Page`) differ while every record both sides show is equal,
 * the cause is a record outside the page: one that sorts or filters differently, or that one side
 * does not have. The first such record of the whole list (by name), as its own endpoint's
 * difference would read, or the names only one side has. '' when the whole lists are equal.
 */
export function wholeListDifference(all: AllRecords | undefined): string {
  if (all === undefined) return '';
  const names = [...new Set([...all.traefik.keys(), ...all.portico.keys()])].sort();
  const onlyT = names.filter((n) => !all.portico.has(n));
  const onlyP = names.filter((n) => !all.traefik.has(n));
  for (const n of names) {
    if (!all.traefik.has(n) || !all.portico.has(n)) continue;
    const d = firstDifference(all.traefik.get(n), all.portico.get(n));
    if (d !== '') return d;
  }
  return onlyT.length + onlyP.length === 0 ? '' : `list members: whole list: traefik only [${onlyT.join()}] / portico only [${onlyP.join()}]`;
}

/** The first place two JSON values differ, for failure messages. */
export function firstDifference(a: unknown, b: unknown, at = ''): string {
  if (JSON.stringify(a) === JSON.stringify(b)) return '';
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${at || '.'}: traefik ${JSON.stringify(a)?.slice(0, 400)} / portico ${JSON.stringify(b)?.slice(0, 400)}`;
  }
  if (at.endsWith('.usedBy') && Array.isArray(a) && Array.isArray(b)) {
    // Sorted name lists: which names one side lacks says more than the first position that differs.
    const onlyA = a.filter((n) => !b.includes(n));
    const onlyB = b.filter((n) => !a.includes(n));
    if (onlyA.length + onlyB.length > 0) return `${at}: traefik only [${onlyA.join()}] / portico only [${onlyB.join()}]`;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (!Array.isArray(a) && ka.join() !== kb.join()) return `${at || '.'} keys: traefik [${ka.join()}] / portico [${kb.join()}]`;
  for (const k of new Set([...ka, ...kb])) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
    if (d !== '') return d;
  }
  return '';
}
