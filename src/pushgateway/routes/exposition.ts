import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { negotiateGzip } from '../exposition/negotiate-encoding.js';
import type { FastifyInstance } from 'fastify';
import { negotiateExposition } from '../exposition/negotiate.js';
import { escapeFamily, type EscapingScheme } from '../exposition/name-escaping.js';
import { OPENMETRICS_CONTENT_TYPE, renderFamiliesOpenMetrics } from '../exposition/openmetrics-encoder.js';
import type { CachedFormat } from '../store/exposition-cache.js';
import { PROTOBUF_CONTENT_TYPE, encodeProtobufDelimited } from '../exposition/protobuf.js';
import { TEXT_CONTENT_TYPE, renderFamiliesText } from '../exposition/text-encoder.js';
import type { Gateway } from '../http/gateway.js';
import { CONSISTENCY_PREFIX } from '../errors.js';
import type { MetricFamily } from '../model.js';
import { compareMetricLabels, compareStrings } from '../store/sanitize.js';

const gzipAsync = promisify(gzip);

/** Merges two name-sorted family lists; same-named families (a pushed one and an own one) are combined. */
export function mergeFamilies(a: readonly MetricFamily[], b: readonly MetricFamily[]): MetricFamily[] {
  const out: MetricFamily[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.name < y.name)) {
      out.push(x as MetricFamily);
      i++;
    } else if (x === undefined || y.name < x.name) {
      out.push(y);
      j++;
    } else {
      const metrics = [...x.metrics, ...y.metrics].sort((m, n) => compareMetricLabels(m.labels, n.labels));
      out.push({ ...x, help: y.help ?? x.help, metrics });
      i++;
      j++;
    }
  }
  return out;
}

function renderOne(format: CachedFormat, family: MetricFamily): string {
  if (format === 'text') return renderFamiliesText([family]);
  const om = renderFamiliesOpenMetrics([family]);
  return om.slice(0, -'# EOF\n'.length);
}

/**
 * The store's cached family texts merged with the gateway's own families, in name order (text
 * 0.0.4, or OpenMetrics ending with `# EOF`), names that are not legacy written in `escaping`.
 */
export function renderCached(gw: Gateway, own: readonly MetricFamily[], format: CachedFormat, escaping: EscapingScheme = 'allow-utf-8'): string {
  const pushed = gw.store.rendered(gw.now(), format, escaping);
  const parts: string[] = [];
  let j = 0;
  for (const p of pushed) {
    while (j < own.length && compareStrings((own[j] as MetricFamily).name, p.name) < 0) parts.push(renderOne(format, own[j++] as MetricFamily));
    const same = own[j];
    if (same !== undefined && same.name === p.name) {
      // Rare: someone pushed a family named like one of the gateway's own; merge the two uncached.
      const stored = gw.store.families(gw.now()).find((f) => f.name === p.name);
      for (const f of mergeFamilies(stored ? [stored] : [], [same])) parts.push(renderOne(format, escapeFamily(f, escaping)));
      j++;
    } else {
      parts.push(p.text);
    }
  }
  while (j < own.length) parts.push(renderOne(format, own[j++] as MetricFamily));
  if (format === 'openmetrics') parts.push('# EOF\n');
  return parts.join('');
}

/** GET <telemetry path>: every group's families plus the gateway's own metrics. */
export function registerExpositionRoute(app: FastifyInstance, gw: Gateway): void {
  app.route({
    method: 'GET',
    url: gw.settings.telemetryPath,
    config: { handler: 'metrics' },
    handler: async (request, reply) => {
      const problem = gw.store.inconsistency();
      if (problem !== undefined) {
        // Only reachable with --push.disable-consistency-check, as in Pushgateway: scrapes fail until fixed.
        return reply
          .code(500)
          .type('text/plain; charset=utf-8')
          .send(`An error has occurred while serving metrics:\n\n${CONSISTENCY_PREFIX}${problem}\n`);
      }
      const own = await gw.own.families();
      const { format, escaping } = negotiateExposition(request.headers.accept, gw.settings.openMetrics);
      let body: string | Uint8Array;
      let contentType: string;
      if (format === 'text' || format === 'openmetrics') {
        body = renderCached(gw, own, format, escaping);
        contentType = format === 'text' ? TEXT_CONTENT_TYPE : OPENMETRICS_CONTENT_TYPE;
      } else {
        // As Pushgateway 1.11.1 (prometheus/common 0.63): protobuf carries the names as pushed, whatever the escaping.
        body = encodeProtobufDelimited(mergeFamilies(gw.store.families(gw.now()), own));
        contentType = PROTOBUF_CONTENT_TYPE;
      }
      // The Content-Type names the escaping scheme, as promhttp's does (Prometheus 3 reads it).
      reply.type(`${contentType}; escaping=${escaping}`).header('vary', 'Accept-Encoding');
      if (negotiateGzip(request.headers['accept-encoding'])) {
        const zipped = await gzipAsync(typeof body === 'string' ? Buffer.from(body) : body);
        return reply.header('content-encoding', 'gzip').send(zipped);
      }
      return reply.send(typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    },
  });
}
