/**
 * The authorization code flow of an issuer whose HAIP issuance is on (docs/haip.md, "Issuance"):
 * the wallet pushes its request (PAR, with PKCE S256 and its wallet attestation), the holder's
 * browser opens it at the authorization endpoint, the issuer approves (its sign-in hook, or the
 * holder on the approval page for an offer or at a demonstration tenant), the wallet gets a code
 * back at its redirect_uri with `iss` (RFC 9207), and redeems it at the token endpoint with the
 * PKCE verifier, the same wallet's attestation and a DPoP proof, for a DPoP-bound access token.
 *
 * Every credential of the flow is issued from an offer, as the pre-authorized flow's are: one the
 * tenant made (named by `issuer_state`), or one made when the issuer approves, with the subject
 * it gives. From the access token on, both flows are one.
 */
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import type { Random } from '../../core/random.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import { isDemoSlug } from '../../core/slug.ts';
import type {
  AuthorizationRequestRecord,
  AuthorizationRequestStore,
  OpeningIssuer,
} from '../../ports/authorization-request-store.ts';
import type { CredentialTypeRecord } from '../../ports/credential-type-store.ts';
import type { OfferRecord, OfferStore } from '../../ports/offer-store.ts';
import type { TenantRow } from '../../ports/tenant-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import { parseConfigurationId } from '../credential-types/formats.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import type { OfferService } from '../offers/offer-service.ts';
import { assertIssuing, type TenantService } from '../tenants/tenant-service.ts';
import { CodeRedemption, popMark, popUsed, servedSlug } from './code-redemption.ts';
import { exampleSubject } from './example-subject.ts';
import { authorizationServerMetadata } from './metadata.ts';
import { instanceKeyThumbprint, type OauthChecks } from './oauth-checks.ts';
import { type RequestSeen, single } from './oauth-requests.ts';
import { pushRefused, readPushedRequest } from './pushed-request.ts';
import type { TokenResponse, TokenService } from './token-service.ts';

/** RFC 9126 §2.2: a pushed request's request_uri is short-lived. */
export const REQUEST_URI_TTL_S = 60;
/** How long a holder has, from opening the request in the browser, to be approved. */
export const SESSION_TTL_S = 10 * 60;
/** An authorization code is redeemed within this (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const CODE_TTL_S = 60;
const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** What the authorization endpoint shows the browser that opened a request. */
export type Opening = { record: AuthorizationRequestRecord; issuer: OpeningIssuer; browserSecret: string } & (
  | { mode: 'offer' | 'demo'; type: CredentialTypeRecord }
  | { mode: 'hook'; location: string }
);

const ended = (message = 'This authorization request is unknown, expired or finished; start again from your wallet.') =>
  new ServiceError('authorization_ended', message);

export interface AuthorizationDeps {
  /** The requests, and with them the wallet attestations' proofs of possession already used: each is taken once. */
  store: AuthorizationRequestStore;
  uow: UnitOfWork;
  offers: OfferStore;
  offerService: Pick<OfferService, 'create'>;
  types: Pick<TypeService, 'find'>;
  /** The issuer, read where a page's write did not find the request it moves (to name what is wrong). */
  tenants: Pick<TenantService, 'get'>;
  tokens: TokenService;
  checks: OauthChecks;
  urls: IssuerUrls;
  clock: Clock;
  random: Random;
  ids: Ids;
}

export class AuthorizationService {
  private readonly redemption: CodeRedemption;

  constructor(private readonly deps: AuthorizationDeps) {
    this.redemption = new CodeRedemption(deps);
  }

