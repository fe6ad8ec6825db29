import type { Selectable } from 'kysely';
import type { AccessTokenRecord, AccessTokenStore, Redemption } from '../../../ports/access-token-store.ts';
import type { Db } from '../connect.ts';
import { spendCodeWrite } from '../offers/offers-statements.ts';
import type { AccessTokensTable } from '../schema.ts';
import { Statement } from '../statement.ts';
import { applyAll } from '../write-batch.ts';

const usable = new Statement<Selectable<AccessTokensTable>>(
  'select * from access_tokens where token_hash = ? and spent_at is null and expires_at > ?',
);

const grantToken = new Statement(
  'insert into access_tokens (token_hash, tenant, grant_id, created_at, expires_at, spent_at, dpop_jkt) values (?, ?, ?, ?, ?, null, ?)',
);

export class SqlAccessTokenStore implements AccessTokenStore {
  constructor(private readonly db: Db) {}

  /** The offer's code spent and the token granted: one statement on PostgreSQL (write-batch.ts; docs/scaling.md). */
  async redeem(r: Redemption): Promise<boolean> {
    const t = r.token;
    const refused = await applyAll(this.db, [
      spendCodeWrite(r, 'spent'),
      {
        statement: grantToken,
        params: [t.tokenHash, t.tenant, t.grantId, t.createdAt, t.expiresAt, t.dpopJkt ?? null],
        expect: 1,
        refusal: 'spent',
      },
    ]);
    return refused === undefined;
  }

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
