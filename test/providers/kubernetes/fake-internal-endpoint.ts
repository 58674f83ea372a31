import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderSnapshot } from '../../../src/dynamic-config/configuration.js';
import { expandSnapshotDelta, SNAPSHOT_DELTA_MEDIA_TYPE } from '../../../src/dynamic-config/snapshot/delta.js';
import { SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineDecoder } from '../../../src/dynamic-config/snapshot/lines.js';

/** A format 2 body with its lines' offsets, the base a delta is expanded from. */
function deltaBase(body: Buffer): { body: Buffer; starts: Int32Array; ends: Int32Array } {
  const starts: number[] = [];
  const ends: number[] = [];
  for (let p = 0; p < body.length; ) {
    let e = body.indexOf(0x0a, p);
    if (e === -1) e = body.length;
    if (e > p) {
      starts.push(p);
      ends.push(e);
    }
    p = e + 1;
  }
  return { body, starts: Int32Array.from(starts), ends: Int32Array.from(ends) };
}

/**
 * A stand-in for the server's internal listener (`PUT/GET /internal/v1/providers/{provider}`,
 * bearer token), so operator tests do not depend on the management area. It can be "restarted"
 * (forgets every snapshot) to check re-delivery.
 */
export class FakeInternalEndpoint {
  readonly snapshots = new Map<string, ProviderSnapshot & { receivedAt: number }>();
  /** The last format 2 body accepted per provider: deltas (If-Match) are expanded from it, as the server does. */
  private readonly bodies = new Map<string, { version: string; body: Buffer }>();
  puts = 0;
  /** PUTs that came as deltas and were taken. */
  deltas = 0;
  /** PUTs are answered this many ms after their body arrived (a slow server). */
  putDelayMs = 0;
  private server: http.Server;
  private failing = 0;

  constructor(private readonly token: string) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Forgets everything, as a restarted server does. */
  forget(): void {
    this.snapshots.clear();
    this.bodies.clear();
  }

  /** The next `n` PUTs answer 503. */
  failNext(n: number): void {
    this.failing = n;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const m = /^\/internal\/v1\/providers\/([a-z0-9-]+)$/.exec(req.url ?? '');
    if (!m) return send(404, { message: 'not found' });
    if (req.headers.authorization !== `Bearer ${this.token}`) return send(401, { message: 'unauthorized' });
    const provider = m[1] as string;
    if (req.method === 'GET') {
      const s = this.snapshots.get(provider);
      return s ? send(200, { provider, version: s.version, receivedAt: new Date(s.receivedAt).toISOString() }) : send(404, { message: `provider not found: ${provider}` });
    }
    if (req.method === 'PUT') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (this.failing > 0) {
        this.failing--;
        return send(503, { message: 'unavailable' });
      }
      if (this.putDelayMs > 0) await new Promise((r) => setTimeout(r, this.putDelayMs));
      let bytes: Buffer = Buffer.concat(chunks);
      const type = req.headers['content-type'];
      if (type === SNAPSHOT_DELTA_MEDIA_TYPE) {
        const held = this.bodies.get(provider);
        const wanted = /^"(.*)"$/.exec(req.headers['if-match'] ?? '')?.[1];
        if (held === undefined || held.version !== wanted) return send(412, { message: `holds ${held?.version ?? 'nothing'}, not ${wanted ?? ''}` });
        bytes = expandSnapshotDelta(bytes, deltaBase(held.body));
        this.deltas++;
      }
      const text = bytes.toString('utf8');
      const lines = type === SNAPSHOT_LINES_MEDIA_TYPE || type === SNAPSHOT_DELTA_MEDIA_TYPE;
      const body = (lines ? new SnapshotLineDecoder().decode(text).value : JSON.parse(text)) as ProviderSnapshot;
      if (lines) this.bodies.set(provider, { version: body.version as string, body: Buffer.from(bytes) });
      else this.bodies.delete(provider);
      this.puts++;
      this.snapshots.set(provider, { ...body, receivedAt: Date.now() });
      return send(200, { provider, version: body.version });
    }
    return send(405, { message: 'method not allowed' });
  }
}

/** Polls `check` every `intervalMs` until it returns a value (not undefined/false) or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition', intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
