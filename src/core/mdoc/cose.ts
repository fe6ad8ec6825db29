import { createHash, createPrivateKey, sign } from 'node:crypto';
import type { MdocContext } from '@animo-id/mdoc';
import type { JWK } from 'jose';
import { p256Jwk, verifyEs256Bytes } from '../jose/es256.ts';

/**
 * What `@animo-id/mdoc` asks of the caller for the parts of ISO/IEC 18013-5 openrail uses
 * (docs/mdoc.md): digests, salts, and ES256 COSE_Sign1 over Node's crypto. Only ES256 (COSE -7) on
 * P-256 is accepted; MAC device authentication (an mdoc reader's ephemeral key) has no place in
 * OpenID4VP, so it is refused.
 */
export type MdocCrypto = Pick<MdocContext, 'crypto' | 'cose'>;

const DIGESTS = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' } as const;

/** A P-256 signature, r‖s, of `data` under ES256 by `jwk` (a private JWK): for wallets and tests. */
export function es256Sign(jwk: JWK, data: Uint8Array): Uint8Array {
  const key = createPrivateKey({ key: jwk as never, format: 'jwk' });
  return sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
}

/** Whether `signature` (r‖s) is an ES256 signature of `data` by the P-256 public key `jwk` (its key object kept, as a JWS's is). */
export function es256Verify(jwk: JWK, data: Uint8Array, signature: Uint8Array): boolean {
  const pub = p256Jwk(jwk);
  return pub !== undefined && verifyEs256Bytes(data, signature, pub);
}

const noMac = () => {
  throw new Error('MAC device authentication is not supported (docs/mdoc.md)');
};

/** The library's context; `random` gives the salts of the elements an issuer signs. */
export function mdocCrypto(random: (length: number) => Uint8Array): MdocCrypto {
  return {
    crypto: {
      random,
      digest: ({ digestAlgorithm, bytes }) => createHash(DIGESTS[digestAlgorithm]).update(bytes).digest(),
      calculateEphemeralMacKeyJwk: noMac,
    },
    cose: {
      sign1: {
        sign: ({ sign1, jwk }) => {
          const { data, alg } = sign1.getRawSigningData();
          if (alg !== 'ES256') throw new Error(`COSE alg ${alg} is not ES256`);
          return es256Sign(jwk as JWK, data);
        },
        verify: ({ sign1, jwk, options }) => {
          const { data, alg, signature } = sign1.getRawVerificationData(options);
          return alg === 'ES256' && es256Verify(jwk as JWK, data, signature);
        },
      },
      mac0: { sign: noMac, verify: noMac },
    },
  };
}
