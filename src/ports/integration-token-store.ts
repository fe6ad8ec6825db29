import type { IntegrationScope, RateClass } from '../core/integration-scopes.ts';

/**
 * Tenant-scoped integration tokens (docs/integration.md): minted by the provisioning ceremony
 * (an approval of the desk's `token.mint`) or by a partner in its portal. Methods that read or change one take `within`: the tenant a scoped
 * operator is held to, or null for a platform operator.
 */
export interface IntegrationTokenRecord {
  id: string;
  tenant: string;
  label: string;
  scopes: IntegrationScope[];
  rateClass: RateClass;
  /** SHA-256 of the token; the token itself is never stored. */
  tokenHash: string;
  state: 'active' | 'revoked';
  requestId: string | null;
  createdBy: string;
  createdAt: number;
  rotatedAt: number | null;
  revokedAt: number | null;
  revokedBy: string | null;
  /** The partner that minted it in its portal, inside its grant (docs/partners.md); null for a provisioned token. */
  partnerId: string | null;
}

/** A page of tokens, newest first: (createdAt, id) descending. */
export interface Page {
  tenant?: string;
  /** Only the keys this partner minted. */
  partnerId?: string;
  limit: number;
  /** createdAt window, milliseconds: since inclusive, until exclusive. */
  since?: number;
  until?: number;
  /** The last token of the page before: [createdAt, id]. */
  after?: readonly [number, string];
}

/** @tenantOwned */
export interface IntegrationTokenStore {
  /** The active token with this hash, whatever its tenant: authentication looks keys up by hash. */
  findActive(tokenHash: string): Promise<IntegrationTokenRecord | undefined>;
  createToken(token: IntegrationTokenRecord): Promise<void>;
  token(id: string, within: string | null): Promise<IntegrationTokenRecord | undefined>;
  tokens(within: string | null, page: Page): Promise<IntegrationTokenRecord[]>;
  /** How many active keys the partner holds (all of them, not a page). */
  activePartnerKeys(partnerId: string): Promise<number>;
  /** Revokes an active token; false when unknown or already revoked. */
  revoke(id: string, within: string | null, by: string, now: number): Promise<boolean>;
  /**
   * Revokes the partner's active keys, but those `keep` accepts (a grant narrowed: the keys still
   * inside it); answers the ids revoked.
   */
  revokePartnerKeys(
    partnerId: string,
    by: string,
    now: number,
    keep?: (token: IntegrationTokenRecord) => boolean,
  ): Promise<string[]>;
  /** Replaces an active token's hash: the old token stops working at once. */
  rotate(id: string, within: string | null, tokenHash: string, now: number): Promise<boolean>;
}

/** Request budgets per key, shared by every process on the database. */
/** A counted window: its key, when it started, and the count it allows. */
export interface RateWindow {
  key: string;
  windowStart: number;
  quota: number;
}

export interface RateBudget {
  /** Counts one request of `key` in the window starting at `windowStart`, in one statement; answers the count. */
  consume(key: string, windowStart: number): Promise<number>;
  /**
   * One request counted in a chain of windows, as one step (one statement on PostgreSQL,
   * docs/scaling.md): nothing is counted when `ceiling` has already counted its quota; otherwise
   * each window of `chain` counts one in turn, and one whose count passes its quota ends the
   * chain (the later ones are not counted). Answers whether the ceiling stood in the way, and each
   * window's count (undefined for one not counted).
   */
  consumeChain(
    ceiling: RateWindow,
    chain: readonly RateWindow[],
  ): Promise<{ ceilingReached: boolean; counts: Array<number | undefined> }>;
  /** How many requests of `key` the window starting at `windowStart` has counted (0 for another window). */
  used(key: string, windowStart: number): Promise<number>;
  /** Deletes the counts of windows that started before `before`; answers how many. */
  prune(before: number): Promise<number>;
  /** Deletes the windows of these keys, whatever their start (an account's, when it is erased); answers how many. */
  forget(keys: readonly string[]): Promise<number>;
  /** How many windows these keys have (the erasure's verification pass). */
  counted(keys: readonly string[]): Promise<number>;
}

/**
 * What the partners module changes of a partner's keys through the integration module's services,
 * in its own units of work (ambient: the calls join them); `activePartnerKeys` is the count a mint
 * is checked against under the partner's lock.
 */
export type PartnerKeyWrites = Pick<
  IntegrationTokenStore,
  'createToken' | 'activePartnerKeys' | 'revoke' | 'rotate' | 'revokePartnerKeys'
>;
