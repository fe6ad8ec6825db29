import { type EndedOffer, ERASURE_PARTS, type ErasureCounts, type ErasureOutcome } from '../../ports/account-erasure-store.ts';
import type { HolderData } from './holder-data.ts';

/** What the erasure asks of the owners beyond the registry's rules: each through its owner. */
export interface ErasureOwners {
  /** The registry's parts, composed (holder-data.ts). */
  holderData: HolderData;
  /** The ids of the offers the account's wallet items point at (the wallet's view). */
  offersAddressedTo(accountId: string): Promise<string[]>;
  /** The offers module's erasure of offers (ports/offer-erasure.ts). */
  offers: {
    end(ids: readonly string[], now: number): Promise<EndedOffer[]>;
    stillNamed(ids: readonly string[]): Promise<number>;
  };
  /** The kernel's rate windows. */
  rates: { forget(keys: readonly string[]): Promise<number>; counted(keys: readonly string[]): Promise<number> };
}

const zero = (): ErasureCounts => Object.fromEntries(ERASURE_PARTS.map((p) => [p, 0])) as ErasureCounts;

/**
 * The erasure of an account's rows (docs/account.md, "Erasure"): every part the holder-data
 * registry names deleted or unlinked by its rule, by the part's owner, and the verification pass
 * that counts them all again. Run inside the erasure's unit of work: `erase` and `remaining` see
 * one state, and a failure undoes every part.
 */
export class ErasurePipeline {
  constructor(private readonly owners: ErasureOwners) {}

  /** Erases or unlinks every row of the account; `rateKeys` are its own rate-limit windows (their keys are the features'). */
  async erase(accountId: string, now: number, rateKeys: readonly string[]): Promise<ErasureOutcome> {
    const tenants = await this.owners.holderData.tenantsOf(accountId);
    // An offer made out to the account and not collected holds claims about it: end it now,
    // through the wallet items that point at it (before the erasure deletes them).
    const addressed = await this.owners.offersAddressedTo(accountId);
    const endedOffers = addressed.length === 0 ? [] : await this.owners.offers.end(addressed, now);
    const counts = zero();
    counts.offers = endedOffers.length;
    await this.owners.holderData.erase(accountId, now, counts);
    if (rateKeys.length > 0) counts.rateWindows = await this.owners.rates.forget(rateKeys);
    return { counts, tenants, endedOffers };
  }

  /** The verification pass: rows that still name the account, per part (every count 0 after `erase`). */
  async remaining(accountId: string, endedOffers: readonly EndedOffer[], rateKeys: readonly string[]): Promise<ErasureCounts> {
    const counts = zero();
    await this.owners.holderData.remaining(accountId, counts);
    if (endedOffers.length > 0) counts.offers = await this.owners.offers.stillNamed(endedOffers.map((o) => o.id));
    if (rateKeys.length > 0) counts.rateWindows = await this.owners.rates.counted(rateKeys);
    return counts;
  }
}
