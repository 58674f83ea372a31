/**
 * Qualified names (`name@provider`) kept from one runtime computation to the next. A snapshot of
 * 50,000 routers and services otherwise makes 100,000 new `name@provider` strings per change,
 * each then hashed again by every map it is a key of or looked up in (the runtime's maps, the
 * service and middleware look-ups of the cross-checks, the view's). Kept, the string of a name is
 * the same object every time: its hash is computed once, and a look-up by it finds the key by
 * identity. A router's service name and the service's own key are then one string too.
 */
export class QualifiedNames {
  private byProvider = new Map<string, Map<string, string>>();
  private size = 0;

  /**
   * @param limit names kept before the cache starts afresh (names of records long gone would
   *   otherwise stay); the runtime raises it to a multiple of the records it last computed
   */
  constructor(private limit = 200_000) {}

  /** `name@provider` for an unqualified name. */
  of(name: string, provider: string): string {
    let names = this.byProvider.get(provider);
    if (names === undefined) this.byProvider.set(provider, (names = new Map()));
    let q = names.get(name);
    if (q === undefined) {
      if (this.size >= this.limit) {
        this.byProvider = new Map([[provider, (names = new Map())]]);
        this.size = 0;
      }
      q = `${name}@${provider}`;
      names.set(name, q);
      this.size++;
    }
    return q;
  }

  /** Traefik's GetQualifiedName (records.ts qualify) with the kept strings. */
  qualify(name: string, provider: string): string {
    return name.includes('@') ? name : this.of(name, provider);
  }

  /** Keeps at least `records` × 4 names (a name of each kind, routers' copies included). */
  reserve(records: number): void {
    this.limit = Math.max(this.limit, records * 4);
  }
}
