// The issuance bench's levels: wallets issuing against a running server, one measured window per level.
import type { Options, Phase, Row } from './issuance-options.ts';
import { coresOf, cpuWindow } from './lib/cpu-window.ts';
import type { CryptoRates, MdocCost } from './lib/crypto-rates.ts';
import type { BackendSampler, Database, Engine } from './lib/databases.ts';
import { drive, mergeFailures } from './lib/drive.ts';
import type { Format } from './lib/formats.ts';
import { type BenchWalletProvider, type HaipWalletState, haipWallet, issueHaip } from './lib/haip.ts';
import { commCpuMs } from './lib/machine.ts';
import { checkMdocCredential, mdocConfiguration } from './lib/mdoc.ts';
import { waitQuiet, wasShared } from './lib/quiet.ts';
import type { BenchServer } from './lib/server.ts';
import { fixed, latencySummary } from './lib/stats.ts';
import {
  BENCH_CLAIMS,
  checkCredential,
  createOffers,
  type IssueResult,
  issueOne,
  type PoolItem,
  type Target,
} from './lib/wallet.ts';

/** N wallets issuing `format` in a loop until `seconds` have passed (or the pool of offers runs dry). */
async function issueFor(target: Target, pool: PoolItem[], wallets: number, seconds: number, flow: Flow, format: Format) {
  const configuration = format === 'mdoc' ? mdocConfiguration(target.typeId) : target.typeId;
  let sample: { item: PoolItem; credential: string } | undefined;
  // A HAIP wallet keeps its attestation, DPoP key and the server's nonce from one issuance to the next.
  const idle: HaipWalletState[] = [];
  const m = await drive({
    workers: wallets,
    seconds,
    take: () => pool.pop(),
    attempt: async (item) => {
      let result: IssueResult;
      if (flow.grant === 'haip') {
        const w = idle.pop() ?? haipWallet(flow.provider);
        result = await issueHaip(target, item, w).finally(() => idle.push(w));
      } else {
        result = await issueOne(target, item, configuration);
      }
      if (!result.ok) return { key: `${result.failure.step} ${result.failure.status}`, sample: result.failure.body };
      sample ??= { item, credential: result.credential };
      return undefined;
    },
    // Counted as the credential step answering nothing.
    thrown: (err) => ({ key: 'credential 0', sample: `network: ${String(err)}` }),
  });
  return { ...m, sample };
}

export async function topUp(target: Target, pool: PoolItem[], want: number): Promise<void> {
  if (pool.length >= want) return;
  const made = await createOffers(target, want - pool.length);
  pool.unshift(...made);
}

/** Which flow a level measures; HAIP's wallets are attested by the bench's own provider. */
export type Flow = { grant: 'pre-authorized' } | { grant: 'haip'; provider: BenchWalletProvider };

export interface LevelContext {
  flow: Flow;
  /** Each level is measured in each of these formats in turn (SD-JWT VC alone under HAIP). */
  formats: readonly Format[];
  engine: Engine;
  phase: Phase;
  workers: number;
  server: BenchServer;
  target: Target;
  pool: PoolItem[];
  opts: Options;
  crypto: CryptoRates;
  /** The crypto cost of an mdoc issuance (its digests measured on the bench type's elements), when mdoc is measured. */
  mdoc?: MdocCost;
  /** Whether offers may be created between levels (not while profiling). */
  topUps: boolean;
  /** Seconds of warm-up before each window, where not --warmup's (a flow already warmed by an earlier pair). */
  warmupS?: number;
  profiled?: boolean;
  /** Where each measured window goes, on the monotonic clock, so a profile can be cut to them. */
  windows?: Array<[number, number]>;
  sampler?: () => BackendSampler;
  distance?: Database['distance'];
}

const MAX_ATTEMPTS = 3;

export async function runLevels(ctx: LevelContext, log: (line: string) => void): Promise<Row[]> {
  const rows: Row[] = [];
  let estimate = ctx.opts.quick ? 200 : 300;
  for (const wallets of ctx.opts.wallets) {
    // The formats of a level one after the other, so that each sees the machine as the other did.
    for (const format of ctx.formats) {
      let row: Row | undefined;
      // With --wait-quiet, a window that other processes shared is measured again (up to 3 times).
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        row = await measureLevel(ctx, wallets, format, estimate);
        row.attempts = attempt;
        log(
          `  ${ctx.engine} ${format} ${ctx.flow.grant} ${ctx.phase} ${ctx.workers} worker(s) ${wallets} wallets: ${fixed(row.perSec, 0)} cred/s, ` +
            `p50 ${fixed(row.p50Ms, 2)} ms, p99 ${fixed(row.p99Ms, 2)} ms, errors ${row.errors}, other processes ${fixed(row.otherCores, 2)} cores` +
            `${row.poolExhausted ? ' (offer pool ran out: window shortened)' : ''}` +
            `${row.sampleCheck.length ? `, sample credential: ${row.sampleCheck.join('; ')}` : ''}`,
        );
        estimate = Math.max(estimate, row.perSec);
        if (ctx.opts.waitQuietS <= 0 || !wasShared(row.otherCores)) break;
        if (attempt < MAX_ATTEMPTS) log('    the machine was shared during that window; measuring again');
      }
      if (row) rows.push(row);
    }
  }
  return rows;
}

