import type { HolderReplayStore } from '../../../ports/holder-replay-store.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';

export class SqlHolderReplayStore implements HolderReplayStore {
  constructor(private readonly db: Db) {}

  async burn(accountId: string, jti: string, expiresAt: number, now: number): Promise<boolean> {
    // An expired mark for the same pair may still be present (not yet pruned): drop it first.
    // Its JWS is outside the freshness window anyway, so this never reopens a live jti.
    await this.db
      .deleteFrom('holder_jti')
      .where('account_id', '=', accountId)
      .where('jti', '=', jti)
      .where('expires_at', '<=', now)
      .execute();
    return insertOnce(this.db, 'holder_jti', { account_id: accountId, jti, expires_at: expiresAt });
  }

  async prune(now: number): Promise<number> {
    const result = await this.db.deleteFrom('holder_jti').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
