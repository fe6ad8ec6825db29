import type { Kysely, Migration } from 'kysely';

/**
 * Tenant-scoped integration tokens, the provisioning requests they are minted from, and the rate
 * windows every key is metered in (docs/integration.md). A token is stored as its hash only.
 */
export const integrationTokens: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('provisioning_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('rate_class', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      // pending → approved | rejected; a pending request past expires_at is shown as expired.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('decided_by', 'text')
      .addColumn('decided_at', 'bigint')
      .addColumn('note', 'text')
      .addColumn('token_id', 'text')
      .execute();
    await db.schema.createIndex('provisioning_by_tenant').on('provisioning_requests').columns(['tenant', 'created_at']).execute();

    await db.schema
      .createTable('integration_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('rate_class', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      // active → revoked
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('rotated_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .addColumn('revoked_by', 'text')
      .execute();
    await db.schema
      .createIndex('integration_tokens_by_tenant')
      .on('integration_tokens')
      .columns(['tenant', 'created_at'])
      .execute();

    // One row per key: the current fixed window and the requests counted in it.
    await db.schema
      .createTable('rate_windows')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('used', 'integer', (c) => c.notNull())
      .execute();
  },
};
