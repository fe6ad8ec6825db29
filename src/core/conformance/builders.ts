import { createHash, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { buildDidDocument, type DidDocument } from '../did-web.ts';
import { p256Thumbprint, signEs256 } from '../jose/es256.ts';
import { compactSdJwt, discloseClaims, type RandomBytes, SD_ALG } from '../sd-jwt/disclose.ts';
import { compressStatusList, packStatuses } from '../status-list/codec.ts';

/**
 * Building blocks of the conformance vectors: real SD-JWT VCs of the shape openrail issues
 * (docs/issuance.md), key-binding JWTs and status list tokens, each with one knob per link a
 * vector may break.
 */
export interface KeyPair {
  privateKey: KeyObject;
  publicJwk: JWK;
  /** RFC 7638 thumbprint. */
  kid: string;
}

export const keyPair = (privateKey: KeyObject, publicJwk: JWK): KeyPair => ({
  privateKey,
  publicJwk,
  kid: p256Thumbprint(publicJwk),
});

export const didDocumentFor = (did: string, key: KeyPair): DidDocument =>
  buildDidDocument(did, { assertion: [{ kid: key.kid, publicJwk: key.publicJwk }] });

export interface CredentialSpec {
  signer: KeyPair;
  /** The issuer JWT header `kid`. */
  kid: string;
  iss: string;
  vct: string;
  holder: JWK;
  status: { uri: string; idx: number };
  claims: Record<string, unknown>;
  iat: number;
  /** Extra header members (a tempting but ignorable `jwk`, say). */
  header?: Record<string, unknown>;
}

export interface IssuedCredential {
  jwt: string;
  /** Encoded disclosure per claim name. */
  disclosures: Map<string, string>;
}

export function issueCredential(spec: CredentialSpec, random: RandomBytes): IssuedCredential {
  const names = Object.keys(spec.claims);
  const disclosed = discloseClaims(
    names.map((name) => ({ name, value: spec.claims[name], elementsDisclosable: false })),
    random,
    2,
  );
  const jwt = signEs256(
    spec.signer.privateKey,
    { typ: 'dc+sd-jwt', kid: spec.kid, ...spec.header },
    {
      iss: spec.iss,
      iat: spec.iat,
      vct: spec.vct,
      cnf: { jwk: spec.holder },
      status: { status_list: { idx: spec.status.idx, uri: spec.status.uri } },
      _sd: disclosed.sd,
      _sd_alg: SD_ALG,
    },
  );
  return { jwt, disclosures: new Map(names.map((name, i) => [name, disclosed.disclosures[i] as string])) };
}

export interface KeyBindingSpec {
  signer: KeyPair;
  aud: string;
  nonce: string;
  iat: number;
}

/** `<SD-JWT>~<KB-JWT>` with `sd_hash` over exactly the SD-JWT given (RFC 9901 §4.3). */
export function bindPresentation(sdJwt: string, kb: KeyBindingSpec): string {
  const sdHash = createHash('sha256').update(sdJwt, 'ascii').digest('base64url');
  const kbJwt = signEs256(
    kb.signer.privateKey,
    { typ: 'kb+jwt' },
    { iat: kb.iat, aud: kb.aud, nonce: kb.nonce, sd_hash: sdHash },
  );
  return `${sdJwt}${kbJwt}`;
}

export const selectDisclosures = (jwt: string, disclosures: readonly string[]) => compactSdJwt(jwt, disclosures);

export interface StatusListSpec {
  signer: KeyPair;
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  size: number;
  revoked: readonly number[];
}

export function statusListToken(spec: StatusListSpec): string {
  const lst = compressStatusList(
    packStatuses(
      spec.size,
      1,
      spec.revoked.map((i) => [i, 1] as [number, number]),
    ),
  );
  return signEs256(
    spec.signer.privateKey,
    { typ: 'statuslist+jwt', kid: spec.signer.kid },
    { iss: spec.iss, sub: spec.sub, iat: spec.iat, exp: spec.exp, ttl: 300, status_list: { bits: 1, lst } },
  );
}
