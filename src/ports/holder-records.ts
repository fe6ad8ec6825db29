import type { ErasureCounts } from './account-erasure-store.ts';
import type { InventoryRow, LookupKey, SubjectPlace } from './compliance-store.ts';

/**
 * One owner's part of the holder-data registry (docs/holder-data.md): the registry's entries for
 * the tables that owner owns, and nothing else, run on its tables. Each owning module publishes its
 * part (`Module.holderRecords`); the account erasure, the account export and the data-subject
 * lookup compose every part (`Context.holderRecords`), in the one ambient transaction of the
 * caller. Each answer that the registry orders carries its entry's `position` there, so the
 * composition answers in the registry's order whichever part ran it.
 */
export interface HolderRecords {
  /** The owning module (or `kernel`) whose tables these are. */
  readonly owner: string;
  /** The positions in the registry of the entries it runs, ascending. */
  readonly positions: readonly number[];
  /** The tenants of the account's rows, in the columns that name a tenant. */
  tenantsOf(accountId: string): Promise<string[]>;
  /** Deletes or unlinks the account's rows by each entry's rule, in the registry's order: rows per erasure part. */
  erase(accountId: string, now: number): Promise<Partial<ErasureCounts>>;
  /** The rows that still name the account in the entries an erasure deletes or unlinks, per part. */
  remaining(accountId: string): Promise<Partial<ErasureCounts>>;
  /**
   * Each entry that holds one of the identifiers, with its row count (never a row), leaving out
   * the rows `leftOut` names.
   */
  lookup(keys: LookupKeys, leftOut?: LeftOut): Promise<Array<Placed<SubjectPlace>>>;
  /** Every entry, with how many rows hold a value in its column. */
  inventory(): Promise<Array<Placed<InventoryRow>>>;
  /** The account's rows of each export section its entries give, at most `limit` each. */
  records(accountId: string, limit: number): Promise<Array<Placed<{ section: string; rows: Array<Record<string, unknown>> }>>>;
}

/** The identifiers a lookup is asked with, by kind. */
export type LookupKeys = Partial<Record<LookupKey, readonly string[]>>;

/** Rows a lookup leaves out, per table: those whose `column` is one of `ids`. */
export type LeftOut = Readonly<Record<string, { column: string; ids: readonly string[] }>>;

/** An answer with its entry's position in the registry. */
export interface Placed<T> {
  position: number;
  value: T;
}
