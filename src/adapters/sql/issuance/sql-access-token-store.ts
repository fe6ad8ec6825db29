import type { Selectable } from 'kysely';
import type { AccessTokenRecord, AccessTokenStore } from '../../../ports/access-token-store.ts';
import type { Db } from '../connect.ts';
import type { AccessTokensTable } from '../schema.ts';
import { Statement } from '../statement.ts';

const usable = new Statement<Selectable<AccessTokensTable>>(
  'select * from access_tokens where token_hash = ? and spent_at is null and expires_at > ?',
);

export class SqlAccessTokenStore implements AccessTokenStore {
  constructor(private readonly db: Db) {}

  async findUsable(tokenHash: string, now: number): Promise<AccessTokenRecord | undefined> {
    const row = await usable.first(this.db, [tokenHash, now]);
    return row
      ? {
          tenant: row.tenant,
          tokenHash: row.token_hash,
          grantId: row.grant_id,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
          dpopJkt: row.dpop_jkt,
        }
      : undefined;
  }

  async prune(now: number): Promise<void> {
    await this.db.deleteFrom('access_tokens').where('expires_at', '<=', now).execute();
  }
}
