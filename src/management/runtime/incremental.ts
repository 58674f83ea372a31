/**
 * Keeps the runtime between snapshots and, when one provider's snapshot is replaced, recomputes
 * only the records the change can reach. The result equals what {@link computeRuntime} gives for
 * the same inputs, record for record; unchanged records keep their runtime objects (and so the
 * view keeps their encoded JSON).
 *
 * Why it is exact: records reference each other by name (a router its service, middlewares and
 * parent routers; a service its child services; a chain its middlewares). Every runtime field of
 * a record (`usedBy`, `using`, status, errors, the computed priority) is a function of the
 * records connected to it through these references, named records that do not exist included,
 * and of nothing else. So the records to recompute are the connected components, in the new
 * reference graph, of every changed record and of every name a changed record referenced
 * before; all other components are unchanged, as are their results. A component is recomputed
 * with its records in their global order (providers, then each provider's key order), because
 * Traefik's recursion errors name the path found first. Order matters only where references
 * form a cycle, and a cycle needs records referencing their own kind (composite services,
 * chains): a provider may send unchanged records in another order, so the components holding
 * such records are recomputed on every change (they are few; plain routers and load balancers
 * are not composite). Providers themselves reordered: computed from scratch.
 *
 * A change too large to gain from this (a quarter of the records or more, e.g. the file
 * provider or a format 1 body, whose records are all new objects) is computed from scratch.
 * After that the reference graph is stale; {@link IncrementalRuntime.prepare} rebuilds it, which
 * the record store schedules off the request path. Until then changes are computed from scratch,
 * with no diff, so a whole-snapshot replacement costs what it did before this file existed.
 */
import type { DynamicConfiguration } from '../../dynamic-config/configuration.js';
import { computeRuntime, type EntryPointDef, type ProviderInput, type RouterInfo, type RuntimeConfiguration, type RuntimeOptions } from './runtime.js';
import type { Info } from './records.js';
import { showsSame } from './reuse.js';
import { RouterMemo } from './router-memo.js';
import {
  forEachRecord, KIND_KEYS, NO_REFS, recordMap, referencesOf, sameRecord, visitReferences, type Kind, type Rec, type Visit,
} from './references.js';

/**
 * A provider's input replaced by one that differs from it only by these lines (snapshot lines,
 * see record-store.ts SnapshotChanges): the changed records are read from them instead of
 * comparing every record of the two inputs.
 */
export interface InputChanges {
  readonly previous: ProviderInput;
  readonly next: ProviderInput;
  readonly added: readonly { readonly path: readonly string[] }[];
  readonly removed: readonly { readonly path: readonly string[] }[];
}

/**
 * What an incremental computation replaced: the runtime it started from and, per runtime map,
 * the qualified names whose records were recomputed, added or removed and are not the very
 * objects `base` had (all other records are; see reuse.ts). A map not listed did not change. The
 * maps are shared with `base` and were updated in place: `base` is only an identity now.
 */
export interface RuntimeChanges {
  readonly base: RuntimeConfiguration;
  readonly names: ReadonlyMap<keyof RuntimeConfiguration, ReadonlySet<string>>;
}

interface ChangeSet {
  /** Node ids of records added, removed or replaced. */
  readonly changed: Set<string>;
  /** Records in the new inputs. */
  total: number;
}

