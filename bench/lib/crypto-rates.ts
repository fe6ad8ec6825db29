import { createPublicKey, generateKeyPairSync, type JsonWebKey, randomBytes, sign, verify } from 'node:crypto';
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
