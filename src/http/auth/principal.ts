import type { FastifyRequest } from 'fastify';
import type { JWK } from 'jose';
import type { AccessTokenRecord } from '../../ports/access-token-store.ts';
import type { OperatorRole } from '../../ports/operator-store.ts';

export interface OperatorPrincipal {
  plane: 'operator';
  /** `owner-token` is the break-glass bearer; `session` a bearer from POST /api/login. */
  via: 'owner-token' | 'session';
  username: string | null;
  roles: OperatorRole[];
  /** Set for tenant-scoped operators: they may act on this tenant only. */
  tenant: string | null;
}

export interface HolderPrincipal {
  plane: 'holder';
  /** RFC 7638 thumbprint of the device key. */
  accountId: string;
  jwk: JWK;
  claims: Record<string, unknown>;
}

export interface AccessTokenPrincipal {
  plane: 'access-token';
  token: AccessTokenRecord;
}

export type Principal = { plane: 'public' } | OperatorPrincipal | HolderPrincipal | AccessTokenPrincipal;

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** The request facts an authenticator reads. */
export interface AuthInput {
  authorization: string | undefined;
  method: string;
  /** Absolute URL of the request as the public sees it (PUBLIC_URL + path). */
  url: string;
}

export interface Authenticator {
  authenticate(input: AuthInput): Promise<Principal>;
}

function narrow<P extends Principal['plane']>(request: FastifyRequest, plane: P): Extract<Principal, { plane: P }> {
  const p = request.principal;
  if (p.plane !== plane) throw new Error(`route expected a ${plane} principal, got ${p.plane}`);
  return p as Extract<Principal, { plane: P }>;
}

export const operatorOf = (r: FastifyRequest) => narrow(r, 'operator');
export const holderOf = (r: FastifyRequest) => narrow(r, 'holder');
export const accessTokenOf = (r: FastifyRequest) => narrow(r, 'access-token');

/** Splits `Authorization: <scheme> <credential>`; the scheme compares case-insensitively (RFC 9110 §11.1). */
export function parseAuthorization(header: string | undefined): { scheme: string; credential: string } | undefined {
  if (!header) return undefined;
  const match = /^([A-Za-z][A-Za-z0-9._~+-]*) +(\S+)$/.exec(header.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return { scheme: match[1].toLowerCase(), credential: match[2] };
}
