import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { ChallengeRecord, OnboardingStore } from '../../../ports/onboarding-store.ts';
import { type Db, onPostgres } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { OnboardingChallengesTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';

const challenges = rowCodec<ChallengeRecord, OnboardingChallengesTable>()(
  'id identifierKey codeHash createdAt expiresAt attempts spentAt',
  {},
);

/** The class of advisory locks held per identifier (two-int keys: a space apart from one-bigint keys). */
const CHALLENGE_LOCKS = 0x6f72_6f62; // 'orob'

export class SqlOnboardingStore implements OnboardingStore {
  constructor(private readonly db: Db) {}

  async create(c: ChallengeRecord): Promise<string[]> {
    return atomically(this.db, async (trx) => {
      // One identifier's codes are asked for one at a time. There is no row to hold before the
      // first challenge, and no unique key on the live one, so two requests at once would each end
      // only the challenges committed before them and both insert: two live codes, each with its
      // own attempts. PostgreSQL: a transaction-scoped advisory lock on the identifier orders them;
      // SQLite writes one transaction at a time.
      if (onPostgres(trx)) {
        const key = createHash('sha256').update(c.identifierKey, 'utf8').digest().readInt32BE(0);
        await sql`select pg_advisory_xact_lock(${CHALLENGE_LOCKS}, ${key})`.execute(trx);
      }
      const ended = await trx
        .updateTable('onboarding_challenges')
        .set({ spent_at: c.createdAt })
        .where('identifier_key', '=', c.identifierKey)
        .where('spent_at', 'is', null)
        .returning('id')
        .execute();
      await trx.insertInto('onboarding_challenges').values(challenges.row(c)).execute();
      return ended.map((r) => r.id);
    });
  }

  async undo(c: Pick<ChallengeRecord, 'id' | 'createdAt'>, ended: readonly string[]): Promise<void> {
    await atomically(this.db, async (trx) => {
      await trx.deleteFrom('onboarding_challenges').where('id', '=', c.id).execute();
      if (ended.length === 0) return;
      // Only those this creation ended: one ended since by a use or another code stays ended.
      await trx
        .updateTable('onboarding_challenges')
        .set({ spent_at: null })
        .where('id', 'in', [...ended])
        .where('spent_at', '=', c.createdAt)
        .execute();
    });
  }

  async current(identifierKey: string): Promise<ChallengeRecord | undefined> {
    const row = await this.db
      .selectFrom('onboarding_challenges')
      .selectAll()
      .where('identifier_key', '=', identifierKey)
      .where('spent_at', 'is', null)
      .executeTakeFirst();
    return row && challenges.record(row);
  }

  async countAttempt(id: string, now: number, maxAttempts: number): Promise<boolean> {
    const result = await this.db
      .updateTable('onboarding_challenges')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .where('spent_at', 'is', null)
      .where('expires_at', '>', now)
      .where('attempts', '<', maxAttempts)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async spend(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('onboarding_challenges')
      .set({ spent_at: now })
      .where('id', '=', id)
      .where('spent_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async prune(before: number): Promise<number> {
    const result = await this.db.deleteFrom('onboarding_challenges').where('expires_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
