/**
 * Collecting a credential (OID4VCI 1.0, pre-authorized code flow) with the OpenWallet
 * Foundation's oid4vc-ts client: resolve the offer and the issuer's metadata, redeem the code
 * (with the transaction code when the offer asks for one), fetch a c_nonce, prove possession of
 * the device key, and receive one credential of the format asked for: a dc+sd-jwt one unless told,
 * or an mso_mdoc one. The wallet then checks what it received before it keeps it: the issuer's
 * signature by a key of the issuer's did:web DID, the type it was offered, and that the credential
 * is bound to this wallet's key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Openid4vciClient, type Openid4vciClientOptions } from '@openid4vc/openid4vci';
import { decodeJws, isObject, p256Jwk, signEs256, verifyEs256 } from '../core/jose/es256.ts';
import { credentialClaims } from './claims.ts';
import { didWebAt, resolveDidWebKey } from './did-web.ts';
import { allowLibraryHttp } from './library-http.ts';
import { checkReachable, WalletError, type WalletNetOptions, walletFetch } from './net.ts';
import { addCredential, type StoredCredential, WALLET_FORMATS, type Wallet, type WalletFormat } from './wallet-file.ts';

type Callbacks = Openid4vciClientOptions['callbacks'];

export const hashFor = (data: Uint8Array, alg: string) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest();

export interface Collected {
  stored: StoredCredential;
  /** An SD-JWT VC's claims; an mdoc's elements by namespace. */
  claims: Record<string, unknown>;
}

export async function collect(
  wallet: Wallet,
  offerUri: string,
  options: { txCode?: string; format?: WalletFormat; net: WalletNetOptions },
): Promise<Collected> {
  allowLibraryHttp(options.net);
  const fetchFn = walletFetch(options.net);
  const signJwt: Callbacks['signJwt'] = async (signer, { header, payload }) => {
    if (signer.method !== 'jwk' || signer.publicJwk.x !== wallet.publicJwk.x || signer.publicJwk.y !== wallet.publicJwk.y) {
      throw new WalletError('the wallet signs with its own device key only.');
    }
    const { alg: _alg, ...rest } = header as Record<string, unknown>;
    return { jwt: signEs256(wallet.privateKey, rest, payload as Record<string, unknown>), signerJwk: signer.publicJwk };
  };
  const client = new Openid4vciClient({
    callbacks: {
      fetch: fetchFn,
      hash: hashFor,
      generateRandom: (bytes) => randomBytes(bytes),
      signJwt,
      clientAuthentication: () => {},
    },
  });

  checkOfferTarget(offerUri, options.net);
  // The library's own message would quote the offer, pre-authorized code and all.
  const offer = await client.resolveCredentialOffer(offerUri).catch(() => {
    const byReference = new URL(offerUri).searchParams.get('credential_offer_uri');
    throw new WalletError(
      byReference
        ? `the credential_offer_uri at ${new URL(byReference).origin} did not answer a credential offer this wallet can read (expired or already used?).`
        : 'the offer is not a credential offer this wallet can read.',
    );
  });
  const grant = offer.grants?.['urn:ietf:params:oauth:grant-type:pre-authorized_code'];
  if (!grant) throw new WalletError('the offer has no pre-authorized code: this wallet collects pre-authorized offers only.');
  if (grant.tx_code && options.txCode === undefined) {
    const how = grant.tx_code.description ? ` (${grant.tx_code.description.slice(0, 200)})` : '';
    throw new WalletError(`the offer needs a transaction code${how}: add --tx-code <code>.`);
  }
  const metadata = await client.resolveIssuerMetadata(offer.credential_issuer);
  // The first configuration of the format asked for: an offer of a type in two formats names both
  // (SD-JWT VC first), and a wallet that asks for nothing gets the SD-JWT VC it always got.
  const format = options.format ?? 'dc+sd-jwt';
  const described = metadata.credentialIssuer.credential_configurations_supported;
  const formatOf = (id: string) => described[id]?.format;
  const configurationId = offer.credential_configuration_ids.find((id) => formatOf(id) === format);
  const configuration = configurationId ? described[configurationId] : undefined;
  if (!configurationId || !configuration) {
    const other = WALLET_FORMATS.find((f) => f !== format && offer.credential_configuration_ids.some((id) => formatOf(id) === f));
    const hint = other ? `: it offers ${other}, which --format ${other} collects` : '';
    throw new WalletError(`the offer names no ${format} credential the issuer describes${hint}.`);
  }
  // OID4VCI 1.0 Appendix A.2.2: an mso_mdoc configuration names its doctype.
  const doctype = format === 'mso_mdoc' ? configuration.doctype : undefined;
  if (format === 'mso_mdoc' && typeof doctype !== 'string') {
    throw new WalletError('the issuer describes its mso_mdoc credential without a doctype.');
  }
  const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
    credentialOffer: offer,
    issuerMetadata: metadata,
    ...(options.txCode === undefined ? {} : { txCode: options.txCode }),
  });
  const { c_nonce } = await client.requestNonce({ issuerMetadata: metadata });
  const { jwt } = await client.createCredentialRequestJwtProof({
    issuerMetadata: metadata,
    credentialConfigurationId: configurationId,
    nonce: c_nonce,
    signer: { method: 'jwk', alg: 'ES256', publicJwk: wallet.publicJwk },
  });
  const { credentialResponse } = await client.retrieveCredentials({
    issuerMetadata: metadata,
    accessToken: accessTokenResponse.access_token,
    credentialConfigurationId: configurationId,
    proofs: { jwt: [jwt] },
  });
  const [first] = credentialResponse.credentials ?? [];
  const credential = isObject(first) ? first.credential : first;
  if (typeof credential !== 'string') {
    throw new WalletError(
      `the issuer answered no ${format === 'mso_mdoc' ? 'base64url mso_mdoc' : 'compact dc+sd-jwt'} credential.`,
    );
  }
  if (typeof doctype === 'string') {
    return keepMdoc(wallet, credential, { doctype, credentialIssuer: offer.credential_issuer }, fetchFn, options.net);
  }

  const expectedVct = typeof configuration.vct === 'string' ? configuration.vct : undefined;
  const { vct, issuer } = await checkReceived(credential, wallet, expectedVct, fetchFn, options.net);
  const claims = await credentialClaims(credential);
  const stored = addCredential(wallet, { format: 'dc+sd-jwt', issuer, vct, collectedAt: new Date().toISOString(), credential });
  return { stored, claims };
}

