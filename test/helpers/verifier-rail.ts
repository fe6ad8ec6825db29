/**
 * A rail on a real socket with one credential type and one credential collected by the oid4vc-ts
 * wallet, as the hosted-verification suites (HAIP, the Digital Credentials API) start from: the
 * tenant, the type's vct, the holder's credential and key, the platform's trust anchor, and a
 * `call` that speaks JSON to the rail.
 */
import assert from 'node:assert/strict';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import type { DatabaseFactory, TestDatabase } from './databases.ts';
import { type HolderKey, newHolderKey } from './holder.ts';
import { CARD_CLAIMS, CARD_SUBJECT } from './issuance.ts';
import { newDeviceKey } from './mdoc-wallet.ts';
import { collectWithWallet } from './oid4vp-wallet.ts';
import { type JsonAnswer, jsonCaller, listenOnLoopback, owner, startRail, type TestRail } from './rail.ts';

export interface VerifierRail {
  db: TestDatabase;
  rail: TestRail;
  /** Where the rail listens (its PUBLIC_URL stays https://rail.example.test). */
  origin: string;
  vct: string;
  holding: { credential: string; key: HolderKey };
  /** GET /.well-known/openrail-ca.pem, as a relying party that resolves keys by x5c configures it. */
  anchorPem: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonAnswer>;
  /** POST /oid4vp/response as a wallet posts it: the fields form-encoded; the answer's status and JSON. */
  postResponse(form: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }>;
  /** A transaction's outcome, polled with its result token. */
  poll(o: { transactionId: string; resultToken: string }): Promise<Record<string, unknown> | null>;
  stop(): Promise<void>;
}

/** `call` and `poll` of the verifier rail `railOf` answers, read on each call: a suite makes them before its `before` starts the rail. */
export function verifierCalls(railOf: () => VerifierRail): Pick<VerifierRail, 'call' | 'poll'> {
  return { call: (...args) => railOf().call(...args), poll: (o) => railOf().poll(o) };
}

/**
 * `mdoc`: the type is offered as ISO mdoc too (its default doctype and namespace), and the holding
 * is an mdoc collected with a device key (test/helpers/mdoc-wallet.ts).
 */
export async function startVerifierRail(
  factory: DatabaseFactory,
  names: { tenant: string; type: string; mdoc?: boolean },
): Promise<VerifierRail> {
  const db = await factory.create();
  const rail = await startRail(db);
  const origin = await listenOnLoopback(rail);
  const call = jsonCaller(() => origin);
  const tenant = await call('POST', '/api/tenants', { name: names.tenant }, owner);
  assert.equal(tenant.status, 201, tenant.text);
  const slug = tenant.json.slug;
  const formats = names.mdoc ? { mdoc: {} } : {};
  const type = await call('POST', '/api/types', { tenant: slug, name: names.type, claims: CARD_CLAIMS, ...formats }, owner);
  assert.equal(type.status, 201, type.text);
  const offer = await call('POST', '/api/offers', { tenant: slug, typeId: type.json.typeId, subject: CARD_SUBJECT }, owner);
  assert.equal(offer.status, 201, offer.text);
  const key = names.mdoc ? await newDeviceKey() : await newHolderKey();
  const credential = await collectWithWallet({
    offerUri: String(offer.json.offerUri),
    holderKey: key,
    baseUrl: origin,
    ...(names.mdoc ? { configurationId: `${type.json.typeId}.mdoc` } : {}),
  });
  const anchor = await call('GET', '/.well-known/openrail-ca.pem');
  assert.equal(anchor.status, 200);
  return {
    db,
    rail,
    origin,
    vct: String(type.json.vct),
    holding: { credential, key },
    anchorPem: anchor.text,
    call,
    postResponse: async (form) => {
      const res = await fetch(`${origin}/oid4vp/response`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
    poll: async (o) => {
      const res = await call('GET', `/verify/result/${o.transactionId}`, undefined, { authorization: `Bearer ${o.resultToken}` });
      assert.equal(res.status, 200, res.text);
      return res.json.outcome as Record<string, unknown> | null;
    },
    stop: async () => {
      await rail.stop();
      await db.drop();
    },
  };
}

/**
 * An encrypted answer made by hand (ECDH-ES), as the negative cases need one: `params` as a JSON
 * JWE to `jwk`, under `kid` (the key's own by default) with the content encryption `enc`.
 */
export async function encryptAnswer(
  jwk: JWK,
  params: Record<string, unknown>,
  opts: { enc?: string; kid?: string } = {},
): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(params)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: opts.enc ?? 'A128GCM', kid: opts.kid ?? String(jwk.kid) })
    .encrypt(await importJWK(jwk, 'ECDH-ES'));
}
