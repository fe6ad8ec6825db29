import type { ErasedOffer } from './offer-store.ts';

/**
 * The offers module's part of an account's erasure (docs/account.md, "Erasure"): an offer made out
 * to the account and not collected holds claims about it, so the erasure ends it at once. Called
 * inside the erasure's unit of work, it writes in its transaction.
 */
export interface OfferErasure {
  /**
   * Ends the offers among `ids` that still hold a subject: the subject erased, the offer expired
   * and due for erasure at `now` (an earlier expiry stays). Answers those it ended.
   */
  end(ids: readonly string[], now: number): Promise<ErasedOffer[]>;
  /** How many of `ids` still hold a subject (the erasure's verification pass). */
  stillNamed(ids: readonly string[]): Promise<number>;
}
