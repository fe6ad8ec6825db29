import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { p256Thumbprint } from '../../core/jose/es256.ts';
import { dcApiTranscript, redirectTranscript } from '../../core/mdoc/session-transcript.ts';
import type { Random } from '../../core/random.ts';
import { constantTimeEqual, hashToken, newToken } from '../../core/secrets.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import type { ChainsOf } from '../../ports/certificate-chains.ts';
import type { CredentialFormat, MdocProfile } from '../../ports/credential-type-store.ts';
import type { KeyCertifier } from '../../ports/key-certifier.ts';
import type { KeyStore } from '../../ports/key-store.ts';
import type { KeyVault } from '../../ports/key-vault.ts';
import type { Meter } from '../../ports/meter.ts';
import type {
  PresentationTransactionRecord,
  PresentationTransactionStore,
  VerificationProfile,
} from '../../ports/presentation-transaction-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import type { TrustService } from '../issuer-trust/trust-service.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import { decryptResponse, newResponseKey, responseJwk, responseKid } from './haip-profile.ts';
import { type AnswerChannel, PresentationJudge } from './presentation-judge.ts';
import { checkReturnPage, checkWebOrigin } from './request-checks.ts';
import { RequestedTypes } from './requested-types.ts';
import { responseCodeProblem } from './response-code.ts';
import type { PollAnswer } from './result-poll.ts';
import type { StatusListSource } from './status-list-source.ts';
import { VerifierRequests } from './verifier-requests.ts';

/** A pending transaction lives this long; a completed one is kept this long for its poller. */
export const TRANSACTION_TTL_MS = 10 * 60 * 1000;

export interface RequestInput {
  vct: string;
  /** An issuer of the trust registry (docs/operations.md, "Trust registry"); absent: a type of this deployment. */
  issuer?: string;
  claims: string[];
  nonce: string;
  aud: string;
  /** `openid4vp` (the default: the interface's profile) or `haip` (docs/haip.md, "Verification"). */
  profile?: VerificationProfile;
  /** `dc+sd-jwt` (the default) or `mso_mdoc`, for a type of this deployment offered as mdoc (docs/mdoc.md). */
  format?: CredentialFormat;
  /** The web origin the caller will ask the Digital Credentials API from (docs/dc-api.md); absent: no DC API request. */
  origin?: string;
  /**
   * The caller's page a wallet on the same device returns the browser to, with a response code
   * (docs/verification.md, "A wallet on the same device"); absent: the wallet is answered `{}`.
   */
  redirectUri?: string;
}

/** What the direct_post endpoint answers the wallet (docs/verification.md). */
export type WalletAnswer = { accepted: true; redirectUri?: string } | { accepted: false; error: string; description: string };

export interface HostedVerifierDeps {
  transactions: PresentationTransactionStore;
  uow: UnitOfWork;
  types: TypeService;
  tenants: TenantService;
  keys: KeyStore;
  statusLists: StatusListSource;
  urls: IssuerUrls;
  clock: Clock;
  random: Random;
  ids: Ids;
  trust: Pick<TrustService, 'trusted'>;
  vault: KeyVault;
  certifier: Pick<KeyCertifier, 'authorityKeyIds' | 'anchorPem'>;
  meter: Meter;
  /** Whether DC API requests also offer the unsigned form (OPENRAIL_DC_API_UNSIGNED). */
  dcApiUnsigned: boolean;
  /** X.509 path validation, for the issuer's certificate chain (HAIP 1.0 §6.1). */
  chainsOf: ChainsOf;
}

/**
 * The hosted OID4VP verifier (docs/verification.md): the platform is the verifier, signing
 * requests with its verifier key. Under the interface's profile it is identified by
 * `decentralized_identifier:<platform DID>` and answered by `direct_post`; under HAIP
 * (docs/haip.md) by `x509_hash:<its certificate's hash>`, answered by `direct_post.jwt` encrypted
 * to a key of the transaction's own.
 */
export class HostedVerifier {
  private readonly typesAsked: RequestedTypes;
  private readonly requests: VerifierRequests;
  private readonly verdicts: PresentationJudge;

  constructor(private readonly deps: HostedVerifierDeps) {
    const mdocOf = (tx: PresentationTransactionRecord) => this.mdocOf(tx);
    this.typesAsked = new RequestedTypes(deps);
    this.requests = new VerifierRequests({ ...deps, mdocOf });
    this.verdicts = new PresentationJudge({ ...deps, mdocOf });
  }

