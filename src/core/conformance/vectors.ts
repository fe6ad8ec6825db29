import type { RandomBytes } from '../sd-jwt/disclose.ts';
import type { CheckName, FailureCode, Verdict } from '../verifier/ledger.ts';
import type { VerificationInput } from '../verifier/verify-presentation.ts';
import {
  bindPresentation,
  didDocumentFor,
  type IssuedCredential,
  issueCredential,
  type KeyPair,
  selectDisclosures,
  statusListToken,
} from './builders.ts';

/** A vector; `Input` is an SD-JWT VC input, or for schema /3 either kind (vectors-v3.ts). */
export interface ConformanceVector<Input = VerificationInput> {
  id: string;
  about: string;
  /** The ledger check (link) the vector exercises; `all` for the sound presentation. */
  proves: CheckName | 'all';
  input: Input;
  expect: { verdict: Verdict; failure: FailureCode | null; claims: Record<string, unknown> | null };
}

/** The ids of schema svc-open-rail-conformance/1, in the order a set lists them. */
export const VECTOR_IDS = [
  'valid',
  'status-list-withheld',
  'revoked',
  'tampered-issuer-signature',
  'wrong-issuer-key',
  'stolen-credential',
  'wrong-credential-type',
  'required-claim-withheld',
  'did-document-not-bound',
  'forged-disclosure',
  'disclosure-set-altered',
  'audience-mismatch',
  'nonce-replay',
  'expired-status-list',
  'status-list-substituted',
  'malformed-presentation',
] as const;

export interface MintDeps {
  /** Unix seconds; becomes every vector's `now`. */
  now: number;
  random: RandomBytes;
  /** A fresh P-256 key pair. */
  newKey: () => KeyPair;
}

const HOST = 'issuer.conformance.example';
const ISSUER = `did:web:${HOST}`;
const IMPOSTOR = 'did:web:impostor.conformance.example';
const AUD = 'decentralized_identifier:did:web:verifier.conformance.example';
const VCT = `https://${HOST}/types/membership`;
const OTHER_VCT = `https://${HOST}/types/visitor-pass`;
const LIST_URI = `https://${HOST}/status/1`;
const OTHER_LIST_URI = `https://${HOST}/status/2`;
const LIST_SIZE = 131_072;
const CLAIMS = { given_name: 'Ada', family_name: 'Lovelace', member_number: 'M-1815-12', age_over_18: true };
const REQUIRED = ['given_name', 'member_number', 'age_over_18'];

/**
 * The 16 vectors of the interface. Each reject vector is `valid` with exactly one link broken,
 * and built so that no other check fails, so a verifier that skips that one check accepts it
 * and fails only that vector.
 */
export function mintVectors(deps: MintDeps): ConformanceVector[] {
  return interfaceVectors(vectorKit(deps));
}

export type VectorKit = ReturnType<typeof vectorKit>;

/** The keys, nonce and index of one set, and the builders every vector is made with. */
export function vectorKit({ now, random, newKey }: MintDeps) {
  const issuer = newKey();
  const impostor = newKey();
  const holder = newKey();
  const thief = newKey();
  const nonce = Buffer.from(random(16)).toString('base64url');
  const idx = (random(4).reduce((a, b) => a * 256 + b, 0) >>> 0) % LIST_SIZE;
  const issuerDocument = didDocumentFor(ISSUER, issuer);
  const expected = { aud: AUD, nonce, vct: VCT, claims: REQUIRED };

  const credential = (over: Partial<Parameters<typeof issueCredential>[0]> = {}) =>
    issueCredential(
      {
        signer: issuer,
        kid: `${ISSUER}#${issuer.kid}`,
        iss: ISSUER,
        vct: VCT,
        holder: holder.publicJwk,
        status: { uri: LIST_URI, idx },
        claims: CLAIMS,
        iat: now - 3600,
        ...over,
      },
      random,
    );
  const present = (
    c: IssuedCredential,
    over: { names?: string[]; signer?: KeyPair; aud?: string; nonce?: string; jwt?: string } = {},
  ) => {
    const names = over.names ?? Object.keys(CLAIMS);
    const sdJwt = selectDisclosures(
      over.jwt ?? c.jwt,
      names.map((n) => c.disclosures.get(n) as string),
    );
    return bindPresentation(sdJwt, {
      signer: over.signer ?? holder,
      aud: over.aud ?? AUD,
      nonce: over.nonce ?? nonce,
      iat: now - 5,
    });
  };
  const list = (over: Partial<Parameters<typeof statusListToken>[0]> = {}) =>
    statusListToken({
      signer: issuer,
      iss: ISSUER,
      sub: LIST_URI,
      iat: now - 60,
      exp: now + 3600,
      size: LIST_SIZE,
      revoked: [(idx + 1) % LIST_SIZE],
      ...over,
    });
  /** `statusList: null` withholds the list. */
  const input = (
    presentation: string,
    over: { statusList?: string | null; didDocument?: unknown; aud?: string; trustAnchors?: string[] } = {},
  ) => {
    const value: VerificationInput = {
      presentation,
      didDocument: over.didDocument ?? issuerDocument,
      expected: over.aud ? { ...expected, aud: over.aud } : expected,
      now,
    };
    const statusList = over.statusList === undefined ? list() : over.statusList;
    if (statusList !== null) value.statusList = statusList;
    if (over.trustAnchors) value.trustAnchors = over.trustAnchors;
    return value;
  };
  const reject = (
    id: string,
    proves: CheckName,
    failure: FailureCode,
    about: string,
    i: VerificationInput,
  ): ConformanceVector => ({
    id,
    about,
    proves,
    input: i,
    expect: { verdict: 'reject' as const, failure, claims: null },
  });
  const accept = (id: string, about: string, i: VerificationInput): ConformanceVector => ({
    id,
    about,
    proves: 'all',
    input: i,
    expect: { verdict: 'accept', failure: null, claims: { ...CLAIMS } },
  });
  return { now, random, issuer, impostor, holder, thief, nonce, idx, credential, present, list, input, reject, accept };
}

