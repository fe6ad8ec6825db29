import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';
import { GENESIS_HASH } from '../../../core/audit-chain.ts';

/**
 * The audit log (hash-chained), the event outbox and the background-job leases. The audit head
 * is one row that every append updates first: on PostgreSQL its row lock orders concurrent
 * appends across processes, so sequence numbers have no gaps and each entry links to the one
 * committed before it.
 */
export const auditOutboxJobs: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

    await db.schema
      .createTable('audit_head')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();
    await sql`insert into audit_head (id, seq, hash) values (1, 0, ${GENESIS_HASH})`.execute(db);

    await db.schema
      .createTable('audit_log')
      .addColumn('seq', 'bigint', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text')
      .addColumn('target', 'text')
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_by_tenant').on('audit_log').columns(['tenant', 'seq']).execute();

    // seq orders events as they were written; id is the event's public identity.
    await db.schema
      .createTable('outbox')
      .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('outbox_by_time').on('outbox').column('created_at').execute();

    await db.schema
      .createTable('job_leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addColumn('last_error', 'text')
      .execute();
  },
};