  /** The doctype and elements of an mso_mdoc transaction's type (types are immutable; the type service keeps them). */
  private async mdocOf(tx: PresentationTransactionRecord): Promise<MdocProfile> {
    const { mdoc } = await this.deps.types.get(tx.typeTenant, tx.typeId);
    if (!mdoc) throw new Error(`transaction ${tx.id} asks for an mdoc of a type that is not offered as one`);
    return mdoc;
  }

  /**
   * What the holder binds an answer to (OID4VP 1.0 Appendix B.2.6): through the response_uri, the
   * client identifier, nonce, response URI and, when the answer is encrypted (HAIP), the key it is
   * encrypted to; through the Digital Credentials API, the page's origin, the nonce and that key.
   */
  private channel(tx: PresentationTransactionRecord, via: 'response_uri' | 'dc_api'): AnswerChannel {
    const keyThumbprint = () =>
      tx.responseKey === null ? null : p256Thumbprint(responseJwk(this.deps.vault, tx.responseKey, tx.id));
    if (via === 'dc_api') {
      const origin = tx.dcOrigin ?? '';
      return {
        aud: `origin:${origin}`,
        sessionTranscript: () => dcApiTranscript({ origin, nonce: tx.nonce, encryptionKeyThumbprint: keyThumbprint() }),
      };
    }
    const clientId = this.requests.qrClientId(tx);
    return {
      aud: clientId,
      sessionTranscript: () =>
        redirectTranscript({
          clientId,
          nonce: tx.nonce,
          responseUri: this.requests.responseUri(),
          encryptionKeyThumbprint: tx.profile === 'haip' ? keyThumbprint() : null,
        }),
    };
  }

  /**
   * Every type of every tenant: what a relying party may ask a holder for, with the names a person
   * reads (the tenant's display name, each claim's label) beside the identifiers.
   */
  catalog() {
    return this.typesAsked.catalog();
  }

  /** Opens a transaction: on the public plane (`actor` null) or for an operator, who is audited. */
  async open(input: RequestInput, actor: Actor | null) {
    const ref = await this.typesAsked.of(input);
    if (new Set(input.claims).size !== input.claims.length) {
      throw new ServiceError('invalid_request', 'A claim is asked for twice.');
    }
    if (input.origin !== undefined) checkWebOrigin(input.origin);
    if (input.redirectUri !== undefined) checkReturnPage(input.redirectUri);
    const now = this.deps.clock.now();
    const resultToken = newToken(this.deps.random, 'vrt');
    const profile = input.profile ?? 'openid4vp';
    const id = this.deps.ids.mint('transaction');
    // Requests that name the verifier by its certificate (HAIP, the DC API's signed one) keep the
    // chain of this moment: a renewal meanwhile changes neither the requests nor the audience.
    const byCertificate = profile === 'haip' || input.origin !== undefined;
    const record: PresentationTransactionRecord = {
      id,
      state: this.deps.random.text(16),
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
      ...(input.format === 'mso_mdoc' ? { format: 'mso_mdoc' as const } : {}),
      // A key of its own for an encrypted answer: HAIP's direct_post.jwt, and every DC API answer.
      responseKey: byCertificate ? await newResponseKey(this.deps.vault, id) : null,
      dcOrigin: input.origin ?? null,
      verifierChain: byCertificate ? await this.requests.verifierChain() : null,
      redirectUri: input.redirectUri ?? null,
      responseCodeHash: null,
    };
    const nonceReused = () =>
      new ServiceError('nonce_reused', 'This nonce already belongs to a live transaction; use a fresh nonce per request.');
    if (!actor) {
      // Anonymous: one insert, its own transaction (one round trip on PostgreSQL, docs/scaling.md).
      if (!(await this.deps.transactions.create(record))) throw nonceReused();
    } else {
      await this.deps.uow.run(async ({ audit }) => {
        if (!(await this.deps.transactions.create(record))) throw nonceReused();
        const detail = { vct: record.vct, claims: record.claims };
        await audit.append({ actor, action: 'verification.requested', tenant: null, target: record.id, detail });
      });
    }
    const query = new URLSearchParams({
      client_id: this.requests.qrClientId(record),
      request_uri: this.requests.requestUri(record.id),
    });
    return {
      // HAIP 1.0 §5: a HAIP wallet is invoked by the haip:// scheme; the interface's by openid4vp://.
      requestUri: `${profile === 'haip' ? 'haip' : 'openid4vp'}://?${query.toString()}`,
      transactionId: record.id,
      resultToken,
      expiresAt: new Date(record.expiresAt).toISOString(),
      ...(record.dcOrigin === null ? {} : { dcApi: { requests: await this.requests.dcApiRequests(record) } }),
    };
  }

