import { randomBytes } from 'node:crypto';
import { newP256KeyPair } from '../src/adapters/crypto/p256-keys.ts';
import {
  bindPresentation,
  didDocumentFor,
  issueCredential,
  type KeyPair,
  selectDisclosures,
  statusListToken,
} from '../src/core/conformance/builders.ts';
import type { DidDocument } from '../src/core/did-web.ts';
import type { VerificationInput } from '../src/core/verifier/verify-presentation.ts';

/**
 * The in-process verify bench's presentations: real SD-JWT VCs of the conformance vectors' shape
 * (one issuer key in a did:web document, a holder key per credential, 4 disclosures plus 2 decoy
 * digests, a status reference), each presented with all 4 disclosures and a KB-JWT of its own
 * nonce, against one signed Token Status List of 131,072 one-bit entries, 1 % of them revoked
 * (never a pool credential's).
 */
export const HOST = 'issuer.bench.example';
export const ISSUER = `did:web:${HOST}`;
export const VCT = `https://${HOST}/types/membership`;
export const LIST_URI = `https://${HOST}/status/1`;
export const AUD = 'decentralized_identifier:did:web:verifier.bench.example';
export const LIST_SIZE = 131_072;
const REVOKED_FRACTION = 0.01;
export const REQUIRED = ['given_name', 'family_name', 'member_number', 'age_over_18'];

export interface PoolEntry {
  input: VerificationInput;
  /** The credential's status index (for sanity cases). */
  idx: number;
  holder: KeyPair;
}

export interface Pool {
  entries: PoolEntry[];
  issuer: KeyPair;
  didDocument: DidDocument;
  statusList: string;
  now: number;
  /** Mints a status list of this pool's issuer with the given indices revoked (sanity cases). */
  listRevoking(indices: number[]): string;
}

const random = (n: number) => new Uint8Array(randomBytes(n));

/** Distinct status indices: a random odd stride walks the whole (power-of-two sized) list. */
function distinctIndices(count: number, size: number): number[] {
  const stride = ((randomBytes(4).readUInt32BE(0) | 1) >>> 0) % size;
  const start = randomBytes(4).readUInt32BE(0) % size;
  return Array.from({ length: count }, (_, i) => (start + i * stride) % size);
}

export function mintPool(size: number, now = Math.floor(Date.now() / 1000)): Pool {
  const issuer = newP256KeyPair();
  const didDocument = didDocumentFor(ISSUER, issuer);
  const revokedCount = Math.floor(LIST_SIZE * REVOKED_FRACTION);
  const all = distinctIndices(size + revokedCount, LIST_SIZE);
  const indices = all.slice(0, size);
  const revoked = all.slice(size);
  const listRevoking = (extra: number[]) =>
    statusListToken({
      signer: issuer,
      iss: ISSUER,
      sub: LIST_URI,
      iat: now - 60,
      exp: now + 3600,
      size: LIST_SIZE,
      revoked: [...revoked, ...extra],
    });
  const statusList = listRevoking([]);
  const entries = indices.map((idx, n): PoolEntry => {
    const holder = newP256KeyPair();
    const claims = {
      given_name: 'Ada',
      family_name: 'Lovelace',
      member_number: `M-${String(n).padStart(8, '0')}`,
      age_over_18: true,
    };
    const credential = issueCredential(
      {
        signer: issuer,
        kid: `${ISSUER}#${issuer.kid}`,
        iss: ISSUER,
        vct: VCT,
        holder: holder.publicJwk,
        status: { uri: LIST_URI, idx },
        claims,
        iat: now - 3600,
      },
      random,
    );
    const nonce = randomBytes(16).toString('base64url');
    const sdJwt = selectDisclosures(
      credential.jwt,
      Object.keys(claims).map((name) => credential.disclosures.get(name) as string),
    );
    const presentation = bindPresentation(sdJwt, { signer: holder, aud: AUD, nonce, iat: now - 5 });
    return {
      idx,
      holder,
      input: { presentation, didDocument, statusList, expected: { aud: AUD, nonce, vct: VCT, claims: REQUIRED }, now },
    };
  });
  return { entries, issuer, didDocument, statusList, now, listRevoking };
}
