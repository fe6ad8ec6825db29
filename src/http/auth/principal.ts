import type { FastifyRequest } from 'fastify';

/**
 * The principal each credential plane yields, by plane name. A plane's file adds its own entry
 * (`declare module './principal.ts' { interface Principals { ... } }`), so a new plane (a cookie
 * session, a browser ticket) is a new file and never an edit to a fixed list.
 */
export interface Principals {
  public: { plane: 'public' };
}

export type PlaneName = keyof Principals;
export type Principal = Principals[PlaneName];

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** The request facts an authenticator reads. */
export interface AuthInput {
  authorization: string | undefined;
  method: string;
  /** Absolute URL of the request as the public sees it (PUBLIC_URL + path and query). */
  url: string;
  /** Every request header, for planes that read more than Authorization (cookies). */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The operation's own audience (RouteDef.audience, as an absolute URL), when it declares one. */
  audience?: string;
  /** The cookie that may carry the bearer instead of Authorization (RouteDef.bearerCookie), when it declares one. */
  bearerCookie?: string;
  /** The operation answers a caller without the credential itself (RouteDef.credentialOptional): no 401 for its absence. */
  credentialOptional?: boolean;
}

/** A credential plane: how it authenticates, and how the contract document describes it. */
export interface AuthPlane<P extends PlaneName = PlaneName> {
  readonly name: P;
  /** Its OpenAPI security scheme (components.securitySchemes); absent for the public plane. */
  readonly security?: { name: string; scheme: Record<string, unknown> };
  /** Checks the credential; spends nothing. */
  authenticate(input: AuthInput): Promise<Principals[P]>;
  /**
   * Spends what a credential allows once (a holder jti), when the request is admitted: after the
   * route's policy and validation, just before its handler. A refused request spends nothing.
   */
  admit?(principal: Principals[P], request: { address: string }): Promise<void>;
  /**
   * Counts the request against the credential's rate budget, once it is authenticated and within
   * its policy: answers the headers every answer carries, or throws a refusal when over budget.
   */
  meter?(principal: Principals[P]): Promise<Record<string, string> | undefined>;
}

export const publicPlane: AuthPlane<'public'> = {
  name: 'public',
  authenticate: async () => ({ plane: 'public' }),
};

/** The request's principal as the plane its route declares; a mismatch is a programming error. */
export function principalOf<P extends PlaneName>(request: FastifyRequest, plane: P): Principals[P] {
  const p = request.principal;
  if (p.plane !== plane) throw new Error(`route expected a ${plane} principal, got ${p.plane}`);
  return p as Principals[P];
}

/** Splits `Authorization: <scheme> <credential>`; the scheme compares case-insensitively (RFC 9110 §11.1). */
export function parseAuthorization(header: string | undefined): { scheme: string; credential: string } | undefined {
  if (!header) return undefined;
  const match = /^([A-Za-z][A-Za-z0-9._~+-]*) +(\S+)$/.exec(header.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return { scheme: match[1].toLowerCase(), credential: match[2] };
}
