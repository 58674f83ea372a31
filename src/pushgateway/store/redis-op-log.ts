/**
 * The shared log (op-log.ts) on Redis, through ioredis: standalone (redis://, rediss://),
 * Sentinel or Cluster. Each write is one Lua script, so it happens whole or not at all:
 *
 * - `<p>:seq` the last sequence number, `<p>:time` the log's clock (ms, never going back),
 * - `<p>:log` a stream whose entry ids are `<seq>-0` (fields op, n = nonce, t = time),
 * - `<p>:snapshot` a hash (seq, time, text) from which a replica starts, entries before it trimmed,
 * - channel `<p>:appended` tells every replica that an entry was appended.
 *
 * `<p>` is `{prefix}`: the braces put every key in one Cluster slot, as a script needs.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { LogEntry, LogRead, LogSnapshot, OpLog } from './op-log.js';
import type { RedisLocation } from './store-location.js';

const APPEND = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if now < last then now = last end
local seq = tonumber(redis.call('GET', KEYS[1]) or '0')
if seq < tonumber(ARGV[3]) then return 'behind' end
if ARGV[4] ~= '' and now < tonumber(ARGV[4]) then return {} end
seq = seq + 1
redis.call('SET', KEYS[1], seq)
redis.call('SET', KEYS[2], string.format('%d', now))
redis.call('XADD', KEYS[3], seq .. '-0', 'op', ARGV[1], 'n', ARGV[2], 't', string.format('%d', now))
redis.call('PUBLISH', ARGV[5], seq)
return redis.call('XRANGE', KEYS[3], '(' .. ARGV[3] .. '-0', seq .. '-0')
`;

const READ = `
local seq = tonumber(redis.call('GET', KEYS[1]) or '0')
return {seq, redis.call('XRANGE', KEYS[2], '(' .. ARGV[1] .. '-0', '+', 'COUNT', ARGV[2])}
`;

const SAVE_SNAPSHOT = `
local cur = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
if tonumber(ARGV[1]) <= cur then return 0 end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'time', ARGV[2], 'text', ARGV[3])
if tonumber(ARGV[4]) > 0 then redis.call('XTRIM', KEYS[2], 'MINID', (ARGV[4] + 1) .. '-0') end
return 1
`;

const RESEED = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if cur >= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[4], 'seq', ARGV[1], 'time', ARGV[2], 'text', ARGV[3])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[1])
return 1
`;

export interface RedisOpLogOptions {
  readonly location: RedisLocation;
  /** Password of the Redis user (from --pushgateway.store.password-file), if any. */
  readonly password?: string;
  readonly sentinelPassword?: string;
  /** PEM CA bundle for rediss:// (default: the system's). */
  readonly tlsCa?: string;
  /** Key prefix (default `portico:pushgateway`). */
  readonly keyPrefix?: string;
  /** A command that has not answered in this many ms fails (default 2000). */
  readonly commandTimeoutMs?: number;
  /** Called on every connection error of the client (it reconnects by itself). */
  readonly onError?: (err: Error) => void;
}

type Client = Redis | Cluster;
type RawEntry = [id: string, fields: string[]];

interface Scripts {
  porticoAppend(k1: string, k2: string, k3: string, op: string, nonce: string, after: string, due: string, channel: string): Promise<RawEntry[] | 'behind'>;
  porticoRead(k1: string, k2: string, after: string, count: string): Promise<[number, RawEntry[]]>;
  porticoSaveSnapshot(k1: string, k2: string, seq: string, time: string, text: string, trim: string): Promise<number>;
  porticoReseed(k1: string, k2: string, k3: string, k4: string, seq: string, time: string, text: string, channel: string): Promise<number>;
}

function entryOf([id, fields]: RawEntry): LogEntry {
  const get = (name: string): string => {
    const i = fields.indexOf(name);
    return i % 2 === 0 ? (fields[i + 1] ?? '') : '';
  };
  return { seq: Number(id.slice(0, id.indexOf('-'))), timeMs: Number(get('t')), nonce: get('n'), op: get('op') };
}

function optionsOf(o: RedisOpLogOptions): RedisOptions {
  const loc = o.location;
  return {
    ...(loc.username !== undefined && { username: loc.username }),
    ...(o.password !== undefined && { password: o.password }),
    db: loc.db,
    ...(loc.tls && { tls: o.tlsCa === undefined ? {} : { ca: o.tlsCa } }),
    // A write while Redis is away fails at once (503) instead of waiting in a queue to be sent
    // later, when its answer would be too late for the pusher.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: o.commandTimeoutMs ?? 2000,
    connectTimeout: 2000,
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
    lazyConnect: true,
  };
}