/** Computes runtimes, incrementally where it pays; one per record store. */
export class IncrementalRuntime {
  private inputs: readonly ProviderInput[] = [];
  private rt: RuntimeConfiguration | undefined;
  private readonly memo = new RouterMemo();
  /** Forward references of every existing record. */
  private refs = new Map<string, readonly string[]>();
  /** Reverse references: node id -> records referencing it. */
  /** One user as a string (the usual case), several as an array. */
  private users = new Map<string, string | string[]>();
  private composites = new Set<string>();
  /**
   * Routers replaced by per-entry-point copies (tls-conflicts.ts): qualified name -> the copies'
   * names, which a recompute of the router must remove with it (they are not records of the graph).
   */
  private copies = new Map<string, readonly string[]>();
  /** False after a computation from scratch, until {@link prepare}. */
  private graphReady = false;
  /**
   * Providers appended (see {@link append}) while the graph was ready, whose records are not
   * linked yet: {@link prepare} links them, or the next computation before it reads the graph.
   */
  private pending: ProviderInput[] = [];
  /** Records in the last inputs (known once the graph is ready). */
  private total = 0;
  /** Other providers each input references (see {@link foreignProviders}). */
  private readonly foreign = new WeakMap<ProviderInput, ReadonlySet<string>>();
  /** Record counts of inputs seen before (an unchanged provider is counted once). */
  private readonly counts = new WeakMap<ProviderInput, number>();
  /** Records recomputed by the last call (for logs and tests); -1 after a full computation. */
  lastRecomputed = -1;
  /** What the last call replaced; undefined after a full computation. */
  lastChanges: RuntimeChanges | undefined;

  /**
   * @param fullRatio share of changed records (of all) from which a change is computed from
   *   scratch; default 0.25 (tests set Infinity to always take the incremental path)
   */
  constructor(private readonly entryPoints: readonly EntryPointDef[], private readonly options: RuntimeOptions = {}, private readonly fullRatio = 0.25) {}

  /**
   * The runtime for `inputs`. The inputs of one provider are never mutated once handed over.
   * @param hint how one provider's input differs from its previous one, when known
   */
  compute(inputs: readonly ProviderInput[], hint?: InputChanges): RuntimeConfiguration {
    this.linkPending();
    const previous = this.rt;
    const added = previous === undefined ? undefined : this.appended(inputs);
    if (previous !== undefined && added !== undefined) return this.append(previous, inputs, added);
    const changes = previous === undefined || !this.graphReady ? undefined : this.changes(inputs, Math.max(this.total, 1) * this.fullRatio, hint);
    let rt: RuntimeConfiguration;
    this.lastChanges = undefined;
    if (previous === undefined || changes === undefined || changes.changed.size >= Math.max(changes.total, 1) * this.fullRatio) {
      rt = computeRuntime(inputs, this.entryPoints, this.options, this.memo);
      this.copies = new Map();
      this.trackCopies(rt.routers);
      this.graphReady = false;
      this.lastRecomputed = -1;
    } else {
      rt = this.recompute(previous, inputs, changes);
      this.total = changes.total;
    }
    this.inputs = inputs;
    this.rt = rt;
    return rt;
  }

  /** Whether {@link prepare} has work to do (after a computation from scratch, or a provider appended). */
  get needsPrepare(): boolean {
    return this.rt !== undefined && (!this.graphReady || this.pending.length > 0);
  }

  /**
   * Whether {@link prepare} would only link the records of appended providers: work that a
   * later computation never makes void, unlike a rebuild of the whole graph.
   */
  get prepareLinksOnly(): boolean {
    return this.graphReady && this.pending.length > 0;
  }

  /** Builds the reference graph of the last inputs, so the next small change is incremental. */
  prepare(): void {
    if (!this.needsPrepare) return;
    if (this.graphReady) {
      this.linkPending();
      return;
    }
    this.rebuildGraph(this.inputs);
    this.total = this.inputs.reduce((n, input) => n + this.countRecords(input), 0);
    this.graphReady = true;
  }

  private linkPending(): void {
    for (const input of this.pending) this.linkInput(input);
    this.pending = [];
  }

  /**
   * The provider `inputs` add after the last ones, all else the same objects, when no record of
   * it references another provider present and no record of those references it: its records
   * then form components of their own (see the file comment), computed alone. Undefined otherwise.
   */
  private appended(inputs: readonly ProviderInput[]): ProviderInput | undefined {
    const before = this.inputs;
    if (inputs.length !== before.length + 1) return undefined;
    for (let i = 0; i < before.length; i++) if (inputs[i] !== before[i]) return undefined;
    const added = inputs[before.length] as ProviderInput;
    const foreign = this.foreignProviders(added);
    for (const input of before) {
      if (input.provider === added.provider || foreign.has(input.provider) || this.foreignProviders(input).has(added.provider)) return undefined;
    }
    return added;
  }

