import { type Kysely, type Migration, sql } from 'kysely';

/**
 * One person is one pair of eyes (docs/security.md, "Separation of duties" and "Four eyes"):
 * - an operator is invited: `email` is where its one-time link went, and `invitation_hash` (the
 *   link's secret, hashed) and `invitation_expires_at` are the live invitation or password reset;
 *   status `invited` until the person sets a password;
 * - `operator_links` records who could have chosen or learned an operator's credentials: the
 *   operator that created or invited it (`created`), and, from before these rules, one that set its
 *   password (`password`) or linked its identity (`identity`); filled in here from the audit log;
 * - `operator_identity_history` keeps every enterprise identity an operator was ever linked to,
 *   so two accounts that shared one identity stay known as one person after a link changes.
 */
export const operatorInvitations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('operators').addColumn('email', 'text').execute();
    await db.schema.alterTable('operators').addColumn('invitation_hash', 'text').execute();
    await db.schema.alterTable('operators').addColumn('invitation_expires_at', 'bigint').execute();
    await db.schema.createIndex('operators_by_invitation').on('operators').column('invitation_hash').unique().execute();

    await db.schema
      .createTable('operator_links')
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('linked_to', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('since', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('operator_links_pk', ['username', 'linked_to', 'kind'])
      .execute();
    await db.schema.createIndex('operator_links_by_linked').on('operator_links').column('linked_to').execute();
    // Audit actors are `operator:<username>`; the owner token is no person and links nobody.
    await sql`insert into operator_links (username, linked_to, kind, since)
      select a.target, substr(a.actor, 10),
             case a.action when 'operator.created' then 'created' when 'operator.password_changed' then 'password' else 'identity' end,
             min(a.at)
      from audit_log a
      where a.action in ('operator.created', 'operator.password_changed', 'operator.idp_linked')
        and a.actor like 'operator:%' and a.target is not null and substr(a.actor, 10) <> a.target
      group by a.target, substr(a.actor, 10), a.action`.execute(db);

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
