import { parse as parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError, Unauthorized } from '../../core/errors.ts';
import { type IntegrationScope, type RateClass, ratePolicyOf } from '../../core/integration-scopes.ts';
import { type PartnerRole, partnerRole, SIGNED_IN_STAGES } from '../../core/partner-pipeline.ts';
import { constantTimeEqual, hashToken } from '../../core/secrets.ts';
import type { RateBudget } from '../../ports/integration-token-store.ts';
import type { IntegrationViews } from '../../ports/integration-views.ts';
import type { OperatorRole } from '../../ports/operator-store.ts';
import type { OperatorsViews } from '../../ports/operators-views.ts';
import type { PartnersViews } from '../../ports/partners-views.ts';
import type { TenantsViews } from '../../ports/tenants-views.ts';
import { type AuthInput, type AuthPlane, parseAuthorization, principalOf } from './principal.ts';
import { consumeBudget } from './rate-limit.ts';

export interface OperatorPrincipal {
  plane: 'operator';
  /**
   * `owner-token` is the break-glass bearer; `session` a bearer from POST /api/login;
   * `integration-token` a tenant-scoped token from the provisioning ceremony or a partner's key
   * (docs/integration.md); `partner-session` a partner's team member, signed in with a mailed code
   * (docs/partners.md).
   */
  via: 'owner-token' | 'session' | 'integration-token' | 'partner-session';
  username: string | null;
  roles: (OperatorRole | PartnerRole)[];
  /** Set for tenant-scoped operators: they may act on this tenant only. */
  tenant: string | null;
  /** Set for keys: scopes instead of roles, and a rate class it is metered against. */
  key?: { id: string; scopes: IntegrationScope[]; rateClass: RateClass };
  /** Set for a partner session: its partner, the member signed in, and the grant (null before one is attached). */
  partner?: PartnerSessionInfo;
}

export interface PartnerSessionInfo {
  applicationId: string;
  memberId: string;
  email: string;
  grant: { scopes: IntegrationScope[]; rateClass: RateClass } | null;
}

/** A partner session bearer: `psn_` and 43 base64url characters. */
export const PARTNER_SESSION_PREFIX = 'psn';

/** An integration token: `oit_` and 43 base64url characters. */
export const INTEGRATION_TOKEN_PREFIX = 'oit';

declare module './principal.ts' {
  interface Principals {
    operator: OperatorPrincipal;
  }
}

export const operatorOf = (request: FastifyRequest) => principalOf(request, 'operator');

/** Who an operator principal is, for the audit log. */
export const operatorActor = (p: OperatorPrincipal): Actor =>
  p.partner
    ? { kind: 'partner', memberId: p.partner.memberId }
    : p.key
      ? { kind: 'token', tokenId: p.key.id }
      : p.username === null
        ? { kind: 'owner-token' }
        : { kind: 'operator', username: p.username };

/**
 * The partner portal's cookie, on the routes that declare it (RouteDef.bearerCookie), read as the
 * bearer when the request has no Authorization header. Only a partner session rides in it.
 */
function portalCookie(input: AuthInput): string | undefined {
  if (!input.bearerCookie) return undefined;
  const header = input.headers?.cookie;
  const value = typeof header === 'string' ? parseCookie(header)[input.bearerCookie] : undefined;
  return value?.startsWith(`${PARTNER_SESSION_PREFIX}_`) ? `Bearer ${value}` : undefined;
}

/**
 * What the plane reads on every request, each from its owner's views (the operators module's
 * sessions and accounts, the integration module's keys, the partners module's sessions, the tenants'
 * status), so that a change anywhere is followed on the next call, on every process.
 */
export interface OperatorBearerDeps {
  /** Read per request, so every process follows the database (and a rotation) at once. */
  ownerTokenHash: () => Promise<string | undefined>;
  operators: Pick<OperatorsViews, 'sessionOperator'>;
  keys: Pick<IntegrationViews, 'activeKey'>;
  partners: Pick<PartnersViews, 'partnerSession'>;
  /** A key of a suspended tenant is refused (docs/backoffice/orgs.md): its status is read on every request. */
  tenants: Pick<TenantsViews, 'status'>;
  /** The keys' rate windows, shared by every process. */
  budget: RateBudget;
  clock: Clock;
}

const CHALLENGE = 'Bearer realm="openrail"';
const INVALID = 'Bearer realm="openrail", error="invalid_token"';

