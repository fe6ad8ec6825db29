/**
 * HAIP 1.0 issuance as a bench wallet does it (docs/haip.md, "Issuance"), over the benches' HTTP
 * client with node:crypto signatures: PAR with the offer's issuer_state, PKCE S256, the wallet
 * attestation and a fresh proof of possession; the holder's browser opening the request and
 * approving it; the token with the attestation again and a DPoP proof (server nonce); the nonce;
 * the credential with a DPoP proof over the token. One wallet provider (a root certificate the
 * server is configured to trust, and the leaf that signs attestations) serves every wallet.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { certifyKey, createRootCertificate, fileAuthorityKey, toPem } from '../../src/adapters/crypto/x509.ts';
import { request } from './http.ts';
import { type Failure, type IssueResult, type PoolItem, proofJwt, type Target } from './wallet.ts';

const REDIRECT_URI = 'https://wallet.bench.example/callback';
const b64json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

type Jwk = { kty: string; crv: string; x: string; y: string };

function es256(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64json({ alg: 'ES256', ...header })}.${b64json(payload)}`;
  const signature = sign('sha256', Buffer.from(input, 'ascii'), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

function newKey(): { key: KeyObject; jwk: Jwk } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return { key: privateKey, jwk: { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) } };
}

const thumbprint = (jwk: Jwk) =>
  createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');

/** The wallet provider: writes its anchor into `dir` for OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE. */
export interface BenchWalletProvider {
  anchorFile: string;
  /** A wallet instance: its client id, attestation (valid a day) and instance key. */
  instance(): { clientId: string; attestation: string; key: KeyObject };
}

export async function benchWalletProvider(dir: string): Promise<BenchWalletProvider> {
  // The service's own CA functions make the provider's root and attestation signer: the bench
  // measures the server, and needs no certificate code of its own.
  const day = 24 * 3600 * 1000;
  const validity = { notBefore: new Date(Date.now() - day), notAfter: new Date(Date.now() + 30 * day) };
  const rootJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const root = await createRootCertificate({
    subject: { commonName: 'Bench Wallet Provider Root' },
    key: fileAuthorityKey(rootJwk),
    validity,
  });
  const leafKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const leaf = await certifyKey({
    ca: { certificate: root, key: fileAuthorityKey(rootJwk) },
    subject: { commonName: 'Bench Wallet Attestation' },
    publicJwk: leafKeys.publicKey.export({ format: 'jwk' }),
    validity,
  });
  const anchorFile = join(dir, 'wallet-anchors.pem');
  writeFileSync(anchorFile, toPem(root));
  const x5c = [leaf];
  return {
    anchorFile,
    instance: () => {
      const clientId = `bench-wallet-${randomUUID()}`;
      const { key, jwk } = newKey();
      const attestation = es256(
        { typ: 'oauth-client-attestation+jwt', x5c },
        { iss: 'https://wallet-provider.bench.example', sub: clientId, iat: now(), exp: now() + 24 * 3600, cnf: { jwk } },
        leafKeys.privateKey,
      );
      return { clientId, attestation, key };
    },
  };
}

/** What one bench wallet keeps across issuances: its attestation and DPoP key, and the server's last DPoP nonce. */
export interface HaipWalletState {
  clientId: string;
  attestation: string;
  instanceKey: KeyObject;
  dpop: { key: KeyObject; jwk: Jwk; jkt: string };
  nonce?: string;
}

export function haipWallet(provider: BenchWalletProvider): HaipWalletState {
  const instance = provider.instance();
  const dpop = newKey();
  return {
    clientId: instance.clientId,
    attestation: instance.attestation,
    instanceKey: instance.key,
    dpop: { ...dpop, jkt: thumbprint(dpop.jwk) },
  };
}

const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

function attested(w: HaipWalletState, issuer: string): Record<string, string> {
  return {
    'oauth-client-attestation': w.attestation,
    'oauth-client-attestation-pop': es256(
      { typ: 'oauth-client-attestation-pop+jwt' },
      { iss: w.clientId, aud: issuer, jti: randomUUID(), iat: now(), exp: now() + 300 },
      w.instanceKey,
    ),
  };
}

