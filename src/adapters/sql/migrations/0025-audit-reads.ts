import type { Kysely, Migration } from 'kysely';

/**
 * Indexes for the back office's reads (docs/backoffice/audit.md): the audit log by actor, action
 * and time; the outbox by tenant, for the activity feed; and, for analytics, issued credentials
 * and offers by the time they are counted on, so a window across every tenant is a range of an
 * index rather than a scan of the table (members are counted on members_by_joined, 0024).
 */
export const auditReads: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('audit_log_by_actor').on('audit_log').columns(['actor', 'seq']).execute();
    await db.schema.createIndex('audit_log_by_action').on('audit_log').columns(['action', 'seq']).execute();
    await db.schema.createIndex('audit_log_by_time').on('audit_log').columns(['at', 'seq']).execute();
    await db.schema.createIndex('outbox_by_tenant').on('outbox').columns(['tenant', 'seq']).execute();
    await db.schema
      .createIndex('issued_credentials_by_time')
      .on('issued_credentials')
      .columns(['issued_at', 'tenant', 'type_id'])
      .execute();
    await db.schema.createIndex('offers_by_time').on('offers').columns(['created_at', 'tenant', 'type_id']).execute();
  },
};
