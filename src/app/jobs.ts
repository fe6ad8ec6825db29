import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.ts';
import { inSpan, SpanKind } from '../core/tracing.ts';
import type { JobLeaseStore } from '../ports/job-lease-store.ts';
import { type Meter, noMeter } from '../ports/meter.ts';

/**
 * A background job a module declares (docs/architecture.md, "Background jobs"): erasure sweeps
 * today, webhook delivery and retention later. Jobs must be idempotent: a run that dies half-way
 * is simply run again after its lease ends.
 */
export interface Job {
  /** Unique across modules: `<module>.<what>`. */
  name: string;
  /** It runs once per this many milliseconds, across every process on the database. */
  everyMs: number;
  run(now: number): Promise<void>;
}

/** A process's name in leases, ops/cloud and the webhook claims: its node (OPENRAIL_NODE_ID), its pid, and a nonce. */
export const processName = (node = hostname()) => `${node}:${process.pid}:${randomBytes(4).toString('hex')}`;

/** How often a process looks for due jobs, at most. */
const MAX_TICK_MS = 10_000;

/**
 * Runs jobs under leases stored in the database: before a run the runner takes the job's lease
 * until now + period with one conditional write, so with several processes on one database each
 * job runs once per period, and a process that dies mid-run only delays the next run.
 */
export class JobRunner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly jobs: readonly Job[],
    private readonly leases: JobLeaseStore,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly meter: Meter = noMeter,
    /** The name this process takes leases under. */
    readonly holder = processName(),
  ) {
    const names = new Set<string>();
    for (const job of jobs) {
      if (names.has(job.name)) throw new Error(`two jobs are named ${job.name}`);
      if (!(job.everyMs >= 1000)) throw new Error(`job ${job.name} must run at most once a second`);
      names.add(job.name);
    }
  }

  /** Runs every job whose lease this process can take now; answers the names it ran. */
  tick(): Promise<string[]> {
    const ran: string[] = [];
    const tick = this.running.then(async () => {
      for (const job of this.jobs) {
        const now = this.clock.now();
        if (!(await this.leases.acquire(job.name, this.holder, now, now + job.everyMs).catch(() => false))) continue;
        ran.push(job.name);
        let error: string | null = null;
        try {
          // Each run is a trace of its own: its statements and outbound calls under it.
          await inSpan(`job ${job.name}`, SpanKind.INTERNAL, { 'openrail.job': job.name }, () => job.run(now));
        } catch (err) {
          error = err instanceof Error ? err.message.slice(0, 500) : 'failed';
          this.log.error({ job: job.name, err: error }, 'job failed');
        }
        this.meter.jobRun(job.name, error === null);
        await this.leases.finished(job.name, this.holder, this.clock.now(), error).catch(() => {});
      }
      return ran;
    });
    this.running = tick.catch(() => {});
    return tick;
  }

  /** Ticks now, then regularly, often enough that a due job waits at most a fraction of its period. */
  async start(): Promise<void> {
    if (this.jobs.length === 0) return;
    await this.tick();
    const every = Math.min(MAX_TICK_MS, ...this.jobs.map((j) => Math.max(1000, Math.floor(j.everyMs / 4))));
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
  }

  /** Stops ticking and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
