import type { Kysely, Migration } from 'kysely';

/**
 * Same-device presentations (docs/verification.md, "A wallet on the same device"): the relying
 * party's page a wallet returns the browser to, and the hash of the response code that return
 * carries, which the transaction's outcome is then released only with.
 */
export const sameDeviceReturn: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('presentation_transactions').addColumn('redirect_uri', 'text').execute();
    await db.schema.alterTable('presentation_transactions').addColumn('response_code_hash', 'text').execute();
  },
};
