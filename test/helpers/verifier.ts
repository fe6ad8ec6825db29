/**
 * Building blocks for reference-verifier tests: a small world (issuer, holder, stranger keys, the
 * issuer's DID document, a nonce and a status index), sound credentials and presentations made with
 * the conformance builders, and hand-made JWTs for the shapes the builders cannot produce.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes, sign } from 'node:crypto';
import { newP256KeyPair } from '../../src/adapters/crypto/p256-keys.ts';
import {
  bindPresentation,
  type CredentialSpec,
  didDocumentFor,
  type IssuedCredential,
  issueCredential,
  type KeyBindingSpec,
  type KeyPair,
  type StatusListSpec,
  selectDisclosures,
  statusListToken,
} from '../../src/core/conformance/builders.ts';
import type { DidDocument } from '../../src/core/did-web.ts';
import { signEs256 } from '../../src/core/jose/es256.ts';
import { b64url, sdDigest } from '../../src/core/sd-jwt/disclose.ts';
import { compressStatusList, packStatuses, type StatusBits } from '../../src/core/status-list/codec.ts';
import { CHECKS, type CheckName, FAILURE_CHECK, type FailureCode } from '../../src/core/verifier/ledger.ts';
import {
  type VerificationInput,
  type VerificationResult,
  verifyPresentation,
} from '../../src/core/verifier/verify-presentation.ts';

/** The verifier's clock in every test: a fixed Unix time. */
export const NOW = 1_900_000_000;
export const ISSUER = 'did:web:issuer.verifier-test.example';
export const OTHER_ISSUER = 'did:web:other.verifier-test.example';
export const AUD = 'decentralized_identifier:did:web:verifier.verifier-test.example';
export const VCT = 'https://issuer.verifier-test.example/types/membership';
export const LIST_URI = 'https://issuer.verifier-test.example/status/1';
/** A multiple of 8, so the list's bytes end exactly at entry LIST_SIZE. */
export const LIST_SIZE = 1024;
export const CLAIMS = { given_name: 'Ada', family_name: 'Lovelace', member_number: 'M-1815-12', age_over_18: true };
export const REQUIRED = ['given_name', 'member_number'];

export const random = (n: number): Uint8Array => randomBytes(n);

export interface World {
  issuer: KeyPair;
  holder: KeyPair;
  stranger: KeyPair;
  didDocument: DidDocument;
  nonce: string;
  idx: number;
}

export function newWorld(): World {
  const issuer = newP256KeyPair();
  return {
    issuer,
    holder: newP256KeyPair(),
    stranger: newP256KeyPair(),
    didDocument: didDocumentFor(ISSUER, issuer),
    nonce: b64url(random(16)),
    idx: 1 + (randomBytes(2).readUInt16BE(0) % (LIST_SIZE - 2)),
  };
}

export const expectedOf = (w: World, over: Partial<VerificationInput['expected']> = {}): VerificationInput['expected'] => ({
  aud: AUD,
  nonce: w.nonce,
  vct: VCT,
  claims: REQUIRED,
  ...over,
});

/** A sound credential of the issuer, made by the conformance builder. */
export function credential(w: World, over: Partial<CredentialSpec> = {}): IssuedCredential {
  return issueCredential(
    {
      signer: w.issuer,
      kid: `${ISSUER}#${w.issuer.kid}`,
      iss: ISSUER,
      vct: VCT,
      holder: w.holder.publicJwk,
      status: { uri: LIST_URI, idx: w.idx },
      claims: CLAIMS,
      iat: NOW - 3600,
      ...over,
    },
    random,
  );
}

export const disclosuresOf = (c: IssuedCredential, names: readonly string[] = [...c.disclosures.keys()]) =>
  names.map((n) => {
    const d = c.disclosures.get(n);
    assert.ok(d, `the credential has a disclosure for ${n}`);
    return d;
  });

/** `<jwt>~<disclosures>~<KB-JWT>`, the KB-JWT by the builder (holder key, AUD, the nonce, iat now-5). */
export function present(w: World, jwt: string, disclosures: readonly string[], kb: Partial<KeyBindingSpec> = {}): string {
  return bindPresentation(selectDisclosures(jwt, disclosures), {
    signer: w.holder,
    aud: AUD,
    nonce: w.nonce,
    iat: NOW - 5,
    ...kb,
  });
}

/** A sound presentation of a builder credential with every disclosure. */
export const presentAll = (w: World, c: IssuedCredential, kb: Partial<KeyBindingSpec> = {}) =>
  present(w, c.jwt, disclosuresOf(c), kb);

/** A sound status list of the issuer, made by the conformance builder; the world's idx is clear. */
export function statusList(w: World, over: Partial<StatusListSpec> = {}): string {
  return statusListToken({
    signer: w.issuer,
    iss: ISSUER,
    sub: LIST_URI,
    iat: NOW - 60,
    exp: NOW + 3600,
    size: LIST_SIZE,
    revoked: [w.idx - 1, w.idx + 1],
    ...over,
  });
}

/** The verifier input; `statusList: null` withholds the list, and by default a sound list is given. */
export function inputOf(
  w: World,
  presentation: string,
  over: {
    statusList?: string | null;
    didDocument?: unknown;
    expected?: Partial<VerificationInput['expected']>;
    now?: number;
  } = {},
): VerificationInput {
  const value: VerificationInput = {
    presentation,
    didDocument: over.didDocument === undefined ? w.didDocument : over.didDocument,
    expected: expectedOf(w, over.expected),
    now: over.now ?? NOW,
  };
  const list = over.statusList === undefined ? statusList(w) : over.statusList;
  if (list !== null) value.statusList = list;
  return value;
}

