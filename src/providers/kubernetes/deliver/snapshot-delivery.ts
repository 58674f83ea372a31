import type { Logger } from 'pino';
import type { ProviderSnapshot } from '../../../dynamic-config/configuration.js';
import { INTERNAL_PROVIDERS_PATH } from '../../../dynamic-config/internal-endpoint.js';
import { SNAPSHOT_DELTA_MEDIA_TYPE } from '../../../dynamic-config/snapshot/delta.js';
import { SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineEncoder, snapshotLinesChunks, type EncodedSnapshot } from '../../../dynamic-config/snapshot/lines.js';
import type { SnapshotBody } from '../translate/snapshot-assembly.js';
import { bodyDelta } from './body-delta.js';

/**
 * Delivers whole provider snapshots to the server's internal endpoint
 * (`PUT {server}/internal/v1/providers/{provider}`, bearer token) and keeps them there: a failed
 * PUT is retried with backoff (only the newest snapshot is ever sent), and `check()` asks the
 * server which version it holds (`GET` of the same path) so that a restarted server, which has
 * none (404) or an older one, gets the snapshot again.
 *
 * Bodies are format 2, snapshot lines (see src/dynamic-config/snapshot/lines.ts): one line per record,
 * each record's line kept from the last delivery, so a change serializes only the records it
 * made; the server in turn parses only the lines it has not seen. The version is a hash of the
 * lines, so an unchanged snapshot is not sent again. The operator hands over bodies it laid out
 * itself (a {@link SnapshotBody} from translate/snapshot-assembly.ts, made of Buffers kept between changes);
 * a plain ProviderSnapshot is encoded here.
 *
 * Once the server has accepted a body, the next one goes as a delta from it (body-delta.ts, with
 * `If-Match` naming the accepted version): a change then sends its changed lines, not the whole
 * body. A server that holds another version answers 412, and the whole body follows at once; a
 * delta the server refuses as invalid (400) is followed by the whole body too, which alone can be
 * refused for good.
 */

/** A PUT body is streamed (see snapshotLinesChunks); `fetch` needs `duplex: 'half'` for that. */
export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: AsyncIterable<Uint8Array>; signal?: AbortSignal }) =>
  Promise<{ status: number; text(): Promise<string> }>;

export interface DeliveryDeps {
  readonly fetch: FetchLike;
  /** Reads the token (the file's trimmed content); called again after a 401. */
  readonly readToken: () => Promise<string>;
  readonly logger: Logger;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface DeliveryOptions {
  /** Base URL of the server's internal listener, e.g. `http://127.0.0.1:8081`. */
  readonly serverUrl: string;
  /** First retry delay in ms after a failed PUT (doubles, capped at `retryMaxMs`). Default 200. */
  readonly retryInitialMs?: number;
  /** Default 10000. */
  readonly retryMaxMs?: number;
}

interface ProviderState {
  /**
   * The newest snapshot, encoded. The body is streamed from its lines (or its Buffers) for each
   * PUT, never built whole: a 6 MB string and its 6 MB UTF-8 copy per delivery were most of the
   * operator's memory growth between garbage collections.
   */
  encoded: EncodedSnapshot | SnapshotBody;
  version: string;
  /** Version the server confirmed it holds. */
  delivered: string | undefined;
  /** The last body the server accepted, the base of the next delta; undefined: send whole. */
  base: { readonly version: string; readonly body: EncodedSnapshot | SnapshotBody } | undefined;
  /** Version the server refused as invalid (400): not retried until a new version comes. */
  rejected: string | undefined;
  sending: Promise<void> | undefined;
}

/**
 * A PUT body whose pieces are Buffers already held in memory (a laid-out snapshot's): a sender
 * may queue them all at once instead of pacing them to the socket.
 */
export interface InMemoryBody extends AsyncIterable<Uint8Array> {
  readonly inMemory: true;
}

function inMemory(pieces: readonly Buffer[]): InMemoryBody {
  return {
    inMemory: true,
    async *[Symbol.asyncIterator]() {
      yield* pieces;
    },
  };
}

function bodyStream(encoded: EncodedSnapshot | SnapshotBody): AsyncIterable<Uint8Array> {
  if (!('chunks' in encoded)) return chunksOf(encoded);
  const body: InMemoryBody = { inMemory: true, [Symbol.asyncIterator]: () => chunksOf(encoded) };
  return body;
}

async function* chunksOf(encoded: EncodedSnapshot | SnapshotBody): AsyncGenerator<Uint8Array> {
  if ('chunks' in encoded) {
    // Small pieces (an empty table's line) go out with their neighbours: fewer, larger writes.
    let batch: Buffer[] = [];
    let size = 0;
    const flush = () => {
      const joined = batch.length === 1 ? (batch[0] as Buffer) : Buffer.concat(batch, size);
      batch = [];
      size = 0;
      return joined;
    };
    for (const chunk of encoded.chunks) {
      if (chunk.length >= 16 * 1024) {
        if (batch.length > 0) yield flush();
        yield chunk;
        continue;
      }
      batch.push(chunk);
      size += chunk.length;
      if (size >= 16 * 1024) yield flush();
    }
    if (batch.length > 0) yield flush();
    return;
  }
  for (const chunk of snapshotLinesChunks(encoded)) yield Buffer.from(chunk, 'utf8');
}

export class SnapshotDelivery {
  private readonly providers = new Map<string, ProviderState>();
  private token: string | undefined;
  private deliveries = 0;
  private readonly encoder = new SnapshotLineEncoder();

  constructor(private readonly options: DeliveryOptions, private readonly deps: DeliveryDeps, private readonly signal: AbortSignal) {}

