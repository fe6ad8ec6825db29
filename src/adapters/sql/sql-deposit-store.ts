import type { Selectable } from 'kysely';
import type { DepositKind, DepositRecord, DepositStore, ProductRecord } from '../../ports/deposit-store.ts';
import type { Db } from './connect.ts';
import type { DepositsTable, ProductsTable } from './schema.ts';

const toProduct = (row: Selectable<ProductsTable>): ProductRecord => ({
  id: row.id,
  tenant: row.tenant,
  kind: row.kind as DepositKind,
  name: row.name,
  requireChannel: row.require_channel === 1,
  approvedAt: row.approved_at === null ? null : Number(row.approved_at),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const toDeposit = (row: Selectable<DepositsTable>): DepositRecord => ({
  tenant: row.tenant,
  depositId: row.deposit_id,
  accountId: row.account_id,
  productId: row.product_id,
  itemId: row.item_id,
  body: row.body,
  bodyHash: row.body_hash,
  createdAt: Number(row.created_at),
});

export class SqlDepositStore implements DepositStore {
  constructor(private readonly db: Db) {}

  async addProduct(p: ProductRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('products')
      .values({
        id: p.id,
        tenant: p.tenant,
        kind: p.kind,
        name: p.name,
        require_channel: p.requireChannel ? 1 : 0,
        approved_at: p.approvedAt,
        created_at: p.createdAt,
        updated_at: p.updatedAt,
      })
      .onConflict((oc) => oc.columns(['tenant', 'kind']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async product(id: string): Promise<ProductRecord | undefined> {
    const row = await this.db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toProduct(row);
  }

  async productFor(tenant: string, kind: DepositKind): Promise<ProductRecord | undefined> {
    const row = await this.db
      .selectFrom('products')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('kind', '=', kind)
      .executeTakeFirst();
    return row && toProduct(row);
  }

  async products(tenant: string | undefined, limit: number, afterId?: string): Promise<ProductRecord[]> {
    let query = this.db.selectFrom('products').selectAll();
    if (tenant !== undefined) query = query.where('tenant', '=', tenant);
    if (afterId !== undefined) query = query.where('id', '>', afterId);
    return (await query.orderBy('id').limit(limit).execute()).map(toProduct);
  }

  async approve(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('products')
      .set({ approved_at: now, updated_at: now })
      .where('id', '=', id)
      .where('approved_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async setRequireChannel(tenant: string, id: string, required: boolean, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('products')
      .set({ require_channel: required ? 1 : 0, updated_at: now })
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async addDeposit(d: DepositRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('deposits')
      .values({
        tenant: d.tenant,
        deposit_id: d.depositId,
        account_id: d.accountId,
        product_id: d.productId,
        item_id: d.itemId,
        body: d.body,
        body_hash: d.bodyHash,
        created_at: d.createdAt,
      })
      .onConflict((oc) => oc.columns(['tenant', 'deposit_id']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async deposit(tenant: string, depositId: string): Promise<DepositRecord | undefined> {
    const row = await this.db
      .selectFrom('deposits')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('deposit_id', '=', depositId)
      .executeTakeFirst();
    return row && toDeposit(row);
  }
}
