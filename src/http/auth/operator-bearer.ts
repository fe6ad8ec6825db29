import type { FastifyRequest } from 'fastify';
import { constantTimeEqual, hashToken } from '../../adapters/crypto/secrets.ts';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { Unauthorized } from '../../core/errors.ts';
import type { OperatorRole, OperatorSessionStore, OperatorStore } from '../../ports/operator-store.ts';
import { type AuthInput, type AuthPlane, parseAuthorization, principalOf } from './principal.ts';

export interface OperatorPrincipal {
  plane: 'operator';
  /** `owner-token` is the break-glass bearer; `session` a bearer from POST /api/login. */
  via: 'owner-token' | 'session';
  username: string | null;
  roles: OperatorRole[];
  /** Set for tenant-scoped operators: they may act on this tenant only. */
  tenant: string | null;
}

declare module './principal.ts' {
  interface Principals {
    operator: OperatorPrincipal;
  }
}

export const operatorOf = (request: FastifyRequest) => principalOf(request, 'operator');

/** Who an operator principal is, for the audit log. */
export const operatorActor = (p: OperatorPrincipal): Actor =>
  p.username === null ? { kind: 'owner-token' } : { kind: 'operator', username: p.username };

const CHALLENGE = 'Bearer realm="openrail"';
const INVALID = 'Bearer realm="openrail", error="invalid_token"';

/**
 * Operator bearer plane: the break-glass owner token, or a session bearer from POST /api/login.
 * Roles and status are read from the operators table on every request, so a demoted, suspended
 * or removed operator loses access on the next call.
 */
export class OperatorBearerAuthenticator implements AuthPlane<'operator'> {
  readonly name = 'operator';
  readonly security = {
    name: 'operatorBearer',
    scheme: {
      type: 'http',
      scheme: 'bearer',
      description: 'Operator bearer: the owner token or a session from POST /api/login.',
    },
  };

  constructor(
    /** Read per request, so every process follows the database (and a rotation) at once. */
    private readonly ownerTokenHash: () => Promise<string | undefined>,
    private readonly operators: OperatorStore,
    private readonly sessions: OperatorSessionStore,
    private readonly clock: Clock,
  ) {}

  async authenticate(input: AuthInput): Promise<OperatorPrincipal> {
    const auth = parseAuthorization(input.authorization);
    if (!auth) throw new Unauthorized('This operation needs an operator bearer token.', CHALLENGE);
    if (auth.scheme !== 'bearer') throw new Unauthorized('Only an operator bearer token is accepted here.', INVALID);
    const hash = hashToken(auth.credential);
    const ownerHash = await this.ownerTokenHash();
    if (ownerHash !== undefined && constantTimeEqual(hash, ownerHash)) {
      return { plane: 'operator', via: 'owner-token', username: null, roles: ['owner'], tenant: null };
    }
    const session = await this.sessions.find(hash, this.clock.now());
    const operator = session && (await this.operators.get(session.username));
    if (operator?.status !== 'active') {
      throw new Unauthorized('The bearer token is unknown, expired or no longer valid.', INVALID);
    }
    return { plane: 'operator', via: 'session', username: operator.username, roles: operator.roles, tenant: operator.tenant };
  }
}