  /** Providers other than its own that an input's records reference, by name (whether they exist or not). */
  private foreignProviders(input: ProviderInput): ReadonlySet<string> {
    const known = this.foreign.get(input);
    if (known !== undefined) return known;
    const found = new Set<string>();
    // A reference is qualified when it holds an `@` (see qualify()): only those can leave the provider.
    const visit: Visit = (_kind, name) => {
      const at = name.indexOf('@');
      if (at === -1) return;
      const provider = name.slice(at + 1);
      if (provider !== input.provider) found.add(provider);
    };
    forEachRecord(input, (kind, _name, value) => visitReferences(kind, value, visit));
    this.foreign.set(input, found);
    return found;
  }

  /**
   * The runtime with a provider added whose records reach no other provider's (see
   * {@link appended}): the runtime of its records alone, merged into the previous one. A
   * provider's first snapshot (the operator's first delivery, a restart) costs its own records,
   * not every provider's again.
   */
  private append(previous: RuntimeConfiguration, inputs: readonly ProviderInput[], added: ProviderInput): RuntimeConfiguration {
    const sub = computeRuntime([added], this.entryPoints, this.options, this.memo, true);
    const names = new Map<keyof RuntimeConfiguration, Set<string>>();
    let recomputed = 0;
    for (const [, , , rtKey] of KIND_KEYS) {
      const infos = sub[rtKey] as Map<string, unknown>;
      if (infos.size === 0) continue;
      // In place, as in recompute(): the previous view is told which names are new.
      const map = previous[rtKey] as Map<string, unknown>;
      for (const [name, info] of infos) map.set(name, info);
      names.set(rtKey, new Set(infos.keys()));
      recomputed += infos.size;
    }
    this.trackCopies(sub.routers);
    // One runtime record per record: the count needs no walk of the maps.
    this.counts.set(added, recomputed);
    // Linked later, off the request path (or by the next computation, before it reads the graph).
    if (this.graphReady) {
      this.pending.push(added);
      this.total += recomputed;
    }
    this.inputs = inputs;
    this.rt = { ...previous };
    this.lastRecomputed = recomputed;
    this.lastChanges = { base: previous, names };
    return this.rt;
  }

  /**
   * What changed since the last call; undefined when providers were reordered or more than
   * `limit` records changed (computed from scratch: no need to finish the diff).
   */
  private changes(inputs: readonly ProviderInput[], limit: number, hint?: InputChanges): ChangeSet | undefined {
    const before = new Map(this.inputs.map((i) => [i.provider, i]));
    const kept = inputs.filter((i) => before.has(i.provider)).map((i) => i.provider);
    const keptBefore = this.inputs.filter((i) => inputs.some((n) => n.provider === i.provider)).map((i) => i.provider);
    if (kept.join('\u0000') !== keptBefore.join('\u0000')) return undefined;
    const set: ChangeSet = { changed: new Set(), total: 0 };
    const after = new Set(inputs.map((i) => i.provider));
    for (const input of inputs) {
      const old = before.get(input.provider);
      if (old === input) {
        set.total += this.countRecords(input);
        continue;
      }
      if (hint !== undefined && old === hint.previous && input === hint.next) {
        const known = this.diffLines(hint, set, limit);
        if (known === false) return undefined;
        if (known === true) continue;
      }
      if (!this.diffProvider(old, input, set, limit)) return undefined;
    }
    for (const old of this.inputs) if (!after.has(old.provider) && !this.diffProvider(old, undefined, set, limit)) return undefined;
    return set;
  }

  private countRecords(input: ProviderInput): number {
    const known = this.counts.get(input);
    if (known !== undefined) return known;
    let n = 0;
    for (const [, protocol, key] of KIND_KEYS) {
      const map = recordMap(input.configuration, protocol, key);
      if (map !== undefined) for (const name in map) if (Object.prototype.hasOwnProperty.call(map, name)) n++;
    }
    this.counts.set(input, n);
    return n;
  }

