import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { jsonBody, queryOf, sendJson, type Params } from '../http-io.js';
import type { IndexState, SearchService } from '../search-service.js';

export interface ClusterInfo {
  readonly flavor: 'elasticsearch' | 'opensearch';
  readonly clusterUuid: string;
  readonly version: string;
}

function settingsBody(s: IndexState): Record<string, unknown> {
  const index: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s.settings.raw)) index[k.slice('index.'.length)] = String(v);
  index.number_of_shards ??= String(s.settings.numberOfShards);
  index.number_of_replicas ??= String(s.settings.numberOfReplicas);
  index.uuid = s.uuid;
  index.creation_date = String(s.createdMs);
  index.provided_name = s.name;
  index.version = { created: '8500003' };
  return { index };
}

/** Index management (`PUT|GET|HEAD|DELETE /<index>`, `_refresh`, `_mapping`), `_cat/indices`, `GET /`. */
export async function indexRoutes(app: FastifyInstance, opts: { service: SearchService; info: ClusterInfo }): Promise<void> {
  const { service, info } = opts;
  const broadcast = (n: number) => ({ _shards: { total: n * 2, successful: n, failed: 0 } });

  const infoBody = () =>
    info.flavor === 'opensearch'
      ? {
          name: 'portico',
          cluster_name: 'portico',
          cluster_uuid: info.clusterUuid,
          version: {
            distribution: 'opensearch',
            number: '2.17.1',
            build_type: 'portico',
            build_hash: 'portico',
            build_date: '2024-01-01T00:00:00.000000Z',
            build_snapshot: false,
            lucene_version: '9.11.1',
            minimum_wire_compatibility_version: '7.10.0',
            minimum_index_compatibility_version: '7.0.0',
          },
          tagline: 'The OpenSearch Project: https://opensearch.org/',
        }
      : {
          name: 'portico',
          cluster_name: 'portico',
          cluster_uuid: info.clusterUuid,
          version: {
            number: '8.17.0',
            build_flavor: 'default',
            build_type: 'portico',
            build_hash: 'portico',
            build_date: '2024-01-01T00:00:00.000000Z',
            build_snapshot: false,
            lucene_version: '9.12.0',
            minimum_wire_compatibility_version: '7.17.0',
            minimum_index_compatibility_version: '7.0.0',
          },
          tagline: 'You Know, for Search',
        };
  app.get('/', { exposeHeadRoute: false }, async (req, reply) => sendJson(req, reply, 200, infoBody()));
  app.head('/', async (_req, reply) => reply.code(200).header('content-type', 'application/json').send());
  app.get('/_cluster/health', async (req, reply) =>
    sendJson(req, reply, 200, { cluster_name: 'portico', status: 'green', timed_out: false, number_of_nodes: 1, number_of_data_nodes: 1 }),
  );

  app.put('/:index', async (req, reply) => {
    const name = (req.params as Params).index as string;
    service.createIndex(name, jsonBody(req));
    return sendJson(req, reply, 200, { acknowledged: true, shards_acknowledged: true, index: name });
  });
  app.delete('/:index', async (req, reply) => {
    service.deleteIndex((req.params as Params).index as string);
    return sendJson(req, reply, 200, { acknowledged: true });
  });
  app.head('/:index', async (req, reply) => {
    const expr = (req.params as Params).index as string;
    let ok: boolean;
    try {
      ok = service.resolve(expr).length > 0;
    } catch {
      ok = false;
    }
    return reply.code(ok ? 200 : 404).header('content-type', 'application/json').send();
  });
  app.get('/:index', { exposeHeadRoute: false }, async (req, reply) => {
    const states = service.resolve((req.params as Params).index);
    const body: Record<string, unknown> = {};
    for (const s of states) body[s.name] = { aliases: {}, mappings: s.mappings.toJSON(), settings: settingsBody(s) };
    return sendJson(req, reply, 200, body);
  });
  app.get('/:index/_mapping', async (req, reply) => {
    const body: Record<string, unknown> = {};
    for (const s of service.resolve((req.params as Params).index)) body[s.name] = { mappings: s.mappings.toJSON() };
    return sendJson(req, reply, 200, body);
  });
  app.put('/:index/_mapping', async (req, reply) => {
    service.putMapping((req.params as Params).index as string, jsonBody(req));
    return sendJson(req, reply, 200, { acknowledged: true });
  });
  app.get('/:index/_settings', async (req, reply) => {
    const body: Record<string, unknown> = {};
    for (const s of service.resolve((req.params as Params).index)) body[s.name] = { settings: settingsBody(s) };
    return sendJson(req, reply, 200, body);
  });

  // Writes are visible at once, so a refresh only answers with the broadcast header.
  const refresh = async (req: FastifyRequest, reply: FastifyReply) => {
    const states = service.resolve((req.params as Params).index);
    return sendJson(req, reply, 200, broadcast(states.length));
  };
  for (const path of ['/_refresh', '/:index/_refresh']) {
    app.post(path, refresh);
    app.get(path, refresh);
  }

  const cat = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = queryOf(req);
    const states = service.resolve((req.params as Params).index);
    const rows = states.map((s) => ({
      health: s.settings.numberOfReplicas > 0 ? 'yellow' : 'green',
      status: 'open',
      index: s.name,
      uuid: s.uuid,
      pri: String(s.settings.numberOfShards),
      rep: String(s.settings.numberOfReplicas),
      'docs.count': String(s.index.liveCount),
      'docs.deleted': String(s.index.maxOrd - s.index.liveCount),
      'store.size': '0b',
      'pri.store.size': '0b',
    }));
    if (q.format === 'json') return sendJson(req, reply, 200, rows);
    if (q.format !== undefined && q.format !== 'txt' && q.format !== 'text') throw errors.illegalArgument(`Unsupported format [${q.format}]`);
    const headers = Object.keys(rows[0] ?? { health: 0, status: 0, index: 0, uuid: 0, pri: 0, rep: 0, 'docs.count': 0, 'docs.deleted': 0, 'store.size': 0, 'pri.store.size': 0 });
    const table: string[][] = rows.map((r) => headers.map((h) => (r as Record<string, string>)[h] ?? ''));
    if (q.v !== undefined && q.v !== 'false') table.unshift(headers);
    const widths = headers.map((_, c) => Math.max(0, ...table.map((r) => (r[c] ?? '').length)));
    const text = table.map((r) => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' ').trimEnd()).join('\n');
    return reply.code(200).header('content-type', 'text/plain; charset=UTF-8').send(table.length > 0 ? `${text}\n` : '');
  };
  app.get('/_cat/indices', cat);
  app.get('/_cat/indices/:index', cat);
}
