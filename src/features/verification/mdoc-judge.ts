import type { Clock } from '../../core/clock.ts';
import { type ElementPath, mdocStatusUri, verifyMdocPresentation } from '../../core/mdoc/verify-mdoc.ts';
import { FAILURE_CHECK, type FailureCode } from '../../core/verifier/ledger.ts';
import type { MdocProfile } from '../../ports/credential-type-store.ts';
import type { PresentationTransactionRecord } from '../../ports/presentation-transaction-store.ts';
import type { IssuerCertificates } from './issuer-certificates.ts';
import type { IssuerDocuments } from './issuer-documents.ts';
import type { Outcome } from './presentation-judge.ts';
import type { StatusListSource } from './status-list-source.ts';

export interface MdocJudgeDeps {
  clock: Clock;
  statusLists: StatusListSource;
  documents: IssuerDocuments;
  certificates: IssuerCertificates;
}

/**
 * The verdict on an mdoc presented to a transaction that asked for one (docs/mdoc.md, "Hosted
 * verification"): the reference mdoc verifier with the issuer tenant's DID document, this
 * deployment's trust anchors, its status list, and the session transcript of the channel the request
 * went out on. The outcome's claims are named by the type's claim keys, as an SD-JWT VC's are.
 */
export async function judgeMdoc(
  deps: MdocJudgeDeps,
  tx: PresentationTransactionRecord,
  profile: MdocProfile,
  presentation: string,
  sessionTranscript: Uint8Array,
  issuer: string,
): Promise<{ outcome: Outcome; holder: string | null }> {
  const expected = tx.claims.map((c) => profile.elements[c] ?? ([profile.doctype, c] as const)) as ElementPath[];
  const uri = mdocStatusUri(presentation);
  // Only this deployment's lists: an mdoc is asked of this deployment's own types.
  const statusList = uri !== undefined && deps.statusLists.isLocal(uri) ? await deps.statusLists.get(uri) : undefined;
  const { anchors, check } = deps.certificates.trust();
  const result = await verifyMdocPresentation(
    {
      presentation,
      didDocument: await deps.documents.of(tx.typeTenant, undefined),
      ...(statusList === undefined ? {} : { statusList }),
      trustAnchors: anchors,
      expected: { doctype: profile.doctype, claims: expected, sessionTranscript },
      now: Math.floor(deps.clock.now() / 1000),
    },
    check,
  );
  if (result.verdict !== 'accept' || !result.claims) {
    const failure = (result.failure ?? 'status_unavailable') as FailureCode;
    const entry = result.ledger.find((e) => e.failure === failure);
    return {
      outcome: { ok: false, error: failure, link: FAILURE_CHECK[failure], detail: entry?.detail ?? failure },
      holder: null,
    };
  }
  const disclosed = result.claims;
  // Exactly the claims asked for, by the type's names: a surplus element is dropped here.
  const claims = Object.fromEntries(
    tx.claims.map((c, i) => {
      const [ns, id] = expected[i] as ElementPath;
      return [c, disclosed[ns]?.[id]];
    }),
  );
  const outcome: Outcome = {
    ok: true,
    presentation: { claims, vct: tx.vct, issuer, format: 'mso_mdoc', doctype: profile.doctype },
    // The device signed the transcript that holds this nonce; the aud is the caller's, bound to the transaction.
    presentedNonce: tx.nonce,
    presentedAud: tx.callerAud,
  };
  return { outcome, holder: result.holder };
}
