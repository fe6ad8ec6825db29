/** One status-list slot handed to a credential being collected. */
export interface StatusAllocation {
  credentialId: string;
  listSeq: number;
  idx: number;
}

export interface Collection {
  tenant: string;
  typeId: string;
  offerId: string;
  tokenHash: string;
  /** The distinct c_nonces the proofs carry (several proofs of a batch may share one). */
  nonces: Array<{ hash: string; expiresAt: number }>;
  holderThumbprints: string[];
  now: number;
  /** Fresh lists are this many entries, of which `listCapacity` are ever handed out. */
  listSize: number;
  listCapacity: number;
  /** Unpredictable index in [0, size). */
  randomIndex: (size: number) => number;
  newCredentialId: () => string;
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
}

export type RevocationTarget =
  | { by: 'status'; listSeq: number; idx: number }
  | { by: 'credential'; id: string }
  | { by: 'offer'; offerId: string };

/** What a revocation matched, and which of those it revoked now (the others were revoked before). */
export interface Revocation {
  matched: IssuedCredentialRecord[];
  newlyRevoked: string[];
}

/**
 * The issued-credential record and the status lists. Tenant-owned. Never holds claim values.
 * Each operation of several writes is all or nothing, also inside a unit of work.
 */
export interface IssuedCredentialStore {
  /**
   * All or nothing: record the nonces as spent (refused if one already is), spend the access
   * token, erase the offer's subject, allocate one status slot per holder key and record the
   * credentials, then run `finish` (signing). If anything fails or is refused, nothing is spent.
   */
  collect<T>(c: Collection, finish: (slots: StatusAllocation[]) => Promise<T>): Promise<CollectionResult<T>>;
  list(tenant: string, seq: number): Promise<{ size: number } | undefined>;
  revokedIndices(tenant: string, seq: number): Promise<number[]>;
  /** Sets revoked_at where it is not set yet; answers every matching credential of the tenant. */
  revoke(tenant: string, target: RevocationTarget, now: number): Promise<Revocation>;
  /** Drops the marks of spent c_nonces that have expired (they can no longer be presented). */
  pruneSpentNonces(now: number): Promise<void>;
}