export function interfaceVectors(kit: VectorKit): ConformanceVector[] {
  const { now, random, impostor, thief, idx, credential, present, list, input, reject, accept } = kit;
  const valid = credential();
  const validPresentation = present(valid);
  const [header, payload] = valid.jwt.split('.') as [string, string, string];

  const tampered = (() => {
    const signature = Buffer.from(valid.jwt.split('.')[2] as string, 'base64url');
    signature[10] = (signature[10] ?? 0) ^ 0x01;
    return `${header}.${payload}.${signature.toString('base64url')}`;
  })();

  const forged = (() => {
    const fake = Buffer.from(JSON.stringify([Buffer.from(random(16)).toString('base64url'), 'family_name', 'Byron'])).toString(
      'base64url',
    );
    const disclosures = new Map(valid.disclosures).set('family_name', fake);
    return present({ jwt: valid.jwt, disclosures });
  })();

  const altered = (() => {
    // Key binding over all four disclosures, then one is taken out: only sd_hash tells.
    const kb = validPresentation.slice(validPresentation.lastIndexOf('~') + 1);
    const kept = ['given_name', 'member_number', 'age_over_18'].map((n) => valid.disclosures.get(n) as string);
    return `${selectDisclosures(valid.jwt, kept)}${kb}`;
  })();

  const impostorCredential = credential({ signer: impostor, kid: `${IMPOSTOR}#${impostor.kid}` });

  return [
    accept('valid', 'A sound presentation: every check passes and the revocation bit is clear.', input(validPresentation)),
    {
      id: 'status-list-withheld',
      about: 'The credential names a status list and none is supplied: revocation is unknown, so never accept.',
      proves: 'revocation',
      input: input(validPresentation, { statusList: null }),
      expect: { verdict: 'indeterminate', failure: 'status_unavailable', claims: null },
    },
    reject(
      'revoked',
      'revocation',
      'credential_revoked',
      "The issuer's signed status list has the credential's bit set.",
      input(validPresentation, { statusList: list({ revoked: [idx, (idx + 1) % LIST_SIZE] }) }),
    ),
    reject(
      'tampered-issuer-signature',
      'issuer_signature',
      'issuer_signature_invalid',
      'One bit of the issuer signature is flipped; the key binding covers the altered JWT.',
      input(present(valid, { jwt: tampered })),
    ),
    reject(
      'wrong-issuer-key',
      'issuer_key',
      'issuer_key_unknown',
      "Signed by a key that is not in the issuer's DID document (offered in a jwk header, which must be ignored).",
      input(present(credential({ signer: impostor, kid: `${ISSUER}#${impostor.kid}`, header: { jwk: impostor.publicJwk } }))),
    ),
    reject(
      'stolen-credential',
      'holder_binding',
      'key_binding_invalid',
      "The key-binding JWT is signed by a key other than the credential's cnf.jwk.",
      input(present(valid, { signer: thief })),
    ),
    reject(
      'wrong-credential-type',
      'credential_type',
      'wrong_credential_type',
      'A sound credential of another type (vct) than the one asked for.',
      input(present(credential({ vct: OTHER_VCT }))),
    ),
    reject(
      'required-claim-withheld',
      'required_claims',
      'required_claim_missing',
      'The holder leaves out the disclosure of a required claim (member_number).',
      input(present(valid, { names: ['given_name', 'family_name', 'age_over_18'] })),
    ),
    reject(
      'did-document-not-bound',
      'issuer_key',
      'did_document_not_bound',
      "The supplied DID document belongs to another DID than the credential's iss; it holds the signing key.",
      input(present(impostorCredential), {
        statusList: list({ signer: impostor }),
        didDocument: didDocumentFor(IMPOSTOR, impostor),
      }),
    ),
    reject(
      'forged-disclosure',
      'disclosures',
      'unreferenced_disclosure',
      'The family_name disclosure is replaced by one the issuer never signed; the key binding covers it.',
      input(forged),
    ),
    reject(
      'disclosure-set-altered',
      'holder_binding',
      'sd_hash_mismatch',
      'A disclosure is removed after the holder signed the key binding.',
      input(altered),
    ),
    reject(
      'audience-mismatch',
      'audience',
      'audience_mismatch',
      'The key binding is addressed to another verifier.',
      input(present(valid, { aud: 'decentralized_identifier:did:web:elsewhere.conformance.example' })),
    ),
    reject(
      'nonce-replay',
      'freshness',
      'nonce_mismatch',
      'The key binding carries the nonce of an earlier transaction.',
      input(present(valid, { nonce: Buffer.from(random(16)).toString('base64url') })),
    ),
    reject(
      'expired-status-list',
      'revocation',
      'status_list_expired',
      'The status list token expired an hour ago.',
      input(validPresentation, { statusList: list({ iat: now - 7200, exp: now - 3600 }) }),
    ),
    reject(
      'status-list-substituted',
      'revocation',
      'status_list_mismatch',
      "A sound status list of the same issuer, but for another URI than the credential's.",
      input(validPresentation, { statusList: list({ sub: OTHER_LIST_URI }) }),
    ),
    reject(
      'malformed-presentation',
      'structure',
      'malformed_presentation',
      'The issuer JWT has lost its signature segment.',
      input(validPresentation.replace(`${valid.jwt}~`, `${header}.${payload}~`)),
    ),
  ];
}
