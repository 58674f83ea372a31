import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ListenerDialect } from './listener-guard.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A listener's part in a graceful shutdown, in front of Fastify's request handler (see
 * drainListeners for the order):
 * - `closeConnectionsAfterAnswers()`: every answer from now on closes its connection;
 * - `refuseNew()`: a request that starts from now on is answered 503 in the listener's dialect,
 *   without running;
 * - `stopAccepting()`: the port stops taking connections (only once nothing is queued: closing a
 *   listening socket resets the connections in its backlog, and clients may have sent whole
 *   requests on them). Open connections stay open, idle ones too, since a request may sit unread
 *   in one (Node's own close() drops idle connections at once);
 * - `drained()` resolves once every request that started is answered.
 */
export class ShutdownGate {
  private readonly inFlight = new Set<ServerResponse>();
  private draining = false;
  private refusing = false;
  private waiters: (() => void)[] = [];
  /** Connections accepted and requests started, ever: the gate sees whether anything came. */
  private events = 0;

  constructor(
    private readonly server: Server,
    private readonly dialect: ListenerDialect,
  ) {
    const handlers = server.listeners('request') as RequestListener[];
    const done = (res: ServerResponse): void => this.done(res);
    function onClose(this: ServerResponse): void {
      done(this);
    }
    server.removeAllListeners('request');
    server.on('connection', () => this.events++);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.events++;
      if (this.refusing) return this.refuse(res);
      if (this.draining) res.shouldKeepAlive = false;
      this.inFlight.add(res);
      // One listener for every response ('close' is emitted once), not a closure and a once-wrapper each.
      res.on('close', onClose);
      for (const handler of handlers) handler.call(server, req, res);
    });
  }

  /** Connections accepted and requests started so far. */
  get activity(): number {
    return this.events;
  }

  /** Requests started and not yet answered (or aborted). */
  get pending(): number {
    return this.inFlight.size;
  }

  closeConnectionsAfterAnswers(): void {
    this.draining = true;
    for (const res of this.inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
  }

  stopAccepting(): void {
    // net.Server's close: stop listening, leave the open connections alone.
    if (this.server.listening) NetServer.prototype.close.call(this.server);
  }

  refuseNew(): void {
    this.refusing = true;
  }

  drained(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private done(res: ServerResponse): void {
    this.inFlight.delete(res);
    if (this.inFlight.size === 0) for (const w of this.waiters.splice(0)) w();
  }

  private refuse(res: ServerResponse): void {
    const r = this.dialect.refusal(503, 'the server is shutting down');
    res.shouldKeepAlive = false;
    res.writeHead(r.status, { ...r.headers, 'content-type': r.contentType, 'content-length': Buffer.byteLength(r.body), connection: 'close' });
    res.end(r.body);
  }
}

const gates = new WeakMap<FastifyInstance, ShutdownGate>();

/** Puts a shutdown gate in front of an app's handler (createApp does, for every listener). */
export function addShutdownGate(app: FastifyInstance, dialect: ListenerDialect): ShutdownGate {
  const gate = new ShutdownGate(app.server, dialect);
  gates.set(app, gate);
  return gate;
}

/** The gate of an app made by createApp. */
export function shutdownGateOf(app: FastifyInstance): ShutdownGate | undefined {
  return gates.get(app);
}

/** Resolves after the event loop has gone round (a poll phase included) and `ms` have passed. */
async function loopTurns(ms: number): Promise<void> {
  const turn = () => new Promise<void>((r) => setImmediate(r));
  await turn();
  await new Promise<void>((r) => setTimeout(r, ms));
  await turn();
}

/** Waits until the gates have nothing in flight and nothing new came for a turn of the loop, or until `deadline` (performance.now()). */
async function untilQuiet(gates: readonly ShutdownGate[], deadline: number): Promise<void> {
  const activity = () => gates.reduce((n, g) => n + g.activity, 0);
  const pending = () => gates.reduce((n, g) => n + g.pending, 0);
  for (;;) {
    const before = activity();
    await loopTurns(50);
    if ((pending() === 0 && activity() === before) || performance.now() >= deadline) return;
  }
}

/**
 * Drains several listeners together, the shutdown that finishes every request a client sent
 * before the signal, even one still queued in the kernel (in a listening socket's backlog, or
 * unread on a connection) while the server was busy:
 * 1. every answer closes its connection; requests keep being served, on new connections too,
 *    until nothing is in flight and nothing new came for a turn of the event loop (what was queued
 *    has been accepted and read), or until `refuseAfterMs` have passed;
 * 2. from then on requests are answered 503 in each listener's dialect (`onRefusing` says how
 *    many are still in flight), and the in-flight ones are awaited;
 * 3. once quiet again, the ports stop accepting.
 */
export async function drainListeners(apps: readonly FastifyInstance[], refuseAfterMs: number, onRefusing: (inFlight: number) => void = () => undefined): Promise<void> {
  const list = apps.map((a) => gates.get(a)).filter((g): g is ShutdownGate => g !== undefined);
  for (const g of list) g.closeConnectionsAfterAnswers();
  await untilQuiet(list, performance.now() + refuseAfterMs);
  for (const g of list) g.refuseNew();
  onRefusing(list.reduce((n, g) => n + g.pending, 0));
  await Promise.all(list.map((g) => g.drained()));
  await untilQuiet(list, performance.now() + 200);
  for (const g of list) g.stopAccepting();
}
