import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { catBytes, sendCatTable, type CatColumn, type CatRow } from '../http/cat-table.js';
import { queryOf, sendJson, type Params } from '../http/http-io.js';
import { catShards } from './cat-shards.js';
import { indexStatsSections, ProcessProbe, timeValueText, totalStatsSections, type ProcessFigures } from '../engine/node-stats.js';
import { broadcastShards, type IndexState } from '../engine/index-state.js';
import { clusterHealth } from '../engine/cluster-health.js';
import type { SearchService } from '../engine/search-service.js';
import type { ClusterInfo } from './index-routes.js';

/**
 * The node and cluster APIs tools call: `_nodes` (info), `_nodes/stats`, `_stats`, `_cat/health`,
 * `_cat/count` and `_cat/nodes`. One node holds every shard; the figures are measured
 * (engine/node-stats.ts), never made up.
 */

/** ES's roles of this node: it holds the data and is the elected master of its one-node cluster. */
const ROLES = ['data', 'master'];
const ROLE_LETTERS = 'dm';

/** The metrics `_nodes` info knows, and those Portico answers (the others are refused). */
const INFO_METRICS = new Set(['settings', 'os', 'process', 'jvm', 'thread_pool', 'transport', 'http', 'plugins', 'ingest', 'aggregations', 'indices', 'remote_cluster_server']);
const INFO_SERVED = new Set(['settings', 'os', 'process', 'jvm', 'http', 'plugins']);
/** The `_stats` metrics ES knows, and those Portico keeps. */
const STATS_METRICS = new Set(['_all', 'docs', 'store', 'indexing', 'get', 'search', 'merge', 'flush', 'refresh', 'query_cache', 'fielddata',
  'completion', 'segments', 'translog', 'request_cache', 'recovery', 'warmer', 'bulk', 'shard_stats', 'mappings', 'dense_vector', 'sparse_vector']);
const STATS_SERVED = ['docs', 'store', 'indexing', 'search', 'request_cache'];

interface NodeSelf {
  readonly id: string;
  readonly info: ClusterInfo;
  readonly probe: ProcessProbe;
}

/** `ip:port` the request came in on: the address this node publishes. */
function localAddress(req: FastifyRequest): { ip: string; port: number } {
  const ip = req.socket.localAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1';
  return { ip, port: req.socket.localPort ?? 9200 };
}

/** Whether a `_nodes/<filter>` selects this node (`_all`, `_local`, `_master`, `*`, its id or name). */
function selectsSelf(filter: string | undefined, self: NodeSelf): boolean {
  if (filter === undefined) return true;
  return filter.split(',').some((f) => ['_all', '_local', '_master', '*', self.id, 'portico', 'master:true', 'data:true'].includes(f.trim()));
}

/** Splits `_nodes/<a>` into a node filter or a metric list, as ES's RestNodesInfoAction does. */
function nodesTarget(a: string | undefined, b: string | undefined): { filter: string | undefined; metrics: Set<string> | undefined } {
  if (b !== undefined) return { filter: a, metrics: new Set(b.split(',')) };
  if (a === undefined) return { filter: undefined, metrics: undefined };
  const parts = a.split(',');
  const isMetrics = parts.every((p) => INFO_METRICS.has(p) || p === '_all' || p === '_none');
  return isMetrics ? { filter: undefined, metrics: new Set(parts) } : { filter: a, metrics: undefined };
}

