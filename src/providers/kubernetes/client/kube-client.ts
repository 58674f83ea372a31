import http from 'node:http';
import https from 'node:https';
import type { Agent } from 'node:http';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from './kube-objects.js';

/**
 * The operator's narrow view of the Kubernetes API: plain requests and watch streams, JSON in and
 * out. Authentication, TLS and the server address come from @kubernetes/client-node's KubeConfig
 * (kubeconfig files, in-cluster service accounts, exec plugins). We do not go through the
 * generated API classes: they turn every object into model classes with Date fields, which is slow
 * for tens of thousands of EndpointSlices and differs from what watch events carry.
 * Tests inject their own KubeApi, or point a kubeconfig at the fake API server.
 */

export interface KubeResponse {
  readonly status: number;
  readonly body: unknown;
  /**
   * A list's `metadata`, read from the head of the raw body without decoding its items (the API
   * server writes `metadata` before `items`); undefined when the head does not show it. Lets a
   * paged list ask for the next page while this one is decoded. Optional: not every KubeApi has it.
   */
  listMeta?(): ListMeta | undefined;
}

/** The part of a list's `metadata` a paged list needs. */
export interface ListMeta {
  readonly resourceVersion?: string;
  readonly continue?: string;
}

/** How much of a body's head is searched for a list's metadata (bytes). */
const LIST_HEAD_BYTES = 4096;

/**
 * The `metadata` of a list body from its first bytes: the text before `,"items":` closed as an
 * object. Nothing in a list's metadata (resourceVersion, continue, remainingItemCount) can contain
 * that string, so the cut is the metadata's end or the head is refused.
 */
export function listMetaFromHead(raw: Buffer): ListMeta | undefined {
  const head = raw.subarray(0, LIST_HEAD_BYTES).toString('latin1');
  const end = head.indexOf(',"items":');
  if (end < 0) return undefined;
  try {
    const parsed = JSON.parse(`${head.slice(0, end)}}`) as { metadata?: unknown };
    const md = parsed.metadata;
    if (md === null || typeof md !== 'object') return undefined;
    const { resourceVersion, continue: cont } = md as { resourceVersion?: unknown; continue?: unknown };
    return {
      ...(typeof resourceVersion === 'string' ? { resourceVersion } : {}),
      ...(typeof cont === 'string' ? { continue: cont } : {}),
    };
  } catch {
    return undefined;
  }
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  readonly type: WatchEventType;
  /** The object, or for ERROR a `Status` (`{kind: 'Status', code: 410, reason: 'Expired'}`). */
  readonly object: KubeObject & { code?: number; reason?: string; message?: string };
}

export interface RequestOptions {
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Default `application/json`; status patches use `application/merge-patch+json`. */
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  /**
   * Do not keep a successful (2xx) response's body (`body` is then undefined): for writes whose
   * answer is not read, e.g. status patches, where the server returns the whole object. Default false.
   */
  readonly discardBody?: boolean;
}

export interface KubeApi {
  /** The API server's URL, for messages (undefined for test doubles that have none). */
  readonly serverUrl?: string;
  request(method: string, path: string, options?: RequestOptions): Promise<KubeResponse>;
  /**
   * Streams a watch: resolves when the server ends the stream, rejects with a KubeHttpError for a
   * non-200 answer or a broken connection. Aborting `signal` ends it quietly. `onOpen` is called
   * once the server accepted the watch (200), before any event.
   */
  watch(path: string, query: Readonly<Record<string, string>>, onEvent: (event: WatchEvent) => void, signal: AbortSignal, onOpen?: () => void): Promise<void>;
}

export class KubeHttpError extends Error {
  override readonly name = 'KubeHttpError';
  constructor(readonly status: number, message: string, readonly body?: unknown) {
    super(message);
  }
}

function withQuery(base: string, path: string, query: Readonly<Record<string, string>> | undefined): URL {
  const url = new URL(base.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  return url;
}

/**
 * A response whose body is decoded on first read. The status writer sends thousands of PATCHes
 * after a first sync and reads only their status: parsing each returned object made garbage
 * enough to grow the operator's resident memory by tens of MB.
 */
function lazyResponse(status: number, raw: Buffer): KubeResponse {
  let decoded = false;
  let body: unknown;
  return {
    status,
    listMeta: () => listMetaFromHead(raw),
    get body(): unknown {
      if (!decoded) {
        decoded = true;
        const text = raw.toString('utf8');
        body = text;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          // Not JSON (a proxy error page): keep the text for the error message.
        }
      }
      return body;
    },
  };
}

