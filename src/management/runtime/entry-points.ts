/**
 * Entry points: Portico's own listeners (`traefik` for the management API, `pushgateway`,
 * `search`) plus the entry points the cluster's proxy declares (`--management.entry-points`,
 * default `web=:80,websecure=:443`), which routers from Kubernetes name. Routers naming any other
 * entry point get Traefik's warning.
 */
import { ConfigError } from '../../config/flag-types.js';
import type { EntryPointDef } from './runtime.js';

/** Parses `name=address[/udp]` items; the declared ones are the routers' default entry points. */
export function parseEntryPointList(items: readonly string[]): EntryPointDef[] {
  return items.map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new ConfigError(`entry point "${item}" is not name=address (like web=:80 or dns=:53/udp)`);
    const name = item.slice(0, eq).trim();
    const address = item.slice(eq + 1).trim();
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new ConfigError(`entry point name "${name}" may hold only letters, digits, - and _`);
    if (!/^[^\s]*:\d{1,5}(\/(tcp|udp))?$/.test(address)) throw new ConfigError(`entry point address "${address}" is not [host]:port[/tcp|/udp]`);
    return { name, address, protocol: address.endsWith('/udp') ? 'udp' : 'tcp', isDefault: true } as const;
  });
}

/** Entry point record as `/api/entrypoints` writes it (`http` is a non-pointer struct: always `{}`). */
export function entryPointRecord(ep: EntryPointDef): Record<string, unknown> {
  const out: Record<string, unknown> = { address: ep.address, http: {} };
  if (ep.protocol === 'udp') out.udp = { timeout: '3s' };
  out.name = ep.name;
  return out;
}

/** Sorted by name and de-duplicated (a later definition of the same name wins). */
export function mergeEntryPoints(lists: readonly (readonly EntryPointDef[])[]): EntryPointDef[] {
  const byName = new Map<string, EntryPointDef>();
  for (const list of lists) for (const ep of list) byName.set(ep.name, ep);
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
