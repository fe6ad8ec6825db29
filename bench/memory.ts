// `npm run bench -- memory [--requests <n>] [--bursts <n>] [--concurrency <n>] [--settle <s>]`: what
// one serving process holds (issue 54, point 3). One `openrail serve --workers 1` on a fresh SQLite
// database; its resident set size is read from /proc after it starts and settles, and after each
// of `--bursts` bursts (default 2) of `--requests` mixed requests (default 10,000): the least it
// held over a settle window (default 20 s, long enough for V8's memory reducer, which collects and
// gives pages back about 8 s after a process falls idle), with the peak so far (VmHWM) beside each.
// The mix is what a deployment answers in a day: issuances (offer, token, nonce, credential),
// hosted verifications (request, request object, response, result), public pages and documents,
// and back-office reads with the owner token. Figures, never assertions: targets live in
// bench/README.md.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteDatabase } from './lib/databases.ts';
import { request } from './lib/http.ts';
import { otherLoad } from './lib/machine.ts';
import { parseOptions, positive } from './lib/options.ts';
import { startRun, writeResults } from './lib/results.ts';
import { OWNER_TOKEN, serverErrors, startServer } from './lib/server.ts';
import { fixed, table } from './lib/stats.ts';
import { createOffer, issueOne } from './lib/wallet.ts';
import { type HostedTarget, hostedSubject, setUpHosted, transaction } from './verify-hosted.ts';

const USAGE = `npm run bench -- memory [--requests <n>] [--bursts <n>] [--concurrency <n>] [--settle <s>]
  --requests     mixed requests in each burst (default 10000)
  --bursts       bursts, each read after it (default 2: the second says whether the first grows)
  --concurrency  requests in flight (default 8)
  --settle       seconds over which each reading takes the least resident set (default 20)`;

/** Public pages and documents (any answer below 400: /admin and /console send a visitor to sign in). */
const PAGES = [
  '/',
  '/demo',
  '/verify',
  '/developers',
  '/docs',
  '/capabilities',
  '/standards',
  '/for-cities',
  '/partners',
  '/developers/docs/issuance',
  '/developers/docs/verification',
  '/admin',
  '/console',
  '/openapi.json',
];
/** Back-office reads (200 with the owner token). */
const BACKOFFICE = [
  '/api/admin/audit?limit=20',
  '/api/admin/ops/health',
  '/api/admin/approvals',
  '/api/admin/credentials',
  '/api/admin/analytics',
  '/api/admin/activity',
];

interface Reading {
  after: string;
  requests: number;
  rssMb: number;
  peakMb: number;
}

/** VmRSS and VmHWM of a process, in MiB. */
function residentOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/**
 * One unit of the mix, in the order a day brings them; answers how many requests it made. Any
 * unexpected status throws: a bench that counted refusals would measure something else.
 */
async function unit(target: HostedTarget, n: number): Promise<number> {
  const item = await createOffer(target, hostedSubject(n));
  const issued = await issueOne(target, item);
  if (!issued.ok) throw new Error(`issuance failed at ${issued.failure.step} (${issued.failure.status}): ${issued.failure.body}`);
  const verified = await transaction(target, { credential: issued.credential, item });
  if (!verified.ok) throw new Error(`verification failed at ${verified.key}: ${verified.sample}`);
  let made = 8;
  for (const path of PAGES.slice(n % 2, (n % 2) + 7)) {
    const res = await request(`${target.origin}${path}`);
    if (res.status >= 400) throw new Error(`GET ${path} answered ${res.status}`);
    made++;
  }
  for (const path of BACKOFFICE) {
    const res = await request(`${target.origin}${path}`, { headers: { authorization: `Bearer ${OWNER_TOKEN}` } });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    made++;
  }
  return made;
}

/** Runs units `concurrency` at a time until at least `requests` requests were made; answers how many. */
async function burst(target: HostedTarget, requests: number, concurrency: number, first: number): Promise<number> {
  let made = 0;
  let n = first;
  const worker = async () => {
    while (made < requests) made += await unit(target, n++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return made;
}

export async function memoryBench(argv: string[]): Promise<void> {
  const { values } = parseOptions(argv, USAGE, {
    requests: { type: 'string' },
    bursts: { type: 'string' },
    concurrency: { type: 'string' },
    settle: { type: 'string' },
  });
  const requests = positive(values.requests, 'requests', 10_000);
  const bursts = positive(values.bursts, 'bursts', 2);
  const concurrency = positive(values.concurrency, 'concurrency', 8);
  const settleS = positive(values.settle, 'settle', 20);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const run = startRun('memory', log);
  const before = await otherLoad();
  const dir = mkdtempSync(join(tmpdir(), 'openrail-bench-memory-'));
  const database = sqliteDatabase(dir);
  const server = await startServer({ databaseUrl: database.url, dataDir: dir, logFile: join(dir, 'server.log') });
  const readings: Reading[] = [];
  // The resident set moves while the collector works and the allocator returns pages: read every
  // quarter second over the settle window and keep the least, the floor the process came back to.
  const read = async (after: string, made: number) => {
    let settled = residentOf(server.pid);
    for (const until = Date.now() + settleS * 1000; Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 250));
      const now = residentOf(server.pid);
      settled = { rssMb: Math.min(settled.rssMb, now.rssMb), peakMb: now.peakMb };
    }
    readings.push({ after, requests: made, ...settled });
  };
  try {
    await read('start', 0);
    const target = await setUpHosted(server.origin);
    let made = 0;
    for (let b = 0; b < bursts; b++) {
      // Each burst's subjects are its own (a unit's number names its offer's subject).
      const n = await burst(target, requests, concurrency, b * 1_000_000);
      made += n;
      await read(b === 0 ? `${n} mixed requests` : `${n} more`, made);
    }
    const errors = serverErrors(server.logFile);
    log(
      table(
        ['after', 'requests', 'settled rss MiB', 'peak MiB'],
        readings.map((r) => [r.after, r.requests, fixed(r.rssMb), fixed(r.peakMb)]),
      ),
    );
    for (let b = 2; b < readings.length; b++) {
      const [before, after] = [readings[b - 1], readings[b]];
      if (before && after) log(`growth over burst ${b}: ${fixed(after.rssMb - before.rssMb)} MiB`);
    }
    if (errors.count > 0) log(`the server logged ${errors.count} errors; the first: ${errors.first}`);
    log(
      `results: ${writeResults(run, before, { requests, bursts, concurrency, settleS, readings, serverErrors: errors.count })}`,
    );
  } finally {
    await server.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
