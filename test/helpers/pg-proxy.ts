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
 * - **One cut.** `cutOnce(match, when)` cuts the next connection that sends a statement matching
 *   `match`: `before` the statement reaches the server (so nothing of it is done, and an open
 *   transaction is rolled back), or `after` it reached the server, whose answer is then lost (a
 *   COMMIT is then made, but the client never hears it). Needs `recordStatements`.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import type { DatabaseFactory, TestDatabase } from './databases.ts';
import { startRail, type TestRail } from './rail.ts';

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
  /**
   * What each of those round trips sent: per trip, the beginning of each statement's text (a
   * prepared statement's too, by the text its connection prepared it with), for a message that
   * says where the trips went. Empty unless the proxy was started with `recordStatements`.
   */
  trips(): string[][];
  reset(): void;
  /** Cuts every connection and refuses new ones, until `resume`. */
  interrupt(): void;
  /** Cuts the next connection that sends a statement matching `match`, before or after it reaches the server. */
  cutOnce(match: RegExp, when: 'before' | 'after'): void;
  /** Whether the last `cutOnce` has cut. */
  cut(): boolean;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPgProxy(
  databaseUrl: string,
  latencyMs = 0,
  options: { recordStatements?: boolean } = {},
): Promise<PgProxy> {
  if (!(Number.isFinite(latencyMs) && latencyMs >= 0 && latencyMs <= MAX_LATENCY_MS)) {
    throw new Error(`the database latency is 0 to ${MAX_LATENCY_MS} ms (got ${latencyMs})`);
  }
  const target = new URL(databaseUrl);
  const targetPort = Number(target.port || 5432);
  const targetHost = target.hostname;
  const halfMs = latencyMs / 2;
  const sockets = new Set<Socket>();
  let trips = 0;
  let sent: string[][] = [];
  let down = false;

  let armed: { match: RegExp; when: 'before' | 'after'; done: boolean } | undefined;

  /** Forwards `from` to `to`, each chunk `halfMs` late; `onChunk` sees each as it arrives, and may drop it. */
  const pipe = (from: Socket, to: Socket, onChunk: (chunk: Buffer) => boolean | undefined) => {
    let inFlight = 0;
    from.on('data', (chunk: Buffer) => {
      if (onChunk(chunk) === false) return;
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
    let deaf = false;
    // Reading the statements costs a parse of every message: only a test that names them asks for it.
    const reader = options.recordStatements ? statementReader() : undefined;
    pipe(client, upstream, (chunk) => {
      if (serverSpoke) {
        trips++;
        if (reader) sent.push([]);
      }
      serverSpoke = false;
      const statements = reader ? reader(chunk) : [];
      sent.at(-1)?.push(...statements);
      if (!armed || armed.done || !statements.some((t) => armed?.match.test(t))) return true;
      armed.done = true;
      if (armed.when === 'before') {
        close();
        return false;
      }
      // The server gets it; its answer never reaches the client, whose connection then breaks.
      deaf = true;
      setTimeout(close, 200);
      return true;
    });
    pipe(upstream, client, () => {
      serverSpoke = true;
      return !deaf;
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
    trips: () => sent.map((t) => [...t]),
    reset: () => {
      trips = 0;
      sent = [];
    },
    cutOnce: (match, when) => {
      if (!options.recordStatements) throw new Error('cutOnce reads statements: start the proxy with recordStatements');
      armed = { match, when, done: false };
    },
    cut: () => armed?.done === true,
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

/** How much of a statement's text `trips()` keeps. */
const TEXT_SHOWN = 80;
/** The request codes of the protocol's SSLRequest and GSSENCRequest messages, sent before a start-up message. */
const SSL_REQUEST = 80877103;
const GSS_ENCRYPTION_REQUEST = 80877104;

/**
 * Reads the frontend messages a client sends (PostgreSQL protocol 3): the first is the start-up
 * message, without a type byte; each after it is a type byte and a length. Answers, per chunk,
 * the statements it runs: a simple query's text, and an execution's (Bind) by the text its
 * connection prepared the statement with.
 */
function statementReader(): (chunk: Buffer) => string[] {
  let pending = Buffer.alloc(0);
  let started = false;
  const prepared = new Map<string, string>();
  let lastParsed = '';
  const cString = (b: Buffer, at: number) => {
    const end = b.indexOf(0, at);
    return { text: b.toString('utf8', at, end < 0 ? b.length : end), next: end < 0 ? b.length : end + 1 };
  };
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    const found: string[] = [];
    for (;;) {
      if (!started) {
        if (pending.length < 4) break;
        const length = pending.readInt32BE(0);
        if (pending.length < length) break;
        // An SSL or GSS request is answered by one byte and followed by the real start-up message.
        const code = length >= 8 ? pending.readInt32BE(4) : 0;
        if (code !== SSL_REQUEST && code !== GSS_ENCRYPTION_REQUEST) started = true;
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) break;
      const length = pending.readInt32BE(1);
      if (pending.length < length + 1) break;
      const type = String.fromCharCode(pending[0] as number);
      const body = pending.subarray(5, length + 1);
      if (type === 'Q') found.push(cString(body, 0).text.replace(/\s+/g, ' ').trim().slice(0, TEXT_SHOWN));
      if (type === 'P') {
        const name = cString(body, 0);
        lastParsed = cString(body, name.next).text;
        if (name.text) prepared.set(name.text, lastParsed);
      }
      if (type === 'B') {
        const portal = cString(body, 0);
        const name = cString(body, portal.next).text;
        found.push((name ? (prepared.get(name) ?? name) : lastParsed).replace(/\s+/g, ' ').trim().slice(0, TEXT_SHOWN));
      }
      pending = pending.subarray(length + 1);
    }
    return found;
  };
}

/**
 * A fresh PostgreSQL database and a rail (its jobs off) that reaches it through a proxy of its
 * own, for the suites that cut, count or delay what crosses it; `stop` ends all three.
 */
export async function railBehindProxy(
  postgres: DatabaseFactory,
  proxyOptions: { latencyMs?: number; recordStatements?: boolean } = {},
  env: Record<string, string> = {},
): Promise<{ db: TestDatabase; proxy: PgProxy; rail: TestRail; stop(): Promise<void> }> {
  const db = await postgres.create();
  const proxy = await startPgProxy(db.location.kind === 'postgres' ? db.location.url : '', proxyOptions.latencyMs ?? 0, {
    recordStatements: proxyOptions.recordStatements === true,
  });
  const rail = await startRail({ ...db, location: { kind: 'postgres', url: proxy.url } }, env, undefined, { runJobs: false });
  return {
    db,
    proxy,
    rail,
    stop: async () => {
      await rail.stop();
      await proxy.stop();
      await db.drop();
    },
  };
}
