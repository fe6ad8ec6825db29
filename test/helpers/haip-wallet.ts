/**
 * A HAIP wallet for issuance tests (docs/haip.md, "Issuance"): a wallet provider with its own
 * certificate authority (the anchor the rail is configured to trust), a wallet instance attested by
 * it, and the oid4vc-ts clients (@openid4vc/oauth2, @openid4vc/openid4vci) driving PAR, the
 * authorization endpoint, the token endpoint with DPoP and the credential endpoint. The holder's
 * browser is plain HTTP with its own cookie, as a browser keeps one. Negative cases build the
 * attestation, its proof of possession and DPoP proofs by hand (`attestation`, `pop`, `dpopProof`)
 * with one fault each.
 */
import 'reflect-metadata'; // before @peculiar/x509
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallbackContext,
  clientAuthenticationClientAttestationJwt,
  createClientAttestationJwt,
  HashAlgorithm,
  Oauth2Client,
} from '@openid4vc/oauth2';
import {
  type CredentialOfferObject,
  createKeyAttestationJwt,
  getGlobalConfig,
  Openid4vciClient,
  setGlobalConfig,
} from '@openid4vc/openid4vci';
import * as x509 from '@peculiar/x509';
import { exportJWK, type JWK, SignJWT } from 'jose';
import { type HolderKey, newHolderKey } from './holder.ts';
import { publicOnly, walletFetch } from './oid4vp-wallet.ts';
import { PUBLIC_URL } from './rail.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ES256 = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

export const REDIRECT_URI = 'https://wallet.example/callback';

/** A wallet provider: a root (the rail's trust anchor) and the leaf that signs its attestations. */
export interface WalletProvider {
  anchorPem: string;
  /** A file holding the anchor, for OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE. */
  anchorFile: string;
  /** The leaf certificate, base64 DER: the attestation's x5c. */
  leaf: string;
  leafKey: CryptoKey;
  /** A second provider the rail does not trust, for the untrusted-chain case. */
  stranger: { leaf: string; leafKey: CryptoKey };
}

