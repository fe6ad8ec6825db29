import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Operator identities (docs/backoffice/people.md, "Enterprise identity"): the enterprise identity
 * (issuer and subject) an owner links to an operator, for enterprise sign-in. One identity belongs
 * to one operator (the primary key), and an operator has at most one (the unique username).
 * Also the indexes the back office's people views read by (docs/backoffice/people.md): sign-ins in
 * the audit log, so an operator's last sign-in is one index read, and the time orders of the
 * cross-tenant lists of members, coin entries and proposals.
 */
export const operatorIdentity: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('operator_identities')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull().references('operators.username'))
      .addColumn('linked_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('operator_identities_pk', ['issuer', 'subject'])
      .execute();
    await db.schema.createIndex('operator_identities_by_user').on('operator_identities').column('username').unique().execute();

    // Partial: only sign-ins are indexed, so other appends pay nothing for it.
    await db.schema
      .createIndex('audit_log_sign_ins')
      .on('audit_log')
      .columns(['target', 'seq'])
      .where(sql.ref('action'), '=', sql.lit('operator.signed_in'))
      .execute();
    await db.schema.createIndex('members_by_joined').on('members').columns(['joined_at', 'tenant', 'account_id']).execute();
    await db.schema.createIndex('coin_entries_by_time').on('coin_entries').columns(['created_at', 'id']).execute();
    await db.schema.createIndex('proposals_by_time').on('proposals').columns(['created_at', 'id']).execute();
  },
};
