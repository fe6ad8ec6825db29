import type { IssuerState } from './tenant-store.ts';
import type { WalletItemRecord } from './wallet-item-store.ts';

/** OID4VCI 1.0 §4.1.1: the tx_code object a wallet reads to prompt for the code. */
export interface TxCodeSpec {
  input_mode: 'numeric' | 'text';
  length: number;
  description?: string;
}

export interface OfferRecord {
  id: string;
  tenant: string;
  typeId: string;
  codeHash: string;
  refHash: string | null;
  txCode: TxCodeSpec | null;
  txCodeHash: string | null;
  txAttempts: number;
  /** Subject values, held until the credential is collected or the offer is erased. */
  subject: Record<string, unknown> | null;
  createdAt: number;
  /** The pre-authorized code must be redeemed before this. */
  expiresAt: number;
  /** The subject is erased at this time at the latest. */
  eraseAfter: number;
  redeemedAt: number | null;
  collectedAt: number | null;
}

export type { IssuerState } from './tenant-store.ts';

/**
 * Offers and the single-use artifacts they lead to. Every spend is one conditional write.
 * @tenantOwned
 */
export interface OfferStore {
  create(offer: OfferRecord): Promise<void>;
  /**
   * Puts the item of an offer addressed to an account in that account's wallet, in the offer's
   * transaction (the wallet module's statement, decision 0025).
   */
  putInWallet(item: WalletItemRecord): Promise<void>;
  get(tenant: string, id: string): Promise<OfferRecord | undefined>;
  findByCode(tenant: string, codeHash: string): Promise<OfferRecord | undefined>;
  /**
   * The issuer `tenant` (undefined when no tenant has the slug) and its offer of this code or id
   * (undefined when it has none), in one read: the token and credential endpoints' first round
   * trip (docs/scaling.md).
   */
  atIssuer(tenant: string, key: { codeHash: string } | { id: string }): Promise<{ issuer?: IssuerState; offer?: OfferRecord }>;
  findByRef(tenant: string, refHash: string): Promise<OfferRecord | undefined>;
  /**
   * Claims one transaction-code attempt before the code is compared, so concurrent guesses
   * cannot exceed the bound. False when no attempt is left.
   */
  claimTxAttempt(tenant: string, offerId: string, maxAttempts: number): Promise<boolean>;
  /**
   * Ends an unredeemed offer now (its holder declined it): the code stops working and the subject
   * is erased with the next sweep. False when the offer was already redeemed.
   */
  withdraw(tenant: string, id: string, now: number): Promise<boolean>;
  /**
   * Erases up to `limit` subjects past their erase time, of every tenant, and answers those
   * offers (one statement, so an offer collected meanwhile is not among them).
   */
  eraseDue(now: number, limit: number): Promise<ErasedOffer[]>;
}

/** An offer whose subject a sweep erased: it ended without a credential collected. */
export interface ErasedOffer {
  id: string;
  tenant: string;
  typeId: string;
  /** Whether its code had been redeemed (the access token then expired uncollected). */
  redeemed: boolean;
}
