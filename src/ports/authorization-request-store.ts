import type { Redemption } from './access-token-store.ts';
import type { IssuerState } from './tenant-store.ts';

/**
 * Where a pushed authorization request stands (docs/haip.md, "Issuance"): pushed by the wallet;
 * opened by the holder's browser at the authorization endpoint (the request_uri is spent);
 * approved by the issuer (its sign-in hook, or the holder on the approval page), which fixes the
 * offer carrying the subject; a code handed to the wallet; that code redeemed at the token
 * endpoint; or declined.
 */
export type AuthorizationPhase = 'pushed' | 'opened' | 'approved' | 'code' | 'redeemed' | 'declined';

export interface AuthorizationRequestRecord {
  id: string;
  tenant: string;
  requestUriHash: string;
  clientId: string;
  redirectUri: string;
  state: string | null;
  /** PKCE S256 challenge. */
  codeChallenge: string;
  typeId: string;
  /** RFC 7638 thumbprint of the wallet attestation's `cnf` key: the token request must come from the same wallet instance. */
  attestationJkt: string;
  /** The DPoP key named at the push (`dpop_jkt` or the DPoP proof), or null. */
  dpopJkt: string | null;
  /** The offer whose subject the credential carries: known at the push from `issuer_state`, else fixed at approval. */
  offerId: string | null;
  phase: AuthorizationPhase;
  /** SHA-256 of the secret the opening browser holds in a cookie; null before opening. */
  browserHash: string | null;
  codeHash: string | null;
  /** SHA-256 of the secret the sign-in hook's approval put in its continueUrl; null otherwise. */
  continueHash: string | null;
  createdAt: number;
  /** The current phase ends at this time: the push's request_uri, the opened session, the code. */
  expiresAt: number;
}

/**
 * A wallet attestation's proof of possession, taken once per issuer with the write it lets in
 * (docs/haip.md, "Wallet attestation trust"): the hash of its `jti`, marked used until
 * `expiresAt`, at `now`. A mark already there and unexpired refuses the write.
 */
export interface PopMark {
  jtiHash: string;
  expiresAt: number;
  now: number;
}

/** The issuer of an opened request, as its pages need it. */
export interface OpeningIssuer {
  /** Where the issuer signs in holders who come without an offer (its hook), if it has one. */
  signInUrl: string | null;
  /** The name its pages show: its display name, else its name. */
  name: string;
}

/**
 * The authorization code flow's requests. Every move is one conditional write from the phase it
 * leaves, so each artifact (request_uri, session, code) is spent once.
 * @tenantOwned
 */
export interface AuthorizationRequestStore {
  /**
   * Stores the pushed request and marks its proof of possession used at its tenant, together (one
   * statement on PostgreSQL): false, and nothing written, when the proof was used before.
   */
  push(record: AuthorizationRequestRecord, pop: PopMark): Promise<boolean>;
  get(tenant: string, id: string): Promise<AuthorizationRequestRecord | undefined>;
  /**
   * pushed → opened by the browser holding the secret of `browserHash`, in one conditional write
   * that answers the record and its issuer's sign-in hook and shown name; undefined, and nothing
   * written, when the request_uri is unknown, spent, expired or another client's, or the tenant
   * does not serve the authorization code flow (unknown, or its HAIP issuance off).
   */
  open(
    tenant: string,
    requestUriHash: string,
    clientId: string,
    browserHash: string,
    now: number,
    expiresAt: number,
  ): Promise<{ record: AuthorizationRequestRecord; issuer: OpeningIssuer } | undefined>;
  /**
   * opened → approved with the offer that carries the subject (and, from the sign-in hook, the
   * hash of its continuation secret); false unless opened, unexpired and without an offer.
   */
  approve(tenant: string, id: string, offerId: string, continueHash: string | null, now: number): Promise<boolean>;
  /**
   * `from` → code, for the opening browser only, in one conditional write that answers the record
   * as granted; undefined unless in `from`, unexpired, with an offer, the browser's, and its tenant
   * serves the authorization code flow.
   */
  grantCode(
    tenant: string,
    id: string,
    from: 'opened' | 'approved',
    browserHash: string,
    codeHash: string,
    now: number,
    expiresAt: number,
  ): Promise<AuthorizationRequestRecord | undefined>;
  /** opened or approved → declined, for the opening browser only. */
  decline(tenant: string, id: string, browserHash: string, now: number): Promise<boolean>;
  /**
   * The issuer `tenant` (undefined when no tenant has the slug) and its request of this code
   * (undefined when it has none), in one read: the token request's first round trip.
   */
  atIssuerByCode(tenant: string, codeHash: string): Promise<{ issuer?: IssuerState; request?: AuthorizationRequestRecord }>;
  /**
   * code → redeemed together with the offer's redemption (its access token) and the proof of
   * possession's mark, all or nothing (one statement on PostgreSQL): `proof_used` when the proof
   * was used before, `spent` when the code or the offer was, and nothing is written then.
   */
  redeem(tenant: string, id: string, redemption: Redemption, pop: PopMark): Promise<'redeemed' | 'proof_used' | 'spent'>;
  /** Drops requests whose phase has ended, of every tenant; how many. */
  prune(now: number): Promise<number>;
}
