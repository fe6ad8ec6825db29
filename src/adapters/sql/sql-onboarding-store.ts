import type { ChallengeRecord, OnboardingStore } from '../../ports/onboarding-store.ts';
import type { Db } from './connect.ts';
import { atomically } from './sql-unit-of-work.ts';

export class SqlOnboardingStore implements OnboardingStore {
  constructor(private readonly db: Db) {}

  async create(c: ChallengeRecord): Promise<void> {
    await atomically(this.db, async (trx) => {
      await trx
        .updateTable('onboarding_challenges')
        .set({ spent_at: c.createdAt })
        .where('identifier_key', '=', c.identifierKey)
        .where('spent_at', 'is', null)
        .execute();
      await this.insert(trx, c);
    });
  }

  private async insert(db: Db, c: ChallengeRecord): Promise<void> {
    await db
      .insertInto('onboarding_challenges')
      .values({
        id: c.id,
        identifier_key: c.identifierKey,
        code_hash: c.codeHash,
        created_at: c.createdAt,
        expires_at: c.expiresAt,
        attempts: c.attempts,
        spent_at: c.spentAt,
      })
      .execute();
  }

  async current(identifierKey: string): Promise<ChallengeRecord | undefined> {
    const row = await this.db
      .selectFrom('onboarding_challenges')
      .selectAll()
      .where('identifier_key', '=', identifierKey)
      .where('spent_at', 'is', null)
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        identifierKey: row.identifier_key,
        codeHash: row.code_hash,
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
        attempts: Number(row.attempts),
        spentAt: row.spent_at === null ? null : Number(row.spent_at),
      }
    );
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
