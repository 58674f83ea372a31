import { createHash, hash } from 'node:crypto';
import type { ProviderSnapshot } from '../../../dynamic-config/configuration.js';
import { RECORD_TABLES, SOURCE_PLACE, type ConfigBuilder, type RecordTable } from './shared/translation-types.js';

/**
 * One provider's snapshot kept as the per-object fragments it was merged from, so that a change
 * to a few objects patches the snapshot instead of merging 10,000 fragments again, and its body
 * (snapshot lines, format 2: see src/dynamic-config/snapshot/lines.ts) is re-serialized only around the
 * changed objects.
 *
 * The merged snapshot's key order is the order the full merge sets keys in: objects in visit
 * order, each object's records in its fragment's order, a record name placed by the object that
 * won it (the first to define it). So the body is laid out per table, objects in visit order,
 * each object with the lines of the names it won. Objects are held in blocks of consecutive
 * objects; each block keeps its encoded lines per table as one Buffer, rebuilt only when one of
 * its objects changes. A body is then the list of those Buffers, and a PUT writes them as they
 * are (no 6 MB string and no 6 MB encoding per delivery).
 *
 * The fast path ({@link SnapshotAssembly.patch}) takes only changes whose record names no other
 * object defines, before or after (no clash, no sharing), which is what almost every change is;
 * anything else is refused and the caller merges in full and calls `rebuild`, so the result is
 * always the full merge's (pinned by a property test against translate() and the encoder).
 */

export const SECTIONS = [
  'httpRouters', 'httpServices', 'httpMiddlewares', 'tcpRouters', 'tcpServices', 'tcpMiddlewares', 'udpRouters', 'udpServices', 'serverStatus',
] as const;
export type Section = typeof SECTIONS[number];

/** Each section's path in the snapshot, as the JSON text of its path array without the closing bracket. */
const PATHS: Readonly<Record<Section, string>> = {
  httpRouters: '["configuration","http","routers"',
  httpServices: '["configuration","http","services"',
  httpMiddlewares: '["configuration","http","middlewares"',
  tcpRouters: '["configuration","tcp","routers"',
  tcpServices: '["configuration","tcp","services"',
  tcpMiddlewares: '["configuration","tcp","middlewares"',
  udpRouters: '["configuration","udp","routers"',
  udpServices: '["configuration","udp","services"',
  serverStatus: '["serverStatus"',
};

/** Sections by configuration group, in the order ConfigBuilder.build() writes them. */
const GROUPS: readonly (readonly Section[])[] = [
  ['httpRouters', 'httpServices', 'httpMiddlewares'],
  ['tcpRouters', 'tcpServices', 'tcpMiddlewares'],
  ['udpRouters', 'udpServices'],
];

/**
 * The snapshot's `sources` come after `serverStatus`: per record table, the source of each name an
 * object won, as `["sources",<protocol>,<kind>,<name>]` lines (chunk index SECTIONS.length + i).
 */
const SOURCE_PATHS: readonly string[] = RECORD_TABLES.map((t) => `["sources","${SOURCE_PLACE[t][0]}","${SOURCE_PLACE[t][1]}"`);

/** Objects per block: a change re-encodes about this many objects' lines (and the block's Buffer). */
const BLOCK_SIZE = 64;

/** A snapshot body ready to send: its version and its bytes in pieces, never changed once made. */
export interface SnapshotBody {
  readonly version: string;
  readonly chunks: readonly Buffer[];
}

/** One translated object as the assembly needs it. */
export interface FragmentInput<T> {
  /** Sort key: objects are laid out in this order (the translation's visit order). */
  readonly key: string;
  readonly records: ConfigBuilder;
  /** The caller's data about the object, handed back in order by `forEach`. */
  readonly data: T;
}

/** A change for `patch`: `records` undefined means the object is gone or no longer translated. */
export interface FragmentChange<T> {
  readonly key: string;
  readonly records: ConfigBuilder | undefined;
  readonly data: T | undefined;
}

/** A record name JavaScript puts before all others in an object (an array index): the layout would differ. */
function isIndexLike(name: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(name) && Number(name) < 4294967295;
}

function recordMap(records: ConfigBuilder, section: Section): Record<string, unknown> {
  return records[section] as Record<string, unknown>;
}

/** The names of a fragment's section with a value (the encoder skips undefined ones too). */
function namesOf(records: ConfigBuilder, section: Section): string[] {
  const map = recordMap(records, section);
  const out: string[] = [];
  for (const k in map) if (map[k] !== undefined) out.push(k);
  return out;
}

interface Chunk {
  readonly bytes: Buffer;
  /** The SHA-256 digests of its lines, one after the other (the version hashes them in order, as the encoder does). */
  readonly digest: Buffer;
}

interface Block<T> {
  readonly entries: Slot<T>[];
  /** Per section: the encoded lines, null when the block has none, undefined until built. */
  readonly chunks: (Chunk | null | undefined)[];
}

interface Slot<T> {
  readonly key: string;
  records: ConfigBuilder;
  data: T;
  /** Per section, the names this object won when some other object took one of its names; else all. */
  wins: Partial<Record<Section, readonly string[]>> | undefined;
  block: Block<T>;
}