  /** Number of successful PUTs so far. */
  get deliveredCount(): number {
    return this.deliveries;
  }

  /** True when every provider's newest snapshot is on the server (or was refused as invalid). */
  get settled(): boolean {
    for (const s of this.providers.values()) if (s.delivered !== s.version && s.rejected !== s.version) return false;
    return this.providers.size > 0;
  }

  private url(provider: string): string {
    return `${this.options.serverUrl.replace(/\/+$/, '')}${INTERNAL_PROVIDERS_PATH}/${provider}`;
  }

  private async headers(): Promise<Record<string, string>> {
    this.token ??= await this.deps.readToken();
    return { Authorization: `Bearer ${this.token}`, 'Content-Type': SNAPSHOT_LINES_MEDIA_TYPE };
  }

  /** True when no PUT is under way (or waiting to be retried). */
  get idle(): boolean {
    for (const s of this.providers.values()) if (s.sending) return false;
    return true;
  }

  /** Resolves when the PUTs under way now have ended (delivered, superseded, or given up on abort). */
  async whenIdle(): Promise<void> {
    await Promise.all([...this.providers.values()].map((s) => s.sending));
  }

  /**
   * Sets the provider's newest snapshot and sends it unless the server already has it. Resolves
   * once it is delivered (or superseded by a newer one, or the operator stops).
   */
  async deliver(provider: string, snapshot: ProviderSnapshot | SnapshotBody): Promise<void> {
    const encoded = 'chunks' in snapshot ? snapshot : this.encoder.encodeSnapshot(snapshot);
    const { version } = encoded;
    let state = this.providers.get(provider);
    if (state && state.version === version) {
      if (state.delivered === version) return;
      return state.sending;
    }
    if (!state) {
      state = { encoded, version, delivered: undefined, base: undefined, rejected: undefined, sending: undefined };
      this.providers.set(provider, state);
    } else {
      state.encoded = encoded;
      state.version = version;
    }
    return this.send(provider, state);
  }


  private send(provider: string, state: ProviderState): Promise<void> {
    if (state.sending) return state.sending; // the loop below picks up the newest body
    const loop = async () => {
      let failures = 0;
      while (!this.signal.aborted && state.delivered !== state.version && state.rejected !== state.version) {
        const version = state.version;
        const body = state.encoded;
        const base = state.base;
        const delta = base === undefined ? undefined : bodyDelta(base.body, body);
        try {
          const headers = await this.headers();
          const res = await this.deps.fetch(this.url(provider), delta === undefined || base === undefined
            ? { method: 'PUT', headers, body: bodyStream(body), signal: this.signal }
            : { method: 'PUT', headers: { ...headers, 'Content-Type': SNAPSHOT_DELTA_MEDIA_TYPE, 'If-Match': `"${base.version}"` }, body: inMemory(delta), signal: this.signal });
          if (res.status >= 200 && res.status < 300) {
            state.delivered = version;
            state.base = { version, body };
            this.deliveries++;
            this.deps.logger.debug({ provider, version, delta: delta !== undefined }, 'snapshot delivered');
            failures = 0;
            continue;
          }
          const text = await res.text();
          if (delta !== undefined && (res.status === 412 || res.status === 400)) {
            // The server holds another body (restarted, or another sender), or could not use this
            // delta: the whole body goes next, at once.
            state.base = undefined;
            this.deps.logger.debug({ provider, version, status: res.status, response: text.slice(0, 300) }, 'snapshot delta not taken, sending the whole body');
            continue;
          }
          if (res.status === 400) {
            // Retrying the same body cannot help; the previous snapshot stays on the server.
            state.rejected = version;
            this.deps.logger.error({ provider, version, response: text.slice(0, 500) }, 'the server refused the snapshot as invalid');
            continue;
          }
          if (res.status === 401) this.token = undefined;
          throw new Error(`PUT ${provider}: HTTP ${res.status}: ${text.slice(0, 300)}`);
        } catch (err) {
          if (this.signal.aborted) return;
          failures++;
          const delay = Math.min(this.options.retryMaxMs ?? 10_000, (this.options.retryInitialMs ?? 200) * 2 ** Math.min(failures - 1, 16));
          this.deps.logger.warn({ provider, err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'snapshot delivery failed');
          await this.deps.sleep(delay, this.signal);
        }
      }
    };
    state.sending = loop().finally(() => {
      state.sending = undefined;
    });
    return state.sending;
  }

  /** Asks the server what it holds; re-delivers to a server that lost or never got a snapshot. */
  async check(): Promise<void> {
    for (const [provider, state] of this.providers) {
      if (state.sending || state.delivered === undefined) continue;
      const asked = state.version;
      try {
        const res = await this.deps.fetch(this.url(provider), { method: 'GET', headers: await this.headers(), signal: this.signal });
        const text = await res.text();
        let held: string | undefined;
        if (res.status === 200) held = (JSON.parse(text) as { version?: string }).version;
        else if (res.status === 401) this.token = undefined;
        else if (res.status !== 404) continue;
        // A change delivered while the GET was under way: the answer is about an older version,
        // and the PUT that followed it says what the server holds now.
        if (state.sending || state.version !== asked) continue;
        if (held !== state.version) {
          this.deps.logger.info({ provider, held: held ?? null, version: state.version }, 'server does not hold the current snapshot, re-delivering');
          state.delivered = undefined;
          state.base = undefined;
          void this.send(provider, state);
        }
      } catch (err) {
        this.deps.logger.debug({ provider, err: err instanceof Error ? err.message : String(err) }, 'snapshot check failed');
      }
    }
  }
}
