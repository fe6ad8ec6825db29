import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Operations (docs/operations.md).
 *
 * Mail outcomes: one row per message handed to the mail transport, for the comms-health rates of
 * every process: when, through which transport, whether it was taken and, when it was not, the
 * failure's class (an SMTP reply code or a transport error code), never an address, subject or
 * body. Kept 30 days.
 *
 * Trusted issuers: the issuers the hosted verifier accepts beyond this deployment's own tenants,
 * by DID, with the DID document they resolved to when added (its keys are what a presentation is
 * checked against), their state (`active`, `suspended`, `removed`) and who last changed it, when
 * and why. A presentation transaction opened for such an issuer names it (`issuer_did`).
 *
 * Key rotation: a signing key the rotation replaced is `superseded_at` — still published in the
 * DID document, no longer signing — until a job retires it. One key per tenant and purpose signs:
 * the partial unique index now leaves superseded keys out.
 */
export const operations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('mail_outcomes')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('transport', 'text', (c) => c.notNull())
      .addColumn('ok', 'integer', (c) => c.notNull())
      .addColumn('failure', 'text')
      .execute();
    await db.schema.createIndex('mail_outcomes_by_time').on('mail_outcomes').column('at').execute();

    await db.schema
      .createTable('trusted_issuers')
      .addColumn('did', 'text', (c) => c.primaryKey().notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('added_by', 'text', (c) => c.notNull())
      .addColumn('added_at', 'bigint', (c) => c.notNull())
      .addColumn('changed_by', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'bigint', (c) => c.notNull())
      .addColumn('reason', 'text')
      .execute();
    await db.schema.alterTable('presentation_transactions').addColumn('issuer_did', 'text').execute();

    await db.schema.alterTable('signing_keys').addColumn('superseded_at', 'bigint').execute();
    await db.schema.dropIndex('signing_keys_one_active').execute();
    await db.schema
      .createIndex('signing_keys_one_active')
      .on('signing_keys')
      .columns(['tenant', 'purpose'])
      .unique()
      .where(sql<boolean>`retired_at is null and superseded_at is null`)
      .execute();
  },
};
