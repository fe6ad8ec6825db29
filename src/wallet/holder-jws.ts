/**
 * The holder plane from the wallet's side (docs/authentication.md): each request carries
 * `Authorization: Holder <jws>`, a compact ES256 JWS signed by the device key, with the key itself
 * in the header (`jwk`), the service's origin as `aud`, the time as `iat` and a fresh `jti`, so
 * the service knows the account (the key's thumbprint) and can refuse a replay.
 */
import { randomBytes } from 'node:crypto';
import { signEs256 } from '../core/jose/es256.ts';
import type { Wallet } from './wallet-file.ts';

export const HOLDER_TYP = 'svc-holder+jwt';

/** A single-use holder JWS for the service at `origin`. */
export function holderJws(wallet: Wallet, origin: string, nowMs = Date.now()): string {
  return signEs256(
    wallet.privateKey,
    { typ: HOLDER_TYP, jwk: wallet.publicJwk },
    { aud: new URL(origin).origin, iat: Math.floor(nowMs / 1000), jti: randomBytes(16).toString('base64url') },
  );
}

export const holderAuthorization = (wallet: Wallet, origin: string) => `Holder ${holderJws(wallet, origin)}`;
