import type { Static } from '@sinclair/typebox';
import type { Actor } from '../../core/actor.ts';
import { checkSubject } from '../../core/claims/subject.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { codeFromHandle, handleOfOffer, PRE_AUTHORIZED_GRANT, txCodeHash } from '../../core/pre-authorized-code.ts';
import type { Random } from '../../core/random.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import { isDemoSlug } from '../../core/slug.ts';
import type { OfferRecord, OfferStore, TxCodeSpec } from '../../ports/offer-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { WalletItemRecord } from '../../ports/wallet-item-store.ts';
import { configurationsOf } from '../credential-types/formats.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import type { CredentialOffer as CredentialOfferSchema, OfferCreated } from './routes.ts';

export const OFFER_TTL_DEFAULT_S = 900;
export const OFFER_TTL_MIN_S = 60;
export const OFFER_TTL_MAX_S = 7 * 24 * 3600;
export const TX_CODE_DEFAULT_LENGTH = 6;
/** Unambiguous characters for text transaction codes (no 0/O, 1/I/L). */
const TX_TEXT_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export interface OfferRequest {
  tenant: string;
  typeId: string;
  subject: Record<string, unknown>;
  txCode?: boolean | { length?: number; inputMode?: 'numeric' | 'text'; description?: string };
  byReference?: boolean;
  expiresIn?: number;
  /** Addresses the offer to this holder account's wallet (docs/wallet.md); implies byReference. */
  accountId?: string;
}

export type CreatedOffer = Static<typeof OfferCreated>;

/** OID4VCI 1.0 §4.1.1 Credential Offer object. */
export type CredentialOffer = Static<typeof CredentialOfferSchema>;

export interface OfferServiceDeps {
  offers: OfferStore;
  uow: UnitOfWork;
  types: TypeService;
  urls: IssuerUrls;
  /** Keys the derivation of a by-reference offer's code from its handle. */
  codeKey: Buffer;
  clock: Clock;
  random: Random;
  ids: Ids;
  /** Refuses a suspended tenant with `tenant_suspended` (TenantService.issuing): it offers nothing. */
  issuing: (tenant: string) => Promise<string>;
  /** Whether the tenant serves the authorization code flow (core/code-flow.ts: HAIP issuance on, a wallet provider trusted). */
  authorizationCodeFlow: (tenant: string) => Promise<boolean>;
}

/** Credential offers (docs/offers.md). */
export class OfferService {
  constructor(private readonly deps: OfferServiceDeps) {}

  async create(req: OfferRequest, actor: Actor): Promise<CreatedOffer> {
    // The tenant first: an unknown one is `unknown_tenant`, not a type it could never have.
    await this.deps.issuing(req.tenant);
    const type = await this.deps.types.get(req.tenant, req.typeId);
    checkSubject(type.claims, req.subject);
    const now = this.deps.clock.now();
    const expiresAt = now + (req.expiresIn ?? OFFER_TTL_DEFAULT_S) * 1000;
    const id = this.deps.ids.mint('offer');
    const handle = req.accountId ? handleOfOffer(this.deps.codeKey, id) : req.byReference ? this.deps.random.text(32) : undefined;
    const code = handle ? codeFromHandle(this.deps.codeKey, handle) : newToken(this.deps.random, 'pac');
    const tx = req.txCode ? newTxCode(this.deps.random, req.txCode === true ? {} : req.txCode) : undefined;
    const offer: OfferRecord = {
      id,
      tenant: req.tenant,
      typeId: type.typeId,
      codeHash: hashToken(code),
      refHash: handle ? hashToken(handle) : null,
      txCode: tx?.spec ?? null,
      txCodeHash: tx ? txCodeHash(code, tx.value) : null,
      txAttempts: 0,
      subject: req.subject,
      createdAt: now,
      expiresAt,
      eraseAfter: expiresAt,
      redeemedAt: null,
      collectedAt: null,
    };
    const item = req.accountId ? addressedItem(this.deps.ids.mint('item'), offer, req.accountId, type.name, now) : undefined;
    await this.deps.uow.run(async ({ audit }) => {
      await this.deps.offers.create(offer);
      if (item) await this.deps.offers.putInWallet(item);
      const detail = {
        typeId: offer.typeId,
        expiresAt: new Date(expiresAt).toISOString(),
        ...(item ? { itemId: item.id } : {}),
      };
      await audit.append({ actor, action: 'offer.created', tenant: offer.tenant, target: offer.id, detail }, [
        { type: 'offer.created', tenant: offer.tenant, data: { offerId: offer.id, ...detail } },
      ]);
    });
    return {
      offerId: offer.id,
      offerUri: handle ? this.uriByReference(offer.tenant, handle) : await this.uriByValue(offer, code),
      expiresAt: new Date(expiresAt).toISOString(),
      ...(tx ? { txCode: tx.value } : {}),
      ...(item ? { itemId: item.id } : {}),
    };
  }