export class SnapshotAssembly<T> {
  private readonly slots = new Map<string, Slot<T>>();
  private blocks: Block<T>[] = [];
  /** Per section: record name → how many objects define it. */
  private readonly counts: Map<string, number>[] = SECTIONS.map(() => new Map());
  private indexLike = false;
  private cachedBody: SnapshotBody | undefined;

  /** False when the layout cannot be kept (array-index-like record names): deliver the full snapshot instead. */
  get usable(): boolean {
    return !this.indexLike;
  }

  /** Calls `fn` with each object's data in layout (visit) order. */
  forEach(fn: (data: T) => void): void {
    for (const block of this.blocks) for (const slot of block.entries) fn(slot.data);
  }

  /** Whether a name has a record in the merged snapshot. */
  has(section: Section, name: string): boolean {
    return ((this.counts[SECTIONS.indexOf(section)] as Map<string, number>).get(name) ?? 0) > 0;
  }

  /**
   * Starts again from a full merge: `fragments` in visit order, `merged` the snapshot the merge
   * built from them (which tells who won each name).
   */
  rebuild(fragments: readonly FragmentInput<T>[], merged: ProviderSnapshot): void {
    this.slots.clear();
    for (const c of this.counts) c.clear();
    this.indexLike = false;
    this.cachedBody = undefined;
    const c = merged.configuration;
    const out: Record<Section, Record<string, unknown>> = {
      httpRouters: c.http?.routers ?? {}, httpServices: c.http?.services ?? {}, httpMiddlewares: c.http?.middlewares ?? {},
      tcpRouters: c.tcp?.routers ?? {}, tcpServices: c.tcp?.services ?? {}, tcpMiddlewares: c.tcp?.middlewares ?? {},
      udpRouters: c.udp?.routers ?? {}, udpServices: c.udp?.services ?? {}, serverStatus: merged.serverStatus ?? {},
    };
    const won = SECTIONS.map(() => new Set<string>());
    const blocks: Block<T>[] = [];
    let block: Block<T> | undefined;
    for (const f of fragments) {
      let wins: Partial<Record<Section, string[]>> | undefined;
      SECTIONS.forEach((section, i) => {
        const counts = this.counts[i] as Map<string, number>;
        const taken = won[i] as Set<string>;
        const map = recordMap(f.records, section);
        const names = namesOf(f.records, section);
        let mine: string[] | undefined;
        names.forEach((name, j) => {
          counts.set(name, (counts.get(name) ?? 0) + 1);
          if (isIndexLike(name)) this.indexLike = true;
          const wins = out[section][name] === map[name] && !taken.has(name);
          if (wins) taken.add(name);
          if (!wins && mine === undefined) mine = names.slice(0, j);
          else if (wins && mine !== undefined) mine.push(name);
        });
        if (mine !== undefined) (wins ??= {})[section] = mine;
      });
      if (!block || block.entries.length >= BLOCK_SIZE) {
        block = { entries: [], chunks: [] };
        blocks.push(block);
      }
      const slot: Slot<T> = { key: f.key, records: f.records, data: f.data, wins, block };
      block.entries.push(slot);
      this.slots.set(f.key, slot);
    }
    this.blocks = blocks;
  }

  /**
   * Applies changed objects (`records` undefined: the object is gone or no longer translated),
   * all or nothing. Returns false, changing nothing, when a change is not one the fast path
   * takes: a record name that another object defines too (before or after the change), or one
   * that the caller reserves (`reserved`, e.g. the default backend), or an array-index-like name.
   */
  // eslint-disable-next-line complexity -- all or nothing: every refusal of the fast path (a shared, reserved or index-like name, before or after the change) is checked before anything is written
  patch(changes: readonly FragmentChange<T>[], reserved: (section: Section, name: string) => boolean = () => false): boolean {
    if (this.indexLike) return false;
    // Check everything first: nothing is half-applied.
    const touched = SECTIONS.map(() => new Set<string>());
    for (const { key, records } of changes) {
      const old = this.slots.get(key);
      if (old?.wins !== undefined) return false;
      for (let i = 0; i < SECTIONS.length; i++) {
        const section = SECTIONS[i] as Section;
        const counts = this.counts[i] as Map<string, number>;
        const mine = touched[i] as Set<string>;
        const oldNames = old ? namesOf(old.records, section) : [];
        const newNames = records ? namesOf(records, section) : [];
        for (const name of oldNames) {
          if (mine.has(name) || (counts.get(name) ?? 0) !== 1 || reserved(section, name)) return false;
        }
        const oldSet = new Set(oldNames);
        for (const name of newNames) {
          if (oldSet.has(name)) continue;
          if (mine.has(name) || (counts.get(name) ?? 0) !== 0 || reserved(section, name) || isIndexLike(name)) return false;
        }
        for (const name of oldNames) mine.add(name);
        for (const name of newNames) mine.add(name);
      }
    }
    for (const { key, records, data } of changes) {
      const old = this.slots.get(key);
      for (let i = 0; i < SECTIONS.length; i++) {
        const section = SECTIONS[i] as Section;
        const counts = this.counts[i] as Map<string, number>;
        if (old) for (const name of namesOf(old.records, section)) counts.delete(name);
        if (records) for (const name of namesOf(records, section)) counts.set(name, 1);
      }
      if (old && records) {
        old.records = records;
        old.data = data as T;
        old.block.chunks.length = 0;
      } else if (old) {
        this.remove(old);
      } else if (records) {
        this.insert(key, records, data as T);
      }
    }
    this.cachedBody = undefined;
    return true;
  }

