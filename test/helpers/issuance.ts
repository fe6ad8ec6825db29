import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { type HolderKey, newHolderKey } from './holder.ts';
import { owner, PUBLIC_URL, railSeconds } from './rail.ts';

export const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** A realistic type: one claim of every kind the interface names. */
export const PASS_CLAIMS = [
  'holder_name',
  'birth_date:date',
  'balance:number',
  'fare:money',
  'student:bool',
  'zones:array(text)',
  'trips:array(object)',
  'class:enum(first|second)',
];

export const PASS_SUBJECT = {
  holder_name: 'Ada Lovelace',
  birth_date: '1815-12-10',
  balance: 12.5,
  fare: -450,
  student: false,
  zones: ['A', 'B'],
  trips: [{ from: 'Ghent', to: 'Bruges' }],
  class: 'first',
};

/** A type without array claims (the reference verifier refuses array-element disclosures, docs/verifier.md), and a subject of it. */
export const CARD_CLAIMS = ['holder_name', 'birth_date:date', 'student:bool', 'class:enum(first|second)', 'member_number'];
export const CARD_SUBJECT = {
  holder_name: 'Ada Lovelace',
  birth_date: '1815-12-10',
  student: false,
  class: 'first',
  member_number: 'M-1815-12',
};

/** The path prefix of an issuer: '' for the platform (root), /t/<slug> for a tenant. */
export const issuerPath = (tenant: string) => (tenant === 'root' ? '' : `/t/${tenant}`);
export const issuerId = (tenant: string) => `${PUBLIC_URL}${issuerPath(tenant)}`;

export async function registerType(app: FastifyInstance, tenant: string, name: string, claims = PASS_CLAIMS) {
  const res = await app.inject({ method: 'POST', url: '/api/types', headers: owner, payload: { tenant, name, claims } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { typeId: string; vct: string };
}

export interface Offer {
  offerId: string;
  offerUri: string;
  txCode?: string;
  /** The Credential Offer object (by value offers only). */
  offer: {
    credential_issuer: string;
    credential_configuration_ids: string[];
    grants: Record<string, { 'pre-authorized_code': string; tx_code?: unknown }>;
  };
  code: string;
}

export async function createOffer(app: FastifyInstance, body: Record<string, unknown>): Promise<Offer> {
  const res = await app.inject({ method: 'POST', url: '/api/offers', headers: owner, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  const created = res.json();
  const offer = JSON.parse(new URL(created.offerUri).searchParams.get('credential_offer') ?? 'null');
  return { ...created, offer, code: offer?.grants?.[PRE_AUTH]?.['pre-authorized_code'] };
}

export function redeem(app: FastifyInstance, tenant: string, form: Record<string, string>) {
  return app.inject({
    method: 'POST',
    url: `${issuerPath(tenant)}/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

export async function accessToken(app: FastifyInstance, tenant: string, code: string, txCode?: string) {
  const res = await redeem(app, tenant, {
    grant_type: PRE_AUTH,
    'pre-authorized_code': code,
    ...(txCode ? { tx_code: txCode } : {}),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { access_token: string; c_nonce: string };
}

export async function freshNonce(app: FastifyInstance, tenant: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: `${issuerPath(tenant)}/nonce` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().c_nonce;
}

/** A key proof (OID4VCI Appendix F.1); every part can be overridden for a negative case. */
export async function proofJwt(
  key: HolderKey,
  opts: {
    aud: string | string[];
    nonce?: string;
    iat?: number;
    header?: Record<string, unknown>;
    claims?: Record<string, unknown>;
  },
): Promise<string> {
  const payload: Record<string, unknown> = { aud: opts.aud, iat: opts.iat ?? Math.floor(Date.now() / 1000), ...opts.claims };
  if (opts.nonce !== undefined) payload.nonce = opts.nonce;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: key.publicJwk, ...opts.header })
    .sign(key.privateKey);
}

export function requestCredential(app: FastifyInstance, tenant: string, token: string, body: unknown) {
  return app.inject({
    method: 'POST',
    url: `${issuerPath(tenant)}/credential`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

/**
 * Offer, token and credential in one go: the SD-JWT VC and the holder key it is bound to. `origin`
 * is the issuing rail's PUBLIC_URL, when it is not the test rails' usual one (a rail on a socket).
 */
export async function issueOne(
  app: FastifyInstance,
  tenant: string,
  typeId: string,
  subject: Record<string, unknown>,
  origin: string = PUBLIC_URL,
) {
  const { code } = await createOffer(app, { tenant, typeId, subject });
  const { access_token, c_nonce } = await accessToken(app, tenant, code);
  const key = await newHolderKey();
  const aud = `${origin}${issuerPath(tenant)}`;
  const res = await requestCredential(app, tenant, access_token, {
    credential_configuration_id: typeId,
    proofs: { jwt: [await proofJwt(key, { aud, nonce: c_nonce, iat: railSeconds(app) })] },
  });
  assert.equal(res.statusCode, 200, res.body);
  return { credential: res.json().credentials[0].credential as string, key };
}
