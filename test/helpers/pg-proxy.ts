/**
 * A TCP proxy between openrail and PostgreSQL, on loopback, that puts the database a network hop
 * away and counts the round trips crossing it (issue 32; docs/scaling.md). The bench sets its
 * distance with --db-latency; the round-trip tests count through it at no distance.
 *
 * - **Distance.** Each direction is held back by half the round-trip time, so a request and its
 *   answer together take `latencyMs` more than on loopback. Order is kept: every chunk waits the
 *   same time, and timers of one duration fire in the order they were set.
 * - **Round trips.** A round trip is one exchange on one connection: the client sends (one write
 *   or several back to back), then waits for the server's answer. It is counted when the client
 *   sends after the server last spoke, or first. Pipelined statements sent before any answer are
 *   one round trip, as they cost one wait; a connection's start-up handshake counts as what it
 *   costs too.
 * - **Outage.** `interrupt()` cuts every connection and refuses new ones until `resume()`: the
 *   database seen from openrail is unreachable, as a network partition would make it.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/** At most this round-trip time: beyond it a bench would measure waiting, not openrail. */
export const MAX_LATENCY_MS = 100;
/** Bytes in flight one way on one connection before the sender is paused until they land. */
const MAX_IN_FLIGHT = 4 * 1024 * 1024;

export interface PgProxy {
  /** The database URL with the proxy's host and port in place of the server's. */
  readonly url: string;
  readonly latencyMs: number;
  /** Round trips counted since the proxy started (or since `reset`). */
  roundTrips(): number;
  reset(): void;
  /** Cuts every connection and refuses new ones, until `resume`. */
  interrupt(): void;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPgProxy(databaseUrl: string, latencyMs = 0): Promise<PgProxy> {
  if (!(Number.isFinite(latencyMs) && latencyMs >= 0 && latencyMs <= MAX_LATENCY_MS)) {
    throw new Error(`the database latency is 0 to ${MAX_LATENCY_MS} ms (got ${latencyMs})`);
  }
  const target = new URL(databaseUrl);
  const targetPort = Number(target.port || 5432);
  const targetHost = target.hostname;
  const halfMs = latencyMs / 2;
  const sockets = new Set<Socket>();
  let trips = 0;
  let down = false;

  /** Forwards `from` to `to`, each chunk `halfMs` late; `onChunk` sees each as it arrives. */
  const pipe = (from: Socket, to: Socket, onChunk: () => void) => {
    let inFlight = 0;
    from.on('data', (chunk: Buffer) => {
      onChunk();
      if (halfMs === 0) {
        if (!to.write(chunk)) from.pause();
        return;
      }
      inFlight += chunk.length;
      if (inFlight > MAX_IN_FLIGHT) from.pause();
      setTimeout(() => {
        inFlight -= chunk.length;
        if (!to.destroyed) to.write(chunk);
        if (inFlight <= MAX_IN_FLIGHT && from.isPaused() && to.writableLength < MAX_IN_FLIGHT) from.resume();
      }, halfMs);
    });
    to.on('drain', () => {
      if (inFlight <= MAX_IN_FLIGHT) from.resume();
    });
    // An end or error on one side ends the other, after what is still in flight.
    from.on('end', () => setTimeout(() => to.end(), halfMs));
  };

  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(targetPort, targetHost);
    sockets.add(client).add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    let serverSpoke = true;
    pipe(client, upstream, () => {
      if (serverSpoke) trips++;
      serverSpoke = false;
    });
    pipe(upstream, client, () => {
      serverSpoke = true;
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const proxied = new URL(databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);

  return {
    url: proxied.toString(),
    latencyMs,
    roundTrips: () => trips,
    reset: () => {
      trips = 0;
    },
    interrupt: () => {
      down = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    resume: async () => {
      down = false;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        down = true;
        for (const s of sockets) s.destroy();
        sockets.clear();
        server.close(() => resolve());
      }),
  };
}
