/**
 * A holder's erasure of its account (docs/account.md, "Erasure"). Each part is erased by the module
 * that owns its rows (the holder-data registry's parts, the offers module, the kernel's rate
 * windows: features/account/erasure-pipeline.ts), all inside the unit of work of the erasure, so
 * every part commits together or none does; the account module keeps the receipts.
 */

/** The parts of the pipeline, in the order they run; each names what it does to the account's rows. */
export const ERASURE_PARTS = [
  'offers', // offers addressed to the account, not collected: ended, their subject erased now
  'deposits', // bodies erased; each deposit's link in its tenant's chain stays, without the account
  'walletItems',
  'shareSettings',
  'sharingLog',
  'channels',
  'coinEntries',
  'members',
  'votes', // unlinked: the vote stays in its proposal's count, under an id that names nobody
  'directoryContacts',
  'directoryListings',
  'credentials', // unlinked: the credential stays revocable by its status entry; its holder key is dropped
  'presentations', // unlinked: the holder key a completed verification recorded is dropped
  'signinTickets',
  'sessions',
  'rateWindows',
  'approvals', // deleted: back-office approvals naming the account (a data-subject export and its result)
  'complianceRequests', // unlinked: a data-subject request stays as proof it was answered, without the account
] as const;

export type ErasurePart = (typeof ERASURE_PARTS)[number];
export type ErasureCounts = Record<ErasurePart, number>;

/** An offer the erasure ended before its credential was collected. */
export interface EndedOffer {
  id: string;
  tenant: string;
  typeId: string;
  redeemed: boolean;
}

export interface ErasureOutcome {
  counts: ErasureCounts;
  /** Every tenant that held something of the account, sorted. */
  tenants: string[];
  endedOffers: EndedOffer[];
}

/**
 * What the disk check found: `zeroed` (SQLite: the erased pages were written over and the
 * write-ahead log emptied), `pending` (SQLite: a reader kept the checkpoint from finishing; the
 * erasure job finishes it), `not-checked` (PostgreSQL, whose files the service cannot inspect).
 */
export type DiskState = 'zeroed' | 'pending' | 'not-checked';

/** What stays of an erasure: no account id, no name, no contact; only what was done and when. */
export interface ErasureReceipt {
  id: string;
  completedAt: number;
  counts: ErasureCounts;
  /** How many tenants held something of the account (not which). */
  tenants: number;
  disk: DiskState;
  diskCheckedAt: number | null;
}

/** The receipts of erasures: the account module's own records of them. */
export interface AccountErasureStore {
  saveReceipt(receipt: ErasureReceipt): Promise<void>;
  receipt(id: string): Promise<ErasureReceipt | undefined>;
  /** Records the disk check of a receipt. */
  markDisk(id: string, disk: DiskState, at: number): Promise<void>;
  /** Receipts whose disk check is still pending, oldest first. */
  pendingDisk(limit: number): Promise<string[]>;
}
