// `npm run bench -- webhooks`: webhook deliveries per second to a local receiver, and the lag from
// an event's commit to its delivery, against a spawned `openrail serve` (docs/webhooks.md).

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, dbLatencyFrom, type Engine, enginesFrom, postgresDatabase, sqliteDatabase } from './lib/databases.ts';
import { within } from './lib/deadline.ts';
import { request } from './lib/http.ts';
import { parseOptions, positive, positiveIntegers } from './lib/options.ts';
import { startRun, writeResults } from './lib/results.ts';
import { type BenchServer, OWNER_TOKEN, serverErrors, startServer } from './lib/server.ts';
import { fixed, latencySummary, table } from './lib/stats.ts';

const USAGE = `usage: npm run bench -- webhooks [options]
  Events (offer.created) are made over HTTP while a local receiver takes their deliveries.
  paced: events at --rate per second for --duration s; the lag from commit to delivery.
  drain: the receiver holds its first request while --backlog events are made and queue up behind
         it, then answers: deliveries/s from then until the backlog is delivered, nothing else running.
  Each with 1 and with 4 endpoints (--endpoints), on SQLite and, with TEST_DATABASE_URL, PostgreSQL.
  --rate <n>        events per second in the paced phase (default 100)
  --backlog <n>     events queued for the drain phase (default 2000; --quick 500)
  --endpoints <l>   endpoint counts, comma-separated (default 1,4)
  --engine <e>      sqlite or postgres only
  --db-latency <ms> PostgreSQL a network hop away: the bench's proxy between the server and the database
                    adds this round trip (0 to 100, default 0) and counts round trips per delivery
                    (paced: with the offer that made its event; drain: the lanes' claim, send and record alone)
  --duration <s>    length of the paced phase (default 5; --quick 1)
  --quick           a short run`;

const auth = { authorization: `Bearer ${OWNER_TOKEN}`, 'content-type': 'application/json' };