async function measureLevel(ctx: LevelContext, wallets: number, format: Format, estimate: number): Promise<Row> {
  const { opts, target, pool } = ctx;
  const warmupS = ctx.warmupS ?? opts.warmupS;
  if (ctx.topUps) await topUp(target, pool, Math.ceil(estimate * (warmupS + opts.durationS) * 1.5) + 50);
  await waitQuiet(opts.waitQuietS, (l) => process.stdout.write(`${l}\n`));
  const warm = await issueFor(target, pool, wallets, warmupS, ctx.flow, format);
  const warmRate = warm.ok / warm.seconds;
  if (ctx.topUps) await topUp(target, pool, Math.ceil(warmRate * opts.durationS * 1.4) + 50);
  const endWindow = cpuWindow(() => ctx.server.cpuMs(), ctx.engine === 'postgres' ? () => commCpuMs('postgres') : undefined);
  const main0 = ctx.server.mainThreadCpuMs();
  const sampler = ctx.sampler?.();
  const tripsBefore = ctx.distance?.roundTrips();
  const m = await issueFor(target, pool, wallets, opts.durationS, ctx.flow, format);
  ctx.windows?.push(m.windowUs);
  const trips = tripsBefore === undefined ? undefined : (ctx.distance?.roundTrips() ?? 0) - tripsBefore;
  const backends = await sampler?.stop();
  const cpu = endWindow();
  const main1 = ctx.server.mainThreadCpuMs();
  const mainMs = main0 !== undefined && main1 !== undefined && m.ok > 0 ? (main1 - main0) / m.ok : undefined;
  const perSec = m.ok / m.seconds;
  const serverMs = cpu.serverMs !== undefined && m.ok > 0 ? cpu.serverMs / m.ok : undefined;
  // What the server cannot skip: an mdoc's element digests beside the ES256 work of both formats.
  const cost = format === 'mdoc' ? ctx.mdoc : { costMs: ctx.crypto.issuanceMs, ceilingPerSec: ctx.crypto.ceilingPerSec };
  if (!cost) throw new Error('an mdoc level without the crypto cost of an mdoc issuance');
  const sample = m.sample;
  const sampleCheck = !sample
    ? ['no credential was issued']
    : format === 'mdoc'
      ? await checkMdocCredential(target, sample.item, sample.credential, BENCH_CLAIMS)
      : await checkCredential(target, sample.item, sample.credential);
  return {
    engine: ctx.engine,
    format,
    grant: ctx.flow.grant,
    keys: ctx.opts.keys,
    tracing: ctx.opts.tracing,
    db: ctx.phase,
    workers: ctx.workers,
    wallets,
    credentials: m.ok,
    seconds: m.seconds,
    perSec,
    ...latencySummary(m.latencies),
    errors: m.errors,
    ceilingFraction: perSec / cost.ceilingPerSec,
    ...(serverMs !== undefined ? { serverCpuMsPerCredential: serverMs, cryptoShare: cost.costMs / serverMs } : {}),
    ...(mainMs !== undefined ? { serverMainCpuMsPerCredential: mainMs } : {}),
    ...coresOf(cpu, m.seconds),
    ...(ctx.engine === 'postgres' ? { postgresCores: cpu.extraMs / 1000 / m.seconds } : {}),
    ...(ctx.distance && trips !== undefined && m.ok > 0
      ? { dbLatencyMs: ctx.distance.dbLatencyMs, roundTripsPerOperation: trips / m.ok }
      : {}),
    ...(backends ? { pgBackends: backends } : {}),
    poolExhausted: m.exhausted,
    warmupErrors: warm.errors,
    warmupCredentials: warm.ok,
    failures: mergeFailures(warm.failures, m.failures),
    sampleCheck,
    ...(ctx.profiled ? { profiled: true } : {}),
  };
}
