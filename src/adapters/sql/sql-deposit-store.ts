import { PostgresAdapter } from 'kysely';
import { depositHash, GENESIS_HASH } from '../../core/deposit-chain.ts';
import type { PageWindow } from '../../core/page.ts';
import type { ChainedDeposit, DepositKind, DepositRecord, DepositStore, ProductRecord } from '../../ports/deposit-store.ts';
import type { Db } from './connect.ts';
import { bool, type Conv, num, rowCodec } from './row-codec.ts';
import type { DepositsTable, ProductsTable } from './schema.ts';
import { atomically } from './sql-unit-of-work.ts';
import { inTenant, inWindow, pastCursor } from './windowed.ts';

const products = rowCodec<ProductRecord, ProductsTable>()('id tenant kind name approvedAt createdAt updatedAt', {
  requireChannel: bool,
});
const toProduct = products.record;

/** A chain column is null only on rows from before the chain (migration 0015): read as empty. */
const chainText: Conv<string, string> = { write: (v) => v, read: (v) => (v as string | null) ?? '' };
const deposits = rowCodec<ChainedDeposit, DepositsTable>()(
  'tenant depositId accountId productId itemId body bodyHash createdAt erasedAt',
  { chainSeq: num, prevHash: chainText, chainHash: chainText },
);
const toDeposit = deposits.record;

export class SqlDepositStore implements DepositStore {
  constructor(private readonly db: Db) {}

  async addProduct(p: ProductRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('products')
      .values(products.row(p))
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

  async products(tenant: string | undefined, page: PageWindow<readonly [number, string]>): Promise<ProductRecord[]> {
    const rows = await this.db
      .selectFrom('products')
      .selectAll()
      .where(inTenant(tenant ?? null))
      .where(inWindow('created_at', page))
      .where(pastCursor(['created_at', 'id'], page.after, 'desc'))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .execute();
    return rows.map(toProduct);
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

  /**
   * Appends the deposit to its tenant's chain: the head row is read and moved in the same
   * transaction (on PostgreSQL under its row lock, which orders one tenant's appends), so numbers
   * have no gaps and each deposit links to the one committed before it. A deposit id already taken
   * leaves the chain as it was.
   */
  async addDeposit(d: DepositRecord): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      await trx
        .insertInto('deposit_heads')
        .values({ tenant: d.tenant, seq: 0, hash: GENESIS_HASH })
        .onConflict((oc) => oc.column('tenant').doNothing())
        .execute();
      let read = trx.selectFrom('deposit_heads').select(['seq', 'hash']).where('tenant', '=', d.tenant);
      if (trx.getExecutor().adapter instanceof PostgresAdapter) read = read.forUpdate();
      const head = await read.executeTakeFirstOrThrow();
      const link = {
        tenant: d.tenant,
        seq: Number(head.seq) + 1,
        depositId: d.depositId,
        accountId: d.accountId,
        productId: d.productId,
        itemId: d.itemId,
        bodyHash: d.bodyHash,
        createdAt: d.createdAt,
        prevHash: head.hash,
      };
      const hash = depositHash(link);
      const result = await trx
        .insertInto('deposits')
        .values(deposits.row({ ...d, chainSeq: link.seq, prevHash: link.prevHash, chainHash: hash, erasedAt: null }))
        .onConflict((oc) => oc.columns(['tenant', 'deposit_id']).doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      await trx.updateTable('deposit_heads').set({ seq: link.seq, hash }).where('tenant', '=', d.tenant).execute();
      return true;
    });
  }

  async deposits(
    tenant: string,
    limit: number,
    page: { beforeSeq?: number; since?: number; until?: number } = {},
  ): Promise<ChainedDeposit[]> {
    let q = this.db.selectFrom('deposits').selectAll().where('tenant', '=', tenant).where(inWindow('created_at', page));
    if (page.beforeSeq !== undefined) q = q.where('chain_seq', '<', page.beforeSeq);
    return (await q.orderBy('chain_seq', 'desc').limit(limit).execute()).map(toDeposit);
  }

  async chain(tenant: string, afterSeq: number, limit: number): Promise<ChainedDeposit[]> {
    const rows = await this.db
      .selectFrom('deposits')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('chain_seq', '>', afterSeq)
      .orderBy('chain_seq')
      .limit(limit)
      .execute();
    return rows.map(toDeposit);
  }

  async chainHead(tenant: string): Promise<{ seq: number; hash: string } | null> {
    const row = await this.db.selectFrom('deposit_heads').select(['seq', 'hash']).where('tenant', '=', tenant).executeTakeFirst();
    return row ? { seq: Number(row.seq), hash: row.hash } : null;
  }

  async chainTenants(): Promise<string[]> {
    return (await this.db.selectFrom('deposit_heads').select('tenant').orderBy('tenant').execute()).map((r) => r.tenant);
  }

  async deposit(tenant: string, depositId: string): Promise<ChainedDeposit | undefined> {
    const row = await this.db
      .selectFrom('deposits')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('deposit_id', '=', depositId)
      .executeTakeFirst();
    return row && toDeposit(row);
  }
}