interface Receiver {
  origin: string;
  /** Delivery id → [receive time, event createdAt] of the first arrival. */
  arrivals: Map<string, [number, number]>;
  duplicates: number;
  /** While set, requests wait unanswered (and uncounted) until release(). */
  holding: boolean;
  held(): number;
  release(): void;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, [number, number]>();
  const parked: Array<() => void> = [];
  const receiver: Receiver = {
    origin: '',
    arrivals,
    duplicates: 0,
    holding: false,
    held: () => parked.length,
    release: () => {
      receiver.holding = false;
      for (const answer of parked.splice(0)) answer();
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = () => {
        const id = String(req.headers['x-svc-delivery']);
        if (arrivals.has(id)) receiver.duplicates++;
        else {
          const { createdAt } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string };
          arrivals.set(id, [Date.now(), Date.parse(createdAt)]);
        }
        res.writeHead(204).end();
      };
      if (receiver.holding) parked.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}

async function post(origin: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await request(`${origin}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
  if (res.status !== 200 && res.status !== 201) throw new Error(`${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json();
}

interface Phase {
  engine: Engine;
  endpoints: number;
  phase: 'paced' | 'drain';
  events: number;
  deliveries: number;
  seconds: number;
  deliveriesPerS: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  duplicates: number;
  /** PostgreSQL: the round trip the bench's proxy added, and the round trips per delivery it counted over the phase. */
  dbLatencyMs?: number;
  roundTripsPerOperation?: number;
}

export async function webhooksBench(argv: string[]): Promise<void> {
  const { values, quick, durationS } = parseOptions(argv, USAGE, {
    rate: { type: 'string' },
    backlog: { type: 'string' },
    endpoints: { type: 'string' },
    engine: { type: 'string' },
    'db-latency': { type: 'string' },
  });
  const dbLatencyMs = dbLatencyFrom(values['db-latency']);
  const rate = positive(values.rate, 'rate', 100);
  const backlog = Math.round(positive(values.backlog, 'backlog', quick ? 500 : 2000));
  const endpointCounts = positiveIntegers(values.endpoints ?? '1,4', 'endpoints');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const run = startRun('webhooks', log);
  const phases: Phase[] = [];

  for (const engine of enginesFrom(values.engine)) {
    for (const endpoints of endpointCounts) {
      const dir = mkdtempSync(join(tmpdir(), 'openrail-bench-webhooks-'));
      const db: Database =
        engine === 'sqlite' ? sqliteDatabase(dir) : await postgresDatabase(process.env.TEST_DATABASE_URL ?? '', dbLatencyMs);
      const receiver = await startReceiver();
      let server: BenchServer | undefined;
      try {
        server = await startServer({
          databaseUrl: db.url,
          dataDir: dir,
          logFile: join(dir, 'server.log'),
          // A short schedule: should a held request time out, the drain starts again at once.
          env: { OPENRAIL_OUTBOUND_ALLOW: receiver.origin, LOG_LEVEL: 'warn', OPENRAIL_WEBHOOK_RETRY_SCHEDULE: '100ms,1s,5s' },
        });
        const origin = server.origin;
        const tenant = (await post(origin, '/api/tenants', { name: 'Bench Hooks' })).slug as string;
        const typeId = (await post(origin, '/api/types', { tenant, name: 'Bench Pass', claims: ['holder'] })).typeId as string;
        for (let i = 0; i < endpoints; i++) {
          await post(origin, '/api/admin/integration/webhooks', {
            tenant,
            url: `${receiver.origin}/e${i}`,
            events: ['offer.created'],
          });
        }
        const offer = (i: number) => post(origin, '/api/offers', { tenant, typeId, subject: { holder: `h${i}` } });
        const paced = Math.max(1, Math.round(rate * durationS));
        // The registration pings first, so the measured deliveries are the offers' only.
        await within(
          waitFor(() => receiver.arrivals.size >= endpoints),
          30_000,
          'the registration pings',
        );

        const record = (phase: 'paced' | 'drain', events: number, from: number, tripsFrom: number | undefined) => {
          const trips = tripsFrom === undefined ? undefined : (db.distance?.roundTrips() ?? 0) - tripsFrom;
          const last = Math.max(...[...receiver.arrivals.values()].map(([at]) => at));
          const lags = Float64Array.from([...receiver.arrivals.values()].map(([at, created]) => at - created)).sort();
          const seconds = (last - from) / 1000;
          const s = latencySummary(lags);
          phases.push({
            engine,
            endpoints,
            phase,
            events,
            deliveries: receiver.arrivals.size,
            seconds,
            deliveriesPerS: receiver.arrivals.size / seconds,
            lagP50Ms: s.p50Ms,
            lagP99Ms: s.p99Ms,
            lagMaxMs: s.maxMs,
            duplicates: receiver.duplicates,
            ...(db.distance && trips !== undefined && receiver.arrivals.size > 0
              ? { dbLatencyMs: db.distance.dbLatencyMs, roundTripsPerOperation: trips / receiver.arrivals.size }
              : {}),
          });
        };
        const reset = () => {
          receiver.arrivals.clear();
          receiver.duplicates = 0;
        };

        reset();
        const pacedFrom = Date.now();
        const pacedTrips = db.distance?.roundTrips();
        for (let i = 0; i < paced; i++) {
          const due = pacedFrom + (i * 1000) / rate;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
          void offer(i);
        }
        await within(
          waitFor(() => receiver.arrivals.size >= paced * endpoints),
          300_000,
          `${paced * endpoints} paced deliveries`,
        );
        record('paced', paced, pacedFrom, pacedTrips);

        // Drain: every lane stuck on one held request while the backlog queues up behind it.
        reset();
        receiver.holding = true;
        let next = 0;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (next < backlog) await offer(next++);
          }),
        );
        await within(
          waitFor(() => receiver.held() >= endpoints),
          60_000,
          'a held request on every endpoint',
        );
        const drainFrom = Date.now();
        const drainTrips = db.distance?.roundTrips();
        receiver.release();
        await within(
          waitFor(() => receiver.arrivals.size >= backlog * endpoints),
          300_000,
          `${backlog * endpoints} drained deliveries`,
        );
        record('drain', backlog, drainFrom, drainTrips);
        const errors = serverErrors(server.logFile);
        if (errors.count > 0) log(`server logged ${errors.count} errors; first: ${errors.first}`);
      } finally {
        await server?.stop();
        await receiver.close();
        await db.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }

  log(
    table(
      [
        'engine',
        'endpoints',
        'phase',
        'events',
        'deliveries',
        'deliveries/s',
        'lag p50 ms',
        'lag p99 ms',
        'lag max ms',
        'dup',
        'db ms',
        'rt/delivery',
      ],
      phases.map((p) => [
        p.engine,
        p.endpoints,
        p.phase,
        p.events,
        p.deliveries,
        fixed(p.deliveriesPerS, 0),
        fixed(p.lagP50Ms, 0),
        fixed(p.lagP99Ms, 0),
        fixed(p.lagMaxMs, 0),
        p.duplicates,
        fixed(p.dbLatencyMs, 1),
        fixed(p.roundTripsPerOperation, 2),
      ]),
    ),
  );
  log(
    'lag: from the event written in its transaction (createdAt) to the receiver reading the delivery. paced: at --rate; drain: a backlog delivered with nothing else running (its lag is the queue).',
  );
  const file = writeResults(run, undefined, {
    options: { rate, backlog, endpoints: endpointCounts, durationS, dbLatencyMs },
    phases,
  });
  log(`results: ${file}`);
}

async function waitFor(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
}
