import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlOfferErasure } from '../../adapters/sql/offers/sql-offer-erasure.ts';
import { SqlOfferStore } from '../../adapters/sql/offers/sql-offer-store.ts';
import { SqlOffersViews } from '../../adapters/sql/offers/sql-offers-views.ts';
import { defineModule } from '../../app/module.ts';
import { servesCodeFlow } from '../../core/code-flow.ts';
import { credentialTypesModule } from '../credential-types/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { OfferService } from './offer-service.ts';
import { offerRoutes } from './routes.ts';

/** Offer subjects are erased within this long of their erase time (docs/offers.md). */
const ERASE_EVERY_MS = 60 * 1000;
/** Offers erased per transaction, and transactions per run (the rest wait for the next run). */
const ERASE_BATCH = 500;
const ERASE_ROUNDS = 20;

const holderRecords = holderRecordsOf('offers');

/** Credential offers: the subject values wait here until a wallet collects them, or are erased. */
export const offersModule = defineModule({
  name: 'offers',
  groups: ['offers'],
  owns: [SqlOfferStore, SqlOffersViews, SqlOfferErasure, holderRecords],
  holderRecords,
  views: SqlOffersViews,
  async build(ctx) {
    const types = await ctx.use(credentialTypesModule);
    const tenants = await ctx.use(tenantsModule);
    const store = ctx.store(SqlOfferStore);
    // A wallet provider is trusted when its anchors are configured (OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE).
    const deployment = { trustsWallets: ctx.config.walletAttestationAnchors.length > 0 };
    const uow = ctx.unitOfWork();
    const offers = new OfferService({
      offers: store,
      uow,
      types,
      urls: ctx.urls,
      codeKey: ctx.vault.deriveKey('pre-authorized-code'),
      clock: ctx.clock,
      random: ctx.random,
      ids: ctx.ids,
      issuing: (slug) => tenants.issuing(slug),
      authorizationCodeFlow: async (slug) => servesCodeFlow(await tenants.get(slug), deployment),
    });
    const erase = async (now: number) => {
      // Each batch erases its subjects and writes their offer.expired events in one transaction.
      for (let round = 0; round < ERASE_ROUNDS; round++) {
        const erased = await uow.run(async ({ events }) => {
          const ended = await store.eraseDue(now, ERASE_BATCH);
          for (const offer of ended) {
            await events.emit({
              type: 'offer.expired',
              tenant: offer.tenant,
              data: { offerId: offer.id, typeId: offer.typeId, redeemed: offer.redeemed },
            });
          }
          return ended.length;
        });
        if (erased < ERASE_BATCH) break;
      }
      // Collection erases subjects too (in its own transaction): the log pages that held them go here.
      await ctx.database.dropFreedBytes();
    };
    return {
      // `erasure`: the account erasure ends the offers made out to the account (ports/offer-erasure.ts).
      services: { offers, store, erasure: ctx.store(SqlOfferErasure) },
      routes: () => [offerRoutes(offers)],
      jobs: [{ name: 'offers.erase-subjects', everyMs: ERASE_EVERY_MS, run: erase }],
    };
  },
});