  /**
   * The signed request object (OID4VP 1.0 §5, JAR); re-servable until the transaction expires.
   * A HAIP transaction's is served while it is pending only: once complete, its response key is gone.
   */
  async requestObject(transactionId: string): Promise<string> {
    const tx = await this.live(transactionId);
    if (!tx) throw new ServiceError('unknown_transaction', 'No live presentation transaction has this id.');
    if (tx.profile === 'haip' && tx.responseKey === null) {
      throw new ServiceError('unknown_transaction', 'This transaction is complete: its request is no longer served.');
    }
    return this.requests.object(tx);
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
    if (!this.requests.offeredProtocols().includes(protocol)) {
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
      const opened = await decryptResponse(this.deps.vault, tx.responseKey, tx.id, data.response);
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
    const outcome = await this.complete(tx, params, this.channel(tx, 'dc_api'));
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
    const now = this.deps.clock.now();
    let tx: PresentationTransactionRecord | undefined;
    let params: Record<string, unknown> = form;
    if (form.response !== undefined) {
      const kid = responseKid(form.response);
      tx = kid ? await this.deps.transactions.get(kid) : undefined;
      if (!tx || tx.expiresAt <= now)
        return refuse('invalid_request', 'No live presentation transaction has the key this response is encrypted to.');
      if (tx.completedAt !== null) return refuse('invalid_request', 'This presentation transaction is already complete.');
      if (tx.profile !== 'haip' || tx.responseKey === null) {
        return refuse('invalid_request', 'This presentation transaction takes its response in the clear (direct_post).');
      }
      const opened = await decryptResponse(this.deps.vault, tx.responseKey, tx.id, form.response);
      if (!opened.ok) return refuse('invalid_request', opened.reason);
      if (typeof opened.params.state !== 'string' || !constantTimeEqual(opened.params.state, tx.state)) {
        return refuse('invalid_request', 'The encrypted response does not carry this transaction’s state.');
      }
      params = opened.params;
    } else {
      tx = form.state ? await this.deps.transactions.findByState(form.state) : undefined;
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
    const responseCode = tx.redirectUri === null ? undefined : this.deps.random.text(32);
    const outcome = await this.complete(tx, params, this.channel(tx, 'response_uri'), responseCode);
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
  private async complete(
    tx: PresentationTransactionRecord,
    params: Record<string, unknown>,
    channel: AnswerChannel,
    responseCode?: string,
  ) {
    const now = this.deps.clock.now();
    const judged = await this.verdicts.judge(tx, params, channel);
    const { outcome } = judged;
    // The platform is the verifier, so the event is the platform's (root's); it names no claim.
    const data = { transactionId: tx.id, vct: tx.vct };
    const completed = await this.deps.transactions.complete(tx.id, outcome, now, now + TRANSACTION_TTL_MS, {
      // The holder's key thumbprint is kept (for membership enrolment); it is never returned.
      holder: judged.holder,
      responseCodeHash: outcome.ok && responseCode !== undefined ? hashToken(responseCode) : null,
      // Written with the completion, in one statement on PostgreSQL (docs/scaling.md).
      event: outcome.ok
        ? { type: 'presentation.completed', tenant: ROOT_SLUG, data }
        : { type: 'presentation.failed', tenant: ROOT_SLUG, data: { ...data, error: outcome.error, link: outcome.link } },
    });
    if (!completed) return undefined;
    this.deps.meter.verified(outcome.ok ? 'accepted' : outcome.error);
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
    const tx = await this.deps.transactions.get(id);
    return tx && tx.expiresAt > this.deps.clock.now() ? tx : undefined;
  }
}

const refuse = (error: string, description: string): WalletAnswer => ({ accepted: false, error, description });
