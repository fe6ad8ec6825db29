import type { KeyVault } from '../../adapters/crypto/key-vault.ts';
import { randomText } from '../../adapters/crypto/random-pool.ts';
import { constantTimeEqual, hashToken, newToken } from '../../adapters/crypto/secrets.ts';
import type { Actor } from '../../core/actor.ts';
import type { ClaimSpec } from '../../core/claims/claim-spec.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { decodeJws } from '../../core/jose/es256.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import { FAILURE_CHECK, type FailureCode } from '../../core/verifier/ledger.ts';
import { type VerificationResult, verifyPresentation } from '../../core/verifier/verify-presentation.ts';
import type { KeyCertifier } from '../../ports/key-certifier.ts';
import type { KeyStore } from '../../ports/key-store.ts';
import { type Meter, noMeter } from '../../ports/meter.ts';
import type {
  PresentationTransactionRecord,
  PresentationTransactionStore,
  VerificationProfile,
} from '../../ports/presentation-transaction-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import { claimLabel } from '../credential-types/type-metadata.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import type { TrustService } from '../issuer-trust/trust-service.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import {
  decryptResponse,
  newResponseKey,
  RESPONSE_ENC_VALUES,
  responseJwk,
  responseKid,
  x509HashClientId,
} from './haip-profile.ts';
import { IssuerCertificates } from './issuer-certificates.ts';
import { IssuerDocuments } from './issuer-documents.ts';
import { checkReturnPage, checkWebOrigin } from './request-checks.ts';
import { responseCodeProblem } from './response-code.ts';
import type { PollAnswer } from './result-poll.ts';
import { type StatusListSource, statusUriOf } from './status-list-source.ts';
import { presentationOf, QUERY_ID } from './vp-token.ts';

