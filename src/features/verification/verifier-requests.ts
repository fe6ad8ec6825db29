import type { Clock } from '../../core/clock.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import type { MdocProfile } from '../../ports/credential-type-store.ts';
import type { KeyCertifier } from '../../ports/key-certifier.ts';
import type { KeyStore } from '../../ports/key-store.ts';
import type { KeyVault } from '../../ports/key-vault.ts';
import type { PresentationTransactionRecord } from '../../ports/presentation-transaction-store.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import { RESPONSE_ENC_VALUES, responseJwk, x509HashClientId } from './haip-profile.ts';
import { QUERY_ID } from './vp-token.ts';

export const REQUEST_OBJECT_TYP = 'oauth-authz-req+jwt';
/** OID4VP 1.0 §5.8: the request object audience under static discovery of the wallet. */
const STATIC_WALLET_AUDIENCE = 'https://self-issued.me/v2';
/** OID4VP 1.0 Appendix A.1: the exchange protocols of requests through the Digital Credentials API. */
export const DC_SIGNED = 'openid4vp-v1-signed';
export const DC_UNSIGNED = 'openid4vp-v1-unsigned';
const VP_FORMATS = {
  'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] },
  // OID4VP 1.0 Appendix B.2.3: COSE ES256 for the issuer's MSO and the device signature.
  mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] },
};

/** What a page passes to `navigator.credentials.get({digital: {requests}})` (OID4VP 1.0 Appendix A). */
export interface DcApiRequest {
  protocol: typeof DC_SIGNED | typeof DC_UNSIGNED;
  data: Record<string, unknown>;
}

export interface VerifierRequestsDeps {
  keys: KeyStore;
  tenants: TenantService;
  urls: IssuerUrls;
  clock: Clock;
  vault: KeyVault;
  certifier: Pick<KeyCertifier, 'authorityKeyIds'>;
  /** Whether DC API requests also offer the unsigned form (OPENRAIL_DC_API_UNSIGNED). */
  dcApiUnsigned: boolean;
  /** The mdoc profile of an mso_mdoc transaction's type (its doctype and elements). */
  mdocOf: (tx: PresentationTransactionRecord) => Promise<MdocProfile>;
}

/**
 * What the hosted verifier asks a wallet (OID4VP 1.0 §5, JAR): its client identifier, the request
 * object a QR code points at, and the requests a page passes to the Digital Credentials API, each
 * signed with the platform verifier key.
 */
export class VerifierRequests {
  readonly clientId: string;

  constructor(private readonly deps: VerifierRequestsDeps) {
    this.clientId = `decentralized_identifier:${deps.tenants.didOf(ROOT_SLUG)}`;
  }

  /** The platform verifier key's certificate chain now. */
  async verifierChain(): Promise<string[]> {
    const { x5c: chain } = await this.deps.keys.signer(ROOT_SLUG, 'verifier');
    if (!chain) throw new Error('the platform verifier key has no certificate yet');
    return [...chain];
  }

  /** The verifier's `x509_hash` identifier in a transaction's requests (the chain it opened with). */
  certifiedClientId(tx: PresentationTransactionRecord): string {
    if (tx.verifierChain === null) throw new Error(`transaction ${tx.id} names no verifier certificate`);
    return x509HashClientId(tx.verifierChain);
  }

  /** The client identifier of a transaction's QR request: its certificate's hash under HAIP, else the DID. */
  qrClientId(tx: PresentationTransactionRecord): string {
    return tx.profile === 'haip' ? this.certifiedClientId(tx) : this.clientId;
  }

