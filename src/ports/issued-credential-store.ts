import type { EventInput } from '../core/events.ts';
/** One status-list slot handed to a credential being collected. */
export interface StatusAllocation {
  credentialId: string;
  listSeq: number;
  idx: number;
}

/** A status list to draw one index from: its sequence number and how many entries it has. */
export interface ListRef {
  listSeq: number;
  size: number;
}

/** Entries of one list reserved for one process to hand out (decision 0007, blocks). */
export interface StatusReservation extends ListRef {
  granted: number;
}

/** How a list the store opens is shaped: `size` entries, of which at most `capacity` are handed out. */
export interface ListShape {
  size: number;
  capacity: number;
}

export interface Collection {
  tenant: string;
  typeId: string;
  offerId: string;
  tokenHash: string;
  /** The distinct c_nonces the proofs carry (several proofs of a batch may share one). */
  nonces: Array<{ hash: string; expiresAt: number }>;
  holderThumbprints: string[];
  /** One list per holder key, each entry reserved beforehand (reserveSlots). */
  lists: ListRef[];
  now: number;
  /** When the credentials stop being presentable (their type's validity), or null. */
  expiresAt: number | null;
  /** Unpredictable index in [0, size). */
  randomIndex: (size: number) => number;
  newCredentialId: () => string;
  /** Events recorded with the collection, in its outbox, all or nothing with it. */
  events?: (slots: StatusAllocation[]) => EventInput[];
}

export type CollectionResult<T> = { ok: true; value: T } | { ok: false; reason: 'nonce' | 'token' };

export interface IssuedCredentialRecord {
  id: string;
  tenant: string;
  typeId: string;
  offerId: string;
  listSeq: number;
  idx: number;
  holderThumbprint: string;
  issuedAt: number;
  revokedAt: number | null;
  /** The latest moment it can be presented; null: it does not expire (docs/operations.md, "Expiry"). */
  expiresAt: number | null;
}

export type RevocationTarget =
  | { by: 'status'; listSeq: number; idx: number }
  | { by: 'credential'; id: string }
  | { by: 'offer'; offerId: string }
  /** Several credentials by id (a bulk revocation, at most a thousand at once). */
  | { by: 'credentials'; ids: readonly string[] };

/** What a revocation matched, and which of those it revoked now (the others were revoked before). */
export interface Revocation {
  matched: IssuedCredentialRecord[];
  newlyRevoked: string[];
}

/**
 * The issued-credential record and the status lists. Tenant-owned. Never holds claim values.
 * Each operation of several writes is all or nothing, also inside a unit of work.
 * @tenantOwned
 */
export interface IssuedCredentialStore {
  /**
   * Raises the count of handed-out entries of the tenant's newest list by up to `want`, as far as
   * its capacity allows, opening the next list (shaped `shape`) when it is full; answers what was
   * granted. One atomic step: no entry is ever granted twice, across processes.
   */
  reserveSlots(tenant: string, want: number, shape: ListShape, now: number): Promise<StatusReservation>;
  /**
   * All or nothing: record the nonces as spent (refused if one already is), spend the access
   * token, erase the offer's subject, draw one random free index per holder key in its reserved
   * list and record the credentials and the collection's events; `finish` (signing) makes what
   * is answered from the slots drawn. If anything fails or is refused, nothing is spent. `finish`
   * may run more than once (a drawn index another collection took meanwhile is drawn again) or
   * before the writes (PostgreSQL writes them all in one statement, docs/scaling.md), so it must
   * only compute.
   */
  collect<T>(c: Collection, finish: (slots: StatusAllocation[]) => Promise<T>): Promise<CollectionResult<T>>;
  /** A list's size and revision (raised by every revocation that sets one of its bits). */
  list(tenant: string, seq: number): Promise<{ size: number; revision: number } | undefined>;
  revokedIndices(tenant: string, seq: number): Promise<number[]>;
  /** Raises the revision of every list of the tenant, so that every process signs each again (a key rotation); answers how many. */
  touchLists(tenant: string): Promise<number>;
  /**
   * Sets revoked_at where it is not set yet, raising the revision of each list that changed;
   * answers every matching credential of the tenant.
   */
  revoke(tenant: string, target: RevocationTarget, now: number): Promise<Revocation>;
  /** Drops the marks of spent c_nonces that have expired (they can no longer be presented). */
  pruneSpentNonces(now: number): Promise<void>;
}

/**
 * What another module (status) changes of the record through the issuance module's services:
 * revocations and a list's revision. Ambient: called inside a unit of work, it joins it.
 */
export type LedgerWrites = Pick<IssuedCredentialStore, 'revoke' | 'touchLists'>;