  /** The URI of an offer addressed to a wallet, answered again whenever its holder accepts it. */
  addressedUri(tenant: string, offerId: string): string {
    return this.uriByReference(tenant, handleOfOffer(this.deps.codeKey, offerId));
  }

  /**
   * Ends an unredeemed offer now (its holder declined it in the wallet): the code stops working and
   * the subject is erased with the next sweep. Inside a unit of work it joins it. False when the
   * offer was already redeemed.
   */
  withdraw(tenant: string, offerId: string, now: number): Promise<boolean> {
    return this.deps.offers.withdraw(tenant, offerId, now);
  }

  private uriByReference(tenant: string, handle: string): string {
    const uri = `${this.deps.urls.issuer(tenant)}/credential-offer/${handle}`;
    return `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(uri)}`;
  }

  private async uriByValue(offer: OfferRecord, code: string): Promise<string> {
    const object = await this.offerObject(offer, code);
    return `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(object))}`;
  }

  /** GET credential_offer_uri: the offer object while its code is unredeemed and unexpired. */
  async byReference(tenant: string, handle: string): Promise<CredentialOffer> {
    const offer = await this.deps.offers.findByRef(tenant, hashToken(handle));
    if (!offer || offer.redeemedAt !== null || offer.expiresAt <= this.deps.clock.now()) {
      throw new ServiceError('unknown_offer', 'This credential offer is unknown, already used or expired.');
    }
    return this.offerObject(offer, codeFromHandle(this.deps.codeKey, handle));
  }

  /**
   * The offer object. Where the tenant serves the authorization code flow, an offer without a
   * transaction code offers that grant too, its `issuer_state` being the pre-authorized code
   * (holding either is holding the offer); one with a transaction code is pre-authorized only,
   * the flow having no place for the code the holder got apart (docs/haip.md).
   */
  private async offerObject(offer: OfferRecord, code: string): Promise<CredentialOffer> {
    const authorizationCode = !offer.txCode && (await this.deps.authorizationCodeFlow(offer.tenant));
    // One configuration per format the type is offered in; the wallet collects the one it takes (docs/mdoc.md).
    const type = await this.deps.types.get(offer.tenant, offer.typeId);
    return {
      credential_issuer: this.deps.urls.issuer(offer.tenant),
      credential_configuration_ids: configurationsOf(type).map((c) => c.id),
      grants: {
        [PRE_AUTHORIZED_GRANT]: { 'pre-authorized_code': code, ...(offer.txCode ? { tx_code: offer.txCode } : {}) },
        ...(authorizationCode ? { authorization_code: { issuer_state: code } } : {}),
      },
    };
  }
}

/** The wallet item of an offer addressed to an account: it lives and expires with the offer. */
function addressedItem(id: string, offer: OfferRecord, accountId: string, title: string, now: number): WalletItemRecord {
  return {
    id,
    tenant: offer.tenant,
    accountId,
    kind: 'offer',
    ref: offer.id,
    title,
    state: 'pending',
    demo: isDemoSlug(offer.tenant),
    createdAt: now,
    updatedAt: now,
    expiresAt: offer.expiresAt,
  };
}

function newTxCode(random: Random, opts: { length?: number; inputMode?: 'numeric' | 'text'; description?: string }) {
  const length = opts.length ?? TX_CODE_DEFAULT_LENGTH;
  const mode = opts.inputMode ?? 'numeric';
  const alphabet = mode === 'numeric' ? '0123456789' : TX_TEXT_ALPHABET;
  const value = Array.from({ length }, () => alphabet[random.int(alphabet.length)]).join('');
  const spec: TxCodeSpec = { input_mode: mode, length, ...(opts.description ? { description: opts.description } : {}) };
  return { value, spec };
}