  /**
   * A request object signed with the platform verifier key (JAR, `typ` oauth-authz-req+jwt): named
   * by the transaction's certificate chain (`x5c`) or by its DID URL (`kid`).
   */
  private async signRequest(tx: PresentationTransactionRecord, by: 'certificate' | 'did', params: Record<string, unknown>) {
    const signer = await this.deps.keys.signer(ROOT_SLUG, 'verifier');
    const header =
      by === 'certificate'
        ? { typ: REQUEST_OBJECT_TYP, x5c: tx.verifierChain }
        : { typ: REQUEST_OBJECT_TYP, kid: `${this.deps.tenants.didOf(ROOT_SLUG)}#${signer.kid}` };
    const iat = Math.floor(this.deps.clock.now() / 1000);
    return signer.sign(header, { ...params, aud: STATIC_WALLET_AUDIENCE, iat, exp: Math.floor(tx.expiresAt / 1000) });
  }

  /** Where a wallet posts its answer to a QR request (`response_uri`). */
  responseUri(): string {
    return `${this.deps.urls.origin}/oid4vp/response`;
  }

  requestUri(transactionId: string): string {
    return `${this.deps.urls.origin}/oid4vp/request/${transactionId}`;
  }

  /**
   * The signed request object (OID4VP 1.0 §5, JAR) of a live transaction, named by its
   * certificate chain under HAIP and by the platform's DID URL otherwise.
   */
  async object(tx: PresentationTransactionRecord): Promise<string> {
    const haip = tx.profile === 'haip';
    return this.signRequest(tx, haip ? 'certificate' : 'did', {
      client_id: this.qrClientId(tx),
      response_type: 'vp_token',
      response_mode: haip ? 'direct_post.jwt' : 'direct_post',
      response_uri: this.responseUri(),
      nonce: tx.nonce,
      state: tx.state,
      dcql_query: await this.dcqlQuery(tx),
      client_metadata: haip ? this.encryptedMetadata(tx) : { vp_formats_supported: VP_FORMATS },
    });
  }

  /**
   * The DCQL query: the one credential asked for, its claims, and under HAIP, for a type of this
   * deployment, the authority that certifies its issuers' keys (HAIP credentials carry x5c; under
   * the interface's profile a credential issued before certificates has none, and a wallet that
   * filtered on the authority would not offer it).
   */
  private async dcqlQuery(tx: PresentationTransactionRecord) {
    const withAuthority = tx.profile === 'haip';
    const mdoc = tx.format === 'mso_mdoc' ? await this.deps.mdocOf(tx) : undefined;
    const credentialQuery = {
      id: QUERY_ID,
      ...(mdoc
        ? {
            format: 'mso_mdoc',
            meta: { doctype_value: mdoc.doctype },
            // HAIP 1.0 §5.3.2: intent_to_retain present on every mdoc claim; this service keeps nothing it is shown.
            claims: tx.claims.map((c) => ({ path: mdoc.elements[c] ?? [c], intent_to_retain: false })),
          }
        : {
            format: 'dc+sd-jwt',
            meta: { vct_values: [tx.vct] },
            ...(tx.claims.length > 0 ? { claims: tx.claims.map((c) => ({ path: [c] })) } : {}),
          }),
      ...(withAuthority && tx.issuerDid === null
        ? { trusted_authorities: [{ type: 'aki', values: [...this.deps.certifier.authorityKeyIds] }] }
        : {}),
    };
    return { credentials: [credentialQuery] };
  }

  /** Client metadata that asks for an answer encrypted to the transaction's own key. */
  private encryptedMetadata(tx: PresentationTransactionRecord) {
    if (tx.responseKey === null) throw new Error(`transaction ${tx.id} has no response key`);
    return {
      jwks: { keys: [responseJwk(this.deps.vault, tx.responseKey, tx.id)] },
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
  async dcApiRequests(tx: PresentationTransactionRecord): Promise<DcApiRequest[]> {
    const params = {
      response_type: 'vp_token',
      response_mode: 'dc_api.jwt',
      nonce: tx.nonce,
      dcql_query: await this.dcqlQuery(tx),
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
  offeredProtocols(): string[] {
    return this.deps.dcApiUnsigned ? [DC_SIGNED, DC_UNSIGNED] : [DC_SIGNED];
  }
}
