import type { Kysely, Migration } from 'kysely';

/**
 * Partner onboarding (docs/partners.md): applications and their stage history, the partner's team
 * (who may sign in to the portal), partner sessions, and the link from an integration token to
 * the partner that minted it inside its grant.
 */
export const partners: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('partner_applications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('organisation', 'text', (c) => c.notNull())
      .addColumn('contact_name', 'text', (c) => c.notNull())
      // Lower-cased: what session start compares.
      .addColumn('contact_email', 'text', (c) => c.notNull())
      .addColumn('country', 'text')
      .addColumn('website', 'text')
      .addColumn('use_case', 'text', (c) => c.notNull())
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('stage_at', 'bigint', (c) => c.notNull())
      .addColumn('status_token_hash', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text')
      // JSON array of integration scopes, with the rate class: the grant an operator attached.
      .addColumn('grant_scopes', 'text')
      .addColumn('grant_rate_class', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('partner_applications_by_time')
      .on('partner_applications')
      .columns(['created_at', 'id'])
      .execute();
    await db.schema.createIndex('partner_applications_by_stage').on('partner_applications').columns(['stage', 'kind']).execute();

    await db.schema
      .createTable('partner_stage_history')
      .addColumn('application_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('from_stage', 'text')
      .addColumn('to_stage', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      // Internal: shown to operators, never to the applicant.
      .addColumn('note', 'text')
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('partner_stage_history_pk', ['application_id', 'seq'])
      .execute();

    await db.schema
      .createTable('partner_team')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('application_id', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('added_by', 'text', (c) => c.notNull())
      .addColumn('added_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('partner_team_member').on('partner_team').columns(['application_id', 'email']).unique().execute();
    await db.schema.createIndex('partner_team_by_email').on('partner_team').column('email').execute();

    await db.schema
      .createTable('partner_sessions')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('member_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('partner_sessions_by_member').on('partner_sessions').column('member_id').execute();

    await db.schema.alterTable('integration_tokens').addColumn('partner_id', 'text').execute();
    await db.schema
      .createIndex('integration_tokens_by_partner')
      .on('integration_tokens')
      .columns(['partner_id', 'created_at'])
      .execute();
  },
};