  /**
   * POST /par (RFC 9126) at issuer `slug`: checks the issuer (unknown, suspended, not serving the
   * flow), the request and the wallet, stores it, answers its request_uri. The issuer and the
   * offer an `issuer_state` names are one read, the request and its proof's mark one write
   * (docs/scaling.md).
   */
  async push(slug: string, form: Record<string, string>, seen: RequestSeen) {
    const read = await this.deps.offers.atIssuer(slug, { codeHash: hashToken(form.issuer_state ?? '') });
    assertIssuing(slug, read.issuer, pushRefused);
    const tenant = { slug, ...read.issuer };
    servedSlug(tenant, this.deps.checks);
    const metadata = authorizationServerMetadata(this.deps.urls, tenant);
    if (form.request !== undefined || form.request_uri !== undefined) {
      throw pushRefused('Send the authorization request as form parameters; request objects are not taken here.');
    }
    this.deps.checks.checkAttestationShape(header(seen, 'oauth-client-attestation'));
    if (form.dpop_jkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(form.dpop_jkt)) {
      throw pushRefused('dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters).');
    }
    // A DPoP proof at PAR names the key the token request must use (no server nonce asked here).
    const proven = await this.deps.checks.checkDpop(slug, seen, { required: false, nonce: false });
    if (proven && form.dpop_jkt !== undefined && proven !== form.dpop_jkt) {
      throw new ServiceError('invalid_dpop_proof', 'dpop_jkt is not the thumbprint of the DPoP proof’s key.');
    }
    const dpopJkt = proven ?? form.dpop_jkt ?? null;
    // The wallet authenticates by its attestation (attest_jwt_client_auth), for the client it names.
    const attested = (await this.deps.checks.clientAttestation(seen, metadata.issuer, form.client_id)).payload;
    const pushed = readPushedRequest(form);
    // An offer's issuer_state names the credential; scope or authorization_details, when sent too, must agree.
    const offer = pushed.issuerState === undefined ? undefined : this.openOffer(read.offer);
    const configurationIds = pushed.configurationIds ?? (offer ? [offer.typeId] : undefined);
    if (!configurationIds) throw pushRefused('Name the credential configuration in scope or authorization_details.');
    const named = configurationIds.map(parseConfigurationId);
    const typeId = named[0]?.typeId ?? '';
    if (named.some((n) => n.typeId !== typeId) || new Set(configurationIds).size !== configurationIds.length) {
      throw pushRefused('The configurations named must be the formats of one credential type, each once.');
    }
    const type = await this.deps.types.find(slug, typeId);
    const unknown = configurationIds.find((id) => !type?.formats.includes(parseConfigurationId(id).format));
    if (!type || unknown !== undefined) {
      throw pushRefused(`This issuer has no credential configuration "${(unknown ?? typeId).slice(0, 80)}".`);
    }
    if (offer && type.typeId !== offer.typeId) {
      throw pushRefused('The offer of this issuer_state is for another credential configuration.');
    }
    if (!offer && !tenant.signInUrl && !isDemoSlug(slug)) {
      throw new ServiceError(
        'authorization_flow_off',
        'This issuer starts the authorization code flow from its offers only: send the offer’s issuer_state.',
      );
    }
    const requestUri = `${REQUEST_URI_PREFIX}${this.deps.random.text(32)}`;
    const now = this.deps.clock.now();
    const record: AuthorizationRequestRecord = {
      id: this.deps.ids.mint('authorization'),
      tenant: slug,
      requestUriHash: hashToken(requestUri),
      clientId: pushed.clientId,
      redirectUri: pushed.redirectUri,
      state: pushed.state,
      codeChallenge: pushed.codeChallenge,
      typeId: type.typeId,
      attestationJkt: instanceKeyThumbprint(attested.cnf.jwk),
      dpopJkt,
      offerId: offer?.id ?? null,
      phase: 'pushed',
      browserHash: null,
      codeHash: null,
      continueHash: null,
      createdAt: now,
      expiresAt: now + REQUEST_URI_TTL_S * 1000,
    };
    // The proof of possession is taken once, with the request it let in.
    const pop = popMark(header(seen, 'oauth-client-attestation-pop') as string, now);
    if (!(await this.deps.store.push(record, pop))) throw popUsed();
    return { request_uri: requestUri, expires_in: REQUEST_URI_TTL_S };
  }

  /**
   * GET /authorize: the browser opens a pushed request, once (its request_uri is spent), and is
   * given a secret for its cookie: only that browser may approve, continue or decline it. The
   * issuer is checked and read by the opening's one write; only when that write finds nothing is
   * the tenant read, to refuse as unknown or not serving the flow before calling the request ended.
   */
  async open(slug: string, clientId: string, requestUri: string): Promise<Opening> {
    const browserSecret = this.deps.random.text(32);
    const now = this.deps.clock.now();
    const opened = this.deps.checks.trustsWallets
      ? await this.deps.store.open(
          slug,
          hashToken(requestUri),
          clientId,
          hashToken(browserSecret),
          now,
          now + SESSION_TTL_S * 1000,
        )
      : undefined;
    if (!opened) {
      servedSlug(await this.deps.tenants.get(slug), this.deps.checks);
      throw ended();
    }
    const { record, issuer } = opened;
    const type = await this.deps.types.find(slug, record.typeId);
    if (!type) throw ended('The credential type of this request is no longer issued.');
    const opening = { record, issuer, browserSecret };
    if (record.offerId) return { ...opening, mode: 'offer', type };
    if (issuer.signInUrl) {
      const location = new URL(issuer.signInUrl);
      location.searchParams.set('authorization', record.id);
      return { ...opening, mode: 'hook', location: location.href };
    }
    if (isDemoSlug(slug)) return { ...opening, mode: 'demo', type };
    throw ended('This issuer has no sign-in for holders who come without an offer.');
  }