  /**
   * Adds a provider's changes to `set` from the lines that changed: false as soon as more than
   * `limit` records changed, undefined when a line is not one record (then the inputs are
   * compared). Lines of maps the runtime does not read (servers transports, TLS, sources) change nothing.
   */
  private diffLines(hint: InputChanges, set: ChangeSet, limit: number): boolean | undefined {
    const provider = hint.next.provider;
    const ids: string[] = [];
    let count = this.countRecords(hint.previous);
    for (const [lines, delta] of [[hint.removed, -1], [hint.added, 1]] as const) {
      for (const { path } of lines) {
        if (path.length === 1 && path[0] === 'version') continue;
        // A record's source (Portico's `sources`, served by the dashboard's endpoints) is not read
        // by the runtime: the operator changes one with every record it translates again.
        if (path[0] === 'sources') continue;
        if (path.length === 2 && path[0] === 'serverStatus') {
          // A service's states are given under its name or its qualified name.
          const name = path[1] as string;
          ids.push(`hs:${name}@${provider}`, `ts:${name}@${provider}`);
          if (name.endsWith(`@${provider}`)) {
            const bare = name.slice(0, -provider.length - 1);
            ids.push(`hs:${bare}@${provider}`, `ts:${bare}@${provider}`);
          }
          continue;
        }
        if (path.length !== 4 || path[0] !== 'configuration') return undefined;
        const entry = KIND_KEYS.find((k) => k[1] === path[1] && k[2] === path[2]);
        if (entry === undefined) {
          if (path[1] === 'tls' || path[2] === 'serversTransports') continue;
          return undefined;
        }
        ids.push(`${entry[0]}:${path[3] as string}@${provider}`);
        count += delta;
      }
    }
    for (const id of ids) {
      set.changed.add(id);
      if (set.changed.size > limit) return false;
    }
    this.counts.set(hint.next, count);
    set.total += count;
    return true;
  }

  /** Adds a provider's changes to `set`; false as soon as more than `limit` records changed. */
  private diffProvider(old: ProviderInput | undefined, next: ProviderInput | undefined, set: ChangeSet, limit: number): boolean {
    const provider = (next ?? old)?.provider as string;
    for (const [kind, protocol, key] of KIND_KEYS) {
      const a = old === undefined ? undefined : recordMap(old.configuration, protocol, key);
      const b = next === undefined ? undefined : recordMap(next.configuration, protocol, key);
      if (b !== undefined) {
        for (const name in b) {
          if (!Object.prototype.hasOwnProperty.call(b, name)) continue;
          set.total++;
          const had = a !== undefined && Object.prototype.hasOwnProperty.call(a, name);
          if (!had || old === undefined || !sameRecord(kind, old, next as ProviderInput, name, a[name], b[name])) {
            set.changed.add(`${kind}:${name}@${provider}`);
            if (set.changed.size > limit) return false;
          }
        }
      }
      if (a !== undefined) {
        for (const name in a) {
          if (!Object.prototype.hasOwnProperty.call(a, name)) continue;
          if (b === undefined || !Object.prototype.hasOwnProperty.call(b, name)) {
            set.changed.add(`${kind}:${name}@${provider}`);
            if (set.changed.size > limit) return false;
          }
        }
      }
    }
    return true;
  }