/**
 * Operator bearer plane: the break-glass owner token, a session bearer from POST /api/login, an
 * integration token (provisioned, or a partner's key), or a partner session. Roles and status are read from the operators table on every request, so a
 * demoted, suspended or removed operator loses access on the next call; a token is read from its
 * table on every request, so a revoked or rotated one is refused on the next call, on every process;
 * so is its tenant's status, so a token of a suspended tenant is refused (`403 tenant_suspended`).
 * A key (a principal with a rate class) is metered per key; sessions and the owner token never are.
 */
export class OperatorBearerAuthenticator implements AuthPlane<'operator'> {
  readonly name = 'operator';
  readonly security = {
    name: 'operatorBearer',
    scheme: {
      type: 'http',
      scheme: 'bearer',
      description: 'Operator bearer: the owner token, a session from POST /api/login, or an integration token.',
    },
  };

  constructor(private readonly deps: OperatorBearerDeps) {}

  async authenticate(input: AuthInput): Promise<OperatorPrincipal> {
    const auth = parseAuthorization(input.authorization ?? portalCookie(input));
    if (!auth) throw new Unauthorized('This operation needs an operator bearer token.', CHALLENGE);
    if (auth.scheme !== 'bearer') throw new Unauthorized('Only an operator bearer token is accepted here.', INVALID);
    const hash = hashToken(auth.credential);
    const ownerHash = await this.deps.ownerTokenHash();
    if (ownerHash !== undefined && constantTimeEqual(hash, ownerHash)) {
      return { plane: 'operator', via: 'owner-token', username: null, roles: ['owner'], tenant: null };
    }
    if (auth.credential.startsWith(`${INTEGRATION_TOKEN_PREFIX}_`)) {
      const token = await this.deps.keys.activeKey(hash);
      if (!token) throw new Unauthorized('The bearer token is unknown, expired or no longer valid.', INVALID);
      if ((await this.deps.tenants.status(token.tenant))?.status === 'suspended') {
        throw new ServiceError(
          'tenant_suspended',
          `The tenant ${token.tenant} is suspended: its tokens are refused until it is reactivated.`,
        );
      }
      return {
        plane: 'operator',
        via: 'integration-token',
        username: null,
        roles: [],
        tenant: token.tenant,
        key: { id: token.id, scopes: token.scopes, rateClass: token.rateClass },
      };
    }
    if (auth.credential.startsWith(`${PARTNER_SESSION_PREFIX}_`)) return this.partnerSession(hash);
    const operator = await this.deps.operators.sessionOperator(hash, this.deps.clock.now());
    if (operator?.status !== 'active') {
      throw new Unauthorized('The bearer token is unknown, expired or no longer valid.', INVALID);
    }
    return { plane: 'operator', via: 'session', username: operator.username, roles: operator.roles, tenant: operator.tenant };
  }

  /**
   * A partner's team member (docs/partners.md, "Sessions"): the session must be live, and its
   * partner approved or later. Roles are the team role, re-read on every request like an
   * operator's; the tenant and grant are the partner's, as stored.
   */
  private async partnerSession(hash: string): Promise<OperatorPrincipal> {
    const session = await this.deps.partners.partnerSession(hash, this.deps.clock.now());
    if (!session || !SIGNED_IN_STAGES.includes(session.stage)) {
      throw new Unauthorized('The bearer token is unknown, expired or no longer valid.', INVALID);
    }
    const { applicationId, memberId, email, grant } = session;
    return {
      plane: 'operator',
      via: 'partner-session',
      username: null,
      roles: [partnerRole(session.role)],
      tenant: session.tenant,
      partner: { applicationId, memberId, email, grant },
    };
  }

  /**
   * Interface spec, Limits 1: a key is metered against its rate class, per key, in a budget kept
   * in the database (one statement), so every process shares it. Over budget is 429 with
   * Retry-After; every answer to a key carries RateLimit-Policy and RateLimit.
   */
  async meter(principal: OperatorPrincipal): Promise<Record<string, string> | undefined> {
    if (!principal.key) return undefined;
    const policy = ratePolicyOf(principal.key.rateClass);
    const refusal = `This key's rate class allows ${policy.quota} requests per ${policy.windowSeconds} s.`;
    return consumeBudget(this.deps.budget, principal.key.id, policy, this.deps.clock.now(), refusal);
  }
}