/** The verifier's result for a presentation in the world `w`, with inputOf's options. */
export const verifyIn = (w: World, presentation: string, over: Parameters<typeof inputOf>[2] = {}): VerificationResult =>
  verifyPresentation(inputOf(w, presentation, over));

// ---- Hand-made pieces -------------------------------------------------------------------------

export const encodeJson = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** An encoded disclosure of any JSON value (a well-formed one is `[salt, name, value]`). */
export const rawDisclosure = (parts: unknown) => encodeJson(parts);
export const disclosure = (name: string, value: unknown) => rawDisclosure([b64url(random(16)), name, value]);

/** A compact JWS with any header and a signature made by `signer` over `<header>.<payload>`. */
export function jws(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  signer: (input: Buffer) => Buffer = () => Buffer.alloc(0),
): string {
  const input = `${encodeJson(header)}.${encodeJson(payload)}`;
  return `${input}.${signer(Buffer.from(input, 'ascii')).toString('base64url')}`;
}

export const hs256 = (secret: string) => (input: Buffer) => createHmac('sha256', secret).update(input).digest();
/** ES256 by a key, whatever `alg` the header claims. */
export const es256By = (key: KeyPair) => (input: Buffer) =>
  sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });

/**
 * The payload the builder's credentials carry, with `_sd` over the given disclosures; `over` replaces
 * members, and a member set to undefined is left out.
 */
export function credentialPayload(
  w: World,
  disclosures: readonly string[],
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    iss: ISSUER,
    iat: NOW - 3600,
    vct: VCT,
    cnf: { jwk: w.holder.publicJwk },
    status: { status_list: { idx: w.idx, uri: LIST_URI } },
    _sd: disclosures.map(sdDigest).sort(),
    _sd_alg: 'sha-256',
    ...over,
  };
}

/** An ES256 issuer JWT over any payload, `typ` dc+sd-jwt and the issuer's kid unless overridden. */
export function signCredential(
  w: World,
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
  signer: KeyPair = w.issuer,
): string {
  return signEs256(signer.privateKey, { typ: 'dc+sd-jwt', kid: `${ISSUER}#${signer.kid}`, ...header }, payload);
}

/** A hand-made credential with the four subject claims as disclosures; returns the jwt and them. */
export function handCredential(
  w: World,
  over: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): { jwt: string; disclosures: string[] } {
  const disclosures = Object.entries(CLAIMS).map(([name, value]) => disclosure(name, value));
  return { jwt: signCredential(w, credentialPayload(w, disclosures, over), header), disclosures };
}

/** A hand-made KB-JWT over `sdJwt` (which ends in "~"), appended to it. */
export function handKeyBinding(
  w: World,
  sdJwt: string,
  opts: { header?: Record<string, unknown>; payload?: Record<string, unknown>; signer?: (input: Buffer) => Buffer } = {},
): string {
  const sdHash = sdDigest(sdJwt);
  const kb = jws(
    { typ: 'kb+jwt', alg: 'ES256', ...opts.header },
    { iat: NOW - 5, aud: AUD, nonce: w.nonce, sd_hash: sdHash, ...opts.payload },
    opts.signer ?? es256By(w.holder),
  );
  return `${sdJwt}${kb}`;
}

/** A hand-built status list token: `entries` at `bits` width, any header, payload or `lst`. */
export function handStatusList(
  w: World,
  opts: {
    bits?: number;
    entries?: Array<[number, number]>;
    lst?: string;
    header?: Record<string, unknown>;
    payload?: Record<string, unknown>;
    signer?: (input: Buffer) => Buffer;
  } = {},
): string {
  const bits = opts.bits ?? 1;
  const lst = opts.lst ?? compressStatusList(packStatuses(LIST_SIZE, (bits === 3 ? 1 : bits) as StatusBits, opts.entries ?? []));
  return jws(
    { typ: 'statuslist+jwt', alg: 'ES256', kid: w.issuer.kid, ...opts.header },
    { iss: ISSUER, sub: LIST_URI, iat: NOW - 60, exp: NOW + 3600, ttl: 300, status_list: { bits, lst }, ...opts.payload },
    opts.signer ?? es256By(w.issuer),
  );
}

// ---- Assertions -------------------------------------------------------------------------------

export const show = (r: VerificationResult) => JSON.stringify({ verdict: r.verdict, failure: r.failure, ledger: r.ledger });

export const failedChecks = (r: VerificationResult) => r.ledger.filter((e) => e.status === 'failed').map((e) => e.check);

/**
 * The result is the verdict `code` implies, with `code` as its failure, the ledger entry of the
 * code's check failed (not performed for status_unavailable) with that code, no claims, and no other
 * check failed than that one and the `also` checks.
 */
export function assertFailure(r: VerificationResult, code: FailureCode, also: readonly CheckName[] = []) {
  const check = FAILURE_CHECK[code];
  const unperformed = code === 'status_unavailable';
  assert.equal(r.verdict, unperformed ? 'indeterminate' : 'reject', show(r));
  assert.equal(r.failure, code, show(r));
  const entry = r.ledger.find((e) => e.check === check);
  assert.equal(entry?.status, unperformed ? 'not_performed' : 'failed', show(r));
  assert.equal(entry?.failure, code, show(r));
  assert.equal(r.claims, null);
  const expectedFailed = CHECKS.filter((c) => (c === check && !unperformed) || also.includes(c));
  assert.deepEqual(failedChecks(r), expectedFailed, show(r));
}

export function assertAccept(r: VerificationResult) {
  assert.equal(r.verdict, 'accept', show(r));
  assert.equal(r.failure, null, show(r));
  assert.ok(r.claims, show(r));
}