/** A pending transaction lives this long; a completed one is kept this long for its poller. */
export const TRANSACTION_TTL_MS = 10 * 60 * 1000;
export const REQUEST_OBJECT_TYP = 'oauth-authz-req+jwt';
/** OID4VP 1.0 §5.8: the request object audience under static discovery of the wallet. */
const STATIC_WALLET_AUDIENCE = 'https://self-issued.me/v2';
/** OID4VP 1.0 Appendix A.1: the exchange protocols of requests through the Digital Credentials API. */
export const DC_SIGNED = 'openid4vp-v1-signed';
export const DC_UNSIGNED = 'openid4vp-v1-unsigned';
const VP_FORMATS = { 'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] } };

export interface RequestInput {
  vct: string;
  /** An issuer of the trust registry (docs/operations.md, "Trust registry"); absent: a type of this deployment. */
  issuer?: string;
  claims: string[];
  nonce: string;
  aud: string;
  /** `openid4vp` (the default: the interface's profile) or `haip` (docs/haip.md, "Verification"). */
  profile?: VerificationProfile;
  /** The web origin the caller will ask the Digital Credentials API from (docs/dc-api.md); absent: no DC API request. */
  origin?: string;
  /**
   * The caller's page a wallet on the same device returns the browser to, with a response code
   * (docs/verification.md, "A wallet on the same device"); absent: the wallet is answered `{}`.
   */
  redirectUri?: string;
}

/** What a page passes to `navigator.credentials.get({digital: {requests}})` (OID4VP 1.0 Appendix A). */
export interface DcApiRequest {
  protocol: typeof DC_SIGNED | typeof DC_UNSIGNED;
  data: Record<string, unknown>;
}

export type Outcome =
  | {
      ok: true;
      presentation: { claims: Record<string, unknown>; vct: string; issuer: string };
      presentedNonce: string;
      presentedAud: string;
    }
  | { ok: false; error: string; link: string; detail: string };

/** What the direct_post endpoint answers the wallet (docs/verification.md). */
export type WalletAnswer = { accepted: true; redirectUri?: string } | { accepted: false; error: string; description: string };

const random = () => randomText(16);

/**
 * Array claims are issued with each element its own disclosure; the reference verifier checks
 * top-level disclosures only, so such a claim cannot be asked for.
 */
const requestable = (c: ClaimSpec) => c.kind !== 'array(text)' && c.kind !== 'array(object)';

/**
 * The hosted OID4VP verifier (docs/verification.md): the platform is the verifier, signing
 * requests with its verifier key. Under the interface's profile it is identified by
 * `decentralized_identifier:<platform DID>` and answered by `direct_post`; under HAIP
 * (docs/haip.md) by `x509_hash:<its certificate's hash>`, answered by `direct_post.jwt` encrypted
 * to a key of the transaction's own.
 */
export class HostedVerifier {
  readonly clientId: string;
  private readonly issuerCertificates: IssuerCertificates;
  private readonly issuerDocuments: IssuerDocuments;

  constructor(
    private readonly transactions: PresentationTransactionStore,
    private readonly uow: UnitOfWork<{ transactions: PresentationTransactionStore }>,
    private readonly types: TypeService,
    private readonly tenants: TenantService,
    private readonly keys: KeyStore,
    private readonly statusLists: StatusListSource,
    private readonly urls: IssuerUrls,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly trust: Pick<TrustService, 'trusted'>,
    private readonly vault: KeyVault,
    private readonly certifier: Pick<KeyCertifier, 'authorityKeyId' | 'anchorPem'>,
    private readonly meter: Meter = noMeter,
    /** Whether DC API requests also offer the unsigned form (OPENRAIL_DC_API_UNSIGNED). */
    private readonly dcApiUnsigned = true,
  ) {
    this.clientId = `decentralized_identifier:${tenants.didOf(ROOT_SLUG)}`;
    this.issuerCertificates = new IssuerCertificates(certifier.anchorPem, clock);
    this.issuerDocuments = new IssuerDocuments(tenants, clock);
  }

  /**
   * Every type of every tenant: what a relying party may ask a holder for, with the names a person
   * reads (the tenant's display name, each claim's label) beside the identifiers.
   */
  async catalog() {
    const all = await this.types.catalog();
    const names = new Map<string, string>();
    for (const slug of new Set(all.map((t) => t.tenant))) {
      const tenant = await this.tenants.find(slug);
      names.set(slug, tenant?.displayName ?? tenant?.name ?? slug);
    }
    return all.map((t) => {
      const v = this.types.view(t);
      const claims = t.claims.filter(requestable).map((c) => c.key);
      const claimLabels = Object.fromEntries(claims.map((c) => [c, claimLabel(c)]));
      return {
        id: v.typeId,
        name: v.name,
        vct: v.vct,
        tenant: v.tenant,
        tenantName: names.get(v.tenant) ?? v.tenant,
        claims,
        claimLabels,
      };
    });
  }

  /** Opens a transaction: on the public plane (`actor` null) or for an operator, who is audited. */
  async open(input: RequestInput, actor: Actor | null) {
    const ref = input.issuer === undefined ? await this.ownType(input) : await this.trustedType(input.issuer);
    if (new Set(input.claims).size !== input.claims.length) {
      throw new ServiceError('invalid_request', 'A claim is asked for twice.');
    }
    if (input.origin !== undefined) checkWebOrigin(input.origin);
    if (input.redirectUri !== undefined) checkReturnPage(input.redirectUri);
    const now = this.clock.now();
    const resultToken = newToken('vrt');
    const profile = input.profile ?? 'openid4vp';
    const id = this.ids.mint('transaction');
    // Requests that name the verifier by its certificate (HAIP, the DC API's signed one) keep the
    // chain of this moment: a renewal meanwhile changes neither the requests nor the audience.
    const byCertificate = profile === 'haip' || input.origin !== undefined;
    const record: PresentationTransactionRecord = {
      id,
      state: random(),
      nonce: input.nonce,
      resultTokenHash: hashToken(resultToken),
      callerAud: input.aud,
      typeTenant: ref.tenant,
      typeId: ref.typeId,
      vct: input.vct,
      claims: input.claims,
      requestedBy: actor === null ? null : actor.kind === 'operator' ? actor.username : actor.kind,
      createdAt: now,
      expiresAt: now + TRANSACTION_TTL_MS,
      completedAt: null,
      outcome: null,
      holder: null,
      enrolledAt: null,
      issuerDid: input.issuer ?? null,
      profile,
      // A key of its own for an encrypted answer: HAIP's direct_post.jwt, and every DC API answer.
      responseKey: byCertificate ? await newResponseKey(this.vault, id) : null,
      dcOrigin: input.origin ?? null,
      verifierChain: byCertificate ? await this.verifierChain() : null,
      redirectUri: input.redirectUri ?? null,
      responseCodeHash: null,
    };
    const nonceReused = () =>
      new ServiceError('nonce_reused', 'This nonce already belongs to a live transaction; use a fresh nonce per request.');
    if (!actor) {
      // Anonymous: one insert, its own transaction (one round trip on PostgreSQL, docs/scaling.md).
      if (!(await this.transactions.create(record))) throw nonceReused();
    } else {
      await this.uow.run(async ({ transactions, audit }) => {
        if (!(await transactions.create(record))) throw nonceReused();
        const detail = { vct: record.vct, claims: record.claims };
        await audit.append({ actor, action: 'verification.requested', tenant: null, target: record.id, detail });
      });
    }
    const query = new URLSearchParams({ client_id: this.qrClientId(record), request_uri: this.requestUri(record.id) });
    return {
      // HAIP 1.0 §5: a HAIP wallet is invoked by the haip:// scheme; the interface's by openid4vp://.
      requestUri: `${profile === 'haip' ? 'haip' : 'openid4vp'}://?${query.toString()}`,
      transactionId: record.id,
      resultToken,
      expiresAt: new Date(record.expiresAt).toISOString(),
      ...(record.dcOrigin === null ? {} : { dcApi: { requests: await this.dcApiRequests(record) } }),
    };
  }

  /** A type of this deployment, and the claims asked of it checked against it. */
  private async ownType(input: RequestInput): Promise<{ tenant: string; typeId: string }> {
    const ref = this.urls.parseVct(input.vct);
    const type = ref ? await this.types.find(ref.tenant, ref.typeId) : undefined;
    if (!ref || !type) throw new ServiceError('unknown_type', `No credential type of this service has the vct ${input.vct}.`);
    const known = new Set(type.claims.map((c) => c.key));
    const unknown = input.claims.filter((c) => !known.has(c));
    if (unknown.length > 0) {
      throw new ServiceError('unknown_claim', `The type ${type.typeId} has no claim ${unknown.map((c) => `"${c}"`).join(', ')}.`);
    }
    const arrays = type.claims.filter((c) => !requestable(c) && input.claims.includes(c.key));
    if (arrays.length > 0) {
      throw new ServiceError(
        'unsupported_claim',
        `${arrays.map((c) => `"${c.key}"`).join(', ')} discloses array elements one by one, which the verifier does not check (docs/verifier.md).`,
      );
    }
    return ref;
  }

  /**
   * A type of a trusted issuer: this service knows none of its types, so the claims are the
   * caller's to name. The transaction is the platform's (`root`, no type id of ours), so nothing
   * that acts on a type of this deployment (enrolment) takes it.
   */
  private async trustedType(issuer: string): Promise<{ tenant: string; typeId: string }> {
    if (!(await this.trust.trusted(issuer))) {
      throw new ServiceError('untrusted_issuer', `${issuer} is not a trusted issuer of this deployment.`);
    }
    return { tenant: ROOT_SLUG, typeId: '' };
  }

  /** The platform verifier key's certificate chain now. */
  private async verifierChain(): Promise<string[]> {
    const { x5c: chain } = await this.keys.signer(ROOT_SLUG, 'verifier');
    if (!chain) throw new Error('the platform verifier key has no certificate yet');
    return [...chain];
  }

  /** The verifier's `x509_hash` identifier in a transaction's requests (the chain it opened with). */
  private certifiedClientId(tx: PresentationTransactionRecord): string {
    if (tx.verifierChain === null) throw new Error(`transaction ${tx.id} names no verifier certificate`);
    return x509HashClientId(tx.verifierChain);
  }

  /** The client identifier of a transaction's QR request: its certificate's hash under HAIP, else the DID. */
  private qrClientId(tx: PresentationTransactionRecord): string {
    return tx.profile === 'haip' ? this.certifiedClientId(tx) : this.clientId;
  }

  /**
   * A request object signed with the platform verifier key (JAR, `typ` oauth-authz-req+jwt): named
   * by the transaction's certificate chain (`x5c`) or by its DID URL (`kid`).
   */
  private async signRequest(tx: PresentationTransactionRecord, by: 'certificate' | 'did', params: Record<string, unknown>) {
    const signer = await this.keys.signer(ROOT_SLUG, 'verifier');
    const header =
      by === 'certificate'
        ? { typ: REQUEST_OBJECT_TYP, x5c: tx.verifierChain }
        : { typ: REQUEST_OBJECT_TYP, kid: `${this.tenants.didOf(ROOT_SLUG)}#${signer.kid}` };
    const iat = Math.floor(this.clock.now() / 1000);
    return signer.sign(header, { ...params, aud: STATIC_WALLET_AUDIENCE, iat, exp: Math.floor(tx.expiresAt / 1000) });
  }

  requestUri(transactionId: string): string {
    return `${this.urls.origin}/oid4vp/request/${transactionId}`;
  }

  /**
   * The signed request object (OID4VP 1.0 §5, JAR); re-servable until the transaction expires.
   * A HAIP transaction's is served while it is pending only: once complete, its response key is gone.
   */
  async requestObject(transactionId: string): Promise<string> {
    const tx = await this.live(transactionId);
    if (!tx) throw new ServiceError('unknown_transaction', 'No live presentation transaction has this id.');
    const haip = tx.profile === 'haip';
    if (haip && tx.responseKey === null) {
      throw new ServiceError('unknown_transaction', 'This transaction is complete: its request is no longer served.');
    }
    return this.signRequest(tx, haip ? 'certificate' : 'did', {
      client_id: this.qrClientId(tx),
      response_type: 'vp_token',
      response_mode: haip ? 'direct_post.jwt' : 'direct_post',
      response_uri: `${this.urls.origin}/oid4vp/response`,
      nonce: tx.nonce,
      state: tx.state,
      dcql_query: this.dcqlQuery(tx),
      client_metadata: haip ? this.encryptedMetadata(tx) : { vp_formats_supported: VP_FORMATS },
    });
  }

  /**
   * The DCQL query: the one credential asked for, its claims, and under HAIP, for a type of this
   * deployment, the authority that certifies its issuers' keys (HAIP credentials carry x5c; under
   * the interface's profile a credential issued before certificates has none, and a wallet that
   * filtered on the authority would not offer it).
   */
  private dcqlQuery(tx: PresentationTransactionRecord) {
    const withAuthority = tx.profile === 'haip';
    const credentialQuery = {
      id: QUERY_ID,
      format: 'dc+sd-jwt',
      meta: { vct_values: [tx.vct] },
      ...(tx.claims.length > 0 ? { claims: tx.claims.map((c) => ({ path: [c] })) } : {}),
      ...(withAuthority && tx.issuerDid === null
        ? { trusted_authorities: [{ type: 'aki', values: [this.certifier.authorityKeyId] }] }
        : {}),
    };
    return { credentials: [credentialQuery] };
  }

  /** Client metadata that asks for an answer encrypted to the transaction's own key. */
  private encryptedMetadata(tx: PresentationTransactionRecord) {
    if (tx.responseKey === null) throw new Error(`transaction ${tx.id} has no response key`);
    return {
      jwks: { keys: [responseJwk(this.vault, tx.responseKey, tx.id)] },
      encrypted_response_enc_values_supported: [...RESPONSE_ENC_VALUES],
      vp_formats_supported: VP_FORMATS,
    };
  }

  /**
   * The requests a page passes to the Digital Credentials API (OID4VP 1.0 Appendix A): signed
   * (x509_hash, `expected_origins` naming the caller's origin), and unsigned where the deployment
   * offers it. Both ask for the answer encrypted to the transaction's key (`dc_api.jwt`). That
   * keeps the presentation from what carries it between wallet and page; it does not keep it from
   * the page, which chooses what it passes to the browser (docs/dc-api.md, "What it protects").
   */
  private async dcApiRequests(tx: PresentationTransactionRecord): Promise<DcApiRequest[]> {
    const params = {
      response_type: 'vp_token',
      response_mode: 'dc_api.jwt',
      nonce: tx.nonce,
      dcql_query: this.dcqlQuery(tx),
      client_metadata: this.encryptedMetadata(tx),
    };
    const request = await this.signRequest(tx, 'certificate', {
      ...params,
      client_id: this.certifiedClientId(tx),
      expected_origins: [tx.dcOrigin],
    });
    const signed: DcApiRequest = { protocol: DC_SIGNED, data: { request } };
    return this.offeredProtocols().length === 2 ? [signed, { protocol: DC_UNSIGNED, data: params }] : [signed];
  }

  /** The DC API protocols this deployment offers. */
  private offeredProtocols(): string[] {
    return this.dcApiUnsigned ? [DC_SIGNED, DC_UNSIGNED] : [DC_SIGNED];
  }

  /**
   * POST /verify/response/{transactionId}: the Digital Credentials API's answer, relayed by the
   * page that asked, with the transaction's result token. The answer is a JWE to the
   * transaction's key (`data.response`) holding `vp_token`, or a wallet's `data.error`; the
   * holder's key binding must name `origin:<the transaction's origin>`. It completes the
   * transaction and answers its outcome; a refusal changes nothing.
   */
  async respondDcApi(
    transactionId: string,
    resultToken: string,
    protocol: string,
    data: { response?: string; error?: string; error_description?: string },
  ): Promise<Record<string, unknown>> {
    const tx = await this.owned(transactionId, resultToken);
    if (!this.offeredProtocols().includes(protocol)) {
      throw new ServiceError(
        'unreadable_response',
        `The answer names a protocol this service did not offer: ${protocol.slice(0, 64)}.`,
      );
    }
    if (tx.completedAt !== null) throw new ServiceError('transaction_complete', 'This transaction already has its outcome.');
    if (tx.dcOrigin === null || tx.responseKey === null) {
      throw new ServiceError('dc_api_not_requested', 'This transaction was opened without an origin: it takes no DC API answer.');
    }
    let params: Record<string, unknown>;
    if (data.error !== undefined) params = data;
    else {
      if (data.response === undefined) {
        throw new ServiceError('unreadable_response', 'The answer holds neither `response` (the encrypted answer) nor `error`.');
      }
      if (responseKid(data.response) !== tx.id) {
        throw new ServiceError('unreadable_response', 'The answer is not encrypted to this transaction’s key (its kid).');
      }
      const opened = await decryptResponse(this.vault, tx.responseKey, tx.id, data.response);
      if (!opened.ok) throw new ServiceError('unreadable_response', opened.reason);
      // The QR channel's answer carries the transaction's state; one through the browser never does.
      if (opened.params.state !== undefined) {
        throw new ServiceError(
          'unreadable_response',
          'This is an answer to the QR request (it carries state): post it to the response_uri.',
        );
      }
      params = opened.params;
    }
    const outcome = await this.complete(tx, params, `origin:${tx.dcOrigin}`);
    if (!outcome) throw new ServiceError('transaction_complete', 'This transaction already has its outcome.');
    return outcome;
  }

  /**
   * POST /oid4vp/response. A response for a live, pending transaction completes it, whatever the
   * verdict; anything else (unknown state or key, expired, already completed, a response in the
   * clear where the transaction asked for it encrypted, one that cannot be decrypted) changes
   * nothing. An encrypted response (`response`, HAIP) names its transaction by the JWE `kid`, and
   * carries the `state` inside.
   */
  async respond(form: Record<string, string>): Promise<WalletAnswer> {
    const now = this.clock.now();
    let tx: PresentationTransactionRecord | undefined;
    let params: Record<string, unknown> = form;
    if (form.response !== undefined) {
      const kid = responseKid(form.response);
      tx = kid ? await this.transactions.get(kid) : undefined;
      if (!tx || tx.expiresAt <= now)
        return refuse('invalid_request', 'No live presentation transaction has the key this response is encrypted to.');
      if (tx.completedAt !== null) return refuse('invalid_request', 'This presentation transaction is already complete.');
      if (tx.profile !== 'haip' || tx.responseKey === null) {
        return refuse('invalid_request', 'This presentation transaction takes its response in the clear (direct_post).');
      }
      const opened = await decryptResponse(this.vault, tx.responseKey, tx.id, form.response);
      if (!opened.ok) return refuse('invalid_request', opened.reason);
      if (typeof opened.params.state !== 'string' || !constantTimeEqual(opened.params.state, tx.state)) {
        return refuse('invalid_request', 'The encrypted response does not carry this transaction’s state.');
      }
      params = opened.params;
    } else {
      tx = form.state ? await this.transactions.findByState(form.state) : undefined;
      if (!tx || tx.expiresAt <= now) {
        return refuse('invalid_request', 'No live presentation transaction has this state.');
      }
      if (tx.completedAt !== null) return refuse('invalid_request', 'This presentation transaction is already complete.');
      // A wallet that cannot answer may say so in the clear; a presentation it must encrypt.
      if (tx.profile === 'haip' && form.error === undefined) {
        return refuse(
          'invalid_request',
          'This presentation transaction takes its response encrypted (direct_post.jwt), in `response`.',
        );
      }
    }

    // A wallet on the same device returns the browser to the caller's page with a response code;
    // the outcome is then released only with it, to the session that browser brings it to.
    const responseCode = tx.redirectUri === null ? undefined : randomText(32);
    const outcome = await this.complete(tx, params, this.qrClientId(tx), responseCode);
    if (!outcome) return refuse('invalid_request', 'This presentation transaction is already complete.');
    if (!outcome.ok) return refuse(String(outcome.error), `${outcome.link}: ${outcome.detail}`);
    return tx.redirectUri === null
      ? { accepted: true }
      : { accepted: true, redirectUri: `${tx.redirectUri}#response_code=${responseCode}` };
  }

  /**
   * Judges a pending transaction's answer (the presentation bound to `aud`, or the wallet's
   * error) and completes it with the outcome, in one unit of work with its event: the outcome, or
   * undefined when another answer completed it first. An accepted presentation records the hash
   * of `responseCode`, when one is handed to the wallet.
   */
  private async complete(tx: PresentationTransactionRecord, params: Record<string, unknown>, aud: string, responseCode?: string) {
    const now = this.clock.now();
    const judged =
      params.error !== undefined
        ? { outcome: walletError(params), holder: null }
        : await this.judge(tx, vpTokenText(params.vp_token), aud);
    const { outcome } = judged;
    // The platform is the verifier, so the event is the platform's (root's); it names no claim.
    const data = { transactionId: tx.id, vct: tx.vct };
    const completed = await this.transactions.complete(tx.id, outcome, now, now + TRANSACTION_TTL_MS, {
      // The holder's key thumbprint is kept (for membership enrolment); it is never returned.
      holder: judged.holder,
      responseCodeHash: outcome.ok && responseCode !== undefined ? hashToken(responseCode) : null,
      // Written with the completion, in one statement on PostgreSQL (docs/scaling.md).
      event: outcome.ok
        ? { type: 'presentation.completed', tenant: ROOT_SLUG, data }
        : { type: 'presentation.failed', tenant: ROOT_SLUG, data: { ...data, error: outcome.error, link: outcome.link } },
    });
    if (!completed) return undefined;
    this.meter.verified(outcome.ok ? 'accepted' : outcome.error);
    return outcome as Record<string, unknown>;
  }

  /**
   * GET /verify/result: a transaction's outcome for the holder of its result token. Whenever the
   * outcome is not revealed the answer is the interface's `outcome: null`, never a refusal, with
   * the reason beside it (result-poll.ts): still pending, no token (nothing is looked up), an
   * unknown or expired transaction, another token, or, for a presentation accepted from a wallet
   * on the same device, a missing or wrong response code. It reads only.
   */
  async result(transactionId: string, resultToken: string | null, responseCode?: string): Promise<PollAnswer> {
    if (resultToken === null) return { outcome: null, reason: 'result_token_required' };
    const tx = await this.live(transactionId);
    if (!tx) return { outcome: null, reason: 'unknown_transaction' };
    if (!constantTimeEqual(hashToken(resultToken), tx.resultTokenHash)) return { outcome: null, reason: 'wrong_result_token' };
    const withheld = responseCodeProblem(tx.responseCodeHash, responseCode);
    if (withheld) return { outcome: null, reason: withheld };
    return tx.outcome === null ? { outcome: null, reason: 'pending' } : { outcome: tx.outcome };
  }

  /** The DC API relay's transaction (a route of ours, not the interface's): 404 unknown or expired, 403 another's token (the plane answers 401 without one). */
  private async owned(transactionId: string, resultToken: string): Promise<PresentationTransactionRecord> {
    const tx = await this.live(transactionId);
    if (!tx) throw new ServiceError('unknown_transaction', 'No live transaction has this id: it never existed, or it expired.');
    if (!constantTimeEqual(hashToken(resultToken), tx.resultTokenHash)) {
      throw new ServiceError('wrong_result_token', 'This is not the resultToken of this transaction.');
    }
    return tx;
  }

  private async live(id: string): Promise<PresentationTransactionRecord | undefined> {
    const tx = await this.transactions.get(id);
    return tx && tx.expiresAt > this.clock.now() ? tx : undefined;
  }

  private async judge(
    tx: PresentationTransactionRecord,
    vpToken: string | undefined,
    aud: string,
  ): Promise<{ outcome: Outcome; holder: string | null }> {
    const presentation = vpToken === undefined ? undefined : presentationOf(vpToken);
    if (!presentation) {
      const outcome: Outcome = {
        ok: false,
        error: 'malformed_presentation',
        link: 'structure',
        detail: 'vp_token holds no single presentation.',
      };
      return { outcome, holder: null };
    }
    let didDocument: Record<string, unknown>;
    if (tx.issuerDid === null) {
      const kid = decodeJws(presentation.split('~')[0] ?? '')?.header.kid;
      didDocument = (await this.issuerDocuments.of(tx.typeTenant, kid)) as unknown as Record<string, unknown>;
    } else {
      // Read on every presentation: a suspension holds on the next one, on every process.
      const trusted = await this.trust.trusted(tx.issuerDid);
      if (!trusted) {
        const detail = `${tx.issuerDid} is not trusted by this deployment now (suspended or removed by an operator).`;
        return { outcome: { ok: false, error: 'untrusted_issuer', link: 'trust', detail }, holder: null };
      }
      didDocument = trusted.document;
    }
    const uri = statusUriOf(presentation);
    const input = {
      presentation,
      didDocument,
      expected: { aud, nonce: tx.nonce, vct: tx.vct, claims: tx.claims },
      now: Math.floor(this.clock.now() / 1000),
    };
    const local = uri !== undefined && this.statusLists.isLocal(uri);
    const localList = local ? await this.statusLists.get(uri) : undefined;
    let result = verifyPresentation(localList ? { ...input, statusList: localList } : input);
    // Another service's list is fetched only once everything else holds, so an unsigned
    // presentation cannot make this service fetch an address of its choosing.
    if (uri !== undefined && !local && result.failure === 'status_unavailable' && result.verdict === 'indeterminate') {
      const remote = await this.statusLists.get(uri);
      if (remote) result = verifyPresentation({ ...input, statusList: remote });
    }
    // HAIP 1.0 §6.1 resolves the issuer's key by its certificate too: for a type of this deployment
    // (a trusted issuer of the registry is known by its DID document only).
    const byCertificate = result.verdict === 'accept' && tx.profile === 'haip' && tx.issuerDid === null;
    const uncertified = byCertificate ? await this.issuerCertificates.problem(presentation, didDocument) : undefined;
    if (uncertified) {
      return { outcome: { ok: false, error: 'issuer_key_unknown', link: 'issuer_key', detail: uncertified }, holder: null };
    }
    const outcome = toOutcome(result, tx, tx.issuerDid ?? this.tenants.didOf(tx.typeTenant));
    return { outcome, holder: outcome.ok ? result.holder : null };
  }
}

function toOutcome(result: VerificationResult, tx: PresentationTransactionRecord, issuer: string): Outcome {
  if (result.verdict !== 'accept' || !result.claims || !result.keyBinding) {
    const failure = (result.failure ?? 'status_unavailable') as FailureCode;
    const entry = result.ledger.find((e) => e.failure === failure);
    return { ok: false, error: failure, link: FAILURE_CHECK[failure], detail: entry?.detail ?? failure };
  }
  const all = result.claims;
  // Exactly the claims asked for: a holder who disclosed more has that surplus dropped here.
  const claims = Object.fromEntries(tx.claims.map((c) => [c, all[c]]));
  return {
    ok: true,
    presentation: { claims, vct: tx.vct, issuer },
    // The caller's own values, bound to the transaction, for it to compare with what it sent
    // (interface, Hosted verification). The key binding signed the nonce itself; its aud is our
    // client identifier (OID4VP 1.0 Appendix B.3) or the page's origin (DC API), checked above.
    presentedNonce: tx.nonce,
    presentedAud: tx.callerAud,
  };
}

function walletError(params: Record<string, unknown>): Outcome {
  const text = (v: unknown) => String(v).slice(0, 200);
  const description = params.error_description ? `: ${text(params.error_description)}` : '';
  return { ok: false, error: 'wallet_error', link: 'wallet', detail: `The wallet answered ${text(params.error)}${description}.` };
}

/** A vp_token as the form carries it (text), whether it came so or as JSON inside an encrypted response. */
const vpTokenText = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v);

const refuse = (error: string, description: string): WalletAnswer => ({ accepted: false, error, description });