  /** The request a browser opened, or `authorization_ended` when it is not this browser's or is over. */
  async opened(slug: string, id: string, browserSecret: string | undefined): Promise<AuthorizationRequestRecord> {
    const record = await this.deps.store.get(slug, id);
    if (
      !record ||
      !browserSecret ||
      record.browserHash !== hashToken(browserSecret) ||
      record.expiresAt <= this.deps.clock.now()
    ) {
      throw ended();
    }
    return record;
  }

  /**
   * The approval page's answer (POST /authorize): the holder approves (an offer's request, or at
   * a demonstration tenant a sample subject) or declines. The wallet's redirect_uri with the code,
   * or with `error=access_denied`.
   */
  async decide(slug: string, id: string, browserSecret: string | undefined, approve: boolean): Promise<string> {
    // Outside a demonstration tenant the holder approves only an offer's request: granted here in
    // one conditional write (opened, with its offer, unexpired, this browser's, its issuer serving
    // the flow), without reading the request or the issuer first. Anything else is judged below,
    // where the refusal names what is wrong.
    if (approve && browserSecret !== undefined && !isDemoSlug(slug) && this.deps.checks.trustsWallets) {
      const location = await this.tryGrant(slug, id, 'opened', hashToken(browserSecret));
      if (location !== undefined) return location;
    }
    const tenant = await this.deps.tenants.get(slug);
    servedSlug(tenant, this.deps.checks);
    const record = await this.opened(slug, id, browserSecret);
    const browserHash = record.browserHash as string;
    if (!approve) {
      if (!(await this.end(record, browserHash))) throw ended();
      return this.errorRedirect(record, 'access_denied', 'The holder declined.');
    }
    if (record.phase !== 'opened') throw ended();
    if (record.offerId) return this.grant(record, 'opened', browserHash);
    // Only a demonstration tenant lets the holder approve a request that names no offer.
    if (!isDemoSlug(slug) || tenant.signInUrl) throw ended('This issuer approves through its own sign-in.');
    const type = await this.deps.types.find(slug, record.typeId);
    if (!type) throw ended('The credential type of this request is no longer issued.');
    await this.approveWith(record, exampleSubject(type.claims, this.deps.clock.now()), { kind: 'public' }, null);
    return this.grant(record, 'approved', browserHash);
  }

  /**
   * The issuer's sign-in hook approves (POST /api/tenants/{tenant}/authorizations/{id}/approve):
   * the subject it gives becomes an offer of the requested type, and the browser is sent to
   * `continueUrl`, which carries a secret of this approval's own. Only the browser the hook sends
   * there, holding the cookie of the browser that opened the request, hands the wallet its code.
   */
  async approve(slug: string, id: string, subject: Record<string, unknown>, actor: Actor) {
    const record = await this.deps.store.get(slug, id);
    if (record?.phase !== 'opened' || record.offerId !== null || record.expiresAt <= this.deps.clock.now()) {
      throw ended('This authorization request is unknown, not waiting for the issuer’s approval, or expired.');
    }
    const continuation = this.deps.random.text(32);
    const offerId = await this.approveWith(record, subject, actor, hashToken(continuation));
    const query = new URLSearchParams({ authorization: id, continuation });
    return { authorizationId: id, offerId, continueUrl: `${this.deps.urls.issuer(slug)}/authorize/continue?${query}` };
  }

  /**
   * GET /authorize/continue: back from the sign-in hook with the approval's secret. The browser
   * must also be the one that opened the request: a browser that holds the secret but not that
   * cookie (the holder, sent a link someone else opened) ends the request, so the code never
   * reaches the one who opened it.
   */
  async continue(tenant: TenantRow, id: string, continuation: string, browserSecret: string | undefined): Promise<string> {
    const slug = servedSlug(tenant, this.deps.checks);
    const record = await this.deps.store.get(slug, id);
    const now = this.deps.clock.now();
    if (!record || record.expiresAt <= now) throw ended();
    const ours = browserSecret !== undefined && record.browserHash === hashToken(browserSecret);
    if (record.phase === 'opened' && ours) throw new ServiceError('authorization_pending');
    if (record.phase !== 'approved' || record.continueHash !== hashToken(continuation)) throw ended();
    if (!ours) {
      await this.end(record, record.browserHash as string);
      throw ended(
        'This request was opened in another browser than the one signed in, so it has been ended: start again from your wallet on this device.',
      );
    }
    return this.grant(record, 'approved', record.browserHash as string);
  }