/** Checks a received mdoc (mdoc.ts), whose issuer is the did:web DID at its credential issuer's URL, and keeps it. */
async function keepMdoc(
  wallet: Wallet,
  credential: string,
  offered: { doctype: string; credentialIssuer: string },
  fetchFn: typeof fetch,
  net: WalletNetOptions,
): Promise<Collected> {
  const { checkReceivedMdoc, mdocNamespaces } = await import('./mdoc.ts');
  const issuer = didWebAt(new URL(offered.credentialIssuer));
  const { doctype, deviceKey } = await checkReceivedMdoc(credential, wallet, { doctype: offered.doctype, issuer }, fetchFn, net);
  const collectedAt = new Date().toISOString();
  const stored = addCredential(wallet, { format: 'mso_mdoc', issuer, doctype, deviceKey, collectedAt, credential });
  return { stored, claims: mdocNamespaces(credential) };
}

/**
 * Reads what the offer URI names before any request, and refuses in the wallet's words, naming
 * the part it could not read (never quoting the offer, which holds its pre-authorized code): the
 * URI itself, `credential_offer` as JSON with its `credential_issuer`, `credential_configuration_ids`
 * and `grants` (OID4VCI 1.0 §4.1.1), or `credential_offer_uri`; and an issuer the wallet may not reach.
 */
function checkOfferTarget(offerUri: string, net: WalletNetOptions): void {
  let params: URLSearchParams;
  try {
    params = new URL(offerUri).searchParams;
  } catch {
    throw new WalletError('the offer is not a URI: pass the openid-credential-offer:// link, quoted.');
  }
  let target = params.get('credential_offer_uri');
  const byValue = params.get('credential_offer');
  if (target === null && byValue === null) {
    throw new WalletError('the offer URI carries neither credential_offer nor credential_offer_uri.');
  }
  if (target === null && byValue !== null) {
    let offer: unknown;
    try {
      offer = JSON.parse(byValue);
    } catch (err) {
      throw new WalletError(`credential_offer is not JSON (${(err as Error).message}): was the link cut short?`);
    }
    const fields = typeof offer === 'object' && offer !== null ? (offer as Record<string, unknown>) : {};
    if (typeof fields.credential_issuer !== 'string') throw new WalletError('credential_offer has no credential_issuer.');
    const ids = fields.credential_configuration_ids;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) {
      throw new WalletError('credential_offer has no credential_configuration_ids (a list of names).');
    }
    if (typeof fields.grants !== 'object' || fields.grants === null) throw new WalletError('credential_offer has no grants.');
    target = fields.credential_issuer;
  }
  let url: URL;
  try {
    url = new URL(target as string);
  } catch {
    throw new WalletError(
      `the offer names ${params.has('credential_offer_uri') ? 'a credential_offer_uri' : 'an issuer'} that is not a URL.`,
    );
  }
  checkReachable(url, net);
}

/** What the wallet checks before keeping a credential; answers its type and issuer. */
async function checkReceived(
  credential: string,
  wallet: Wallet,
  expectedVct: string | undefined,
  fetchFn: typeof fetch,
  net: WalletNetOptions,
): Promise<{ vct: string; issuer: string }> {
  const jws = decodeJws(credential.slice(0, credential.indexOf('~')));
  if (!jws) throw new WalletError('the credential is not an SD-JWT.');
  const { header, payload } = jws;
  if (header.alg !== 'ES256' || typeof header.kid !== 'string' || !header.kid.startsWith('did:web:')) {
    throw new WalletError('the credential is not signed ES256 by a did:web key.');
  }
  const iss = payload.iss;
  if (typeof iss !== 'string' || header.kid.split('#')[0] !== iss)
    throw new WalletError("the credential's signing key is not its issuer's.");
  const issuerKey = await resolveDidWebKey(header.kid, fetchFn, net);
  if (!verifyEs256(jws, issuerKey)) throw new WalletError("the credential's signature does not verify with its issuer's key.");
  if (typeof payload.vct !== 'string' || (expectedVct !== undefined && payload.vct !== expectedVct)) {
    throw new WalletError('the credential is not of the type the offer named.');
  }
  const cnf = isObject(payload.cnf) ? p256Jwk(payload.cnf.jwk) : undefined;
  if (!cnf || cnf.x !== wallet.publicJwk.x || cnf.y !== wallet.publicJwk.y) {
    throw new WalletError("the credential is not bound to this wallet's key.");
  }
  return { vct: payload.vct, issuer: iss };
}
