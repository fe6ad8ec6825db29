import type { FastifyRequest } from 'fastify';
import type { JWK } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { Unauthorized } from '../../core/errors.ts';
import { describe } from '../../core/jose/es256.ts';
import { isRefusal, type KeyBoundRefusal, verifyKeyBoundJws } from '../../core/jose/key-bound-jws.ts';
import type { HolderReplayStore } from '../../ports/holder-replay-store.ts';
import type { AnonymousGate } from './anonymous-gate.ts';
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
/** The longest `jti` accepted: input is bounded, and the interface asks for no minimum. */
export const JTI_MAX = 256;

const CHALLENGE = 'Holder realm="openrail"';

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
    // An apiKey in the Authorization header, not `type: http`: HTTP scheme "Holder" is ours, and API
    // viewers offer only the registered schemes (bearer, basic) in their Authorize dialogs.
    scheme: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description:
        'The whole header value, scheme included: "Holder <compact ES256 JWS, typ svc-holder+jwt, jwk header, aud, iat, single-use jti>" (docs/authentication.md). A JWS is single-use: make a new one per request.',
    },
  };

  constructor(
    private readonly audience: string,
    private readonly replay: HolderReplayStore,
    private readonly clock: Clock,
    /** Every admitted request stores a replay mark: the holder-request budget bounds them (docs/security.md). */
    private readonly budgets: AnonymousGate,
  ) {}

  /**
   * Every check but the single-use jti: nothing is spent, so a request refused later spends nothing.
   * The audience is the origin, unless the operation declares its own (interface spec, Holder JWS
   * 4: an approval signature for POST /account/approve can never open a session).
   */
  async authenticate(input: AuthInput, audience = input.audience ?? this.audience): Promise<HolderPrincipal> {
    const auth = parseAuthorization(input.authorization);
    if (!auth) throw new Unauthorized('This operation needs a holder JWS.', CHALLENGE);
    if (auth.scheme !== 'holder') throw refuse('only the Holder scheme is accepted here');
    const { jwk, thumbprint, claims } = verifyHolderJws(auth.credential, audience, this.clock.now(), input);
    return { plane: 'holder', accountId: thumbprint, jwk, claims };
  }

  /**
   * Burns the jti, once the request is admitted (every check of its route has passed): one atomic
   * insert, so of two requests carrying the same JWS exactly one gets through. The mark it stores
   * is counted against the caller's address and the deployment's ceiling first; over budget,
   * nothing is burned.
   */
  async admit(principal: HolderPrincipal, request: { address: string }): Promise<void> {
    await this.budgets.spend('holder-request', request.address);
    // The freshness check works in whole seconds and accepts |now - iat| <= 300 for the whole of
    // the last second, so the mark must outlive that second too.
    const markExpires = ((principal.claims.iat as number) + HOLDER_FRESHNESS_SECONDS + 1) * 1000;
    const burned = await this.replay.burn(principal.accountId, principal.claims.jti as string, markExpires, this.clock.now());
    if (!burned) throw refuse('jti already used');
  }
}

/** Each refusal of the shared verifier in the holder plane's words. */
function refusal(r: KeyBoundRefusal): Unauthorized {
  switch (r.reason) {
    case 'malformed':
      return refuse('not a compact JWS');
    case 'alg':
      return refuse('alg must be ES256');
    case 'typ':
      return refuse(`typ must be ${HOLDER_JWS_TYP}`);
    case 'no_jwk':
    case 'jwk_not_p256':
      return refuse('header jwk must be a P-256 public key');
    case 'header_member':
      return refuse(`header parameter ${describe(r.member)} is not accepted`);
    case 'private_jwk':
      return refuse('header jwk must not contain private key material');
    case 'signature':
      return refuse('signature does not verify with the header key');
    case 'payload':
      return refuse('payload is not a JSON object');
    case 'aud':
      return refuse('aud does not name this service');
    case 'iat':
      return refuse(r.problem === 'missing' ? 'iat is missing' : 'iat is outside the five-minute window');
    case 'exp':
      return refuse('exp has passed');
    case 'nbf':
      return refuse('nbf is in the future');
  }
}

/**
 * Every check except the single-use `jti` burn: the service's one verifier of key-bound JWSs
 * (core/jose/key-bound-jws.ts) with the holder plane's rules (typ, `aud` exactly this origin or
 * the operation's own audience, `iat` within five minutes either way), then the plane's own
 * claims: a `jti`, and `htm`/`htu` when present.
 */
export function verifyHolderJws(
  jws: string,
  audience: string,
  nowMs: number,
  request?: { method: string; url: string },
): { jwk: JWK; thumbprint: string; claims: Record<string, unknown> } {
  const rules = { typ: HOLDER_JWS_TYP, audience, maxAgeS: HOLDER_FRESHNESS_SECONDS, maxSkewS: HOLDER_FRESHNESS_SECONDS };
  const result = verifyKeyBoundJws(jws, rules, Math.floor(nowMs / 1000));
  if (isRefusal(result)) throw refusal(result);
  const claims = result.payload;
  const { jti, htm, htu } = claims;
  // Interface spec, Holder JWS 2: a single-use jti, of no minimum length (the burn makes even one
  // character single-use per account); 256 at most, so a mark stays small (docs/authentication.md).
  if (typeof jti !== 'string' || jti.length < 1 || jti.length > JTI_MAX)
    throw refuse(`jti must be a string of 1 to ${JTI_MAX} characters`);
  // Optional request binding (RFC 9449 style): when present they must match this request.
  if (htm !== undefined && (!request || htm !== request.method)) throw refuse('htm does not match the request method');
  if (htu !== undefined && (!request || htu !== request.url.split('?')[0])) throw refuse('htu does not match the request URL');
  return { jwk: result.jwk, thumbprint: result.thumbprint, claims };
}