  /** Makes an offer of `subject` for the request and moves it to approved; the offer is withdrawn if the move fails. */
  private async approveWith(
    record: AuthorizationRequestRecord,
    subject: Record<string, unknown>,
    actor: Actor,
    continueHash: string | null,
  ): Promise<string> {
    const offer = await this.deps.offerService.create(
      { tenant: record.tenant, typeId: record.typeId, subject, expiresIn: SESSION_TTL_S },
      actor,
    );
    const now = this.deps.clock.now();
    if (!(await this.deps.store.approve(record.tenant, record.id, offer.offerId, continueHash, now))) {
      await this.deps.offers.withdraw(record.tenant, offer.offerId, now);
      throw ended('This authorization request was approved, declined or expired meanwhile.');
    }
    return offer.offerId;
  }

  /**
   * Ends an opened or approved request (declined, or continued from the wrong browser). An offer
   * made at its approval is withdrawn with it, in one transaction; an offer the tenant made
   * (`issuer_state`) is left for its holder.
   */
  private end(record: AuthorizationRequestRecord, browserHash: string): Promise<boolean> {
    return this.deps.uow.run(async () => {
      const now = this.deps.clock.now();
      const current = await this.deps.store.get(record.tenant, record.id);
      if (!(await this.deps.store.decline(record.tenant, record.id, browserHash, now))) return false;
      if (current?.phase === 'approved' && current.offerId) await this.deps.offers.withdraw(record.tenant, current.offerId, now);
      return true;
    });
  }

  /** POST /token with grant_type=authorization_code (code-redemption.ts); undefined where the issuer's HAIP issuance is off. */
  redeem(slug: string, form: Record<string, string>, seen: RequestSeen): Promise<TokenResponse | undefined> {
    return this.redemption.redeem(slug, form, seen);
  }

  /** The offer an issuer_state names, when it is open: unredeemed, unexpired, without a transaction code. */
  private openOffer(offer: OfferRecord | undefined): OfferRecord {
    if (
      !offer ||
      offer.redeemedAt !== null ||
      offer.expiresAt <= this.deps.clock.now() ||
      !offer.subject ||
      offer.txCodeHash !== null
    ) {
      throw pushRefused('issuer_state names no open offer of this issuer (a used, expired or transaction-code offer is none).');
    }
    return offer;
  }

  /** Moves the request to `code` for its browser and answers the wallet's redirect_uri with the code. */
  private async grant(record: AuthorizationRequestRecord, from: 'opened' | 'approved', browserHash: string): Promise<string> {
    const location = await this.tryGrant(record.tenant, record.id, from, browserHash);
    if (location === undefined) throw ended();
    return location;
  }

  /**
   * The move of `grant` in one conditional write, which answers the request as granted: the
   * wallet's redirect_uri with the code, or undefined when the request is not in `from` with an
   * offer, unexpired and this browser's.
   */
  private async tryGrant(
    slug: string,
    id: string,
    from: 'opened' | 'approved',
    browserHash: string,
  ): Promise<string | undefined> {
    const code = newToken(this.deps.random, 'azc');
    const now = this.deps.clock.now();
    const granted = await this.deps.store.grantCode(slug, id, from, browserHash, hashToken(code), now, now + CODE_TTL_S * 1000);
    return granted && this.redirect(granted, { code });
  }

  private errorRedirect(record: AuthorizationRequestRecord, error: string, description: string): string {
    return this.redirect(record, { error, error_description: description });
  }

  /** RFC 6749 §4.1.2 with RFC 9207's `iss`: the wallet's redirect_uri, its own query kept. */
  private redirect(record: AuthorizationRequestRecord, params: Record<string, string>): string {
    const url = new URL(record.redirectUri);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    if (record.state !== null) url.searchParams.set('state', record.state);
    url.searchParams.set('iss', this.deps.urls.issuer(record.tenant));
    return url.href;
  }
}

const header = single;
