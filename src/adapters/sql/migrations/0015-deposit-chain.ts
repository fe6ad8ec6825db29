import { type Kysely, type Migration, sql } from 'kysely';
import { depositHash, GENESIS_HASH } from '../../../core/deposit-chain.ts';

interface Row {
  tenant: string;
  deposit_id: string;
  account_id: string;
  product_id: string;
  item_id: string;
  body_hash: string;
  created_at: number | string;
}

/**
 * Chains each tenant's deposits (docs/deposits.md, "Integrity"): every deposit gets its number in
 * the tenant's chain, the hash of the one before and its own; `deposit_heads` holds each tenant's
 * last link, so an append reads and moves one row. Deposits made before this migration are chained
 * in the order they were made.
 */
export const depositChain: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('deposits').addColumn('chain_seq', 'bigint').execute();
    await db.schema.alterTable('deposits').addColumn('prev_hash', 'text').execute();
    await db.schema.alterTable('deposits').addColumn('chain_hash', 'text').execute();
    await db.schema
      .createTable('deposit_heads')
      .addColumn('tenant', 'text', (c) => c.primaryKey())
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();

    const { rows } = await sql<Row>`
      select tenant, deposit_id, account_id, product_id, item_id, body_hash, created_at
      from deposits order by tenant, created_at, deposit_id`.execute(db);
    const heads = new Map<string, { seq: number; hash: string }>();
    for (const r of rows) {
      const head = heads.get(r.tenant) ?? { seq: 0, hash: GENESIS_HASH };
      const link = {
        tenant: r.tenant,
        seq: head.seq + 1,
        depositId: r.deposit_id,
        accountId: r.account_id,
        productId: r.product_id,
        itemId: r.item_id,
        bodyHash: r.body_hash,
        createdAt: Number(r.created_at),
        prevHash: head.hash,
      };
      const hash = depositHash(link);
      await sql`update deposits set chain_seq = ${link.seq}, prev_hash = ${link.prevHash}, chain_hash = ${hash}
        where tenant = ${r.tenant} and deposit_id = ${r.deposit_id}`.execute(db);
      heads.set(r.tenant, { seq: link.seq, hash });
    }
    for (const [tenant, head] of heads) {
      await sql`insert into deposit_heads (tenant, seq, hash) values (${tenant}, ${head.seq}, ${head.hash})`.execute(db);
    }
    await db.schema.createIndex('deposits_chain').on('deposits').columns(['tenant', 'chain_seq']).unique().execute();
  },
};