  // eslint-disable-next-line complexity -- four phases over one shared graph (seeds, the connected component, the wanted names per provider and kind, the sub-inputs in Traefik's order); the next split of this module, left whole in the layout change that moved it
  private recompute(previous: RuntimeConfiguration, inputs: readonly ProviderInput[], changes: ChangeSet): RuntimeConfiguration {
    // Seeds: changed records and what they referenced before; composite records below.
    const seeds: string[] = [...changes.changed];
    for (const id of changes.changed) for (const ref of this.refs.get(id) ?? []) seeds.push(ref);
    // The new graph: forward references of changed records replaced.
    const inputByProvider = new Map(inputs.map((i) => [i.provider, i]));
    for (const id of changes.changed) {
      this.unlink(id);
      const record = this.recordOf(id, inputByProvider);
      if (record !== undefined) this.link(id, record.kind, record.value, record.provider);
    }
    // Connected components of the seeds.
    const reached = new Set<string>(seeds);
    for (const id of this.composites) reached.add(id);
    const queue = [...reached];
    while (queue.length > 0) {
      const id = queue.pop() as string;
      for (const next of this.refs.get(id) ?? []) if (!reached.has(next)) { reached.add(next); queue.push(next); }
      const users = this.users.get(id);
      if (typeof users === 'string') {
        if (!reached.has(users)) { reached.add(users); queue.push(users); }
      } else if (users !== undefined) {
        for (const next of users) if (!reached.has(next)) { reached.add(next); queue.push(next); }
      }
    }
    // The reached records that exist, per provider and kind, by their name in the provider's map.
    const wanted = new Map<string, Map<Kind, Set<string>>>();
    for (const id of reached) {
      const at = id.indexOf('@');
      if (at === -1) continue;
      const provider = id.slice(at + 1);
      if (!inputByProvider.has(provider)) continue;
      const kind = id.slice(0, 2) as Kind;
      let byKind = wanted.get(provider);
      if (byKind === undefined) wanted.set(provider, (byKind = new Map()));
      let set = byKind.get(kind);
      if (set === undefined) byKind.set(kind, (set = new Set()));
      set.add(id.slice(3, at));
    }
    const subInputs: ProviderInput[] = [];
    let recomputed = 0;
    // Order matters only where references can form a cycle, which takes composite records; without
    // any, the wanted records are picked by name instead of walking maps of thousands of names.
    const ordered = this.composites.size > 0;
    for (const input of inputs) {
      const byKind = wanted.get(input.provider);
      if (byKind === undefined) continue;
      const configuration: Record<string, Record<string, Rec>> = {};
      for (const [kind, protocol, key] of KIND_KEYS) {
        const want = byKind.get(kind);
        const map = want === undefined ? undefined : recordMap(input.configuration, protocol, key);
        if (want === undefined || map === undefined) continue;
        const picked: Rec = {};
        let any = false;
        if (ordered) {
          // Walk the provider's map rather than the wanted names: its order is the global order.
          for (const name in map) {
            if (Object.prototype.hasOwnProperty.call(map, name) && want.has(name)) {
              picked[name] = map[name];
              any = true;
              recomputed++;
            }
          }
        } else {
          for (const name of want) {
            if (Object.prototype.hasOwnProperty.call(map, name)) {
              picked[name] = map[name];
              any = true;
              recomputed++;
            }
          }
        }
        if (any) (configuration[protocol] ??= {})[key] = picked;
      }
      subInputs.push({ ...input, configuration: configuration as DynamicConfiguration });
    }
    const sub = computeRuntime(subInputs, this.entryPoints, this.options);
    this.lastRecomputed = recomputed;
    // Unchanged components keep their runtime objects; reached ones are replaced or dropped. The
    // maps are updated in place rather than copied (20,000 entries per change otherwise): nothing
    // reads a runtime's maps once its view is made, and the view is told which names changed.
    const names = new Map<keyof RuntimeConfiguration, Set<string>>();
    const rtKeys = new Map<string, keyof RuntimeConfiguration>(KIND_KEYS.map(([kind, , , rtKey]) => [kind, rtKey]));
    for (const id of reached) {
      const rtKey = rtKeys.get(id.slice(0, 2));
      if (rtKey === undefined || id.charCodeAt(2) !== 58) continue;
      let set = names.get(rtKey);
      if (set === undefined) names.set(rtKey, (set = new Set()));
      set.add(id.slice(3));
    }
    const merged = { ...previous };
    for (const [rtKey, set] of names) {
      const map = previous[rtKey] as Map<string, Info>;
      const fresh = sub[rtKey] as Map<string, Info>;
      if (rtKey === 'routers') {
        this.dropCopies(set);
        this.trackCopies(sub.routers, set);
      }
      for (const name of set) if (!fresh.has(name)) map.delete(name);
      // A recomputed record that shows what it showed stays the old one (see reuse.ts), and its
      // name is no longer listed as changed: the view keeps its entry.
      fresh.forEach((info, name) => {
        const was = map.get(name);
        if (was !== undefined && showsSame(rtKey, was, info)) set.delete(name);
        else map.set(name, info);
      });
      if (set.size === 0) names.delete(rtKey);
    }
    this.lastChanges = { base: previous, names };
    return merged;
  }

