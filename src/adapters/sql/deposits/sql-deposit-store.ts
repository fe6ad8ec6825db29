import { PostgresAdapter } from 'kysely';
import { depositHash, GENESIS_HASH } from '../../../core/deposit-chain.ts';
import type { PageWindow } from '../../../core/page.ts';
import type { ChannelState } from '../../../ports/channel-store.ts';
import type { ChainedDeposit, DepositKind, DepositRecord, DepositStore, ProductRecord } from '../../../ports/deposit-store.ts';
import type { StoredItemState, WalletItemRecord } from '../../../ports/wallet-item-store.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';
import { bool, type Conv, num, rowCodec } from '../row-codec.ts';
import type { DepositsTable, ProductsTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { Statement } from '../statement.ts';
import { addItem, channelState, itemState } from '../wallet/wallet-statements.ts';
import { inTenant, inWindow, newestFirst } from '../windowed.ts';

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

// PostgreSQL: the head is locked and read in one statement (an upsert that changes nothing
// returns the row as it stands, and holds its lock until commit), and the deposit is appended
// and the head moved in another, the head only when the deposit id was free.
const lockHead = new Statement<{ seq: number; hash: string }>(
  'insert into deposit_heads (tenant, seq, hash) values (?, 0, ?) on conflict (tenant) do update set tenant = excluded.tenant returning seq, hash',
);
const appendDeposit = new Statement<{ seq: number }>(
  `with added as (
     insert into deposits (${deposits.columns.join(', ')}) values (${deposits.columns.map(() => '?').join(', ')})
     on conflict (tenant, deposit_id) do nothing returning 1)
   update deposit_heads set seq = ?, hash = ? where tenant = ? and exists (select 1 from added) returning seq`,
);

export class SqlDepositStore implements DepositStore {
  constructor(private readonly db: Db) {}

  async addProduct(p: ProductRecord): Promise<boolean> {
    return insertOnce(this.db, 'products', products.row(p), ['tenant', 'kind']);
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
      .$call((q) => newestFirst(q, ['created_at', 'id'], page))
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
   * transaction (on PostgreSQL under its row lock, which orders one tenant's appends; on SQLite
   * the transaction is the database's one writer), so numbers
   * have no gaps and each deposit links to the one committed before it. A deposit id already taken
   * leaves the chain as it was.
   */
  async addDeposit(d: DepositRecord): Promise<boolean> {
    const link = (head: { seq: number; hash: string }) => {
      const seq = Number(head.seq) + 1;
      const hash = depositHash({
        tenant: d.tenant,
        seq,
        depositId: d.depositId,
        accountId: d.accountId,
        productId: d.productId,
        itemId: d.itemId,
        bodyHash: d.bodyHash,
        createdAt: d.createdAt,
        prevHash: head.hash,
      });
      return { seq, hash, row: deposits.row({ ...d, chainSeq: seq, prevHash: head.hash, chainHash: hash, erasedAt: null }) };
    };
    // Two round trips, and no savepoint: a refused append changes nothing but the head's lock,
    // which the transaction holds to its end (one is opened when there is none).
    if (this.db.getExecutor().adapter instanceof PostgresAdapter) {
      if (!this.db.isTransaction) return atomically(this.db, (trx) => new SqlDepositStore(trx).addDeposit(d));
      const head = await lockHead.first(this.db, [d.tenant, GENESIS_HASH]);
      if (!head) throw new Error('the deposit chain head was not written');
      const next = link(head);
      const values = deposits.columns.map((c) => (next.row as Record<string, unknown>)[c]);
      return (await appendDeposit.first(this.db, [...values, next.seq, next.hash, d.tenant])) !== undefined;
    }
    return atomically(this.db, async (trx) => {
      await trx
        .insertInto('deposit_heads')
        .values({ tenant: d.tenant, seq: 0, hash: GENESIS_HASH })
        .onConflict((oc) => oc.column('tenant').doNothing())
        .execute();
      const head = await trx
        .selectFrom('deposit_heads')
        .select(['seq', 'hash'])
        .where('tenant', '=', d.tenant)
        .executeTakeFirstOrThrow();
      const next = link(head);
      const result = await trx
        .insertInto('deposits')
        .values(next.row)
        .onConflict((oc) => oc.columns(['tenant', 'deposit_id']).doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      await trx.updateTable('deposit_heads').set({ seq: next.seq, hash: next.hash }).where('tenant', '=', d.tenant).execute();
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

  putInWallet(item: WalletItemRecord): Promise<void> {
    return addItem(this.db, item);
  }

  itemState(tenant: string, depositId: string): Promise<StoredItemState | undefined> {
    return itemState(this.db, tenant, 'deposit', depositId);
  }

  channelState(tenant: string, accountId: string): Promise<ChannelState | undefined> {
    return channelState(this.db, tenant, accountId);
  }
}
