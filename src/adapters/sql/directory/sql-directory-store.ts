import { sql } from 'kysely';
import type { ContactKind } from '../../../core/directory-entry.ts';
import { nameKey } from '../../../core/directory-entry.ts';
import type { ContactRecord, DirectoryStore, FoundListing, ListingRecord, SearchPage } from '../../../ports/directory-store.ts';
import type { Db } from '../connect.ts';
import { activeMembers } from '../membership/membership-statements.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { tenantNames } from '../tenants/tenants-statements.ts';

export class SqlDirectoryStore implements DirectoryStore {
  constructor(private readonly db: Db) {}

  async put(listing: ListingRecord, contacts: ContactRecord[]): Promise<void> {
    await atomically(this.db, async (trx) => {
      await trx
        .insertInto('directory_listings')
        .values({
          account_id: listing.accountId,
          community: listing.community,
          display_name: listing.displayName,
          name_key: nameKey(listing.displayName),
          created_at: listing.createdAt,
          updated_at: listing.updatedAt,
        })
        .onConflict((oc) =>
          oc.column('account_id').doUpdateSet({
            community: listing.community,
            display_name: listing.displayName,
            name_key: nameKey(listing.displayName),
            updated_at: listing.updatedAt,
          }),
        )
        .execute();
      await trx.deleteFrom('directory_contacts').where('account_id', '=', listing.accountId).execute();
      if (contacts.length > 0) {
        await trx
          .insertInto('directory_contacts')
          .values(contacts.map((c) => ({ account_id: listing.accountId, entry: c.entry, kind: c.kind, pepper_id: c.pepperId })))
          .execute();
      }
    });
  }

  async remove(accountId: string): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      await trx.deleteFrom('directory_contacts').where('account_id', '=', accountId).execute();
      const gone = await trx.deleteFrom('directory_listings').where('account_id', '=', accountId).executeTakeFirst();
      return Number(gone.numDeletedRows) === 1;
    });
  }

  async mine(accountId: string): Promise<{ listing: ListingRecord; contacts: ContactRecord[] } | undefined> {
    const row = await this.db.selectFrom('directory_listings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    if (!row) return undefined;
    const contacts = await this.db
      .selectFrom('directory_contacts')
      .select(['kind', 'entry', 'pepper_id'])
      .where('account_id', '=', accountId)
      .orderBy('kind')
      .orderBy('entry')
      .execute();
    return {
      listing: {
        accountId: row.account_id,
        community: row.community,
        displayName: row.display_name,
        createdAt: Number(row.created_at),
        updatedAt: Number(row.updated_at),
      },
      contacts: contacts.map((c) => ({ kind: c.kind as ContactKind, entry: c.entry, pepperId: c.pepper_id })),
    };
  }

  /**
   * Listings in `communities`, joined with their community's name and the holder's active
   * membership in it (the tenants and membership modules' row sources). The scope is a condition
   * of the query itself, so ordering and limits apply to in-scope listings only. An empty scope
   * has no listing; the callers answer it without a query (`in ()` is a syntax error on PostgreSQL).
   */
  private visible(communities: readonly string[]) {
    return this.db
      .selectFrom('directory_listings as l')
      .innerJoin(activeMembers(this.db).as('m'), (j) =>
        j.onRef('m.tenant', '=', 'l.community').onRef('m.account_id', '=', 'l.account_id'),
      )
      .innerJoin(tenantNames(this.db).as('t'), 't.slug', 'l.community')
      .where('l.community', 'in', [...communities])
      .select(['l.account_id', 'l.community', 'l.display_name', 'l.name_key', 't.name as community_name']);
  }

  async lookup(entry: string, pepperId: string, communities: readonly string[], limit: number): Promise<FoundListing[]> {
    if (communities.length === 0) return [];
    const rows = await this.visible(communities)
      .innerJoin('directory_contacts as c', 'c.account_id', 'l.account_id')
      .where('c.entry', '=', entry)
      .where('c.pepper_id', '=', pepperId)
      .orderBy('l.name_key')
      .orderBy('l.account_id')
      .limit(limit)
      .execute();
    return rows.map(found);
  }

  async byCommunity(communities: readonly string[], page: SearchPage): Promise<Array<FoundListing & { nameKey: string }>> {
    if (communities.length === 0) return [];
    return this.paged(this.visible(communities), page);
  }

  async byName(
    prefix: string,
    communities: readonly string[],
    page: SearchPage,
  ): Promise<Array<FoundListing & { nameKey: string }>> {
    if (communities.length === 0) return [];
    // The prefix's own % _ and \ are escaped, so nothing in a query can widen it.
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.paged(this.visible(communities).where(sql<boolean>`l.name_key like ${pattern} escape '\\'`), page);
  }

  // One query for the whole scope: the keyset condition and the ORDER BY compare text the same way
  // (the database's collation), so consecutive pages neither skip nor repeat a listing.
  private async paged(q: ReturnType<SqlDirectoryStore['visible']>, page: SearchPage) {
    let query = q;
    const after = page.after;
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('l.name_key', '>', after.nameKey),
          eb.and([eb('l.name_key', '=', after.nameKey), eb('l.account_id', '>', after.accountId)]),
        ]),
      );
    }
    const rows = await query.orderBy('l.name_key').orderBy('l.account_id').limit(page.limit).execute();
    return rows.map((r) => ({ ...found(r), nameKey: r.name_key }));
  }
}

const found = (r: { account_id: string; community: string; display_name: string; community_name: string }): FoundListing => ({
  accountId: r.account_id,
  community: r.community,
  communityName: r.community_name,
  displayName: r.display_name,
});