  /**
   * Names the copies of the routers about to be recomputed as changed (those the recompute no
   * longer makes are then removed, the others replaced or kept) and forgets them.
   */
  private dropCopies(names: Set<string>): void {
    for (const name of [...names]) {
      const copies = this.copies.get(name);
      if (copies === undefined) continue;
      this.copies.delete(name);
      for (const c of copies) names.add(c);
    }
  }

  /** Records which routers were replaced by copies; names the copies as changed when `names` is given. */
  private trackCopies(routers: ReadonlyMap<string, RouterInfo>, names?: Set<string>): void {
    // forEach rather than for-of: no iterator result per router (50,000 per full computation).
    routers.forEach((info) => {
      if (info.splitFrom === undefined) return;
      this.copies.set(info.splitFrom, [...(this.copies.get(info.splitFrom) ?? []), info.name]);
      names?.add(info.name);
    });
  }

  private recordOf(id: string, inputs: ReadonlyMap<string, ProviderInput>): { kind: Kind; value: Rec; provider: string } | undefined {
    const at = id.indexOf('@');
    const provider = id.slice(at + 1);
    const input = inputs.get(provider);
    if (input === undefined) return undefined;
    const kind = id.slice(0, 2) as Kind;
    const [, protocol, key] = KIND_KEYS.find((k) => k[0] === kind) as (typeof KIND_KEYS)[number];
    const map = recordMap(input.configuration, protocol, key);
    const name = id.slice(3, at);
    if (map === undefined || !Object.prototype.hasOwnProperty.call(map, name)) return undefined;
    const value = map[name];
    return typeof value === 'object' && value !== null ? { kind, value: value as Rec, provider } : { kind, value: {}, provider };
  }

  /** Records a record's references; `id` is built only for records that have some. */
  private link(id: string | (() => string), kind: Kind, record: Rec, provider: string): void {
    const refs = referencesOf(kind, record, provider);
    if (refs.length === 0) return;
    const self = typeof id === 'string' ? id : id();
    this.refs.set(self, refs);
    for (const ref of refs) {
      const users = this.users.get(ref);
      if (users === undefined) this.users.set(ref, self);
      else if (typeof users === 'string') {
        if (users !== self) this.users.set(ref, [users, self]);
      } else if (!users.includes(self)) users.push(self);
    }
    // Routers reference their own kind only as parents, which no order-dependent check reads.
    if (kind !== 'hr' && kind !== 'tr' && kind !== 'ur') this.composites.add(self);
  }

  private unlink(id: string): void {
    for (const ref of this.refs.get(id) ?? NO_REFS) {
      const users = this.users.get(ref);
      if (users === id) this.users.delete(ref);
      else if (Array.isArray(users)) {
        const at = users.indexOf(id);
        if (at !== -1) users.splice(at, 1);
        if (users.length === 1) this.users.set(ref, users[0] as string);
        else if (users.length === 0) this.users.delete(ref);
      }
    }
    this.refs.delete(id);
    this.composites.delete(id);
  }

  private rebuildGraph(inputs: readonly ProviderInput[]): void {
    this.pending = [];
    this.refs = new Map();
    this.users = new Map();
    this.composites = new Set();
    for (const input of inputs) this.linkInput(input);
  }

  /** Adds the references of every record of one provider to the graph. */
  private linkInput(input: ProviderInput): void {
    forEachRecord(input, (kind, name, value) => this.link(() => `${kind}:${name}@${input.provider}`, kind, value, input.provider));
  }
}
