import { type Kysely, type Migration, sql } from 'kysely';

/**
 * HAIP issuance (docs/haip.md, "Issuance"): whether a tenant serves the authorization code flow
 * and where its holders sign in (the issuer's sign-in hook); the pushed authorization requests of
 * that flow, each one row from its push to its code's redemption; and the DPoP key an access
 * token is bound to.
 */
export const haipIssuance: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('tenants')
      .addColumn('haip_issuance', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('tenants').addColumn('sign_in_url', 'text').execute();
    // The demonstration tenant of a deployment that already has one shows the flow, as a new one does.
    await sql`update tenants set haip_issuance = 1 where slug = 'demo-transit'`.execute(db);
    await db.schema.alterTable('access_tokens').addColumn('dpop_jkt', 'text').execute();
    await db.schema
      .createTable('authorization_requests')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('request_uri_hash', 'text', (c) => c.notNull().unique())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('state', 'text')
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('attestation_jkt', 'text', (c) => c.notNull())
      .addColumn('dpop_jkt', 'text')
      .addColumn('offer_id', 'text')
      .addColumn('phase', 'text', (c) => c.notNull().defaultTo(sql`'pushed'`))
      .addColumn('browser_hash', 'text')
      .addColumn('code_hash', 'text', (c) => c.unique())
      .addColumn('continue_hash', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('authorization_requests_expiry').on('authorization_requests').columns(['expires_at']).execute();
  },
};
