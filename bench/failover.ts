// `npm run bench -- failover [--rounds <n>] [--workers <n>]`: what losing the database primary costs
// (docs/high-availability.md). Brings up the reference topology (scripts/ha-cluster.sh: etcd, two
// PostgreSQL nodes under Patroni in synchronous mode, HAProxy, three openrail nodes), drives mixed
// writes at the three nodes (test/helpers/ha-load.ts), and per round kills the primary's
// postmaster, then runs a planned switchover. Each row: how long writes were refused, the writes
// acknowledged, the writes found in the database afterwards, and the refusals by code.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  haCluster,
  haClusterMissing,
  killPrimaryPostmaster,
  readClusterEnv,
  switchover,
  waitForSyncPair,
} from '../test/helpers/ha-cluster.ts';
import { acknowledgedFound, driveThrough, longestGap, prepareLoad } from '../test/helpers/ha-load.ts';
import { otherLoad } from './lib/machine.ts';
import { startRun, writeResults } from './lib/results.ts';
import { fixed, table } from './lib/stats.ts';

const USAGE = `npm run bench -- failover [--rounds <n>] [--workers <n>]

  --rounds <n>   kills and switchovers each (default 2)
  --workers <n>  concurrent writers across the three nodes (default 6)

Needs Debian's patroni, etcd-server, python3-etcd, haproxy and PostgreSQL 15 (as .ci/run installs
them). Takes about a minute to bring the cluster up and half a minute per disruption. Results go
to bench/results/failover-<timestamp>.json.`;

/** The issue's targets, with the topology's Patroni settings (ttl 10, loop_wait 2, retry_timeout 4). */
const TARGET_MS = { kill: 10_000, switchover: 5_000 };

interface Row {
  disruption: 'kill' | 'switchover';
  from: string;
  to: string;
  refusedForMs: number;
  acknowledged: number;
  found: number;
  refused: Record<string, number>;
  problems: string[];
}

export async function failoverBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { rounds: { type: 'string' }, workers: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const rounds = Number(values.rounds ?? 2);
  const workers = Number(values.workers ?? 6);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new Error('--rounds is a whole number 1-20');
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new Error('--workers is a whole number 1-64');
  const missing = haClusterMissing();
  if (missing) throw new Error(missing);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const run = startRun('failover', log);
  const before = await otherLoad(1000);
  const dir = join(tmpdir(), `openrail-ha-bench-${randomBytes(3).toString('hex')}`);
  log(`bringing the reference topology up in ${dir} ...`);
  const up = await haCluster('up', dir);
  const rows: Row[] = [];
  try {
    if (up.code !== 0) throw new Error(`ha-cluster.sh up failed:\n${up.stdout}\n${up.stderr}`);
    const env = readClusterEnv(dir);
    const target = await prepareLoad(env.OPENRAIL_URL as string, env.OPENRAIL_OWNER_TOKEN as string, {
      nodes: [1, 2, 3].map((n) => `http://127.0.0.1:${env[`OPENRAIL${n}_PORT`]}`),
      publicUrl: env.OPENRAIL_URL as string,
    });
    for (let round = 0; round < rounds; round++) {
      for (const disruption of ['kill', 'switchover'] as const) {
        const from = await waitForSyncPair(env);
        const { load, began } = await driveThrough(
          target,
          async () => {
            if (disruption === 'kill') await killPrimaryPostmaster(dir, env);
            else {
              const done = await switchover(dir, from);
              if (done.code !== 0) throw new Error(`patronictl switchover failed:\n${done.stdout}\n${done.stderr}`);
            }
          },
          workers,
        );
        const to = await waitForSyncPair(env);
        const { acknowledged, found, problems } = await acknowledgedFound(env.DATABASE_URL as string, load);
        const refused: Record<string, number> = {};
        for (const a of load.answers.filter((x) => x.status === null || x.status >= 300)) {
          const key = a.status === null ? 'no answer' : `${a.status} ${a.error ?? ''}`.trim();
          refused[key] = (refused[key] ?? 0) + 1;
        }
        const row: Row = {
          disruption,
          from,
          to,
          refusedForMs: longestGap(load.answers, began),
          acknowledged,
          found,
          refused,
          problems,
        };
        rows.push(row);
        log(`${disruption} ${from} -> ${to}: writes refused for ${fixed(row.refusedForMs / 1000, 1)} s`);
      }
    }
  } finally {
    if (existsSync(dir)) await haCluster('down', dir);
  }
  const after = await otherLoad(1000);
  log(
    table(
      ['disruption', 'from', 'to', 'refused s', 'target s', 'acknowledged', 'found', 'refusals', 'lost or doubled'],
      rows.map((r) => [
        r.disruption,
        r.from,
        r.to,
        fixed(r.refusedForMs / 1000, 1),
        fixed(TARGET_MS[r.disruption] / 1000, 0),
        r.acknowledged,
        r.found,
        Object.entries(r.refused)
          .map(([k, n]) => `${n} ${k}`)
          .join('; ') || 'none',
        r.problems.length,
      ]),
    ),
  );
  log(
    'refused s: the longest stretch after the disruption began with no write acknowledged, as the clients saw it. acknowledged: writes answered 2xx (a tenant, an offer, a redemption, a credential, a revocation, a deposit); found: those the database holds afterwards; lost or doubled: acknowledged writes missing, and writes made twice.',
  );
  log(`other processes on the machine after: ${fixed(after, 2)} busy cores`);
  log(`results: ${writeResults(run, before, { rounds, workers, targetsMs: TARGET_MS, rows, otherCoresAfter: after })}`);
}
