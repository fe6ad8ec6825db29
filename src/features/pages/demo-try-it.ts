/**
 * The demo page's live try-it (docs/public-pages.md, "The demo"): an anonymous visitor gets a real
 * offer of the demonstration tenant's Transit Pass, sees when a wallet has collected it, and may
 * revoke what was collected. Nothing is stored for the visitor: the page proves it made an offer
 * with a demo token, an HMAC of the offer id under a key of its own, which only this service can
 * compute and which the page keeps in script memory (never in a URL or a QR code).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import type { Random } from '../../core/random.ts';
import type { OfferStore } from '../../ports/offer-store.ts';
import type { OfferService } from '../offers/offer-service.ts';
import type { StatusService } from '../status/status-service.ts';
import { DEMO_TENANT } from '../tenants/tenant-service.ts';
import type { OfferCreated, Progress } from './demo-routes.ts';

/** The demonstration type the page offers (seeded with the demo tenant, features/credential-types/demo-types.ts). */
export const DEMO_TYPE_ID = 'transit-pass';
/** How long a demonstration offer may wait for a wallet. */
export const DEMO_OFFER_TTL_S = 15 * 60;
/** The claims the page asks a wallet to present: enough to show selective disclosure (the pass number stays home). */
export const DEMO_ASKED_CLAIMS = ['given_name', 'fare_zone', 'valid_until'] as const;
/** Who the audit log names for what the demo page does: an anonymous visitor. */
const VISITOR: Actor = { kind: 'public' };
const DAY_MS = 24 * 3600 * 1000;

export type DemoOffer = Static<typeof OfferCreated>;

export type DemoProgress = Static<typeof Progress>;

export interface DemoTryItDeps {
  offers: OfferService;
  offerStore: OfferStore;
  status: StatusService;
  urls: IssuerUrls;
  tokenKey: Buffer;
  clock: Clock;
  random: Random;
  /** Whether this deployment seeds the demonstration tenant (OPENRAIL_DEMO). */
  enabled: boolean;
}

export class DemoTryIt {
  constructor(private readonly deps: DemoTryItDeps) {}

  /** A fresh offer of a Transit Pass for a made-up rider, valid a month; no transaction code, so any wallet can take it. */
  async offer(): Promise<DemoOffer> {
    if (!this.deps.enabled) throw new ServiceError('demo_unavailable', 'This deployment runs with OPENRAIL_DEMO=off.');
    const validUntil = new Date(this.deps.clock.now() + 30 * DAY_MS).toISOString().slice(0, 10);
    const subject = {
      given_name: 'Ada',
      family_name: 'Lovelace',
      pass_number: `MT-${String(this.deps.random.int(1_000_000)).padStart(6, '0')}`,
      fare_zone: 'central',
      valid_until: validUntil,
    };
    let created: Awaited<ReturnType<OfferService['create']>>;
    try {
      created = await this.deps.offers.create(
        { tenant: DEMO_TENANT.slug, typeId: DEMO_TYPE_ID, subject, byReference: true, expiresIn: DEMO_OFFER_TTL_S },
        VISITOR,
      );
    } catch (error) {
      // An operator may have cleared the demonstration fixtures: the page says so rather than 404 unknown_tenant.
      if (error instanceof ServiceError && (error.code === 'unknown_tenant' || error.code === 'unknown_type')) {
        throw new ServiceError('demo_unavailable', 'The demonstration tenant or its Transit Pass is not on this deployment.');
      }
      throw error;
    }
    return {
      offerId: created.offerId,
      offerUri: created.offerUri,
      expiresAt: created.expiresAt,
      demoToken: this.tokenOf(created.offerId),
      vct: this.deps.urls.vct(DEMO_TENANT.slug, DEMO_TYPE_ID),
      askClaims: [...DEMO_ASKED_CLAIMS],
    };
  }

  /** Whether a wallet has collected the offer yet, and whether it can still be collected. */
  async progress(offerId: string, demoToken: string): Promise<DemoProgress> {
    const offer = await this.ownOffer(offerId, demoToken);
    // eraseAfter is the code's expiry, and once a wallet redeemed it, its access token's: past it, nothing can collect.
    return {
      collected: offer.collectedAt !== null,
      expired: offer.collectedAt === null && offer.eraseAfter <= this.deps.clock.now(),
    };
  }

  /** Revokes what a wallet collected from the offer; repeating it changes nothing. */
  async revoke(offerId: string, demoToken: string): Promise<{ revoked: number }> {
    const offer = await this.ownOffer(offerId, demoToken);
    if (offer.collectedAt === null) throw new ServiceError('not_collected');
    const { views } = await this.deps.status.revoke(DEMO_TENANT.slug, { offerId }, VISITOR, 'revoked on the demo page');
    return { revoked: views.length };
  }

  private tokenOf(offerId: string): string {
    return createHmac('sha256', this.deps.tokenKey).update(offerId).digest('base64url');
  }

  private async ownOffer(offerId: string, demoToken: string) {
    const expected = Buffer.from(this.tokenOf(offerId));
    const given = Buffer.from(demoToken);
    const offer =
      given.length === expected.length && timingSafeEqual(given, expected)
        ? await this.deps.offerStore.get(DEMO_TENANT.slug, offerId)
        : undefined;
    if (!offer) throw new ServiceError('unknown_demo');
    return offer;
  }
}
