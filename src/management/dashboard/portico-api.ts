/**
 * Portico's own endpoints for the dashboard, under `{basePath}api/portico/`, a path Traefik does
 * not have, so a Traefik client never meets them and the Traefik API stays byte for byte as it is:
 *
 * - `sources`: the object each record was made from (`sources` in a provider's snapshot), with the
 *   `kubectl get … -o yaml` command that shows it; `sources/{protocol}/{kind}/{name}` for one record;
 * - `records/{protocol}/{kind}`: a list page with Traefik's list parameters plus `namespace` (of
 *   the source object) and `entryPoint` (routers), which Traefik's lists do not have;
 * - `changes`: a generation number that grows with every applied snapshot, with an ETag, so the
 *   dashboard polls it with `If-None-Match` and gets `304` while nothing changed.
 *
 * Errors are `{"message":…}` as in the rest of the API.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RecordSource, SnapshotSources } from '../../dynamic-config/configuration.js';
import { messageBody } from '../errors.js';
import type { RecordStore } from '../record-store.js';
import type { KindView, Protocol, ResourceKind, ViewEntry } from '../view/kind-view.js';
import type { RuntimeView } from '../view/runtime-view.js';

const KINDS: Readonly<Record<Protocol, readonly ResourceKind[]>> = {
  http: ['routers', 'services', 'middlewares'], tcp: ['routers', 'services', 'middlewares'], udp: ['routers', 'services'],
};

/** A source as served: the snapshot's fields and the kubectl command. */
export interface ServedSource extends RecordSource {
  readonly provider: string;
  readonly kubectl: string;
}

/** Sources by `<protocol>/<kind>`, then qualified record name. */
export type SourceIndex = ReadonlyMap<string, ReadonlyMap<string, ServedSource>>;

/** `kubectl get <kind>.<group> <name> -n <namespace> -o yaml`; the group is left out for the core API. */
export function kubectlCommand(s: RecordSource): string {
  const slash = s.apiVersion?.indexOf('/') ?? -1;
  const group = s.apiVersion !== undefined && slash !== -1 ? s.apiVersion.slice(0, slash) : '';
  const resource = `${s.kind.toLowerCase()}${group === '' ? '' : `.${group}`}`;
  const quote = (v: string) => (/^[A-Za-z0-9._\-/]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  const ns = s.namespace !== undefined && s.namespace !== '' ? ` -n ${quote(s.namespace)}` : '';
  return `kubectl get ${quote(resource)} ${quote(s.name)}${ns} -o yaml`;
}

/** Builds the index of every provider's `sources` (records without a source are absent). */
export function buildSourceIndex(store: RecordStore): SourceIndex {
  const out = new Map<string, Map<string, ServedSource>>();
  for (const provider of store.providers()) {
    const sources: SnapshotSources | undefined = store.get(provider)?.snapshot.sources;
    if (sources === undefined) continue;
    for (const protocol of ['http', 'tcp', 'udp'] as const) {
      const section = sources[protocol] as Partial<Record<ResourceKind, Record<string, RecordSource>>> | undefined;
      if (section === undefined) continue;
      for (const kind of KINDS[protocol]) {
        const map = section[kind];
        if (map === undefined) continue;
        const key = `${protocol}/${kind}`;
        let target = out.get(key);
        if (target === undefined) out.set(key, (target = new Map()));
        for (const name of Object.keys(map)) {
          const s = map[name] as RecordSource;
          target.set(`${name}@${provider}`, { ...s, provider, kubectl: kubectlCommand(s) });
        }
      }
    }
  }
  return out;
}

function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').header('cache-control', 'no-cache').send(`${JSON.stringify(body)}\n`);
}

function sendMessage(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(messageBody(message));
}

function positiveInt(raw: string | undefined, name: string, fallback: number): number | string {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) return `${name} must be a positive integer, got ${JSON.stringify(raw)}`;
  return Number(raw);
}

export interface PorticoListQuery {
  readonly search?: string;
  readonly status?: string;
  readonly sortBy?: string;
  readonly direction?: string;
  readonly namespace?: string;
  readonly entryPoint?: string;
  readonly page?: string;
  readonly per_page?: string;
}