function dpopProof(w: HaipWalletState, htu: string, accessToken?: string): string {
  const ath = accessToken ? createHash('sha256').update(accessToken).digest('base64url') : undefined;
  return es256(
    { typ: 'dpop+jwt', jwk: w.dpop.jwk },
    { htm: 'POST', htu, jti: randomUUID(), iat: now(), ...(w.nonce ? { nonce: w.nonce } : {}), ...(ath ? { ath } : {}) },
    w.dpop.key,
  );
}

/** A DPoP request, retried once with the server nonce when asked for one (as wallets do). */
async function withDpop(
  w: HaipWalletState,
  url: string,
  send: (dpop: string) => Promise<import('./http.ts').Answer>,
  accessToken?: string,
) {
  let res = await send(dpopProof(w, url, accessToken));
  const fresh = res.headers['dpop-nonce'];
  if ((res.status === 400 || res.status === 401) && typeof fresh === 'string' && res.text.includes('use_dpop_nonce')) {
    w.nonce = fresh;
    res = await send(dpopProof(w, url, accessToken));
  }
  return res;
}

/** One issuance through the authorization code flow, for the offer of `item` (its code is the issuer_state). */
export async function issueHaip(target: Target, item: PoolItem, w: HaipWalletState): Promise<IssueResult> {
  const base = target.issuer;
  const fail = (step: Failure['step'], res: { status: number; text: string }): IssueResult => ({
    ok: false,
    failure: { step, status: res.status, body: res.text.slice(0, 300) },
  });
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const par = await request(`${base}/par`, {
    method: 'POST',
    headers: { ...formHeaders, ...attested(w, base) },
    body: form({
      response_type: 'code',
      client_id: w.clientId,
      issuer_state: item.code,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      redirect_uri: REDIRECT_URI,
      dpop_jkt: w.dpop.jkt,
    }),
  });
  if (par.status !== 201) return fail('par', par);
  const { request_uri } = par.json<{ request_uri: string }>();

  // The holder's browser: open the request, approve it from the page, follow the link back.
  const opened = await request(`${base}/authorize?${form({ client_id: w.clientId, request_uri })}`, {
    headers: { accept: 'text/html' },
  });
  if (opened.status !== 200) return fail('authorize', opened);
  const cookie = String(opened.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
  const authorization = /name="authorization" value="([^"]+)"/.exec(opened.text)?.[1] ?? '';
  const approved = await request(`${base}/authorize`, {
    method: 'POST',
    headers: { ...formHeaders, cookie, origin: target.origin },
    body: form({ authorization, decision: 'approve' }),
  });
  if (approved.status !== 200) return fail('approve', approved);
  const back = /<a class="button" href="([^"]+)"/.exec(approved.text)?.[1]?.replaceAll('&amp;', '&') ?? '';
  const code = new URL(back, REDIRECT_URI).searchParams.get('code') ?? '';

  const tokenUrl = `${base}/token`;
  const tokenRes = await withDpop(w, tokenUrl, (dpop) =>
    request(tokenUrl, {
      method: 'POST',
      headers: { ...formHeaders, ...attested(w, base), dpop },
      body: form({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI }),
    }),
  );
  if (tokenRes.status !== 200) return fail('token', tokenRes);
  const { access_token } = tokenRes.json<{ access_token: string }>();

  const nonceRes = await request(`${base}/nonce`, { method: 'POST' });
  if (nonceRes.status !== 200) return fail('nonce', nonceRes);
  const { c_nonce } = nonceRes.json<{ c_nonce: string }>();

  const credentialUrl = `${base}/credential`;
  const body = JSON.stringify({ credential_configuration_id: target.typeId, proofs: { jwt: [proofJwt(item, base, c_nonce)] } });
  const credRes = await withDpop(
    w,
    credentialUrl,
    (dpop) =>
      request(credentialUrl, {
        method: 'POST',
        headers: { authorization: `DPoP ${access_token}`, dpop, 'content-type': 'application/json' },
        body,
      }),
    access_token,
  );
  if (credRes.status !== 200) return fail('credential', credRes);
  const credential = credRes.json<{ credentials?: Array<{ credential?: unknown }> }>().credentials?.[0]?.credential;
  if (typeof credential !== 'string') return fail('credential', { status: 200, text: credRes.text });
  return { ok: true, credential };
}
