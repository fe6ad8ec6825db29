import { createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject, sign, verify } from 'node:crypto';
import { type Answer, request } from './http.ts';
import { OWNER_TOKEN } from './server.ts';

export const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** A realistic type of 14 claims covering every kind the interface names. */
export const BENCH_CLAIMS = [
  'family_name',
  'given_name',
  'card_number',
  'birth_date:date',
  'valid_until:date',
  'height_cm:number',
  'balance:money',
  'student:bool',
  'reduced_mobility:bool',
  'tier:enum(bronze|silver|gold|platinum)',
  'zones:array(text)',
  'languages:array(text)',
  'trips:array(object)',
  'emergency_contacts:array(object)',
];

export function benchSubject(n: number): Record<string, unknown> {
  return {
    family_name: 'Lovelace',
    given_name: 'Ada Augusta',
    card_number: `MT-${String(n).padStart(10, '0')}`,
    birth_date: '1815-12-10',
    valid_until: '2027-12-31',
    height_cm: 165.5,
    balance: 12_450,
    student: n % 3 === 0,
    reduced_mobility: false,
    tier: ['bronze', 'silver', 'gold', 'platinum'][n % 4],
    zones: ['A', 'B', 'C'],
    languages: ['en', 'fr'],
    trips: [
      { from: 'Ghent', to: 'Bruges', on: '2025-03-01' },
      { from: 'Bruges', to: 'Ostend', on: '2025-03-02' },
      { from: 'Ostend', to: 'Ghent', on: '2025-03-04' },
    ],
    emergency_contacts: [{ name: 'Charles Babbage', phone: '+44 20 7946 0000' }],
  };
}

/** One wallet's ingredients for one issuance: an unredeemed code and a fresh P-256 key. */
export interface PoolItem {
  code: string;
  key: KeyObject;
  jwk: { kty: string; crv: string; x: string; y: string };
}

export interface Target {
  origin: string;
  tenant: string;
  typeId: string;
  /** The Credential Issuer Identifier: the proof's audience. */
  issuer: string;
  /** The type's mdoc doctype, when it is offered as ISO mdoc too (bench/lib/mdoc.ts). */
  doctype?: string;
}

const ownerHeaders = { authorization: `Bearer ${OWNER_TOKEN}`, 'content-type': 'application/json' };

export async function postJson(url: string, body: unknown, expect: number): Promise<Record<string, unknown>> {
  const res = await request(url, { method: 'POST', headers: ownerHeaders, body: JSON.stringify(body) });
  if (res.status !== expect) throw new Error(`POST ${url} answered ${res.status}: ${res.text.slice(0, 500)}`);
  return res.json();
}

/**
 * A tenant and a credential type (the issuance bench's by default), over the operator API. With
 * `mdoc` the type is registered with `mdoc: {}`: offered as SD-JWT VC and as ISO mdoc (its default
 * doctype and namespace), an offer naming both configurations.
 */
export async function setUpIssuer(
  origin: string,
  names: { tenant: string; type: string; claims: readonly string[]; mdoc?: boolean } = {
    tenant: 'Bench Transit',
    type: 'Bench Transit Pass',
    claims: BENCH_CLAIMS,
  },
): Promise<Target & { vct: string }> {
  const tenant = await postJson(`${origin}/api/tenants`, { name: names.tenant }, 201);
  const slug = String(tenant.slug);
  const type = await postJson(
    `${origin}/api/types`,
    { tenant: slug, name: names.type, claims: names.claims, ...(names.mdoc ? { mdoc: {} } : {}) },
    201,
  );
  const doctype = (type.mdoc as { doctype?: unknown } | null | undefined)?.doctype;
  if (names.mdoc && typeof doctype !== 'string') throw new Error(`the type was not registered as mdoc: ${JSON.stringify(type)}`);
  return {
    origin,
    tenant: slug,
    typeId: String(type.typeId),
    issuer: `${origin}/t/${slug}`,
    vct: String(type.vct),
    ...(typeof doctype === 'string' ? { doctype } : {}),
  };
}

/** One offer over HTTP for `subject`, and a freshly generated holder key to redeem it with. */
export async function createOffer(target: Target, subject: Record<string, unknown>): Promise<PoolItem> {
  const created = await postJson(
    `${target.origin}/api/offers`,
    { tenant: target.tenant, typeId: target.typeId, subject, expiresIn: 3600 },
    201,
  );
  const offer = JSON.parse(new URL(String(created.offerUri)).searchParams.get('credential_offer') ?? 'null');
  const code = offer?.grants?.[PRE_AUTH]?.['pre-authorized_code'];
  if (typeof code !== 'string') throw new Error(`offer without a pre-authorized code: ${String(created.offerUri)}`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as JsonWebKey;
  return { code, key: privateKey, jwk: { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) } };
}

