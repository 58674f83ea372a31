/**
 * The per-record part of the runtime computation for HTTP routers (default entry points and
 * observability filled in, middleware and service names qualified), kept from one recompute to
 * the next. An operator re-sends every record on each change and usually changes one in a
 * hundred, so a record equal to the one last seen under the same name reuses what was prepared
 * for it, strings included (their hashes are cached, which makes the map look-ups of the
 * cross-checks cheap). Only this part is reused: the cross-checks between records and providers
 * (`usedBy`, `using`, statuses, errors) are redone on every recompute.
 *
 * Relies on the store's contract that a snapshot is never mutated once handed over.
 */
import type { Router } from '../../dynamic-config/http.js';
import { copyRecord, qualify, type PreparedRouter } from './records.js';
import { QualifiedNames } from './qualified-names.js';

/** Settings a prepared router depends on besides the record and its provider. */
export interface PrepareContext {
  /** Entry points given to routers that name none (sorted). */
  readonly defaults: readonly string[];
  /** Whether routers are built (fills in observability). */
  readonly build: boolean;
  /** Qualified names kept between computations (the memo's); made afresh when absent. */
  readonly names?: QualifiedNames;
}

// Shared by every router that sets none: records are never mutated after the runtime is computed.
const DEFAULT_OBSERVABILITY = Object.freeze({ accessLogs: true, metrics: true, tracing: true, traceVerbosity: 'minimal' });
const NO_REFS: readonly string[] = Object.freeze([]);

/** The defaults with the fields a router sets (empty ones left out), key by key (see copyRecord). */
function observabilityOf(given: NonNullable<Router['observability']>): Router['observability'] {
  const out = copyRecord(DEFAULT_OBSERVABILITY) as Record<string, unknown>;
  for (const k in given) {
    // An own `__proto__` key cannot be set by assignment; it was never copied.
    if (!Object.prototype.hasOwnProperty.call(given, k) || k === '__proto__') continue;
    const v = (given as Record<string, unknown>)[k];
    if (v != null && v !== '') out[k] = v;
  }
  return out;
}

/**
 * Prepares one router from scratch.
 * @param before what was prepared for the record this one replaces (same name and provider): its
 *   qualified service name is taken over when the service is the same, instead of looked up
 *   (50,000 look-ups of a string not seen before, hashed first, per whole replacement)
 */
export function prepareRouter(r: Router, provider: string, ctx: PrepareContext, before?: PreparedRouter): PreparedRouter {
  const needsEntryPoints = (r.entryPoints ?? []).length === 0 && ctx.defaults.length > 0;
  const needsObservability = ctx.build && r.parentRefs == null;
  let config: Router = r;
  if (needsEntryPoints || needsObservability) {
    config = copyRecord(r);
    if (needsEntryPoints) config.entryPoints = ctx.defaults as string[];
    if (needsObservability) config.observability = r.observability == null ? DEFAULT_OBSERVABILITY : observabilityOf(r.observability);
  }
  const mws = config.middlewares;
  let built = config;
  const names = ctx.names;
  let middlewareRefs = NO_REFS;
  if (mws !== undefined && mws.length > 0) {
    built = copyRecord(config);
    const qualified = new Array<string>(mws.length);
    let refs = 0;
    for (let i = 0; i < mws.length; i++) {
      const m = mws[i] as string;
      qualified[i] = qualifyWith(names, m, provider);
      if (m !== '') refs++;
    }
    built.middlewares = qualified;
    // The qualified names of the non-empty ones: usually all of them, then the same list.
    middlewareRefs = refs === mws.length ? qualified : qualified.filter((_, i) => mws[i] !== '');
  }
  const given = config.service;
  const service = given === undefined || given === '' ? '' : before !== undefined && before.source.service === given ? before.service : qualifyWith(names, given, provider);
  return { source: r, config, built, service, middlewareRefs };
}

/**
 * Traefik's GetQualifiedName, with the kept strings when there are. A function, not a closure
 * made per router: 50,000 routers per snapshot.
 */
function qualifyWith(names: QualifiedNames | undefined, name: string, provider: string): string {
  return names === undefined ? qualify(name, provider) : names.qualify(name, provider);
}

/** Whether a value is a plain object (a JSON object), not a Date, Map or other class instance. */
function isPlain(o: object): boolean {
  const proto: unknown = Object.getPrototypeOf(o);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether two JSON values are equal, key order included (it shows in the encoded records).
 * Objects other than arrays and plain objects (a YAML timestamp's Date, say) are equal only to
 * themselves: their keys do not tell their values.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlain(a) || !isPlain(b)) return false;
  // One list of keys, not two: `a`'s are walked in order (a record from JSON has no inherited
  // enumerable keys) against `b`'s. A router that changed is compared on every snapshot.
  const kb = Object.keys(b);
  let i = 0;
  for (const k in a) {
    if (!Object.prototype.hasOwnProperty.call(a, k)) continue;
    if (k !== kb[i] || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
    i++;
  }
  return i === kb.length;
}

/**
 * False when two routers' rules differ, a difference sameJson finds only after walking the keys
 * before it: a rule is what changes most (a whole replacement often changes every rule).
 */
function sameRule(a: Router, b: Router): boolean {
  const ra: unknown = a.rule;
  const rb: unknown = b.rule;
  return ra === rb || typeof ra === 'object' || typeof rb === 'object';
}

/**
 * Prepared routers by provider and name, from the last recompute. Owned by one record store;
 * each recompute replaces a provider's entries, so records that disappear are forgotten.
 */
export class RouterMemo {
  private byProvider = new Map<string, Map<string, PreparedRouter>>();
  private next = new Map<string, Map<string, PreparedRouter>>();
  private contextKey = '';
  private partial = false;
  /** The qualified names of the records seen, kept for the next recompute (qualified-names.ts). */
  readonly names = new QualifiedNames();

  /**
   * Starts a recompute; a changed context forgets everything.
   * @param partial the recompute sees only some providers: the others' entries are kept
   */
  begin(ctx: PrepareContext, partial = false): void {
    const key = `${ctx.build}|${ctx.defaults.join(',')}`;
    if (key !== this.contextKey) this.byProvider.clear();
    this.contextKey = key;
    this.next = new Map();
    this.partial = partial;
  }

  prepare(r: Router, name: string, provider: string, ctx: PrepareContext): PreparedRouter {
    let out = this.next.get(provider);
    if (out === undefined) {
      out = new Map();
      this.next.set(provider, out);
    }
    const seen = this.byProvider.get(provider)?.get(name);
    const prepared = seen !== undefined && sameRule(seen.source, r) && sameJson(seen.source, r) ? seen : prepareRouter(r, provider, ctx, seen);
    out.set(name, prepared);
    return prepared;
  }

  /** Ends a successful recompute: what it saw is what the next one compares with. */
  commit(): void {
    if (this.partial) for (const [provider, prepared] of this.byProvider) if (!this.next.has(provider)) this.next.set(provider, prepared);
    this.byProvider = this.next;
    this.next = new Map();
  }
}