/** The filtered, sorted page; a string is the 400 message. */
export function porticoListPage(
  kindView: KindView, sources: ReadonlyMap<string, ServedSource> | undefined, q: PorticoListQuery,
): { body: string; nextPage: string; total: number } | string {
  const page = positiveInt(q.page, 'page', 1);
  if (typeof page === 'string') return page;
  const perPage = positiveInt(q.per_page, 'per_page', 100);
  if (typeof perPage === 'string') return perPage;
  const needle = (q.search ?? '').toLowerCase();
  const status = (q.status ?? '').toLowerCase();
  const namespace = q.namespace ?? '';
  const entryPoint = q.entryPoint ?? '';
  const keep = (e: ViewEntry): boolean => {
    if (namespace !== '' && sources?.get(e.name)?.namespace !== namespace) return false;
    if (entryPoint !== '') {
      const eps = e.toRecord().entryPoints;
      if (!Array.isArray(eps) || !eps.includes(entryPoint)) return false;
    }
    return true;
  };
  // Status and search through the view's filter index (kind-view.ts filtered), the rest per entry.
  let selected = kindView.filtered(q.sortBy ?? '', status, needle, namespace === '' && entryPoint === '' ? undefined : keep);
  if (q.direction !== undefined && q.direction !== '' && q.direction !== 'asc') selected = [...selected].reverse();
  const start = (page - 1) * perPage;
  if (start !== 0 && start >= selected.length) return `page ${page} starts past the last record (${selected.length} match)`;
  const slice = selected.slice(start, start + perPage);
  const nextPage = start + perPage < selected.length ? String(page + 1) : '1';
  return { body: `[${slice.map((e) => e.json).join(',')}]`, nextPage, total: selected.length };
}

const STRINGS = { type: 'string', maxLength: 4096 } as const;
const LIST_QUERY = {
  type: 'object',
  properties: { search: STRINGS, status: STRINGS, sortBy: STRINGS, direction: STRINGS, namespace: STRINGS, entryPoint: STRINGS, page: STRINGS, per_page: STRINGS },
} as const;

/** Registers the Portico endpoints under `{basePath}api/portico/`. */
export function registerPorticoApi(app: FastifyInstance, store: RecordStore, basePath = '/'): void {
  const prefix = `${basePath}api/portico/`;
  let generation = 0;
  const stop = store.onChange(() => { generation += 1; });
  app.addHook('onClose', async () => { stop(); });
  const indexes = new WeakMap<RuntimeView, SourceIndex>();
  const indexOf = (): SourceIndex => {
    let index = indexes.get(store.view);
    if (index === undefined) indexes.set(store.view, (index = buildSourceIndex(store)));
    return index;
  };

  app.get(`${prefix}changes`, async (request, reply) => {
    const etag = `"g${generation}"`;
    reply.header('etag', etag).header('cache-control', 'no-cache');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return sendJson(reply, 200, { generation });
  });

  app.get(`${prefix}sources`, async (_request, reply) => {
    const body: Record<string, Record<string, Record<string, ServedSource>>> = {};
    for (const [key, map] of indexOf()) {
      const [protocol, kind] = key.split('/') as [string, string];
      (body[protocol] ??= {})[kind] = Object.fromEntries(map);
    }
    return sendJson(reply, 200, body);
  });

  app.get<{ Params: { protocol: string; kind: string; name: string } }>(`${prefix}sources/:protocol/:kind/:name`, async (request, reply) => {
    const { protocol, kind, name } = request.params;
    if (!(protocol in KINDS) || !KINDS[protocol as Protocol].includes(kind as ResourceKind)) {
      return sendMessage(reply, 404, `unknown record kind ${JSON.stringify(`${protocol}/${kind}`)}`);
    }
    const source = indexOf().get(`${protocol}/${kind}`)?.get(name);
    if (source === undefined) return sendMessage(reply, 404, `no source known for ${protocol} ${kind.replace(/s$/, '')} ${JSON.stringify(name)}`);
    return sendJson(reply, 200, source);
  });

  app.get<{ Params: { protocol: string; kind: string }; Querystring: PorticoListQuery }>(
    `${prefix}records/:protocol/:kind`, { schema: { querystring: LIST_QUERY } }, async (request, reply) => {
      const { protocol, kind } = request.params;
      const kindView = protocol in KINDS ? store.view.kind(protocol as Protocol, kind as ResourceKind) : undefined;
      if (kindView === undefined || !KINDS[protocol as Protocol].includes(kind as ResourceKind)) {
        return sendMessage(reply, 404, `unknown record kind ${JSON.stringify(`${protocol}/${kind}`)}`);
      }
      const page = porticoListPage(kindView, indexOf().get(`${protocol}/${kind}`), request.query);
      if (typeof page === 'string') return sendMessage(reply, 400, page);
      return reply.code(200).header('content-type', 'application/json').header('x-next-page', page.nextPage)
        .header('x-total-count', String(page.total)).send(`${page.body}\n`);
    });
}
