import type { AccessTokenRecord, AccessTokenStore } from '../../ports/access-token-store.ts';
import type { Db } from './connect.ts';

export class SqlAccessTokenStore implements AccessTokenStore {
  constructor(private readonly db: Db) {}

  async issue(t: AccessTokenRecord): Promise<void> {
    await this.db
      .insertInto('access_tokens')
      .values({
        token_hash: t.tokenHash,
        tenant: t.tenant,
        grant_id: t.grantId,
        created_at: t.createdAt,
        expires_at: t.expiresAt,
        spent_at: null,
      })
      .execute();
  }

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

  async consume(tenant: string, tokenHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('access_tokens')
      .set({ spent_at: now })
      .where('token_hash', '=', tokenHash)
      .where('tenant', '=', tenant)
      .where('spent_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
