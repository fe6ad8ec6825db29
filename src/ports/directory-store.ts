import type { ContactKind } from '../core/directory-entry.ts';

/**
 * The holder directory (docs/directory.md). A listing is its account's own: every write names the
 * account, and reads that cross accounts (lookup, searches) answer only listings in the
 * communities they are given whose holder is still an active member of the listing's community.
 */
export interface ListingRecord {
  accountId: string;
  community: string;
  displayName: string;
  createdAt: number;
  updatedAt: number;
}

export interface ContactRecord {
  kind: ContactKind;
  entry: string;
  pepperId: string;
}

export interface FoundListing {
  accountId: string;
  community: string;
  communityName: string;
  displayName: string;
}

/** Search order: name key, then account id, as the database compares text. */
export interface SearchPage {
  limit: number;
  /** Listings after this (name key, account id) in search order. */
  after?: { nameKey: string; accountId: string };
}

/** @tenantOwned */
export interface DirectoryStore {
  /** Creates or replaces the account's listing and its contacts, all or nothing. */
  put(listing: ListingRecord, contacts: ContactRecord[]): Promise<void>;
  /** Deletes the account's listing and contacts; false when it had none. */
  remove(accountId: string): Promise<boolean>;
  mine(accountId: string): Promise<{ listing: ListingRecord; contacts: ContactRecord[] } | undefined>;
  /*
   * The reads of other holders' listings take their scope, `communities`, and answer only listings
   * in those communities: the filter is part of the query, so a page or a limit counts only listings
   * in scope and is one query, however many communities the scope holds. The caller decides the
   * scope (the service: the caller's own communities) and passes at least one; an empty scope
   * answers nothing.
   */
  /** The first `limit` listings in `communities` carrying the entry, in search order. */
  lookup(entry: string, pepperId: string, communities: readonly string[], limit: number): Promise<FoundListing[]>;
  /** The listings in `communities`, in search order. */
  byCommunity(communities: readonly string[], page: SearchPage): Promise<Array<FoundListing & { nameKey: string }>>;
  /** The listings in `communities` whose name key starts with `prefix`, in search order. */
  byName(prefix: string, communities: readonly string[], page: SearchPage): Promise<Array<FoundListing & { nameKey: string }>>;
}
