import type { EventInput } from '../core/events.ts';
import type { CredentialFormat } from './credential-type-store.ts';
/**
 * OID4VP presentation transactions of the platform's hosted verifier (docs/verification.md).
 * They belong to the platform, not to a tenant: the public plane opens them without an account,
 * and a wallet's response finds its transaction by `state` alone. The requested type's tenant is
 * recorded with each.
 */
export interface PresentationTransactionRecord {
  id: string;
  state: string;
  /** The OID4VP request nonce: the caller's nonce, verbatim. */
  nonce: string;
  resultTokenHash: string;
  callerAud: string;
  typeTenant: string;
  typeId: string;
  vct: string;
  claims: string[];
  /** The operator who opened it on the operator plane ('owner-token' for the break-glass bearer); null on the public plane. */
  requestedBy: string | null;
  createdAt: number;
  expiresAt: number;
  completedAt: number | null;
  outcome: Record<string, unknown> | null;
  /**
   * RFC 7638 thumbprint of the presented credential's cnf key, recorded when an accepted
   * presentation completes the transaction (never a claim value); null otherwise.
   */
  holder: string | null;
  /**
   * An issuer of the trust registry whose credential is asked for (docs/operations.md, "Trust
   * registry"); null when the type is one of this deployment's tenants'.
   */
  issuerDid: string | null;
  /** When the transaction enrolled its holder as a member (docs/membership.md); null until then. */
  enrolledAt: number | null;
  /** The profile it was opened under (docs/haip.md): the interface's `openid4vp`, or `haip`. */
  profile: VerificationProfile;
  /** The credential format asked for (docs/mdoc.md): `mso_mdoc` for a type of this deployment; absent or `dc+sd-jwt`: SD-JWT VC. */
  format?: CredentialFormat;
  /**
   * The private JWK of the transaction's own response-encryption key (HAIP, and every DC API
   * request), sealed under the master key; dropped (null) when the transaction completes. Null
   * when neither asks for one.
   */
  responseKey: string | null;
  /** The web origin a Digital Credentials API request is made from (docs/dc-api.md); null: none. */
  dcOrigin: string | null;
  /**
   * The verifier's certificate chain when the transaction opened, for requests that name the
   * verifier by its hash (`x509_hash`: HAIP, DC API): every request and the expected audience use
   * this one, so a renewal meanwhile changes nothing for it. Null when no request does.
   */
  verifierChain: string[] | null;
  /**
   * The relying party's page a wallet on the same device returns the browser to, with a response
   * code (docs/verification.md, "A wallet on the same device"); null: the wallet is answered `{}`.
   */
  redirectUri: string | null;
  /**
   * Hash of the response code handed to the wallet with `redirectUri` when its answer was
   * accepted; the outcome is then released only with that code. Null: none was handed out.
   */
  responseCodeHash: string | null;
}

/** What completing a transaction records besides its outcome. */
export interface CompletionExtras {
  /** The presented credential's cnf key thumbprint (accepted presentations). */
  holder?: string | null;
  /** The hash of the response code handed to the wallet (a same-device return). */
  responseCodeHash?: string | null;
  /** An event recorded with the completion, in its outbox, all or nothing with it. */
  event?: EventInput;
}

export const VERIFICATION_PROFILES = ['openid4vp', 'haip'] as const;
export type VerificationProfile = (typeof VERIFICATION_PROFILES)[number];

/** @tenantOwned */
export interface PresentationTransactionStore {
  /** False when a live transaction already uses this nonce (nothing is written then). */
  create(record: PresentationTransactionRecord): Promise<boolean>;
  get(id: string): Promise<PresentationTransactionRecord | undefined>;
  findByState(state: string): Promise<PresentationTransactionRecord | undefined>;
  /**
   * Records the outcome of a pending, unexpired transaction and keeps it until `keepUntil`: one
   * conditional write, so of two racing responses exactly one completes it, and its response key
   * is dropped with it. False otherwise.
   */
  complete(
    id: string,
    outcome: Record<string, unknown>,
    now: number,
    keepUntil: number,
    extras?: CompletionExtras,
  ): Promise<boolean>;
  /** Deletes transactions past their expiry. */
  sweep(now: number): Promise<void>;
  /** Deletes the oldest transactions, in any state, beyond the newest `cap`; answers how many. */
  evictBeyond(cap: number): Promise<number>;
}
