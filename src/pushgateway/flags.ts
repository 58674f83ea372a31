import type { commonFlags } from '../config/common-flags.js';
import { flag, type FlagValues } from '../config/flag-types.js';
import type { listenerFlags } from '../http/listener-flags.js';

/** Push gateway flags; names follow Prometheus Pushgateway's where it has one. */
export const pushgatewayFlags = {
  'pushgateway.listen-address': flag.address(':9091', 'Address of the push gateway listener (host:port, or off)'),
  'web.route-prefix': flag.string('', 'Path prefix for every push gateway route, like Pushgateway\'s (e.g. /pushgateway)'),
  'web.telemetry-path': flag.string('/metrics', 'Path under the route prefix where Prometheus scrapes pushed and own metrics'),
  'web.config.file': flag.string('', 'Pushgateway-style web config file (YAML) with basic_auth_users: {user: bcrypt-hash}; /-/healthy and /-/ready stay open for probes'),
  'web.enable-lifecycle': flag.boolean(false, 'Enable PUT/POST /-/quit to shut Portico down'),
  'web.enable-admin-api': flag.boolean(false, 'Enable PUT /api/v1/admin/wipe, which deletes every group'),
  'persistence.file': flag.string('', 'File that holds pushed groups across restarts (default: <data.dir>/pushgateway.json; "off" keeps them in memory only)'),
  'persistence.interval': flag.duration('5m', 'Minimum interval between two writes of the persistence file (it is also written on shutdown)'),
  'push.disable-consistency-check': flag.boolean(false, 'Accept pushes without checking them against stored metrics (202 instead of 200); dangerous, as in Pushgateway'),
  'push.group-ttl': flag.duration('0', 'Delete a group this long after its last successful push (0: keep forever, as Pushgateway does); a push may set its own with the X-Portico-Group-TTL header'),
  'push.max-body-size': flag.bytes('16MiB', 'Largest accepted push body, after gzip decoding; larger pushes get 413'),
};

/** The slice of the configuration this area reads: its own flags and the general ones. */
export type PushgatewayConfig = FlagValues<typeof commonFlags & typeof listenerFlags & typeof pushgatewayFlags>;
