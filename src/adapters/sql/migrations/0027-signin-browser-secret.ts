import type { Kysely, Migration } from 'kysely';

/**
 * A sign-in ticket is collected with a secret of the browser's own (docs/account.md, "Two
 * values"): the ticket id goes into the QR code and the approve URL for the wallet, the browser
 * secret only into the browser's HttpOnly cookie, kept here by its hash. A ticket opened before
 * this migration has none and can no longer be collected; it ends within ten minutes anyway.
 */
export const signinBrowserSecret: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('signin_tickets').addColumn('browser_hash', 'text').execute();
  },
};
