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
  'web.enable-openmetrics': flag.boolean(
    false,
    'Answer OpenMetrics 1.0 to scrapes that prefer it (Prometheus 3 does by default); off, as Pushgateway: text 0.0.4 or protobuf only, so that Prometheus stores the series it stores from Pushgateway (OpenMetrics makes it store a counter pushed as x as x_total)',
  ),
  'web.enable-admin-api': flag.boolean(false, 'Enable PUT /api/v1/admin/wipe, which deletes every group'),
  'persistence.file': flag.string('', 'File that holds pushed groups across restarts (default: <data.dir>/pushgateway.json; "off" keeps them in memory only)'),
  'persistence.interval': flag.duration('5m', 'Minimum interval between two writes of the persistence file (it is also written on shutdown)'),
  'persistence.wal-sync-interval': flag.string(
    '2ms',
    'Write-ahead log of pushes beside --persistence.file: a push is answered once fsynced, and pushes arriving within this window share one fsync (0: the next event-loop turn; off: no log, pushes since the last write of the file are lost on a crash)',
  ),
  'persistence.wal-max-size': flag.bytes(
    '64MiB',
    'Write-ahead log size that triggers a checkpoint (a write of --persistence.file, after which the log it covers is deleted) without waiting for --persistence.interval; bounds the log on disk and the replay at start (0: the interval alone)',
  ),
  'push.disable-consistency-check': flag.boolean(false, 'Accept pushes without checking them against stored metrics (202 instead of 200); dangerous, as in Pushgateway'),
  'push.enable-utf8-names': flag.boolean(false, 'Allow UTF-8 characters in label names, as Pushgateway\'s flag: in pushed bodies (quoted in the text format) and in push paths (U__-escaped there); metric names may be UTF-8 either way'),
  'push.group-ttl': flag.duration('0', 'Delete a group this long after its last successful push (0: keep forever, as Pushgateway does); a push may set its own with the X-Portico-Group-TTL header'),
  'pushgateway.store': flag.string(
    'memory',
    'Where pushed groups live: memory (this process only), or Redis shared by any number of replicas: redis://HOST[:PORT][/DB], rediss://… (TLS), redis+sentinel://HOST:PORT[,HOST:PORT…]/MASTER[/DB] or redis+cluster://HOST:PORT[,HOST:PORT…]; a user name may precede the host (USER@HOST), a password may not (see --pushgateway.redis.password-file)',
  ),
  'pushgateway.redis.password-file': flag.string('', 'File holding the password of the Redis user (e.g. a mounted Secret); never put it in the URL'),
  'pushgateway.redis.sentinel-password-file': flag.string('', 'File holding the password of the Redis Sentinels, when they have one'),
  'pushgateway.redis.tls-ca-file': flag.string('', 'PEM CA bundle that signs the Redis server certificate for rediss:// (default: the system CAs)'),
  'pushgateway.redis.key-prefix': flag.string('portico:pushgateway', 'Prefix of the Redis keys of the shared store; gateways that must not share groups use different prefixes'),
  'push.max-groups': flag.int(0, 'Most groups the gateway holds (0: no limit); a push that would create one more gets 429', 0),
  'push.max-series-per-group': flag.int(0, 'Most metrics (label sets; a summary or histogram counts once) one group holds (0: no limit); a push that would leave its group with more gets 413', 0),
  'push.max-series': flag.int(0, 'Most metrics (label sets) all groups hold together (0: no limit); a push that would pass it gets 429', 0),
  'push.max-body-size': flag.bytes('16MiB', 'Largest accepted push body, after gzip or snappy decoding; larger pushes get 413'),
};

/** The slice of the configuration this area reads: its own flags and the general ones. */
export type PushgatewayConfig = FlagValues<typeof commonFlags & typeof listenerFlags & typeof pushgatewayFlags>;
