import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Organisations (docs/backoffice/orgs.md): a tenant's status (active or suspended) with when and
 * why it last changed, the history of those changes, and an organisation's custom domain.
 */
export const orgLifecycle: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('tenants')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
      .execute();
    await db.schema.alterTable('tenants').addColumn('status_since', 'bigint').execute();
    await db.schema.alterTable('tenants').addColumn('status_reason', 'text').execute();
    await db.schema.createIndex('tenants_by_status').on('tenants').columns(['status', 'status_since']).execute();

    await db.schema
      .createTable('org_lifecycle')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      // The four-eyes approval a suspension ran under; null for a direct change.
      .addColumn('approval_id', 'text')
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('org_lifecycle_pk', ['tenant', 'seq'])
      .execute();

    await db.schema
      .createTable('org_domains')
      .addColumn('tenant', 'text', (c) => c.primaryKey())
      // Lower-case DNS host name.
      .addColumn('domain', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('requested_at', 'bigint', (c) => c.notNull())
      .addColumn('verified_at', 'bigint')
      .addColumn('activated_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // One organisation per live domain; a revoked one may be claimed again (both engines read the
    // partial index alike).
    await sql`create unique index org_domains_live on org_domains (domain) where state <> 'revoked'`.execute(db);
  },
};
