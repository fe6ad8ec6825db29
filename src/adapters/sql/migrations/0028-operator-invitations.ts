import { type Kysely, type Migration, sql } from 'kysely';

/**
 * One person is one pair of eyes (docs/security.md, "Separation of duties"):
 * - an operator is invited: `email` is where its one-time link went, and `invitation_hash` (the
 *   link's secret, hashed) and `invitation_expires_at` are the live invitation or password reset;
 *   status `invited` until the person sets a password;
 * - `created_by` is the operator who created or invited it (null: the owner token, or not known);
 *   filled in here from the audit log for operators created before;
 * - `operator_identity_history` keeps every enterprise identity an operator was ever linked to,
 *   so two accounts that shared one identity stay known as one person after a link changes.
 */
export const operatorInvitations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('operators').addColumn('email', 'text').execute();
    await db.schema.alterTable('operators').addColumn('created_by', 'text').execute();
    await db.schema.alterTable('operators').addColumn('invitation_hash', 'text').execute();
    await db.schema.alterTable('operators').addColumn('invitation_expires_at', 'bigint').execute();
    await db.schema.createIndex('operators_by_invitation').on('operators').column('invitation_hash').unique().execute();
    await db.schema.createIndex('operators_by_creator').on('operators').column('created_by').execute();
    await sql`update operators set created_by = (
        select substr(a.actor, 10) from audit_log a
        where a.action = 'operator.created' and a.target = operators.username and a.actor like 'operator:%'
        order by a.seq desc limit 1)`.execute(db);

    await db.schema
      .createTable('operator_identity_history')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('linked_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('operator_identity_history_pk', ['issuer', 'subject', 'username'])
      .execute();
    await db.schema.createIndex('operator_identity_history_by_user').on('operator_identity_history').column('username').execute();
    await sql`insert into operator_identity_history (issuer, subject, username, linked_at)
      select issuer, subject, username, linked_at from operator_identities`.execute(db);
  },
};
