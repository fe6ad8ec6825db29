import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Membership and governance (docs/membership.md): the credential types a tenant accepts for
 * enrolment, member records with their coin balance and append-only coin ledger, proposals and
 * votes. Presentation transactions gain the presenting holder's key thumbprint (never a claim
 * value) and the time they enrolled someone, so a transaction enrols at most once.
 */
export const membership: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('presentation_transactions').addColumn('holder_thumbprint', 'text').execute();
    await db.schema.alterTable('presentation_transactions').addColumn('enrolled_at', 'bigint').execute();

    await db.schema
      .createTable('enrolment_types')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('enrolment_types_pk', ['tenant', 'type_id'])
      .execute();

    await db.schema
      .createTable('members')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text')
      .addColumn('tier', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      // Kept equal to the sum of the member's coin entries; never below zero (the check below and
      // the conditional update that moves it).
      .addColumn('balance', 'bigint', (c) => c.notNull().check(sql`balance >= 0`))
      .addColumn('joined_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('members_pk', ['tenant', 'account_id'])
      .execute();
    await db.schema.createIndex('members_by_account').on('members').column('account_id').execute();

    await db.schema
      .createTable('coin_entries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('delta', 'bigint', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('balance_after', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('coin_entries_key', ['tenant', 'idempotency_key'])
      .execute();

    await db.schema
      .createTable('proposals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('tiers', 'text')
      .addColumn('opens_at', 'bigint', (c) => c.notNull())
      .addColumn('closes_at', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      // Every vote moves this under the proposal's row lock, so a close and a vote are ordered.
      .addColumn('votes_cast', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('opened_at', 'bigint')
      .addColumn('closed_at', 'bigint')
      .execute();
    await db.schema.createIndex('proposals_by_tenant').on('proposals').columns(['tenant', 'state']).execute();

    await db.schema
      .createTable('votes')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('proposal_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('option', 'text', (c) => c.notNull())
      .addColumn('assisted', 'integer', (c) => c.notNull())
      .addColumn('cast_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('votes_pk', ['proposal_id', 'account_id'])
      .execute();
  },
};
