import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperatorRole } from '../ports/operator-store.ts';

/**
 * The route table: one declaration per operation. Fastify registration, the /v1 aliases and
 * GET /openapi.json are all derived from these (http/register-routes.ts, http/openapi.ts).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The credential planes (docs/authentication.md). A credential of one plane is refused on another. */
export type AuthPlane = 'public' | 'operator' | 'holder' | 'access-token';

export interface RouteResponse {
  description: string;
  /** JSON body schema; also used to serialise, so undeclared fields never leave the service. */
  schema?: TSchema;
  /** A non-JSON media type (text/plain, application/statuslist+jwt); the handler sends a string. */
  contentType?: string;
}

export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI-style path, `{param}` for parameters. */
  path: string;
  /** Additive aliases served by the same handler, auth, body and response (`/v1/...`). */
  aliases?: string[];
  auth: AuthPlane;
  /** Operator plane only: any one of these roles admits the caller. */
  roles?: readonly OperatorRole[];
  stability: 'promised' | 'unpromised';
  /** Back-office operation, excluded from the versioned surface. */
  internal?: boolean;
  /** Why the response shape is not published; set on operations whose response is unpublished. */
  undocumented?: string;
  summary: string;
  /** Sets Access-Control-Allow-Origin: * on every answer, errors included. */
  cors?: boolean;
  /** OAuth/OID4VC endpoints answer errors as RFC 6749 `{error, error_description}`. */
  errorShape?: 'service' | 'oauth';
  /**
   * OAuth routes only: the code a body that cannot be parsed is answered with (OID4VCI §8.3.1.2
   * wants invalid_credential_request at the credential endpoint). Default: invalid_request.
   */
  malformedBodyCode?: 'invalid_request' | 'invalid_credential_request';
  /**
   * The request body's media type: JSON (the default) or an HTML form (RFC 6749 token requests).
   * A body of any other type is refused with 415 before it is parsed.
   */
  accepts?: 'json' | 'form';
  body?: TSchema;
  params?: TSchema;
  querystring?: TSchema;
  responses: Record<number, RouteResponse>;
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

export type TypedRequest<B, P, Q> = FastifyRequest<{
  Body: StaticOr<B, undefined>;
  Params: StaticOr<P, Record<string, string>>;
  Querystring: StaticOr<Q, Record<string, string>>;
}>;

/** Declares an operation with its handler typed from its schemas. */
export function defineRoute<
  B extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
>(
  def: Omit<RouteDef, 'handler' | 'body' | 'params' | 'querystring'> & {
    body?: B;
    params?: P;
    querystring?: Q;
    handler: (request: TypedRequest<B, P, Q>, reply: FastifyReply) => Promise<unknown>;
  },
): RouteDef {
  return def as unknown as RouteDef;
}

/** A group of operations a deployment mounts or leaves unmounted as a whole. */
export interface RouteGroup {
  name: string;
  routes: RouteDef[];
}
