import type { Kysely, Migration } from 'kysely';

/**
 * The approval desk (docs/backoffice/approvals.md): four-eyes approvals of back-office actions.
 * An approval that names a holder account (a data-subject export) keeps it in `account_id`, so
 * the account's erasure finds it (docs/account.md, "Erasure").
 */
export const approvals: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('approvals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('action', 'text', (c) => c.notNull())
      // JSON object: the action's parameters, validated against its schema when filed.
      .addColumn('params', 'text', (c) => c.notNull())
      // Null: a platform action.
      .addColumn('tenant', 'text')
      .addColumn('account_id', 'text')
      // pending, approved, rejected, withdrawn, expired (a pending one past expires_at reads expired before the job marks it).
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('requested_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('decided_by', 'text')
      .addColumn('decided_at', 'bigint')
      .addColumn('note', 'text')
      // JSON object: what the action answered when it ran.
      .addColumn('result', 'text')
      // 1: only the requester reads the result, and it is cleared at result_expires_at.
      .addColumn('result_private', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('result_expires_at', 'bigint')
      .execute();
    await db.schema.createIndex('approvals_by_time').on('approvals').columns(['requested_at', 'id']).execute();
    await db.schema.createIndex('approvals_by_tenant').on('approvals').columns(['tenant', 'requested_at', 'id']).execute();
    await db.schema.createIndex('approvals_by_state').on('approvals').columns(['state', 'expires_at']).execute();
    await db.schema.createIndex('approvals_by_account').on('approvals').column('account_id').execute();
    await db.schema.createIndex('approvals_by_result_expiry').on('approvals').column('result_expires_at').execute();
  },
};
