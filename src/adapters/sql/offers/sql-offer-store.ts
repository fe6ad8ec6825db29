import type { Selectable } from 'kysely';
import type { ErasedOffer, OfferRecord, OfferStore } from '../../../ports/offer-store.ts';
import type { WalletItemRecord } from '../../../ports/wallet-item-store.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { OffersTable } from '../schema.ts';
import { Statement } from '../statement.ts';
import { ISSUER_ROW, type IssuerColumns, issuerState } from '../tenants/tenants-statements.ts';
import { addItem } from '../wallet/wallet-statements.ts';

const offers = rowCodec<OfferRecord, OffersTable>()(
  'id tenant typeId codeHash refHash txCodeHash txAttempts createdAt expiresAt eraseAfter redeemedAt collectedAt',
  { txCode: json, subject: json },
);
const toRecord = offers.record;

const byId = new Statement<Selectable<OffersTable>>('select * from offers where tenant = ? and id = ?');
const byCode = new Statement<Selectable<OffersTable>>('select * from offers where tenant = ? and code_hash = ?');
/** The issuer and its offer, one read (a tenant without the offer still answers its row). */
type AtIssuerRow = Partial<Selectable<OffersTable>> & IssuerColumns;
const issuerColumns = `select ${ISSUER_ROW.columns}, o.* from ${ISSUER_ROW.from} left join offers o`;
const atIssuerByCode = new Statement<AtIssuerRow>(
  `${issuerColumns} on o.tenant = ${ISSUER_ROW.slug} and o.code_hash = ? where ${ISSUER_ROW.slug} = ?`,
);
const atIssuerById = new Statement<AtIssuerRow>(
  `${issuerColumns} on o.tenant = ${ISSUER_ROW.slug} and o.id = ? where ${ISSUER_ROW.slug} = ?`,
);

export class SqlOfferStore implements OfferStore {
  constructor(private readonly db: Db) {}

  async create(o: OfferRecord): Promise<void> {
    await this.db.insertInto('offers').values(offers.row(o)).execute();
  }

  putInWallet(item: WalletItemRecord): Promise<void> {
    return addItem(this.db, item);
  }

  async get(tenant: string, id: string): Promise<OfferRecord | undefined> {
    const row = await byId.first(this.db, [tenant, id]);
    return row ? toRecord(row) : undefined;
  }

  async findByCode(tenant: string, codeHash: string): Promise<OfferRecord | undefined> {
    const row = await byCode.first(this.db, [tenant, codeHash]);
    return row ? toRecord(row) : undefined;
  }

  async atIssuer(tenant: string, key: { codeHash: string } | { id: string }) {
    const row =
      'codeHash' in key
        ? await atIssuerByCode.first(this.db, [key.codeHash, tenant])
        : await atIssuerById.first(this.db, [key.id, tenant]);
    if (!row) return {};
    const { issuer, rest: offer } = issuerState(row);
    return offer.id == null ? { issuer } : { issuer, offer: toRecord(offer as Selectable<OffersTable>) };
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

  async eraseDue(now: number, limit: number): Promise<ErasedOffer[]> {
    const due = this.db
      .selectFrom('offers')
      .select('id')
      .where('subject', 'is not', null)
      .where('erase_after', '<=', now)
      .limit(limit);
    const rows = await this.db
      .updateTable('offers')
      .set({ subject: null })
      .where('id', 'in', due)
      .where('subject', 'is not', null)
      .returning(['id', 'tenant', 'type_id', 'redeemed_at'])
      .execute();
    return rows.map((r) => ({ id: r.id, tenant: r.tenant, typeId: r.type_id, redeemed: r.redeemed_at !== null }));
  }
}
