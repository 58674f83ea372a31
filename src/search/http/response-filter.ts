import { globMatch } from '../syntax/glob.js';
import { setMember } from '../syntax/json-members.js';
import { RawJson } from './json-render.js';

/**
 * Elasticsearch's `?filter_path=` response filtering, on a response tree before it is rendered.
 *
 * The parameter is a comma-separated list of dotted paths (`hits.hits._id`). A segment may hold `*`
 * (any run of characters within one field name), a `**` segment stands for one or more levels, and
 * `\.` is a dot inside a field name. Paths prefixed with `-` exclude. As in ES (whose filtering
 * generator this follows in behaviour): arrays are transparent (a path reaches into every element),
 * a field matched by a whole path is kept (or, for an exclusion, dropped) with everything under it,
 * objects and arrays that end up with nothing in them are left out (an exclusion keeps those that
 * were empty to begin with, as ES 8.16+ does), scalars on a partial path are
 * dropped by inclusions and kept by exclusions, inclusions are applied first and exclusions to
 * what they kept, and the root object is always written (`{}` when nothing matches).
 *
 * Stored `_source` text (RawJson) is kept verbatim when a path takes it whole, skipped unparsed
 * when no path reaches it, and parsed only when a path leads inside it.
 */

/** One node of the compiled path tree: the field names or patterns that may come next. */
interface PathNode {
  /** Exact field names that continue (or end) a path here. */
  readonly terms: Map<string, PathNode>;
  /** Segments with `*`, matched with globMatch (never a RegExp: see glob.ts). */
  readonly wildcards: { readonly pattern: string; readonly node: PathNode }[];
  /** A path ends at this node: whatever reached it is matched. */
  readonly final: boolean;
  /** This node is a `**` segment: it stays active one level further down. */
  readonly doubleWildcard: boolean;
}

/** A compiled `filter_path`: inclusions and exclusions (either may be absent). */
export interface ResponseFilter {
  readonly includes?: PathNode;
  readonly excludes?: PathNode;
}

interface BuildNode {
  readonly children: Map<string, BuildNode>;
  readonly final: boolean;
}

/** Where the first unescaped `.` is, and the segment before it with `\.` unescaped. */
function firstSegment(path: string): { segment: string; rest: string | undefined } {
  let escaped = false;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '.') {
      // A leading dot does not split (ES takes the whole path as one field name then).
      if (i === 0) break;
      const head = path.slice(0, i);
      return { segment: escaped ? head.replaceAll('\\.', '.') : head, rest: path.slice(i + 1) };
    }
    if (c === '\\' && path[i + 1] === '.') {
      escaped = true;
      i++;
    }
  }
  return { segment: escaped ? path.replaceAll('\\.', '.') : path, rest: undefined };
}

/** Adds one path to the tree. A loop, not a recursion: a 14 KB URL holds 7,000 segments. */
function insert(root: BuildNode, path: string): void {
  let node = root;
  let remaining = path;
  for (;;) {
    const { segment, rest } = firstSegment(remaining);
    if (rest === undefined) {
      // A shorter path takes the whole subtree: it replaces any longer path through this field.
      node.children.set(segment, { children: new Map(), final: true });
      return;
    }
    let child = node.children.get(segment);
    if (child === undefined) node.children.set(segment, (child = { children: new Map(), final: false }));
    if (child.final) return;
    node = child;
    remaining = rest;
  }
}

/** The build tree as PathNodes, walked with a stack for the same reason. */
function freeze(root: BuildNode): PathNode {
  const node = (b: BuildNode, segment: string): PathNode => ({ terms: new Map(), wildcards: [], final: b.final, doubleWildcard: segment === '**' });
  const top = node(root, '');
  const pending: [BuildNode, PathNode][] = [[root, top]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [b, out] = next;
    for (const [name, child] of b.children) {
      const c = node(child, name);
      if (name.includes('*')) (out.wildcards as { pattern: string; node: PathNode }[]).push({ pattern: name, node: c });
      else out.terms.set(name, c);
      pending.push([child, c]);
    }
  }
  return top;
}

function compile(paths: readonly string[]): PathNode {
  const root: BuildNode = { children: new Map(), final: false };
  for (const p of paths) if (p !== '') insert(root, p);
  return freeze(root);
}

/**
 * Compiles a `filter_path` value; undefined when it asks for no filtering (empty, or only commas
 * and blanks), as ES tokenizes it: split on commas, each part trimmed, empty parts dropped.
 */
