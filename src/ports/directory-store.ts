import type { ContactKind } from '../core/directory-entry.ts';

/**
 * The holder directory (docs/directory.md). A listing is its account's own: every write names the
 * account, and reads that cross accounts (lookup, searches) answer only listings whose holder is
 * still an active member of the listing's community.
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

export interface SearchPage {
  limit: number;
  /** Listings after this (name key, account id) in search order. */
  after?: { nameKey: string; accountId: string };
}

export interface DirectoryStore {
  /** Creates or replaces the account's listing and its contacts, all or nothing. */
  put(listing: ListingRecord, contacts: ContactRecord[]): Promise<void>;
  /** Deletes the account's listing and contacts; false when it had none. */
  remove(accountId: string): Promise<boolean>;
  mine(accountId: string): Promise<{ listing: ListingRecord; contacts: ContactRecord[] } | undefined>;
  lookup(entry: string, pepperId: string, limit: number): Promise<FoundListing[]>;
  byCommunity(community: string, page: SearchPage): Promise<Array<FoundListing & { nameKey: string }>>;
  /** Listings whose name key starts with `prefix`, optionally in one community. */
  byName(prefix: string, community: string | undefined, page: SearchPage): Promise<Array<FoundListing & { nameKey: string }>>;
}
