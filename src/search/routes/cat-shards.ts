import type { FastifyReply, FastifyRequest } from 'fastify';
import { catBytes, sendCatTable, type CatColumn, type CatRow } from '../http/cat-table.js';
import type { SearchService } from '../engine/search-service.js';
import type { Params } from '../http/http-io.js';

/** `_cat/shards` columns ES 8 prints without `h` (and the aliases `h` and `s` accept). */
const SHARD_COLUMNS: CatColumn[] = [
  { name: 'index', aliases: ['i', 'idx'], shown: true },
  { name: 'shard', aliases: ['s', 'sh'], shown: true, numeric: true },
  { name: 'prirep', aliases: ['p', 'pr', 'primaryOrReplica'], shown: true },
  { name: 'state', aliases: ['st'], shown: true },
  { name: 'docs', aliases: ['d', 'dc'], shown: true, right: true, numeric: true },
  { name: 'store', aliases: ['sto'], shown: true, right: true },
  { name: 'dataset', shown: true, right: true },
  { name: 'ip', shown: true },
  { name: 'node', aliases: ['n'], shown: true },
];

/**
 * `_cat/shards[/<index>]`: each shard of each index, its primary started on this node, then its
 * `number_of_replicas` replicas, `UNASSIGNED` with empty cells as ES shows them on one node (a
 * replica never shares its primary's node), so the rows agree with `_stats`' `_shards.total`.
 */
export function catShards(service: SearchService, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const states = [...service.resolve((req.params as Params).index)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const ip = req.socket.localAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1';
  const rows: CatRow[] = [];
  for (const s of states) {
    const bytes = service.storedBytesByShard(s);
    for (const shard of s.shards) {
      const size = catBytes(bytes[shard.shard] as number);
      const n = String(shard.shard);
      rows.push({ index: s.name, shard: n, prirep: 'p', state: 'STARTED', docs: String(service.refreshedView(shard).index.liveCount), store: size, dataset: size, ip, node: 'portico' });
      for (let r = 0; r < s.settings.numberOfReplicas; r++) rows.push({ index: s.name, shard: n, prirep: 'r', state: 'UNASSIGNED' });
    }
  }
  return sendCatTable(req, reply, SHARD_COLUMNS, rows);
}
