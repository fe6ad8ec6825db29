import type { AccessTokenRecord, AccessTokenStore } from '../../ports/access-token-store.ts';
import type { Db } from './connect.ts';

export class SqlAccessTokenStore implements AccessTokenStore {
  constructor(private readonly db: Db) {}

  async findUsable(tokenHash: string, now: number): Promise<AccessTokenRecord | undefined> {
    const row = await this.db
      .selectFrom('access_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('spent_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row
      ? {
          tenant: row.tenant,
          tokenHash: row.token_hash,
          grantId: row.grant_id,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
        }
      : undefined;
  }

  async prune(now: number): Promise<void> {
    await this.db.deleteFrom('access_tokens').where('expires_at', '<=', now).execute();
  }
}
