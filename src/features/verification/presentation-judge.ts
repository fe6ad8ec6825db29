import type { Clock } from '../../core/clock.ts';
import { decodeJws } from '../../core/jose/es256.ts';
import { FAILURE_CHECK, type FailureCode } from '../../core/verifier/ledger.ts';
import { type VerificationResult, verifyPresentation } from '../../core/verifier/verify-presentation.ts';
import type { ChainsOf } from '../../ports/certificate-chains.ts';
import type { MdocProfile } from '../../ports/credential-type-store.ts';
import type { KeyCertifier } from '../../ports/key-certifier.ts';
import type { PresentationTransactionRecord } from '../../ports/presentation-transaction-store.ts';
import type { TrustService } from '../issuer-trust/trust-service.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import { IssuerCertificates } from './issuer-certificates.ts';
import { IssuerDocuments } from './issuer-documents.ts';
import { judgeMdoc } from './mdoc-judge.ts';
import { type StatusListSource, statusUriOf } from './status-list-source.ts';
import { presentationOf } from './vp-token.ts';

export type Outcome =
  | {
      ok: true;
      presentation: { claims: Record<string, unknown>; vct: string; issuer: string; format?: 'mso_mdoc'; doctype?: string };
      presentedNonce: string;
      presentedAud: string;
    }
  | { ok: false; error: string; link: string; detail: string };

export interface PresentationJudgeDeps {
  tenants: TenantService;
  trust: Pick<TrustService, 'trusted'>;
  statusLists: StatusListSource;
  clock: Clock;
  certifier: Pick<KeyCertifier, 'anchorPem'>;
  /** X.509 path validation, for the issuer's certificate chain (HAIP 1.0 §6.1). */
  chainsOf: ChainsOf;
  /** The mdoc profile of an mso_mdoc transaction's type. */
  mdocOf: (tx: PresentationTransactionRecord) => Promise<MdocProfile>;
}

/**
 * Where the answer came from, as the holder bound it: the audience an SD-JWT VC's key binding names,
 * and the session transcript an mdoc's device signature covers (computed only for an mdoc).
 */
export interface AnswerChannel {
  aud: string;
  sessionTranscript: () => Uint8Array;
}

/**
 * The verdict on a wallet's answer (docs/verification.md): the reference verifier's checks of the
 * presentation against the transaction, with the issuer's DID document (of this deployment, or of
 * the trust registry), its status list and, under HAIP, its certificate.
 */
export class PresentationJudge {
  private readonly issuerCertificates: IssuerCertificates;
  private readonly issuerDocuments: IssuerDocuments;

  constructor(private readonly deps: PresentationJudgeDeps) {
    this.issuerCertificates = new IssuerCertificates(() => deps.certifier.anchorPem, deps.clock, deps.chainsOf);
    this.issuerDocuments = new IssuerDocuments(deps.tenants, deps.clock);
  }

  /** The outcome of a pending transaction's answer: the presentation bound to `aud`, or the wallet's error. */
  async judge(
    tx: PresentationTransactionRecord,
    params: Record<string, unknown>,
    channel: AnswerChannel,
  ): Promise<{ outcome: Outcome; holder: string | null }> {
    if (params.error !== undefined) return { outcome: walletError(params), holder: null };
    const { aud } = channel;
    const vpToken = vpTokenText(params.vp_token);
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
    if (tx.format === 'mso_mdoc') {
      const deps = {
        clock: this.deps.clock,
        statusLists: this.deps.statusLists,
        documents: this.issuerDocuments,
        certificates: this.issuerCertificates,
      };
      const issuer = this.deps.tenants.didOf(tx.typeTenant);
      return judgeMdoc(deps, tx, await this.deps.mdocOf(tx), presentation, channel.sessionTranscript(), issuer);
    }
    let didDocument: Record<string, unknown>;
    if (tx.issuerDid === null) {
      const kid = decodeJws(presentation.split('~')[0] ?? '')?.header.kid;
      didDocument = (await this.issuerDocuments.of(tx.typeTenant, kid)) as unknown as Record<string, unknown>;
    } else {
      // Read on every presentation: a suspension holds on the next one, on every process.
      const trusted = await this.deps.trust.trusted(tx.issuerDid);
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
      now: Math.floor(this.deps.clock.now() / 1000),
    };
    const local = uri !== undefined && this.deps.statusLists.isLocal(uri);
    const localList = local ? await this.deps.statusLists.get(uri) : undefined;
    let result = verifyPresentation(localList ? { ...input, statusList: localList } : input);
    // Another service's list is fetched only once everything else holds, so an unsigned
    // presentation cannot make this service fetch an address of its choosing.
    if (uri !== undefined && !local && result.failure === 'status_unavailable' && result.verdict === 'indeterminate') {
      const remote = await this.deps.statusLists.get(uri);
      if (remote) result = verifyPresentation({ ...input, statusList: remote });
    }
    // HAIP 1.0 §6.1 resolves the issuer's key by its certificate too: for a type of this deployment
    // (a trusted issuer of the registry is known by its DID document only).
    const byCertificate = result.verdict === 'accept' && tx.profile === 'haip' && tx.issuerDid === null;
    const uncertified = byCertificate ? await this.issuerCertificates.problem(presentation, didDocument) : undefined;
    if (uncertified) {
      return { outcome: { ok: false, error: 'issuer_key_unknown', link: 'issuer_key', detail: uncertified }, holder: null };
    }
    const outcome = toOutcome(result, tx, tx.issuerDid ?? this.deps.tenants.didOf(tx.typeTenant));
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