function nodeInfo(self: NodeSelf, req: FastifyRequest, metrics: Set<string> | undefined): Record<string, unknown> {
  const { ip, port } = localAddress(req);
  const all = metrics === undefined || metrics.has('_all');
  for (const m of metrics ?? []) {
    if (m === '_all' || m === '_none') continue;
    if (!INFO_METRICS.has(m)) throw errors.illegalArgument(`request [${req.url.split('?')[0] ?? ''}] contains unrecognized metric: [${m}]`);
    if (!INFO_SERVED.has(m)) throw errors.contextUnsupported(`the [${m}] metric of the nodes info API`);
  }
  const want = (m: string) => all || (metrics?.has(m) ?? false);
  const f = self.probe.measure();
  const node: Record<string, unknown> = {
    name: 'portico', transport_address: `${ip}:${port}`, host: ip, ip, version: self.info.version, build_flavor: 'default', build_type: 'portico',
    build_hash: 'portico', roles: ROLES, attributes: {},
  };
  if (want('settings')) node.settings = { cluster: { name: 'portico' }, node: { name: 'portico' }, http: { port: String(port) } };
  if (want('os')) node.os = { refresh_interval_in_millis: 1000, name: process.platform === 'linux' ? 'Linux' : process.platform, arch: process.arch, available_processors: availableParallelism(), allocated_processors: availableParallelism() };
  if (want('process')) node.process = { refresh_interval_in_millis: 1000, id: process.pid, mlockall: false };
  if (want('jvm')) {
    node.jvm = { pid: process.pid, version: process.versions.node, vm_name: 'Node.js', vm_version: process.versions.v8, vm_vendor: 'Node.js', start_time_in_millis: Date.now() - f.uptimeMs,
      mem: { heap_init_in_bytes: 0, heap_max_in_bytes: f.heapMax, non_heap_init_in_bytes: 0, non_heap_max_in_bytes: 0, direct_max_in_bytes: 0 } };
  }
  if (want('http')) node.http = { bound_address: [`${ip}:${port}`], publish_address: `${ip}:${port}`, max_content_length_in_bytes: 104_857_600 };
  if (want('plugins')) {
    node.plugins = [];
    node.modules = [];
  }
  return node;
}

function nodeStats(self: NodeSelf, service: SearchService, req: FastifyRequest, f: ProcessFigures): Record<string, unknown> {
  const { ip, port } = localAddress(req);
  const timestamp = Date.now();
  return {
    timestamp, name: 'portico', transport_address: `${ip}:${port}`, host: ip, ip, roles: ROLES, attributes: {},
    indices: totalStatsSections(service, service.list()),
    os: {
      timestamp,
      cpu: { percent: f.cpuPercent, load_average: { '1m': f.load[0], '5m': f.load[1], '15m': f.load[2] } },
      mem: { total_in_bytes: f.ramTotal, free_in_bytes: f.ramFree, used_in_bytes: f.ramTotal - f.ramFree,
        free_percent: Math.round((100 * f.ramFree) / f.ramTotal), used_percent: Math.round((100 * (f.ramTotal - f.ramFree)) / f.ramTotal) },
    },
    process: { timestamp, cpu: { percent: 0, total_in_millis: f.processCpuMs }, mem: { total_virtual_in_bytes: f.rss } },
    jvm: {
      timestamp, uptime_in_millis: f.uptimeMs,
      mem: { heap_used_in_bytes: f.heapUsed, heap_used_percent: Math.round((100 * f.heapUsed) / f.heapMax), heap_committed_in_bytes: f.heapCommitted,
        heap_max_in_bytes: f.heapMax, non_heap_used_in_bytes: f.nonHeapUsed, non_heap_committed_in_bytes: f.nonHeapUsed },
    },
    fs: { timestamp, total: { total_in_bytes: service.diskBytes(), free_in_bytes: 0, available_in_bytes: 0 } },
  };
}

function nodesHeader(selected: boolean): Record<string, unknown> {
  const n = selected ? 1 : 0;
  return { _nodes: { total: n, successful: n, failed: 0 }, cluster_name: 'portico' };
}

/** `_stats[/<metric>]` and `<index>/_stats[/<metric>]`: `_all` and each index, primaries and total the same (no replica is assigned, so none holds a copy). */
function indicesStats(service: SearchService, req: FastifyRequest): Record<string, unknown> {
  const p = req.params as Params;
  const metrics = p.metric === undefined ? ['_all'] : p.metric.split(',');
  for (const m of metrics) {
    if (!STATS_METRICS.has(m)) throw errors.illegalArgument(`request [${req.url.split('?')[0] ?? ''}] contains unrecognized metric: [${m}]`);
    if (m !== '_all' && !STATS_SERVED.includes(m)) throw errors.contextUnsupported(`the [${m}] metric of the index stats API`);
  }
  const keep = metrics.includes('_all') ? STATS_SERVED : metrics;
  const pick = (sections: Record<string, unknown>) => Object.fromEntries(keep.map((k) => [k, sections[k]]));
  const states = service.resolve(p.index);
  const all = pick(totalStatsSections(service, states));
  const indices: Record<string, unknown> = {};
  for (const s of states) {
    const sections = pick(indexStatsSections(service, s));
    indices[s.name] = { uuid: s.uuid, health: indexHealth(s), status: 'open', primaries: sections, total: sections };
  }
  // Every copy counted, the primaries answering: replicas are never assigned on one node (ES's broadcast header).
  return { _shards: broadcastShards(states), _all: { primaries: all, total: all }, indices };
}

