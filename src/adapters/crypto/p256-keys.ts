import { generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';
import { type KeyPair, keyPair } from '../../core/conformance/builders.ts';
import { p256Jwk } from '../../core/jose/es256.ts';

/** A fresh, in-memory P-256 key pair (conformance minting, tests and benchmarks; never stored). */
export function newP256KeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return keyPair(privateKey, p256Jwk(publicKey.export({ format: 'jwk' })) as JWK);
}
