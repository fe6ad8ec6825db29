import { createHash, createPublicKey, generateKeyPairSync, type JsonWebKey, randomBytes, sign, verify } from 'node:crypto';
import { fixed } from './stats.ts';

export interface CryptoRates {
  signPerSec: number;
  verifyPerSec: number;
  /** P-256 public keys made from a JWK (node:crypto createPublicKey, which checks the point). */
  importPerSec: number;
  /** Milliseconds of cryptography one issuance needs on the server (see CEILING_DEFINITION). */
  issuanceMs: number;
  /** One core's issuances per second if one cost only that cryptography. */
  ceilingPerSec: number;
}

export const CEILING_DEFINITION =
  'crypto cost of an issuance = what the server cannot skip: the holder key of the proof made from its JWK (a fresh ' +
  'key every time), one ES256 verify (the key proof) and one ES256 sign (the credential) = 1/import_rate + ' +
  '1/verify_rate + 1/sign_rate; crypto ceiling = one core doing nothing else';

/** Operations per second of `op`, run for about `ms` milliseconds on this thread. */
function rate(op: () => void, ms: number): number {
  for (let i = 0; i < 50; i++) op(); // warm-up
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 25; i++) op();
    n += 25;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

/**
 * ES256 (P-256, SHA-256, IEEE P1363 signatures) with node:crypto, as the server signs: a
 * credential-sized signing input (about 1.3 KB) and a proof-sized verification input (about 400 B).
 */
export function measureCryptoRates(ms = 1500): CryptoRates {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialInput = Buffer.from(randomBytes(980).toString('base64url'), 'ascii');
  const proofInput = Buffer.from(randomBytes(300).toString('base64url'), 'ascii');
  const proofSignature = sign('sha256', proofInput, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const signPerSec = rate(() => sign('sha256', credentialInput, { key: privateKey, dsaEncoding: 'ieee-p1363' }), ms);
  const verifyPerSec = rate(() => {
    if (!verify('sha256', proofInput, { key: publicKey, dsaEncoding: 'ieee-p1363' }, proofSignature)) {
      throw new Error('ES256 verification failed');
    }
  }, ms);
  const jwks = Array.from({ length: 64 }, () =>
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
  );
  let next = 0;
  const importPerSec = rate(() => createPublicKey({ key: jwks[next++ % jwks.length] as JsonWebKey, format: 'jwk' }), ms);
  const issuanceMs = 1000 / importPerSec + 1000 / verifyPerSec + 1000 / signPerSec;
  return { signPerSec, verifyPerSec, importPerSec, issuanceMs, ceilingPerSec: 1000 / issuanceMs };
}

export const describeRates = (c: CryptoRates) =>
  `ES256 on this machine (node:crypto, one thread): sign ${fixed(c.signPerSec, 0)}/s, verify ${fixed(c.verifyPerSec, 0)}/s, ` +
  `P-256 key from a JWK ${fixed(c.importPerSec, 0)}/s; crypto cost of an issuance ${fixed(c.issuanceMs, 3)} ms`;

export const MDOC_CEILING_DEFINITION =
  'crypto cost of an mdoc issuance = what the server cannot skip: the same three as an SD-JWT VC issuance (the holder ' +
  'key from its JWK, the proof verify, one ES256 sign: the MSO under COSE_Sign1) plus one SHA-256 of each element ' +
  '(its IssuerSignedItem, as the server encodes it for the MSO) = 1/import_rate + 1/verify_rate + 1/sign_rate + ' +
  'digests_ms; crypto ceiling = one core doing nothing else';

/** The crypto cost of one mdoc issuance or hosted mdoc transaction: the ES256 part and the SHA-256 digests. */
export interface MdocCost {
  /** SHA-256 digests per operation, and their bytes in all. */
  digests: number;
  digestBytes: number;
  digestsMs: number;
  /** Everything the server cannot skip, in milliseconds; and one core's operations per second at that cost alone. */
  costMs: number;
  ceilingPerSec: number;
}

/**
 * The mdoc cost: `es256Ms` (the ES256 part, as the SD-JWT VC cost counts it) plus one SHA-256
 * (node:crypto createHash, as the server's mdoc context digests) of each of `inputs`, measured as a
 * set for about `ms` milliseconds on this thread.
 */
export function mdocCost(es256Ms: number, inputs: readonly Uint8Array[], ms = 1500): MdocCost {
  const perSec = rate(() => {
    for (const bytes of inputs) createHash('sha256').update(bytes).digest();
  }, ms);
  const digestsMs = 1000 / perSec;
  const costMs = es256Ms + digestsMs;
  return {
    digests: inputs.length,
    digestBytes: inputs.reduce((n, b) => n + b.length, 0),
    digestsMs,
    costMs,
    ceilingPerSec: 1000 / costMs,
  };
}

export const describeMdocCost = (what: string, c: MdocCost) =>
  `${what}: ${c.digests} SHA-256 digests (${c.digestBytes} bytes) ${fixed(1000 * c.digestsMs, 1)} us; ` +
  `crypto cost ${fixed(c.costMs, 3)} ms, ceiling ${fixed(c.ceilingPerSec, 0)}/s per core`;
