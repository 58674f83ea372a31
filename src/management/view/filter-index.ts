/**
 * The `status` and `search` filters of one kind view without touching every record on each
 * request. Entries are grouped by status; per group, every entry's lower-cased search texts (see
 * RecordCodec.searchIn) are joined into one string, fields and entries separated by NUL, with
 * each entry's start offset and its index in the view's name order. A needle is found with
 * `indexOf` over the groups' strings (V8 scans a one-byte string at memory speed), each
 * occurrence mapped to its entry by walking the offsets forward; after a hit the search resumes
 * at the next entry, so an entry is matched once. A needle cannot span two fields or two entries
 * since it cannot contain the separator; a needle that does is tested entry by entry. A status
 * filter only picks the group to scan. The answer is the same as testing each entry with
 * `entry.searchIn.some((v) => v.includes(needle))` and Go's strings.EqualFold on the status.
 */
import type { Status } from '../runtime/runtime.js';

/** What the index reads of a view entry (kind-view.ts ViewEntry). */
export interface Searchable {
  readonly status: Status;
  /** Lower-cased texts `search` matches. */
  readonly searchIn: readonly string[];
}

const SEPARATOR = '\u0000';
const STATUSES: readonly Status[] = ['enabled', 'disabled', 'warning'];

/** The entries of one status. */
class StatusGroup {
  /** Name-order indices of the group's entries, ascending. */
  readonly ids: Int32Array;
  private text: string | undefined;
  /** starts[k]: offset of the k-th entry's first field; starts[ids.length]: the text's length. */
  private starts: Int32Array | undefined;

  constructor(private readonly entries: readonly Searchable[], ids: readonly number[]) {
    this.ids = Int32Array.from(ids);
  }

  /** The joined texts, made on the first search (a status filter alone needs only `ids`). */
  private index(): { text: string; starts: Int32Array } {
    if (this.text === undefined || this.starts === undefined) {
      const parts: string[] = [];
      const starts = new Int32Array(this.ids.length + 1);
      let offset = 0;
      for (let k = 0; k < this.ids.length; k++) {
        starts[k] = offset;
        for (const field of (this.entries[this.ids[k] as number] as Searchable).searchIn) {
          parts.push(field);
          offset += field.length + 1;
        }
      }
      starts[this.ids.length] = offset;
      // Every field is followed by one separator, so the offsets above hold.
      this.text = parts.length === 0 ? '' : `${parts.join(SEPARATOR)}${SEPARATOR}`;
      this.starts = starts;
    }
    return { text: this.text, starts: this.starts };
  }

  /** Appends to `out` the name-order index of each entry whose texts contain `needle`. */
  search(needle: string, out: number[]): void {
    const count = this.ids.length;
    if (needle.includes(SEPARATOR)) {
      for (let k = 0; k < count; k++) {
        const id = this.ids[k] as number;
        if ((this.entries[id] as Searchable).searchIn.some((v) => v.includes(needle))) out.push(id);
      }
      return;
    }
    const { text, starts } = this.index();
    let k = 0;
    let at = text.indexOf(needle, 0);
    while (at !== -1) {
      while ((starts[k + 1] as number) <= at) k++;
      out.push(this.ids[k] as number);
      k++;
      if (k >= count) break;
      at = text.indexOf(needle, starts[k]);
    }
  }
}

export class FilterIndex {
  private readonly groups: Map<Status, StatusGroup>;

  constructor(entries: readonly Searchable[]) {
    const ids = new Map<Status, number[]>(STATUSES.map((s) => [s, []]));
    for (let i = 0; i < entries.length; i++) {
      const status = (entries[i] as Searchable).status;
      let list = ids.get(status);
      if (list === undefined) ids.set(status, (list = []));
      list.push(i);
    }
    this.groups = new Map([...ids].map(([s, list]) => [s, new StatusGroup(entries, list)]));
  }

  /**
   * Name-order indices, ascending, of the entries whose status equals `status` under Go's
   * strings.EqualFold (every status when empty) and one of whose texts contains `needle` (already
   * lower-cased; every entry when empty).
   */
  select(status: string, needle: string): Int32Array {
    let groups: StatusGroup[];
    if (status === '') {
      groups = [...this.groups.values()];
    } else {
      // The statuses are lower-case ASCII: EqualFold is equality of the lower-cased filter, same length.
      const lowered = status.toLowerCase();
      const group = lowered.length === status.length ? this.groups.get(lowered as Status) : undefined;
      groups = group === undefined ? [] : [group];
    }
    if (needle === '') {
      if (groups.length === 1) return (groups[0] as StatusGroup).ids;
      return Int32Array.from(groups.flatMap((g) => [...g.ids])).sort();
    }
    const out: number[] = [];
    for (const g of groups) g.search(needle, out);
    const ids = Int32Array.from(out);
    return groups.length === 1 ? ids : ids.sort();
  }
}
