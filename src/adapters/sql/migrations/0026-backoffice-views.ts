import type { Kysely, Migration } from 'kysely';

/**
 * Indexes for the back office's read models (docs/backoffice/views.md): the credentials list by
 * issue time, usage counts per type, the offer behind a wallet item, a deposit or an audit target
 * named on its own, dead deliveries and expiring offers.
 * Indexes only: no table or column changes.
 */
export const backofficeViews: Migration = {
  async up(db: Kysely<unknown>) {
    const index = (name: string, table: string, columns: string[]) =>
      db.schema.createIndex(name).on(table).columns(columns).execute();
    await index('issued_credentials_by_issue', 'issued_credentials', ['tenant', 'issued_at', 'id']);
    await index('issued_credentials_by_type', 'issued_credentials', ['tenant', 'type_id']);
    await index('offers_by_type', 'offers', ['tenant', 'type_id']);
    await index('offers_by_expiry', 'offers', ['expires_at']);
    await index('wallet_items_by_ref', 'wallet_items', ['ref']);
    await index('deposits_by_deposit_id', 'deposits', ['deposit_id']);
    await index('audit_log_by_target', 'audit_log', ['target', 'seq']);
    await index('webhook_deliveries_by_state', 'webhook_deliveries', ['state', 'finished_at']);
  },
};
