/**
 * Where the push gateway keeps its groups, as `--pushgateway.store` names it: `memory` (the
 * default, one process) or a Redis deployment that any number of replicas share. Pure: parses the
 * flag's text; the Redis client is built from the result elsewhere.
 */

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** A Redis deployment: one server (`redis://`, `rediss://`), Sentinel, or Cluster. */
export interface RedisLocation {
  readonly kind: 'redis';
  readonly mode: 'standalone' | 'sentinel' | 'cluster';
  /** The server (standalone), the sentinels, or the cluster's seed nodes. */
  readonly nodes: readonly RedisNode[];
  readonly db: number;
  readonly tls: boolean;
  /** ACL user name (from the URL); the password never comes from the URL. */
  readonly username: string | undefined;
  /** Sentinel only: the name of the monitored master. */
  readonly masterName: string | undefined;
  /** The URL as shown in logs and the status page (it holds no secret). */
  readonly display: string;
}

export type StoreLocation = { readonly kind: 'memory' } | RedisLocation;

/** A `--pushgateway.store` value that cannot work; the message names the value and says what to write. */
export class StoreLocationError extends Error {
  override readonly name = 'StoreLocationError';
}

const FORMS = 'memory, redis://HOST[:PORT][/DB], rediss://HOST[:PORT][/DB], redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB] or redis+cluster://HOST:PORT[,HOST:PORT...]';

function parseNode(raw: string, defaultPort: number, value: string): RedisNode {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(raw);
  if (m === null) throw new StoreLocationError(`--pushgateway.store "${value}": "${raw}" is not HOST or HOST:PORT`);
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (port < 1 || port > 65_535) throw new StoreLocationError(`--pushgateway.store "${value}": port ${m[2]} is out of range`);
  const host = (m[1] as string).replace(/^\[|\]$/g, '');
  return { host, port };
}

function parseDb(raw: string | undefined, value: string): number {
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,5}$/.test(raw)) throw new StoreLocationError(`--pushgateway.store "${value}": database "${raw}" is not a number`);
  return Number(raw);
}

/** Splits `scheme://[user@]hosts/path` without URL(), which cannot hold a list of hosts. */
function splitUrl(value: string): { scheme: string; userinfo: string | undefined; hosts: string; path: string[] } {
  const m = /^([a-z+]+):\/\/(?:([^@/]*)@)?([^/?#]*)(\/[^?#]*)?$/.exec(value);
  if (m === null) throw new StoreLocationError(`--pushgateway.store "${value}" is not one of ${FORMS}`);
  const path = (m[4] ?? '').split('/').slice(1);
  if (path.length > 0 && path[path.length - 1] === '') path.pop();
  return { scheme: m[1] as string, userinfo: m[2], hosts: m[3] as string, path };
}

/** The user name of `user[:password]`; a password is refused, since a command line is no place for it. */
function usernameOf(userinfo: string | undefined, value: string): string | undefined {
  if (userinfo === undefined || userinfo === '') return undefined;
  if (userinfo.includes(':')) {
    throw new StoreLocationError(
      `--pushgateway.store "${value.replace(/\/\/[^@/]*@/, '//***@')}" holds a password: command lines and process lists are readable by others, so put the password in a file and pass --pushgateway.redis.password-file instead`,
    );
  }
  return decodeURIComponent(userinfo);
}

const DEFAULT_PORTS: Record<string, number> = { redis: 6379, rediss: 6379, 'redis+sentinel': 26379, 'redis+cluster': 6379 };

/** Parses `--pushgateway.store`; throws StoreLocationError naming the value. */
export function parseStoreLocation(value: string): StoreLocation {
  const v = value.trim();
  if (v === '' || v === 'memory') return { kind: 'memory' };
  const { scheme, userinfo, hosts, path } = splitUrl(v);
  const defaultPort = DEFAULT_PORTS[scheme];
  if (defaultPort === undefined) throw new StoreLocationError(`--pushgateway.store "${value}": unknown scheme "${scheme}://"; use one of ${FORMS}`);
  const username = usernameOf(userinfo, v);
  if (hosts === '') throw new StoreLocationError(`--pushgateway.store "${value}" names no host`);
  const nodes = hosts.split(',').map((h) => parseNode(h, defaultPort, v));
  const display = v;
  if (scheme === 'redis+sentinel') {
    const [masterName, db, ...rest] = path;
    if (masterName === undefined || masterName === '' || rest.length > 0) {
      throw new StoreLocationError(`--pushgateway.store "${value}": a Sentinel URL is redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB]`);
    }
    return { kind: 'redis', mode: 'sentinel', nodes, db: parseDb(db, v), tls: false, username, masterName, display };
  }
  if (path.length > 1) throw new StoreLocationError(`--pushgateway.store "${value}": the path is only a database number`);
  if (scheme === 'redis+cluster') {
    if (path.length > 0 && path[0] !== '0') throw new StoreLocationError(`--pushgateway.store "${value}": Redis Cluster has only database 0`);
    return { kind: 'redis', mode: 'cluster', nodes, db: 0, tls: false, username, masterName: undefined, display };
  }
  if (nodes.length > 1) throw new StoreLocationError(`--pushgateway.store "${value}": ${scheme}:// takes one host; use redis+sentinel:// or redis+cluster:// for several`);
  return { kind: 'redis', mode: 'standalone', nodes, db: parseDb(path[0], v), tls: scheme === 'rediss', username, masterName: undefined, display };
}
