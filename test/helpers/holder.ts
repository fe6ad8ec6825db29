import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface HolderKey {
  privateKey: PrivateKey;
  publicJwk: JWK;
}

export async function newHolderKey(): Promise<HolderKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, publicJwk: await exportJWK(publicKey) };
}

/** A holder-plane JWS; every field can be overridden to build a negative case. */
export async function holderJws(
  claims: Record<string, unknown> = {},
  options: { key?: HolderKey; header?: Record<string, unknown> } = {},
): Promise<string> {
  const key = options.key ?? (await newHolderKey());
  return new SignJWT({ iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'svc-holder+jwt', jwk: key.publicJwk, ...options.header })
    .sign(key.privateKey);
}

/** The holder account of a key: its RFC 7638 thumbprint, computed here rather than with src's helper. */
export function accountOf(key: HolderKey): string {
  const { crv, kty, x, y } = key.publicJwk;
  return createHash('sha256').update(JSON.stringify({ crv, kty, x, y }), 'utf8').digest('base64url');
}
