import { type Actor, actorLabel } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { Ids } from '../../../core/ids.ts';
import { iso } from '../../../http/admin/kit.ts';
import {
  PURGEABLE,
  type PurgeRun,
  RETENTION_CATEGORIES,
  type RetentionCategory,
  type RetentionStore,
} from '../../../ports/retention-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';

const DAY_MS = 86_400_000;
/** Rows one transaction of a purge deletes, at most. */
export const PURGE_BATCH = 500;
/** Batches one run of the purge job works through before it yields to the next run. */
const BATCHES_PER_RUN = 200;
/** The longest a rule may keep anything. */
export const KEEP_DAYS_MAX = 36_500;

/**
 * Retention (docs/backoffice/compliance.md, "Retention"): a rule per category with the floors
 * the service keeps whatever a rule says, a dry run that counts what a purge would delete now,
 * and purge runs the job runner works through in batches — each batch deleted and counted in one
 * transaction, so a run killed half-way resumes where it stopped and never counts a row twice.
 */
export class Retention {
  constructor(
    private readonly deps: {
      store: RetentionStore;
      uow: UnitOfWork;
      clock: Clock;
      ids: Ids;
    },
  ) {}

  async rules() {
    const set = new Map((await this.deps.store.rules()).map((r) => [r.category, r]));
    const last = await this.deps.store.lastRun();
    return {
      rules: RETENTION_CATEGORIES.map((c) => {
        const rule = set.get(c.category);
        return {
          category: c.category,
          what: c.what,
          purgeable: c.floorDays !== null,
          keepDays: rule?.keepDays ?? c.defaultDays,
          defaultDays: c.defaultDays,
          floorDays: c.floorDays,
          why: c.why,
          updatedAt: rule ? iso(rule.updatedAt) : null,
          updatedBy: rule?.updatedBy ?? null,
        };
      }),
      lastRun: last ? runView(last) : null,
    };
  }

  async setRule(category: string, keepDays: number, actor: Actor) {
    const known = RETENTION_CATEGORIES.find((c) => c.category === category);
    if (!known) throw new ServiceError('invalid_request', `No retention category is named ${category}.`);
    if (known.floorDays === null) {
      throw new ServiceError('retention_floor', `${category} is never purged: ${known.why}.`);
    }
    if (keepDays < known.floorDays) {
      throw new ServiceError('retention_floor', `${category} is kept at least ${known.floorDays} days: ${known.why}.`);
    }
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ audit }) => {
      const before = (await this.deps.store.rules()).find((r) => r.category === category)?.keepDays ?? known.defaultDays;
      await this.deps.store.setRule({ category, keepDays, updatedAt: now, updatedBy: actorLabel(actor) });
      const auditSeq = await audit.append({
        actor,
        action: 'retention.rule_changed',
        tenant: null,
        target: category,
        detail: { keepDays, before },
      });
      return { ok: true as const, auditSeq, rule: { category, keepDays, updatedAt: iso(now), updatedBy: actorLabel(actor) } };
    });
  }

  /** What a purge asked for now would delete, per category, and the cutoffs it would use. */
  async dryRun() {
    const cutoffs = await this.cutoffs(this.deps.clock.now());
    const counts: Record<string, number> = {};
    for (const [category, cutoff] of Object.entries(cutoffs))
      counts[category] = await this.deps.store.countPast(category, cutoff);
    return { dryRun: true as const, cutoffs: isoCutoffs(cutoffs), counts };
  }

  /**
   * Asks for a purge: its cutoffs are fixed now, and the job runner deletes in batches. While a
   * run is still running, asking again answers that run and starts none: the run is added only
   * with the purge slot, one conditional write, and a request that finds the slot taken writes
   * nothing (its audit entry rolls back with it).
   */
  async start(actor: Actor) {
    for (let attempt = 0; ; attempt++) {
      const now = this.deps.clock.now();
      const cutoffs = await this.cutoffs(now);
      try {
        return await this.deps.uow.run(async ({ audit }) => {
          const id = this.deps.ids.mint('purgeRun');
          const auditSeq = await audit.append({
            actor,
            action: 'retention.purge_started',
            tenant: null,
            target: id,
            detail: { cutoffs: isoCutoffs(cutoffs) },
          });
          const run: PurgeRun = {
            id,
            state: 'running',
            requestedBy: actorLabel(actor),
            requestedAt: now,
            cutoffs,
            counts: Object.fromEntries(PURGEABLE.map((c) => [c, 0])),
            finished: [],
            finishedAt: null,
            auditSeq,
          };
          if (!(await this.deps.store.addRun(run))) throw new PurgeRunning();
          return { ok: true as const, auditSeq, run: runView(run), created: true };
        });
      } catch (err) {
        if (!(err instanceof PurgeRunning)) throw err;
        const running = await this.deps.store.runningRun();
        if (running) return { ok: true as const, auditSeq: running.auditSeq, run: runView(running), created: false };
        // The run that held the slot finished in between: ask again, once or twice.
        if (attempt >= 2) throw err;
      }
    }
  }

  /**
   * The purge job: works through the running run, a batch per transaction, category by category;
   * once every category is done, marks the run done with its audit entry (the counts).
   */
  async work(now: number): Promise<void> {
    const run = await this.deps.store.runningRun();
    if (!run) return;
    let batches = 0;
    for (const category of PURGEABLE) {
      if (run.finished.includes(category)) continue;
      const cutoff = run.cutoffs[category];
      for (;;) {
        if (batches++ >= BATCHES_PER_RUN) return;
        const finished = await this.deps.uow.run(async () => {
          const deleted = cutoff === undefined ? 0 : await this.deps.store.deletePast(category, cutoff, PURGE_BATCH);
          const done = deleted < PURGE_BATCH;
          await this.deps.store.advanceRun(run.id, category, deleted, done);
          return done;
        });
        if (finished) break;
      }
    }
    await this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.store.finishRun(run.id, now))) return;
      const done = (await this.deps.store.lastRun()) ?? run;
      await audit.append({
        actor: { kind: 'system', what: 'retention' },
        action: 'retention.purged',
        tenant: null,
        target: run.id,
        detail: { counts: done.counts },
      });
    });
  }

  /** The last run, for the programme overview. */
  async lastRun() {
    const last = await this.deps.store.lastRun();
    return last ? runView(last) : null;
  }

  private async cutoffs(now: number): Promise<Record<string, number>> {
    const set = new Map((await this.deps.store.rules()).map((r) => [r.category, r.keepDays]));
    const cutoffs: Record<string, number> = {};
    for (const c of RETENTION_CATEGORIES as readonly RetentionCategory[]) {
      const days = set.get(c.category) ?? c.defaultDays;
      if (c.floorDays === null || days === null) continue;
      cutoffs[c.category] = now - Math.max(days, c.floorDays) * DAY_MS;
    }
    return cutoffs;
  }
}

/** The purge slot was taken: the transaction rolls back, and the run that holds it is answered. */
class PurgeRunning extends Error {}

const isoCutoffs = (cutoffs: Record<string, number>) => Object.fromEntries(Object.entries(cutoffs).map(([k, v]) => [k, iso(v)]));

const runView = (run: PurgeRun) => ({
  runId: run.id,
  state: run.state,
  requestedBy: run.requestedBy,
  requestedAt: iso(run.requestedAt),
  cutoffs: isoCutoffs(run.cutoffs),
  counts: run.counts,
  finished: run.finished,
  finishedAt: run.finishedAt === null ? null : iso(run.finishedAt),
});