let subjects = 0;

/** Creates `count` offers of the bench subject (`concurrency` at a time). */
export async function createOffers(target: Target, count: number, concurrency = 16): Promise<PoolItem[]> {
  const items: PoolItem[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      items.push(await createOffer(target, benchSubject(subjects++)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return items;
}

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** A key proof (OID4VCI 1.0 Appendix F.1) signed with node:crypto. */
export function proofJwt(item: PoolItem, aud: string, nonce: string): string {
  const input = `${b64json({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: item.jwk })}.${b64json({
    aud,
    iat: Math.floor(Date.now() / 1000),
    nonce,
  })}`;
  const signature = sign('sha256', Buffer.from(input, 'ascii'), { key: item.key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

export interface Failure {
  /** par, authorize and approve: the authorization code flow's steps (bench/lib/haip.ts). */
  step: 'token' | 'nonce' | 'credential' | 'par' | 'authorize' | 'approve';
  status: number;
  body: string;
}

export type IssueResult = { ok: true; credential: string } | { ok: false; failure: Failure };

const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

/**
 * One full issuance as a 1.0 wallet does it: token, nonce, credential, of the configuration
 * `configurationId` (the type's SD-JWT VC one unless told; `<typeId>.mdoc` for its mdoc).
 */
export async function issueOne(target: Target, item: PoolItem, configurationId = target.typeId): Promise<IssueResult> {
  const base = target.issuer;
  const fail = (step: Failure['step'], res: Answer): IssueResult => ({
    ok: false,
    failure: { step, status: res.status, body: res.text.slice(0, 300) },
  });
  const tokenRes = await request(`${base}/token`, {
    method: 'POST',
    headers: formHeaders,
    body: `grant_type=${encodeURIComponent(PRE_AUTH)}&pre-authorized_code=${encodeURIComponent(item.code)}`,
  });
  if (tokenRes.status !== 200) return fail('token', tokenRes);
  const { access_token } = tokenRes.json<{ access_token: string }>();

  const nonceRes = await request(`${base}/nonce`, { method: 'POST' });
  if (nonceRes.status !== 200) return fail('nonce', nonceRes);
  const { c_nonce } = nonceRes.json<{ c_nonce: string }>();

  const credRes = await request(`${base}/credential`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ credential_configuration_id: configurationId, proofs: { jwt: [proofJwt(item, base, c_nonce)] } }),
  });
  if (credRes.status !== 200) return fail('credential', credRes);
  const body = credRes.json<{ credentials?: Array<{ credential?: unknown }> }>();
  const credential = body.credentials?.[0]?.credential;
  if (typeof credential !== 'string') {
    return { ok: false, failure: { step: 'credential', status: 200, body: JSON.stringify(body).slice(0, 300) } };
  }
  return { ok: true, credential };
}

/**
 * A sanity check of one issued credential: the issuer signature verifies with the tenant's DID
 * key, it is bound to the holder key, and it carries a status reference and every disclosure.
 * Returns the problems found (empty when sound).
 */
export async function checkCredential(target: Target, item: PoolItem, credential: string): Promise<string[]> {
  const problems: string[] = [];
  const parts = credential.split('~');
  const jwt = parts[0] ?? '';
  const [h, p, s] = jwt.split('.');
  if (!h || !p || !s) return ['the credential does not start with a compact JWS'];
  const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  const didRes = await request(`${target.origin}/t/${target.tenant}/did.json`);
  const did = didRes.json<{ verificationMethod: Array<{ id: string; publicKeyJwk: JsonWebKey }> }>();
  const method = did.verificationMethod.find((m) => m.id === header.kid);
  if (!method) problems.push(`kid ${header.kid} is not in the tenant's DID document`);
  else {
    const key = createPublicKey({ key: method.publicKeyJwk, format: 'jwk' });
    const ok = verify(
      'sha256',
      Buffer.from(`${h}.${p}`, 'ascii'),
      { key, dsaEncoding: 'ieee-p1363' },
      Buffer.from(s, 'base64url'),
    );
    if (!ok) problems.push('the issuer signature does not verify');
  }
  if (header.typ !== 'dc+sd-jwt') problems.push(`typ is ${header.typ}`);
  if (payload.cnf?.jwk?.x !== item.jwk.x || payload.cnf?.jwk?.y !== item.jwk.y) problems.push('cnf.jwk is not the holder key');
  if (typeof payload.status?.status_list?.idx !== 'number') problems.push('no status_list idx');
  // 14 claims plus one disclosure per array element (3 + 2 + 3 + 1), then the final empty part.
  const disclosures = parts.slice(1, -1).length;
  if (disclosures !== 23) problems.push(`${disclosures} disclosures, expected 23`);
  return problems;
}
