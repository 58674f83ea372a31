import type { ClusterView, MemoEntry } from '../translate/shared/endpoints-resolver.js';
import type { EndpointSlice, KubeObject, Secret, Service } from '../client/kube-objects.js';
import { SERVICE_NAME_LABEL } from '../client/kube-objects.js';
import { compareKeys } from '../translate/shared/naming.js';

/**
 * Services and EndpointSlices indexed as the translation reads them, kept up to date change by
 * change instead of rebuilt per translation. A Service's slice list is copied on write, so an
 * unchanged Service keeps the same array and its resolved servers are reused from `memo`: with
 * tens of thousands of slices, that is most of a translation's work saved.
 */
export class ClusterIndex implements ClusterView {
  private readonly services = new Map<string, Service>();
  private readonly slices = new Map<string, readonly EndpointSlice[]>();
  /** slice `ns/name` → the service key it is filed under. */
  private readonly sliceOwner = new Map<string, string>();
  private readonly secrets = new Map<string, Secret>();
  readonly memo = new Map<string, MemoEntry>();

  secret(namespace: string, name: string): Secret | undefined {
    return this.secrets.get(`${namespace}/${name}`);
  }

  upsertSecret(secret: Secret): void {
    this.secrets.set(objKey(secret), secret);
  }

  removeSecret(secret: KubeObject): void {
    this.secrets.delete(objKey(secret));
  }

  service(namespace: string, name: string): Service | undefined {
    return this.services.get(`${namespace}/${name}`);
  }

  endpointSlices(namespace: string, serviceName: string): readonly EndpointSlice[] {
    return this.slices.get(`${namespace}/${serviceName}`) ?? EMPTY;
  }

  upsertService(svc: Service): void {
    this.services.set(objKey(svc), svc);
  }

  removeService(svc: KubeObject): void {
    this.services.delete(objKey(svc));
  }

  upsertSlice(slice: EndpointSlice): void {
    this.removeSlice(slice);
    const svc = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (svc === undefined) return;
    const owner = `${slice.metadata?.namespace ?? ''}/${svc}`;
    this.sliceOwner.set(objKey(slice), owner);
    // In name order, as buildClusterView files them: the servers' order then depends on the
    // slices alone, not on which of them changed last (a fresh operator, a second replica and
    // one that saw the changes one by one give the same records).
    const list = [...(this.slices.get(owner) ?? EMPTY)];
    const name = slice.metadata?.name ?? '';
    let at = list.length;
    while (at > 0 && compareKeys((list[at - 1] as EndpointSlice).metadata?.name ?? '', name) > 0) at--;
    list.splice(at, 0, slice);
    this.slices.set(owner, list);
  }

  removeSlice(slice: KubeObject): void {
    const key = objKey(slice);
    const owner = this.sliceOwner.get(key);
    if (owner === undefined) return;
    this.sliceOwner.delete(key);
    const rest = (this.slices.get(owner) ?? EMPTY).filter((s) => objKey(s) !== key);
    if (rest.length > 0) this.slices.set(owner, rest);
    else this.slices.delete(owner);
  }

  /** Drops memo entries when they outnumber what could still be asked (removed Services). */
  prune(): void {
    if (this.memo.size > 4 * (this.services.size + 64)) this.memo.clear();
  }
}

const EMPTY: readonly EndpointSlice[] = Object.freeze([]);

function objKey(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}
