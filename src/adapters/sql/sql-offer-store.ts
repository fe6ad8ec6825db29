import type { Selectable } from 'kysely';
import type { OfferRecord, OfferStore, Redemption } from '../../ports/offer-store.ts';
import type { Db } from './connect.ts';
import type { OffersTable } from './schema.ts';
import { atomically } from './sql-unit-of-work.ts';

const toRecord = (row: Selectable<OffersTable>): OfferRecord => ({
  id: row.id,
  tenant: row.tenant,
  typeId: row.type_id,
  codeHash: row.code_hash,
  refHash: row.ref_hash,
  txCode: row.tx_code ? JSON.parse(row.tx_code) : null,
  txCodeHash: row.tx_code_hash,
  txAttempts: row.tx_attempts,
  subject: row.subject ? JSON.parse(row.subject) : null,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  eraseAfter: row.erase_after,
  redeemedAt: row.redeemed_at,
  collectedAt: row.collected_at,
});

export class SqlOfferStore implements OfferStore {
  constructor(private readonly db: Db) {}

  async create(o: OfferRecord): Promise<void> {
    await this.db
      .insertInto('offers')
      .values({
        id: o.id,
        tenant: o.tenant,
        type_id: o.typeId,
        code_hash: o.codeHash,
        ref_hash: o.refHash,
        tx_code: o.txCode ? JSON.stringify(o.txCode) : null,
        tx_code_hash: o.txCodeHash,
        tx_attempts: o.txAttempts,
        subject: o.subject ? JSON.stringify(o.subject) : null,
        created_at: o.createdAt,
        expires_at: o.expiresAt,
        erase_after: o.eraseAfter,
        redeemed_at: o.redeemedAt,
        collected_at: o.collectedAt,
      })
      .execute();
  }

  async get(tenant: string, id: string): Promise<OfferRecord | undefined> {
    const row = await this.db
      .selectFrom('offers')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async findByCode(tenant: string, codeHash: string): Promise<OfferRecord | undefined> {
    const row = await this.db
      .selectFrom('offers')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async findByRef(tenant: string, refHash: string): Promise<OfferRecord | undefined> {
    const row = await this.db
      .selectFrom('offers')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('ref_hash', '=', refHash)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async claimTxAttempt(tenant: string, offerId: string, maxAttempts: number): Promise<boolean> {
    const result = await this.db
      .updateTable('offers')
      .set((eb) => ({ tx_attempts: eb('tx_attempts', '+', 1) }))
      .where('tenant', '=', tenant)
      .where('id', '=', offerId)
      .where('tx_attempts', '<', maxAttempts)
      .where('redeemed_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async redeem(r: Redemption): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      const spent = await trx
        .updateTable('offers')
        .set({ redeemed_at: r.now, erase_after: r.eraseAfter })
        .where('id', '=', r.offer.id)
        .where('tenant', '=', r.offer.tenant)
        .where('redeemed_at', 'is', null)
        .where('expires_at', '>', r.now)
        .where('subject', 'is not', null)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows) !== 1) return false;
      await trx
        .insertInto('access_tokens')
        .values({
          token_hash: r.token.tokenHash,
          tenant: r.token.tenant,
          grant_id: r.token.grantId,
          created_at: r.token.createdAt,
          expires_at: r.token.expiresAt,
          spent_at: null,
        })
        .execute();
      return true;
    });
  }

  async withdraw(tenant: string, id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('offers')
      .set({ expires_at: now, erase_after: now })
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .where('redeemed_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async eraseDue(now: number): Promise<number> {
    const result = await this.db
      .updateTable('offers')
      .set({ subject: null })
      .where('subject', 'is not', null)
      .where('erase_after', '<=', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
