import type { FastifyRequest } from 'fastify';
import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { Unauthorized } from '../../core/errors.ts';
import type { HolderReplayStore } from '../../ports/holder-replay-store.ts';
import { type AuthInput, type AuthPlane, parseAuthorization, principalOf } from './principal.ts';

export interface HolderPrincipal {
  plane: 'holder';
  /** RFC 7638 thumbprint of the device key. */
  accountId: string;
  jwk: JWK;
  claims: Record<string, unknown>;
}

declare module './principal.ts' {
  interface Principals {
    holder: HolderPrincipal;
  }
}

export const holderOf = (request: FastifyRequest) => principalOf(request, 'holder');

export const HOLDER_JWS_TYP = 'svc-holder+jwt';
/** Interface spec, Limits: a holder JWS is fresh for five minutes from `iat`. */
export const HOLDER_FRESHNESS_SECONDS = 300;

const CHALLENGE = 'Holder realm="openrail"';
const ALLOWED_HEADER = new Set(['alg', 'typ', 'jwk', 'kid']);

const refuse = (why: string) => new Unauthorized(`Holder JWS refused: ${why}.`, `${CHALLENGE}, error="invalid_token"`);

/**
 * Holder plane (docs/authentication.md): `Authorization: Holder <jws>`, compact ES256 signed by
 * the device key carried in the header. The account id is the key's RFC 7638 thumbprint. The
 * `jti` is burned with one atomic insert only once the request is admitted (the route registration
 * calls `admit` after its policy and validation), so a refused request spends nothing.
 */
export class HolderJwsAuthenticator implements AuthPlane<'holder'> {
  readonly name = 'holder';
  readonly security = {
    name: 'holderJws',
    scheme: {
      type: 'http',
      scheme: 'Holder',
      description: 'Authorization: Holder <compact ES256 JWS, typ svc-holder+jwt, jwk header, aud, iat, single-use jti>.',
    },
  };

  constructor(
    private readonly audience: string,
    private readonly replay: HolderReplayStore,
    private readonly clock: Clock,
  ) {}

  /** Every check but the single-use jti: nothing is spent, so a request refused later spends nothing. */
  async authenticate(input: AuthInput, audience = this.audience): Promise<HolderPrincipal> {
    const auth = parseAuthorization(input.authorization);
    if (!auth) throw new Unauthorized('This operation needs a holder JWS.', CHALLENGE);
    if (auth.scheme !== 'holder') throw refuse('only the Holder scheme is accepted here');
    const { jwk, claims } = await verifyHolderJws(auth.credential, audience, this.clock.now(), input);
    const accountId = await calculateJwkThumbprint(jwk, 'sha256');
    return { plane: 'holder', accountId, jwk, claims };
  }

  /**
   * Burns the jti, once the request is admitted (every check of its route has passed): one atomic
   * insert, so of two requests carrying the same JWS exactly one gets through.
   */
  async admit(principal: HolderPrincipal): Promise<void> {
    // The freshness check works in whole seconds and accepts |now - iat| <= 300 for the whole of
    // the last second, so the mark must outlive that second too.
    const markExpires = ((principal.claims.iat as number) + HOLDER_FRESHNESS_SECONDS + 1) * 1000;
    const burned = await this.replay.burn(principal.accountId, principal.claims.jti as string, markExpires, this.clock.now());
    if (!burned) throw refuse('jti already used');
  }

  /** authenticate, then admit: for callers that act on the JWS at once (no route policy in between). */
  async accept(input: AuthInput, audience = this.audience): Promise<HolderPrincipal> {
    const principal = await this.authenticate(input, audience);
    await this.admit(principal);
    return principal;
  }
}

/** Every check except the single-use `jti` burn. Pure apart from the signature check. */
export async function verifyHolderJws(
  jws: string,
  audience: string,
  nowMs: number,
  request?: { method: string; url: string },
): Promise<{ jwk: JWK; claims: Record<string, unknown> }> {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(jws) as Record<string, unknown>;
  } catch {
    throw refuse('not a compact JWS');
  }
  if (header.alg !== 'ES256') throw refuse('alg must be ES256');
  if (header.typ !== HOLDER_JWS_TYP) throw refuse(`typ must be ${HOLDER_JWS_TYP}`);
  const unknown = Object.keys(header).filter((k) => !ALLOWED_HEADER.has(k));
  if (unknown.length > 0) throw refuse(`header parameter ${unknown[0]} is not accepted`);
  const jwk = header.jwk as JWK | undefined;
  if (!jwk || typeof jwk !== 'object' || jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) {
    throw refuse('header jwk must be a P-256 public key');
  }
  if ('d' in jwk) throw refuse('header jwk must not contain private key material');

  let payload: Uint8Array;
  try {
    const key = await importJWK({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, 'ES256');
    ({ payload } = await compactVerify(jws, key, { algorithms: ['ES256'] }));
  } catch {
    throw refuse('signature does not verify with the header key');
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw refuse('payload is not JSON');
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw refuse('payload is not a JSON object');

  if (claims.aud !== audience) throw refuse('aud does not name this service');
  const now = Math.floor(nowMs / 1000);
  const { iat, exp, nbf, jti, htm, htu } = claims;
  if (typeof iat !== 'number' || !Number.isInteger(iat)) throw refuse('iat is missing');
  if (Math.abs(now - iat) > HOLDER_FRESHNESS_SECONDS) throw refuse('iat is outside the five-minute window');
  if (exp !== undefined && (typeof exp !== 'number' || exp <= now)) throw refuse('exp has passed');
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now)) throw refuse('nbf is in the future');
  if (typeof jti !== 'string' || jti.length < 8 || jti.length > 256) throw refuse('jti must be a string of 8 to 256 characters');
  // Optional request binding (RFC 9449 style): when present they must match this request.
  if (htm !== undefined && (!request || htm !== request.method)) throw refuse('htm does not match the request method');
  if (htu !== undefined && (!request || htu !== request.url.split('?')[0])) throw refuse('htu does not match the request URL');
  return { jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, claims };
}