function createClient(o: RedisOpLogOptions): Client {
  const loc = o.location;
  const base = optionsOf(o);
  if (loc.mode === 'cluster') {
    const { db: _db, ...nodeOptions } = base;
    return new Cluster([...loc.nodes], { redisOptions: nodeOptions, enableOfflineQueue: false, lazyConnect: true, clusterRetryStrategy: (times: number) => Math.min(100 * times, 1000) });
  }
  if (loc.mode === 'sentinel') {
    return new Redis({ ...base, sentinels: [...loc.nodes], name: loc.masterName as string, ...(o.sentinelPassword !== undefined && { sentinelPassword: o.sentinelPassword }) });
  }
  const node = loc.nodes[0] as { host: string; port: number };
  return new Redis({ ...base, host: node.host, port: node.port });
}

function defineScripts(client: Client): Scripts {
  client.defineCommand('porticoAppend', { numberOfKeys: 3, lua: APPEND });
  client.defineCommand('porticoRead', { numberOfKeys: 2, lua: READ });
  client.defineCommand('porticoSaveSnapshot', { numberOfKeys: 2, lua: SAVE_SNAPSHOT });
  client.defineCommand('porticoReseed', { numberOfKeys: 4, lua: RESEED });
  return client as unknown as Scripts;
}

/** The OpLog on Redis. Call connect() once; the client reconnects by itself after that. */
export class RedisOpLog implements OpLog {
  private readonly client: Client;
  private readonly subscriber: Client;
  private readonly scripts: Scripts;
  private readonly keys: { seq: string; time: string; log: string; snapshot: string; channel: string };
  private readonly listeners: (() => void)[] = [];

  constructor(opts: RedisOpLogOptions) {
    const p = `{${opts.keyPrefix ?? 'portico:pushgateway'}}`;
    this.keys = { seq: `${p}:seq`, time: `${p}:time`, log: `${p}:log`, snapshot: `${p}:snapshot`, channel: `${p}:appended` };
    this.client = createClient(opts);
    this.subscriber = createClient(opts);
    const onError = (err: Error): void => opts.onError?.(err);
    this.client.on('error', onError);
    this.subscriber.on('error', onError);
    this.scripts = defineScripts(this.client);
    this.subscriber.on('message', () => {
      for (const l of this.listeners) l();
    });
    // Re-subscribed by ioredis after a reconnection; a poll covers what was published meanwhile.
    this.subscriber.on('ready', () => {
      for (const l of this.listeners) l();
    });
  }

  /** Starts connecting; resolves when both connections are up or rejects with the first failure (they keep retrying). */
  async connect(): Promise<void> {
    await Promise.all([this.client.connect(), this.subscriber.connect().then(() => this.subscriber.subscribe(this.keys.channel))]);
  }

  get connected(): boolean {
    return this.client.status === 'ready';
  }

  onAppended(listener: () => void): void {
    this.listeners.push(listener);
  }

  async append(op: string, nonce: string, afterSeq: number, dueAtMs?: number): Promise<readonly LogEntry[] | 'behind'> {
    const k = this.keys;
    const raw = await this.scripts.porticoAppend(k.seq, k.time, k.log, op, nonce, String(afterSeq), dueAtMs === undefined ? '' : String(Math.ceil(dueAtMs)), k.channel);
    return raw === 'behind' ? 'behind' : raw.map(entryOf);
  }

  async read(afterSeq: number, max: number): Promise<LogRead> {
    const [lastSeq, raw] = await this.scripts.porticoRead(this.keys.seq, this.keys.log, String(afterSeq), String(max));
    return { lastSeq: Number(lastSeq), entries: raw.map(entryOf) };
  }

  async snapshot(): Promise<LogSnapshot | undefined> {
    const h = await this.client.hgetall(this.keys.snapshot);
    if (h.seq === undefined || h.text === undefined) return undefined;
    return { seq: Number(h.seq), timeMs: Number(h.time ?? 0), text: h.text };
  }

  async saveSnapshot(s: LogSnapshot, trimThrough: number): Promise<void> {
    await this.scripts.porticoSaveSnapshot(this.keys.snapshot, this.keys.log, String(s.seq), String(s.timeMs), s.text, String(Math.max(0, trimThrough)));
  }

  async reseed(s: LogSnapshot): Promise<boolean> {
    const k = this.keys;
    return (await this.scripts.porticoReseed(k.seq, k.time, k.log, k.snapshot, String(s.seq), String(s.timeMs), s.text, k.channel)) === 1;
  }

  async close(): Promise<void> {
    this.client.disconnect();
    this.subscriber.disconnect();
  }
}