export function parseFilterPath(value: string): ResponseFilter | undefined {
  const includes: string[] = [];
  const excludes: string[] = [];
  for (const raw of value.split(',')) {
    const p = raw.trim();
    if (p === '') continue;
    if (p.startsWith('-')) excludes.push(p.slice(1).trim());
    else includes.push(p);
  }
  if (includes.length === 0 && excludes.length === 0) return undefined;
  return {
    ...(includes.length > 0 ? { includes: compile(includes) } : {}),
    ...(excludes.length > 0 ? { excludes: compile(excludes) } : {}),
  };
}

/** What a field name does against the active path nodes. */
const MATCHED = 1;
const UNMATCHED = 2;
type Step = typeof MATCHED | typeof UNMATCHED | PathNode[];

/**
 * Each node once: a `**` stays active and its child becomes active too, so with repeats a chain of
 * `**` doubled the list at every level (ES's list does too; here one request holds the event loop).
 * The list stays as short as the response is deep, so `includes` is cheap.
 */
function addOnce(next: PathNode[], node: PathNode): void {
  if (!next.includes(node)) next.push(node);
}

function step(name: string, active: readonly PathNode[]): Step {
  const next: PathNode[] = [];
  for (const node of active) {
    const term = node.terms.get(name);
    if (term !== undefined) {
      if (term.final) return MATCHED;
      addOnce(next, term);
    }
    for (const w of node.wildcards) {
      if (!globMatch(w.pattern, name)) continue;
      if (w.node.final) return MATCHED;
      addOnce(next, w.node);
    }
    if (node.doubleWildcard) addOnce(next, node);
  }
  return next.length > 0 ? next : UNMATCHED;
}

/** Marks a value left out altogether. */
const OMIT: unique symbol = Symbol('omit');

function isContainer(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

/** A value as JSON would see it: RawJson parsed, toJSON applied (only on a partial path). */
function plain(value: unknown): unknown {
  if (value instanceof RawJson) return JSON.parse(value.text) as unknown;
  if (isContainer(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.parse(JSON.stringify(value)) as unknown;
  return value;
}

/** Filters `value`, which a path reaches but does not end at (`active`: where the paths stand). */
function filterPartial(raw: unknown, active: readonly PathNode[], inclusive: boolean): unknown {
  const value = plain(raw);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const r = filterPartial(v, active, inclusive);
      if (r !== OMIT) out.push(r);
    }
    // An exclusion keeps an array that was empty to begin with, only one it emptied goes (ES 8.16+,
    // FilterPathBasedFilter.includeEmptyArray): `-hits.hits._id` on `size:0` keeps `"hits":[]`.
    return out.length > 0 || (!inclusive && value.length === 0) ? out : OMIT;
  }
  if (isContainer(value)) {
    const out: Record<string, unknown> = {};
    let kept = 0;
    let written = 0;
    for (const [k, v] of Object.entries(value)) {
      // JSON.stringify leaves these out; so must the filter (they would count as kept otherwise).
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      written++;
      const s = step(k, active);
      if (s === MATCHED || s === UNMATCHED) {
        if ((s === MATCHED) === inclusive) {
          setMember(out, k, v);
          kept++;
        }
        continue;
      }
      const r = filterPartial(v, s, inclusive);
      if (r !== OMIT) {
        setMember(out, k, r);
        kept++;
      }
    }
    // As for arrays: an exclusion keeps an object that had no fields (includeEmptyObject).
    return kept > 0 || (!inclusive && written === 0) ? out : OMIT;
  }
  // A scalar where a path goes on: inclusions drop it, exclusions keep it.
  return inclusive ? OMIT : value;
}

/** The filtered response of a root array from which everything was filtered: an empty body. */
export const NOTHING: unique symbol = Symbol('nothing');

/**
 * The response `body` with the filter applied. A root object always stays (`{}` when nothing is
 * left); a root array with nothing left becomes NOTHING, for which no body is written.
 */
export function applyResponseFilter(body: unknown, filter: ResponseFilter): unknown {
  const root = plain(body);
  let out: unknown = root;
  if (filter.includes !== undefined) out = filterPartial(out, [filter.includes], true);
  if (out !== OMIT && filter.excludes !== undefined) out = filterPartial(out, [filter.excludes], false);
  if (out === OMIT) return Array.isArray(root) ? NOTHING : {};
  return out;
}
