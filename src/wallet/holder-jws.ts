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

export interface HolderJwsOptions {
  nowMs?: number;
  /**
   * The path of an operation that has an audience of its own: `aud` is then the origin followed by
   * it (interface spec, Holder JWS 4: `<origin>/account/approve`), so the signature is good for
   * that operation only. Without it, `aud` is the origin.
   */
  audiencePath?: string;
}

/** A single-use holder JWS for the service at `origin`. */
export function holderJws(wallet: Wallet, origin: string, options: HolderJwsOptions = {}): string {
  const { nowMs = Date.now(), audiencePath = '' } = options;
  if (audiencePath !== '' && !/^\/[A-Za-z0-9/_-]+$/.test(audiencePath)) {
    throw new Error(`not an audience path: ${audiencePath.slice(0, 100)}`);
  }
  return signEs256(
    wallet.privateKey,
    { typ: HOLDER_TYP, jwk: wallet.publicJwk },
    {
      aud: `${new URL(origin).origin}${audiencePath}`,
      iat: Math.floor(nowMs / 1000),
      jti: randomBytes(16).toString('base64url'),
    },
  );
}

export const holderAuthorization = (wallet: Wallet, origin: string, audiencePath = '') =>
  `Holder ${holderJws(wallet, origin, { audiencePath })}`;