function indexHealth(s: IndexState): string {
  return s.settings.numberOfReplicas > 0 ? 'yellow' : 'green';
}

const HEALTH_COLUMNS: CatColumn[] = [
  { name: 'epoch', aliases: ['t', 'time'], shown: true, numeric: true },
  { name: 'timestamp', aliases: ['ts', 'hms', 'hhmmss'], shown: true },
  { name: 'cluster', aliases: ['cl'], shown: true },
  { name: 'status', aliases: ['st'], shown: true },
  { name: 'node.total', aliases: ['nt', 'nodeTotal'], shown: true, right: true, numeric: true },
  { name: 'node.data', aliases: ['nd', 'nodeData'], shown: true, right: true, numeric: true },
  { name: 'shards', aliases: ['t', 'sh', 'shards.total', 'shardsTotal'], shown: true, right: true, numeric: true },
  { name: 'pri', aliases: ['p', 'shards.primary', 'shardsPrimary'], shown: true, right: true, numeric: true },
  { name: 'relo', aliases: ['r', 'shards.relocating', 'shardsRelocating'], shown: true, right: true, numeric: true },
  { name: 'init', aliases: ['i', 'shards.initializing', 'shardsInitializing'], shown: true, right: true, numeric: true },
  { name: 'unassign', aliases: ['u', 'shards.unassigned', 'shardsUnassigned'], shown: true, right: true, numeric: true },
  { name: 'unassign.pri', aliases: ['up', 'shards.unassigned.primary', 'shardsUnassignedPrimary'], shown: true, right: true, numeric: true },
  { name: 'pending_tasks', aliases: ['pt', 'pendingTasks'], shown: true, right: true, numeric: true },
  { name: 'max_task_wait_time', aliases: ['mtwt', 'maxTaskWaitTime'], shown: true, right: true },
  { name: 'active_shards_percent', aliases: ['asp', 'activeShardsPercent'], shown: true, right: true },
];

const NODE_COLUMNS: CatColumn[] = [
  { name: 'id', aliases: ['nodeId'], shown: false },
  { name: 'pid', aliases: ['p'], shown: false, right: true, numeric: true },
  { name: 'ip', aliases: ['i'], shown: true },
  { name: 'port', aliases: ['po'], shown: false, right: true, numeric: true },
  { name: 'http_address', aliases: ['http'], shown: false },
  { name: 'version', aliases: ['v'], shown: false },
  { name: 'heap.current', aliases: ['hc', 'heapCurrent'], shown: false, right: true },
  { name: 'heap.percent', aliases: ['hp', 'heapPercent'], shown: true, right: true, numeric: true },
  { name: 'heap.max', aliases: ['hm', 'heapMax'], shown: false, right: true },
  { name: 'ram.current', aliases: ['rc', 'ramCurrent'], shown: false, right: true },
  { name: 'ram.percent', aliases: ['rp', 'ramPercent'], shown: true, right: true, numeric: true },
  { name: 'ram.max', aliases: ['rm', 'ramMax'], shown: false, right: true },
  { name: 'cpu', shown: true, right: true, numeric: true },
  { name: 'load_1m', aliases: ['l'], shown: true, right: true, numeric: true },
  { name: 'load_5m', shown: true, right: true, numeric: true },
  { name: 'load_15m', shown: true, right: true, numeric: true },
  { name: 'uptime', aliases: ['u'], shown: false, right: true },
  { name: 'node.role', aliases: ['r', 'role', 'nodeRole'], shown: true },
  { name: 'master', aliases: ['m'], shown: true },
  { name: 'name', aliases: ['n'], shown: true },
];

function catHealthRow(service: SearchService, nowMs: number): CatRow {
  const { status, primaries: pri, unassigned, activePercent } = clusterHealth(service.list());
  return {
    epoch: String(Math.floor(nowMs / 1000)), timestamp: new Date(nowMs).toISOString().slice(11, 19), cluster: 'portico',
    status, 'node.total': '1', 'node.data': '1', shards: String(pri), pri: String(pri), relo: '0', init: '0',
    unassign: String(unassigned), 'unassign.pri': '0', pending_tasks: '0', max_task_wait_time: '-',
    active_shards_percent: `${activePercent.toFixed(1)}%`,
  };
}

