import type { Db } from '../connect.ts';

/*
 * The membership module's parts of other owners' statements (docs/architecture.md, "Tables, owners
 * and views"): who is a member of which tenant, as a row source another module's read joins when
 * membership decides which of its own rows it answers, so that its ordering, limits and pages
 * count those rows only (the directory's listings, the wallet's items).
 */

/** The members active in their tenant, as rows (tenant, account_id). */
export const activeMembers = (db: Db) => db.selectFrom('members').select(['tenant', 'account_id']).where('status', '=', 'active');

/** The members of every tenant but those erased (a suspended member is still enrolled), as rows (tenant, account_id). */
export const enrolledMembers = (db: Db) =>
  db.selectFrom('members').select(['tenant', 'account_id']).where('status', '<>', 'erased');