async function authority(name: string) {
  const rootKeys = (await webcrypto.subtle.generateKey(P256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${name} Root`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 365 * DAY_MS),
    keys: rootKeys,
    signingAlgorithm: ES256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(P256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: `CN=${name} Attestation`,
    issuer: root.subject,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 365 * DAY_MS),
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm: ES256,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  return { root, leaf: Buffer.from(leaf.rawData).toString('base64'), leafKey: leafKeys.privateKey };
}

export async function newWalletProvider(): Promise<WalletProvider> {
  const trusted = await authority('Test Wallet Provider');
  const stranger = await authority('Untrusted Provider');
  const anchorPem = trusted.root.toString('pem');
  const anchorFile = join(mkdtempSync(join(tmpdir(), 'openrail-wallet-anchors-')), 'anchors.pem');
  writeFileSync(anchorFile, anchorPem);
  return {
    anchorPem,
    anchorFile,
    leaf: trusted.leaf,
    leafKey: trusted.leafKey,
    stranger: { leaf: stranger.leaf, leafKey: stranger.leafKey },
  };
}

/** An ES256 JWT signed with a WebCrypto key, header and payload as given. */
async function signWith(key: CryptoKey, header: Record<string, unknown>, payload: Record<string, unknown>) {
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', ...header } as { alg: string }).sign(key);
}

/**
 * A JWT the trusted provider signs (its leaf in x5c), or the untrusted one (`stranger`), or one
 * made by the wallet itself (`self`): signed by `own`, naming that key in a jwk header instead of a chain.
 */
async function signedBy(
  provider: WalletProvider,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  signer: 'stranger' | 'self' | undefined,
  own: HolderKey,
): Promise<string> {
  if (signer === 'stranger') return signWith(provider.stranger.leafKey, { ...header, x5c: [provider.stranger.leaf] }, payload);
  if (signer === 'self') {
    const { x5c: _dropped, ...rest } = header;
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'ES256', ...rest, jwk: publicOnly(own.publicJwk) })
      .sign(own.privateKey);
  }
  return signWith(provider.leafKey, header, payload);
}

export interface HaipWallet {
  clientId: string;
  /** The wallet instance's key: the attestation's cnf, signing its proofs of possession. */
  instanceKey: HolderKey;
  dpopKey: HolderKey;
  holderKey: HolderKey;
  attestationJwt: string;
  fetch: typeof fetch;
  oauth: Oauth2Client;
  vci: Openid4vciClient;
  /** A wallet attestation with the given payload or header changes (the negative cases), signed by the trusted provider unless `signer` says otherwise. */
  attestation(o?: {
    payload?: Record<string, unknown>;
    header?: Record<string, unknown>;
    signer?: 'stranger' | 'self';
  }): Promise<string>;
  /** A proof of possession of the instance key for `aud`, with changes. */
  pop(aud: string, o?: { payload?: Record<string, unknown>; key?: HolderKey }): Promise<string>;
  /**
   * A key attestation of the provider for `nonce`, attesting the holder key (or `keys`): made by
   * oid4vc-ts (createKeyAttestationJwt) as a wallet would, or with `payload` or `header` changes,
   * or signed by an untrusted provider, or self-made (the negative cases), by hand.
   */
  keyAttestation(o: {
    nonce: string;
    /** As the attestation proof type (no exp needed) rather than in a jwt proof's header. */
    asProof?: boolean;
    keys?: HolderKey[];
    keyStorage?: string[];
    payload?: Record<string, unknown>;
    header?: Record<string, unknown>;
    signer?: 'stranger' | 'self';
  }): Promise<string>;
  /** A DPoP proof by the DPoP key, with changes. */
  dpopProof(
    htm: string,
    htu: string,
    o?: { nonce?: string; accessToken?: string; payload?: Record<string, unknown>; key?: HolderKey },
  ): Promise<string>;
}

const hash: CallbackContext['hash'] = (data, alg) => {
  assert.equal(alg, HashAlgorithm.Sha256);
  return createHash('sha256').update(data).digest();
};

export async function newHaipWallet(provider: WalletProvider, railOrigin: string, publicUrl = PUBLIC_URL): Promise<HaipWallet> {
  // oid4vc-ts refuses http URLs unless told so, process-wide: a wallet of a test talks to the
  // test's http rail, as `openrail wallet --allow-http` does (src/wallet/library-http.ts). It must
  // say so itself; the server's own permission is the server's (features/issuance/oauth-library.ts).
  if (new URL(publicUrl).protocol === 'http:') setGlobalConfig({ ...getGlobalConfig(), allowInsecureUrls: true });
  const clientId = `wallet-${randomUUID()}`;
  const instanceKey = await newHolderKey();
  const dpopKey = await newHolderKey();
  const holderKey = await newHolderKey();
  const keys = [instanceKey, dpopKey, holderKey];
  const signJwt: CallbackContext['signJwt'] = async (signer, { header, payload }) => {
    if (signer.method === 'x5c') {
      const jwt = await signWith(provider.leafKey, header, payload);
      return { jwt, signerJwk: (await exportJWK(provider.leafKey)) as never };
    }
    assert.equal(signer.method, 'jwk', 'the wallet signs with its own keys or its provider’s');
    const key = keys.find((k) => k.publicJwk.x === signer.publicJwk.x);
    assert.ok(key, 'a key of this wallet');
    const jwt = await new SignJWT(payload as Record<string, unknown>)
      .setProtectedHeader(header as Parameters<SignJWT['setProtectedHeader']>[0])
      .sign(key.privateKey);
    return { jwt, signerJwk: signer.publicJwk };
  };
  const attestationJwt = await createClientAttestationJwt({
    clientId,
    issuer: 'https://wallet-provider.example',
    expiresAt: new Date(Date.now() + DAY_MS),
    confirmation: { jwk: publicOnly(instanceKey.publicJwk) },
    signer: { method: 'x5c', alg: 'ES256', x5c: [provider.leaf] },
    callbacks: { signJwt },
  });
  const generateRandom = (bytes: number) => randomBytes(bytes);
  const railFetch = walletFetch(railOrigin, publicUrl);
  const callbacks = {
    fetch: railFetch,
    hash,
    generateRandom,
    signJwt,
    clientAuthentication: clientAuthenticationClientAttestationJwt({
      clientAttestationJwt: attestationJwt,
      callbacks: { signJwt, generateRandom },
    }),
  };
  const now = () => Math.floor(Date.now() / 1000);
  return {
    clientId,
    instanceKey,
    dpopKey,
    holderKey,
    attestationJwt,
    fetch: railFetch,
    oauth: new Oauth2Client({ callbacks }),
    vci: new Openid4vciClient({ callbacks }),
    attestation: async (o = {}) => {
      const header = { typ: 'oauth-client-attestation+jwt', x5c: [provider.leaf], ...o.header };
      const payload = {
        iss: 'https://wallet-provider.example',
        sub: clientId,
        iat: now(),
        exp: now() + 3600,
        cnf: { jwk: publicOnly(instanceKey.publicJwk) },
        ...o.payload,
      };
      return signedBy(provider, header, payload, o.signer, instanceKey);
    },
    keyAttestation: async (o) => {
      const attestedKeys = (o.keys ?? [holderKey]).map((k) => publicOnly(k.publicJwk));
      const keyStorage = o.keyStorage ?? ['iso_18045_high'];
      if (!o.payload && !o.header && !o.signer) {
        return createKeyAttestationJwt({
          nonce: o.nonce,
          ...(o.asProof ? {} : { expiresAt: new Date(Date.now() + 3600_000) }),
          attestedKeys: attestedKeys as never,
          keyStorage,
          userAuthentication: ['iso_18045_moderate'],
          use: o.asProof ? 'proof_type.attestation' : 'proof_type.jwt',
          signer: { method: 'x5c', alg: 'ES256', x5c: [provider.leaf] },
          callbacks: { signJwt },
        });
      }
      const header = { typ: 'key-attestation+jwt', x5c: [provider.leaf], ...o.header };
      const payload = {
        iat: now(),
        exp: now() + 3600,
        nonce: o.nonce,
        attested_keys: attestedKeys,
        key_storage: keyStorage,
        ...o.payload,
      };
      return signedBy(provider, header, payload, o.signer, holderKey);
    },
    pop: async (aud, o = {}) =>
      new SignJWT({ iss: clientId, aud, jti: randomUUID(), iat: now(), exp: now() + 300, ...o.payload })
        .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation-pop+jwt' })
        .sign((o.key ?? instanceKey).privateKey),
    dpopProof: async (htm, htu, o = {}) => {
      const key = o.key ?? dpopKey;
      const ath = o.accessToken ? createHash('sha256').update(o.accessToken).digest('base64url') : undefined;
      return new SignJWT({
        htm,
        htu,
        jti: randomUUID(),
        iat: now(),
        ...(o.nonce ? { nonce: o.nonce } : {}),
        ...(ath ? { ath } : {}),
        ...o.payload,
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicOnly(key.publicJwk) })
        .sign(key.privateKey);
    },
  };
}

/** The holder's browser: follows our pages with its own cookie jar, posting forms as a browser does from our origin. */
export class HolderBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly railOrigin: string,
    private readonly publicUrl = PUBLIC_URL,
  ) {}

  private target(url: string): string {
    const u = new URL(url);
    assert.equal(u.origin, new URL(this.publicUrl).origin, `the browser only opens the rail here, not ${url}`);
    return `${this.railOrigin}${u.pathname}${u.search}`;
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) this.cookies.set(name.trim(), value.join('='));
    }
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  async get(url: string): Promise<{ status: number; text: string; location: string | null; headers: Headers }> {
    const res = await fetch(this.target(url), { headers: { accept: 'text/html', ...this.cookieHeader() }, redirect: 'manual' });
    this.keep(res);
    return { status: res.status, text: await res.text(), location: res.headers.get('location'), headers: res.headers };
  }

  async post(path: string, form: Record<string, string>): Promise<{ status: number; text: string }> {
    const res = await fetch(`${this.railOrigin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(this.publicUrl).origin,
        ...this.cookieHeader(),
      },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    this.keep(res);
    return { status: res.status, text: await res.text() };
  }

  forget(): void {
    this.cookies.clear();
  }
}

/** The approval page's hidden authorization id and form action. */
export function approvalForm(html: string): { action: string; authorization: string } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const authorization = /name="authorization" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(action && authorization, `an approval form in:\n${html.slice(0, 2000)}`);
  return { action: action.replaceAll('&amp;', '&'), authorization };
}

