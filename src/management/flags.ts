import type { commonFlags } from '../config/common-flags.js';
import { flag, type FlagValues, type ListenAddress } from '../config/flag-types.js';
import type { listenerFlags } from '../http/listener-flags.js';

/** Management API (Traefik-compatible) flags. */
export const managementFlags = {
  'management.listen-address': flag.address(':8080', 'Address of the Traefik-compatible management API and dashboard (host:port, or off)'),
  'management.users-file': flag.string('', 'htpasswd file of bcrypt users (htpasswd -nBC 10 USER); when set, the API and dashboard need basic auth (/ping stays open)'),
  'management.ip-allow-list': flag.list('', 'Comma-separated CIDR ranges or addresses allowed to use the API and dashboard (empty: everyone); others get 403'),
  'management.entry-points': flag.list('web=:80,websecure=:443', 'Entry points of the proxy the routers are written for, as name=[host]:port[/udp]; they are the default entry points of routers that name none'),
  'api.base-path': flag.string('/', 'Path prefix of the API and dashboard (Traefik\'s api.basePath), e.g. /traefik/'),
  'internal.listen-address': flag.address('127.0.0.1:8081', 'Loopback address where providers (the operator) deliver snapshots (host:port, or off)'),
  'internal.token-file': flag.string('', 'File holding the token that protects the internal listener (default: <data.dir>/internal-token, created if missing)'),
  'providers.file.filename': flag.string('', 'Dynamic configuration file in Traefik\'s format (YAML, or JSON when it ends in .json); empty: no file provider (make run passes examples/file-provider/dynamic.yaml)'),
  'providers.file.directory': flag.string('', 'Directory of dynamic configuration files (.yaml/.yml, sub-directories included), merged as Traefik merges them (the first definition of a name wins); when set, providers.file.filename is ignored'),
  'providers.file.watch': flag.boolean(true, 'Reload the file provider\'s file when it changes'),
  'management.heap-reclaim': flag.enumOf(
    ['auto', 'on', 'off'] as const,
    'auto',
    'After a snapshot that recomputes 2,000 records or more, or the first /api/rawdata body of over 1 MiB, run one full garbage collection once 100 ms pass without another snapshot: V8 would keep that garbage\'s memory for up to minutes. auto: on when the push gateway and search listeners are off (in a server running them too, push p99 under mixed load rose with it; docs/management-api.md, "Memory after large snapshots")',
  ),
};

/**
 * The slice of the configuration this area reads: its own flags, the general ones, and the other
 * listeners' addresses, which the API shows as entry points (declared here by shape, so that the
 * area does not import its siblings).
 */
export type ManagementConfig = FlagValues<typeof commonFlags & typeof listenerFlags & typeof managementFlags> & {
  readonly 'pushgateway.listen-address': ListenAddress | null;
  readonly 'search.listen-address': ListenAddress | null;
};
