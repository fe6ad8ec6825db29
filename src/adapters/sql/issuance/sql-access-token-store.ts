import type { Selectable } from 'kysely';
import type { AccessTokenRecord, AccessTokenStore, Redemption } from '../../../ports/access-token-store.ts';
import type { Db } from '../connect.ts';
import { spendCodeWrite } from '../offers/offers-statements.ts';
import type { AccessTokensTable } from '../schema.ts';
import { Statement } from '../statement.ts';
import { applyAll, type GuardedWrite } from '../write-batch.ts';

const usable = new Statement<Selectable<AccessTokensTable>>(
  'select * from access_tokens where token_hash = ? and spent_at is null and expires_at > ?',
);

const grantToken = new Statement(
  'insert into access_tokens (token_hash, tenant, grant_id, created_at, expires_at, spent_at, dpop_jkt) values (?, ?, ?, ?, ?, null, ?)',
);

/**
 * A redemption's writes, for a batch (the authorization code's adds its own): the offer's code
 * spent, once, and the access token granted; `refusal` when the code was spent.
 */
export function redemptionWrites(r: Redemption, refusal: string): GuardedWrite[] {
  const t = r.token;
  return [
    spendCodeWrite(r, refusal),
    {
      statement: grantToken,
      params: [t.tokenHash, t.tenant, t.grantId, t.createdAt, t.expiresAt, t.dpopJkt ?? null],
      expect: 1,
      refusal,
    },
  ];
}

export class SqlAccessTokenStore implements AccessTokenStore {
  constructor(private readonly db: Db) {}

  /** The offer's code spent and the token granted: one statement on PostgreSQL (write-batch.ts; docs/scaling.md). */
  async redeem(r: Redemption): Promise<boolean> {
    return (await applyAll(this.db, redemptionWrites(r, 'spent'))) === undefined;
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