  private insert(key: string, records: ConfigBuilder, data: T): void {
    const blocks = this.blocks;
    // The first block whose last key is not below `key`; else the last block.
    let lo = 0;
    let hi = blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const b = blocks[mid] as Block<T>;
      if ((b.entries[b.entries.length - 1] as Slot<T>).key < key) lo = mid + 1;
      else hi = mid;
    }
    let block = blocks[lo];
    if (!block) {
      block = { entries: [], chunks: [] };
      blocks.push(block);
    }
    const slot: Slot<T> = { key, records, data, wins: undefined, block };
    const at = block.entries.findIndex((s) => s.key > key);
    block.entries.splice(at === -1 ? block.entries.length : at, 0, slot);
    block.chunks.length = 0;
    this.slots.set(key, slot);
    if (block.entries.length > 2 * BLOCK_SIZE) {
      const tail: Block<T> = { entries: block.entries.splice(BLOCK_SIZE), chunks: [] };
      for (const s of tail.entries) s.block = tail;
      block.chunks.length = 0;
      blocks.splice(blocks.indexOf(block) + 1, 0, tail);
    }
  }

  private remove(slot: Slot<T>): void {
    const block = slot.block;
    block.entries.splice(block.entries.indexOf(slot), 1);
    block.chunks.length = 0;
    this.slots.delete(slot.key);
    if (block.entries.length === 0) this.blocks.splice(this.blocks.indexOf(block), 1);
  }

  /** Chunk `i` of a block: section `i`'s lines, or past the sections the sources of table `i - SECTIONS.length`. */
  private chunk(block: Block<T>, i: number): Chunk | null {
    const cached = block.chunks[i];
    if (cached !== undefined) return cached;
    const sources = i >= SECTIONS.length;
    const section: Section = sources ? RECORD_TABLES[i - SECTIONS.length] as RecordTable : SECTIONS[i] as Section;
    const path = sources ? SOURCE_PATHS[i - SECTIONS.length] as string : PATHS[section];
    const lines: string[] = [];
    for (const slot of block.entries) {
      const source = slot.records.source;
      if (sources && source === undefined) continue;
      const map = recordMap(slot.records, section);
      const names = slot.wins?.[section] ?? namesOf(slot.records, section);
      const text = sources ? JSON.stringify(source) : '';
      for (const name of names) lines.push(`${path},${JSON.stringify(name)}]\t${sources ? text : JSON.stringify(map[name])}`);
    }
    let made: Chunk | null = null;
    if (lines.length > 0) {
      // The digests of the lines, not of the bytes: the version must not depend on where the
      // blocks happen to be cut (a resync lays them out afresh; so does another replica).
      const digest = Buffer.concat(lines.map((l) => hash('sha256', l, 'buffer')));
      lines.push('');
      const bytes = Buffer.from(lines.join('\n'), 'utf8');
      made = { bytes, digest };
    }
    block.chunks[i] = made;
    return made;
  }

  /** The body of the current snapshot (made once per change, shared by every PUT of it). */
  body(): SnapshotBody {
    if (this.cachedBody) return this.cachedBody;
    const pieces: Chunk[] = [];
    const line = (text: string) => {
      const bytes = Buffer.from(`${text}\n`, 'utf8');
      pieces.push({ bytes, digest: hash('sha256', text, 'buffer') });
    };
    const sized = (section: Section) => (this.counts[SECTIONS.indexOf(section)] as Map<string, number>).size > 0;
    const emit = (section: Section) => {
      if (!sized(section)) return line(`${PATHS[section]}]\t{}`);
      const i = SECTIONS.indexOf(section);
      for (const block of this.blocks) {
        const c = this.chunk(block, i);
        if (c) pieces.push(c);
      }
    };
    let groups = 0;
    for (const group of GROUPS) {
      if (!group.some(sized)) continue;
      groups++;
      for (const section of group) emit(section);
    }
    if (groups === 0) line('["configuration"]\t{}');
    emit('serverStatus');
    for (let t = 0; t < RECORD_TABLES.length; t++) {
      for (const block of this.blocks) {
        const c = this.chunk(block, SECTIONS.length + t);
        if (c) pieces.push(c);
      }
    }
    const h = createHash('sha256');
    for (const p of pieces) h.update(p.digest);
    const version = h.digest('hex').slice(0, 16);
    const body: SnapshotBody = { version, chunks: [Buffer.from(`["version"]\t${JSON.stringify(version)}\n`, 'utf8'), ...pieces.map((p) => p.bytes)] };
    this.cachedBody = body;
    return body;
  }
}
