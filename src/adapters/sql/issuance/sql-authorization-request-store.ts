import type { Redemption } from '../../../ports/access-token-store.ts';
import type { AuthorizationRequestRecord, AuthorizationRequestStore } from '../../../ports/authorization-request-store.ts';
import type { Db } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { AuthorizationRequestsTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { SqlAccessTokenStore } from './sql-access-token-store.ts';

const requests = rowCodec<AuthorizationRequestRecord, AuthorizationRequestsTable>()(
  'id tenant requestUriHash clientId redirectUri state codeChallenge typeId attestationJkt dpopJkt offerId phase browserHash codeHash continueHash createdAt expiresAt',
  {},
);
const toRecord = requests.record;

export class SqlAuthorizationRequestStore implements AuthorizationRequestStore {
  constructor(private readonly db: Db) {}

  async push(record: AuthorizationRequestRecord): Promise<void> {
    await this.db.insertInto('authorization_requests').values(requests.row(record)).execute();
  }

  async get(tenant: string, id: string): Promise<AuthorizationRequestRecord | undefined> {
    const row = await this.db
      .selectFrom('authorization_requests')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async open(
    tenant: string,
    requestUriHash: string,
    clientId: string,
    browserHash: string,
    now: number,
    expiresAt: number,
  ): Promise<AuthorizationRequestRecord | undefined> {
    return atomically(this.db, async (trx) => {
      const row = await trx
        .selectFrom('authorization_requests')
        .selectAll()
        .where('tenant', '=', tenant)
        .where('request_uri_hash', '=', requestUriHash)
        .executeTakeFirst();
      if (!row) return undefined;
      const moved = await trx
        .updateTable('authorization_requests')
        .set({ phase: 'opened', browser_hash: browserHash, expires_at: expiresAt })
        .where('id', '=', row.id)
        .where('client_id', '=', clientId)
        .where('phase', '=', 'pushed')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return undefined;
      return toRecord({ ...row, phase: 'opened', browser_hash: browserHash, expires_at: expiresAt });
    });
  }

  async approve(tenant: string, id: string, offerId: string, continueHash: string | null, now: number): Promise<boolean> {
    const moved = await this.db
      .updateTable('authorization_requests')
      .set({ phase: 'approved', offer_id: offerId, continue_hash: continueHash })
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .where('phase', '=', 'opened')
      .where('offer_id', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }

  async grantCode(
    tenant: string,
    id: string,
    from: 'opened' | 'approved',
    browserHash: string,
    codeHash: string,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    const moved = await this.db
      .updateTable('authorization_requests')
      .set({ phase: 'code', code_hash: codeHash, expires_at: expiresAt })
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .where('phase', '=', from)
      .where('offer_id', 'is not', null)
      .where('browser_hash', '=', browserHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }

  async decline(tenant: string, id: string, browserHash: string, now: number): Promise<boolean> {
    const moved = await this.db
      .updateTable('authorization_requests')
      .set({ phase: 'declined' })
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .where('phase', 'in', ['opened', 'approved'])
      .where('browser_hash', '=', browserHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }

  async findByCode(tenant: string, codeHash: string): Promise<AuthorizationRequestRecord | undefined> {
    const row = await this.db
      .selectFrom('authorization_requests')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async redeem(tenant: string, id: string, now: number, redemption: Redemption): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      const moved = await trx
        .updateTable('authorization_requests')
        .set({ phase: 'redeemed' })
        .where('tenant', '=', tenant)
        .where('id', '=', id)
        .where('phase', '=', 'code')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      if (redemption.offer.tenant !== tenant) throw new Error('a code redeems an offer of its own tenant only');
      // The offer's code is spent in the same transaction: if it was already, nothing moves.
      if (!(await new SqlAccessTokenStore(trx).redeem(redemption))) throw new CodeRaced();
      return true;
    }).catch((err) => {
      if (err instanceof CodeRaced) return false;
      throw err;
    });
  }

  async prune(now: number): Promise<number> {
    const result = await this.db.deleteFrom('authorization_requests').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Rolls the request's move back when its offer was redeemed meanwhile (by its pre-authorized code). */
class CodeRaced extends Error {}