/** The way back to the wallet the return page links to. */
export function returnLink(html: string): string {
  const href = /<a class="button" href="([^"]+)"/.exec(html)?.[1];
  assert.ok(href, 'a link back to the wallet');
  return href.replaceAll('&amp;', '&');
}

/** The configuration a wallet collects, with a DPoP-bound token, using the oid4vc-ts clients end to end. */
export async function collectAfterAuthorization(
  wallet: HaipWallet,
  o: {
    issuer: string;
    authorizationCode: string;
    pkceCodeVerifier: string;
    dpop: { signer: { method: 'jwk'; alg: 'ES256'; publicJwk: JWK }; nonce?: string };
    credentialConfigurationId: string;
    credentialOffer?: CredentialOfferObject;
  },
): Promise<{ credential: string; tokenType: string }> {
  const issuerMetadata = await wallet.vci.resolveIssuerMetadata(o.issuer);
  const asMetadata = issuerMetadata.authorizationServers[0];
  assert.ok(asMetadata, 'the issuer names its authorization server');
  const token = await wallet.oauth.retrieveAuthorizationCodeAccessToken({
    authorizationServerMetadata: asMetadata,
    authorizationCode: o.authorizationCode,
    pkceCodeVerifier: o.pkceCodeVerifier,
    redirectUri: REDIRECT_URI,
    dpop: o.dpop as never,
  });
  const { c_nonce } = await wallet.vci.requestNonce({ issuerMetadata });
  const { jwt } = await wallet.vci.createCredentialRequestJwtProof({
    issuerMetadata,
    credentialConfigurationId: o.credentialConfigurationId,
    nonce: c_nonce,
    signer: { method: 'jwk', alg: 'ES256', publicJwk: publicOnly(wallet.holderKey.publicJwk) },
  });
  const { credentialResponse } = await wallet.vci.retrieveCredentials({
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    credentialConfigurationId: o.credentialConfigurationId,
    proofs: { jwt: [jwt] },
    dpop: token.dpop as never,
  });
  const [first] = credentialResponse.credentials ?? [];
  const credential = typeof first === 'object' && first !== null && 'credential' in first ? first.credential : first;
  assert.equal(typeof credential, 'string', 'a dc+sd-jwt credential');
  return { credential: credential as string, tokenType: token.accessTokenResponse.token_type };
}