/** A KubeApi over node's http/https, configured by a KubeConfig. */
/**
 * How long the credentials and TLS options KubeConfig applies are reused, in ms. Applying them
 * per request (it also builds an agent each time) was a tenth of the operator's CPU while it
 * wrote thousands of statuses; tokens from files and exec plugins live far longer than this.
 */
const APPLIED_OPTIONS_TTL_MS = 10_000;

export class KubeConfigApi implements KubeApi {
  private agent: Agent | undefined;
  private applied: { at: number; options: https.RequestOptions } | undefined;

  readonly serverUrl: string | undefined;

  /** `now` (ms) times the reuse of applied options; default Date.now. */
  constructor(private readonly kc: KubeConfig, private readonly now: () => number = Date.now) {
    this.serverUrl = kc.getCurrentCluster()?.server;
  }

  private async options(method: string, url: URL, contentType?: string): Promise<https.RequestOptions> {
    const now = this.now();
    if (!this.applied || now - this.applied.at >= APPLIED_OPTIONS_TTL_MS) {
      const base: https.RequestOptions = { headers: { Accept: 'application/json' } };
      await this.kc.applyToHTTPSOptions(base);
      // applyToHTTPSOptions builds a new agent each call; keep the first for connection reuse.
      this.agent ??= url.protocol === 'https:' ? (base.agent as Agent | undefined) : new http.Agent({ keepAlive: true });
      this.applied = { at: now, options: base };
    }
    const base = this.applied.options;
    const headers = { ...(base.headers as Record<string, string>) };
    if (contentType) headers['Content-Type'] = contentType;
    return { ...base, method, headers, agent: this.agent };
  }

  private server(): string {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    return cluster.server;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<KubeResponse> {
    const url = withQuery(this.server(), path, options.query);
    const opts = await this.options(method, url, options.body === undefined ? undefined : (options.contentType ?? 'application/json'));
    const signal = options.signal;
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    return new Promise((resolve, reject) => {
      const req = (url.protocol === 'https:' ? https : http).request(url, opts, (res) => {
        const status = res.statusCode ?? 0;
        const keep = !(options.discardBody === true && status >= 200 && status < 300);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          if (keep) chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => resolve(keep ? lazyResponse(status, Buffer.concat(chunks)) : { status, body: undefined }));
      });
      // Abort by hand rather than with `signal`: node keeps the signal's listener on pooled sockets.
      const abort = () => req.destroy(new Error('request aborted'));
      signal?.addEventListener('abort', abort, { once: true });
      req.on('close', () => signal?.removeEventListener('abort', abort));
      req.on('error', reject);
      req.end(payload);
    });
  }

  async watch(path: string, query: Readonly<Record<string, string>>, onEvent: (event: WatchEvent) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
    const url = withQuery(this.server(), path, { ...query, watch: 'true' });
    const opts = await this.options('GET', url);
    return new Promise((resolve, reject) => {
      const req = (url.protocol === 'https:' ? https : http).request(url, opts, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not a Status (a proxy's error page): the text is the body
            }
            reject(new KubeHttpError(res.statusCode ?? 0, `watch ${path}: HTTP ${res.statusCode ?? 0}: ${text.slice(0, 200)}`, body));
          });
          res.on('error', reject);
          return;
        }
        onOpen?.();
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        let failed = false;
        // readline re-emits the response's errors; they are handled on `res` below.
        lines.on('error', () => undefined);
        lines.on('line', (line) => {
          if (line.trim() === '' || failed) return;
          let event: WatchEvent;
          try {
            event = JSON.parse(line) as WatchEvent;
          } catch {
            failed = true;
            req.destroy();
            reject(new KubeHttpError(0, `watch ${path}: undecodable event`));
            return;
          }
          onEvent(event);
        });
        res.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
        res.on('aborted', () => (signal.aborted ? resolve() : reject(new KubeHttpError(0, `watch ${path}: connection aborted`))));
        lines.on('close', () => {
          if (res.complete || signal.aborted) resolve();
          else reject(new KubeHttpError(0, `watch ${path}: stream ended early`));
        });
      });
      const abort = () => req.destroy();
      signal.addEventListener('abort', abort, { once: true });
      req.on('close', () => {
        signal.removeEventListener('abort', abort);
        if (signal.aborted) resolve();
      });
      req.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
      req.end();
    });
  }
}