function catNodeRow(self: NodeSelf, req: FastifyRequest): CatRow {
  const f = self.probe.measure();
  const { ip, port } = localAddress(req);
  const load = (v: number) => v.toFixed(2);
  return {
    id: self.id.slice(0, 4), pid: String(process.pid), ip, port: String(port), http_address: `${ip}:${port}`, version: self.info.version,
    'heap.current': catBytes(f.heapUsed), 'heap.percent': String(Math.round((100 * f.heapUsed) / f.heapMax)), 'heap.max': catBytes(f.heapMax),
    'ram.current': catBytes(f.ramTotal - f.ramFree), 'ram.percent': String(Math.round((100 * (f.ramTotal - f.ramFree)) / f.ramTotal)),
    'ram.max': catBytes(f.ramTotal), cpu: String(f.cpuPercent), load_1m: load(f.load[0]), load_5m: load(f.load[1]), load_15m: load(f.load[2]),
    uptime: timeValueText(f.uptimeMs), 'node.role': ROLE_LETTERS, master: '*', name: 'portico',
  };
}

/** `_nodes`, `_nodes/stats`, `_stats`, `_cat/health`, `_cat/count`, `_cat/nodes`, `_cat/shards`. */
export async function clusterRoutes(app: FastifyInstance, opts: { service: SearchService; info: ClusterInfo; now: () => number }): Promise<void> {
  const { service, info, now } = opts;
  const self: NodeSelf = { id: createHash('sha256').update(`node:${info.clusterUuid}`).digest('base64url').slice(0, 22), info, probe: new ProcessProbe(now(), now) };

  const nodesInfo = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = req.params as Params;
    const { filter, metrics } = nodesTarget(p.a, p.b);
    const selected = selectsSelf(filter, self);
    const nodes = selected ? { [self.id]: nodeInfo(self, req, metrics) } : {};
    return sendJson(req, reply, 200, { ...nodesHeader(selected), nodes });
  };
  app.get('/_nodes', nodesInfo);
  app.get('/_nodes/:a', nodesInfo);
  app.get('/_nodes/:a/:b', nodesInfo);

  const statsOfNodes = async (req: FastifyRequest, reply: FastifyReply) => {
    const selected = selectsSelf((req.params as Params).node, self);
    const nodes = selected ? { [self.id]: nodeStats(self, service, req, self.probe.measure()) } : {};
    return sendJson(req, reply, 200, { ...nodesHeader(selected), nodes });
  };
  app.get('/_nodes/stats', statsOfNodes);
  app.get('/_nodes/:node/stats', statsOfNodes);

  const stats = async (req: FastifyRequest, reply: FastifyReply) => sendJson(req, reply, 200, indicesStats(service, req));
  for (const path of ['/_stats', '/_stats/:metric', '/:index/_stats', '/:index/_stats/:metric']) app.get(path, stats);

  app.get('/_cat/health', async (req, reply) => sendCatTable(req, reply, withoutTimestamp(req, HEALTH_COLUMNS), [catHealthRow(service, now())]));
  app.get('/_cat/nodes', async (req, reply) => sendCatTable(req, reply, NODE_COLUMNS, [catNodeRow(self, req)]));
  const catCount = async (req: FastifyRequest, reply: FastifyReply) => {
    const states = service.resolve((req.params as Params).index);
    const t = now();
    // A count search: as of each index's last refresh (a search-idle one refreshed first).
    const count = states.reduce((n, s) => n + s.shards.reduce((m, shard) => m + service.searchable(shard).index.liveCount, 0), 0);
    const row = { epoch: String(Math.floor(t / 1000)), timestamp: new Date(t).toISOString().slice(11, 19), count: String(count) };
    return sendCatTable(req, reply, withoutTimestamp(req, COUNT_COLUMNS), [row]);
  };
  app.get('/_cat/count', catCount);
  app.get('/_cat/count/:index', catCount);
  app.get('/_cat/shards', async (req, reply) => catShards(service, req, reply));
  app.get('/_cat/shards/:index', async (req, reply) => catShards(service, req, reply));
}

const COUNT_COLUMNS: CatColumn[] = [
  { name: 'epoch', aliases: ['t', 'time'], shown: true, numeric: true },
  { name: 'timestamp', aliases: ['ts', 'hms', 'hhmmss'], shown: true },
  { name: 'count', aliases: ['dc', 'docs.count', 'docsCount'], shown: true, right: true, numeric: true },
];

/** `ts=false` leaves out the epoch and timestamp columns, as ES's health and count tables do. */
function withoutTimestamp(req: FastifyRequest, columns: CatColumn[]): CatColumn[] {
  return queryOf(req).ts === 'false' ? columns.filter((c) => c.name !== 'epoch' && c.name !== 'timestamp') : columns;
}
