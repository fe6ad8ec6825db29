import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnonymousBudgetName } from '../core/anonymous-budgets.ts';
import type { ErrorCode, ServiceError } from '../core/errors.ts';
import type { IntegrationScope } from '../core/integration-scopes.ts';
import type { PartnerRole } from '../core/partner-pipeline.ts';
import type { OperatorRole } from '../ports/operator-store.ts';
import type { PlaneName } from './auth/principal.ts';

/**
 * The route table: one declaration per operation. Fastify registration, the /v1 aliases, the
 * access policy and GET /openapi.json are all derived from these (http/register-routes.ts,
 * http/openapi.ts).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Which tenant an operator-plane operation acts on, so that a tenant-scoped credential is held to
 * its own tenant by the registration and never by the handler (docs/architecture.md, "Route
 * policy"): `platform` operations need a credential that is not scoped to a tenant; `none`
 * operations touch no tenant's data; otherwise the tenant is read from the named field of the
 * validated body, path or query (default field `tenant`), and a scoped credential acting on
 * another tenant, or on none, is refused. A `list` reads the query too, but may leave the tenant
 * out: it then shows a scoped credential its own tenant and a platform credential every tenant
 * (the handler narrows with `listTenant` in http/admin/kit.ts).
 */
export type TenantScope =
  | 'platform'
  | 'none'
  | { tenantIn: 'body' | 'params' | 'query'; field?: string }
  | { tenantIn: 'query'; field?: string; list: true };

/**
 * How a refusal is rendered (http/error-handler.ts): `api` is the service envelope
 * `{error, message}`, `oauth` the RFC 6749 `{error, error_description}` of OAuth and OID4VC
 * endpoints, `page` an HTML page for a browser.
 */
export type Surface = 'api' | 'oauth' | 'page';

export interface RouteResponse {
  description: string;
  /** JSON body schema; also used to serialise, so undeclared fields never leave the service. */
  schema?: TSchema;
  /** A non-JSON media type (text/plain, application/statuslist+jwt); the handler sends a string. */
  contentType?: string;
  /**
   * A refusal in the service envelope: the catalogue codes it answers with (core/errors.ts), each
   * of this status. Declared with `refusal` (http/schemas/common.ts); /openapi.json lists them as
   * `x-svc-error-codes`.
   */
  codes?: readonly ErrorCode[];
}

/**
 * The mark of an operation on its way out (interface, Versioning 7: a promised operation is
 * retired only after it is marked `deprecated: true` with an `x-svc-sunset` date, announced, and
 * kept answering for at least 180 days). Checked at registration (http/deprecation.ts), published
 * in /openapi.json and sent with every answer as `Deprecation` (RFC 9745) and `Sunset` (RFC 8594).
 */
export interface Deprecation {
  /** The day it was announced, `YYYY-MM-DD` (UTC): the date of the `Deprecation` header. */
  since: string;
  /** The first day it may no longer answer, `YYYY-MM-DD` (UTC), at least 180 days after `since`. */
  sunset: string;
  /** The announcement (an https URL), sent as `Link: <…>; rel="deprecation"` (RFC 9745 §3). */
  link?: string;
}

export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI-style path, `{param}` for parameters. */
  path: string;
  /** Additive aliases served by the same handler, auth, body and response (`/v1/...`). */
  aliases?: string[];
  /**
   * The credential plane (docs/authentication.md). On the holder plane a `{accountId}` in the
   * path must be the signer's account, checked by the registration.
   */
  auth: PlaneName;
  /**
   * Holder plane only: the path whose absolute URL is this operation's JWS audience instead of the
   * origin (interface spec, Holder JWS 4: POST /account/approve). A JWS for one audience is refused
   * by every operation of another.
   */
  audience?: string;
  /**
   * Operator-plane pages of the partner portal only: a partner session bearer may come in this
   * cookie instead of the Authorization header (docs/partners.md, "The portal"). Their forms pass
   * the web kit's same-origin check.
   */
  bearerCookie?: string;
  /**
   * Result-token plane only: the operation answers a caller without the plane's credential itself,
   * instead of the plane's 401 (GET /verify/result: the interface fixes `200 {outcome: null}` for a
   * poll without the resultToken). /openapi.json lists no credential as an alternative in `security`.
   */
  credentialOptional?: true;
  /** Operator plane only, and required there: any one of these roles admits the caller. */
  roles?: readonly (OperatorRole | PartnerRole)[];
  /** Operator plane only, and required there: see TenantScope. */
  scope?: TenantScope;
  /**
   * Operator plane only: the integration scopes that admit a key (an integration token, a partner
   * key) to this participation-plane operation. A key is refused on a route without one of its
   * scopes, whatever roles the route admits; a route with scopes reads its tenant from the request.
   */
  scopes?: readonly IntegrationScope[];
  stability: 'promised' | 'unpromised';
  /** Back-office operation, excluded from the versioned surface. */
  internal?: boolean;
  /** Why the response shape is not published; set on operations whose response is unpublished. */
  undocumented?: string;
  /** Marked for retirement (Versioning 7); its aliases with it. Nothing is deprecated today. */
  deprecated?: Deprecation;
  summary: string;
  /** Sets Access-Control-Allow-Origin: * on every answer, errors included. */
  cors?: boolean;
  /**
   * The anonymous budget this operation spends (docs/security.md, "Anonymous budgets"): counted
   * per calling address and against the deployment's ceiling (and per subject, with
   * `budgetSubject`) once the request is valid, before the plane spends anything single-use. Over
   * budget it is 429 rate_limited with Retry-After, and nothing else happens.
   */
  budget?: AnonymousBudgetName;
  /** The subject a per-subject budget counts, read from the validated request (a username). */
  budgetSubject?: (request: FastifyRequest) => string | undefined;
  /**
   * Anonymous budgets the handler spends itself, once it knows what to count (a ticket opened, a
   * subject keyed): only listed, so the contract names every budget an operation spends.
   */
  spends?: readonly AnonymousBudgetName[];
  /** How refusals are rendered; default `api`. */
  surface?: Surface;
  /**
   * Pages only: answers a refusal (4xx) itself instead of the error page, for a browser flow that
   * has a better next step than an error (the sign-in page, a redirect to it). Answering
   * undefined leaves the refusal to the error page.
   */
  onRefusal?: (request: FastifyRequest, reply: FastifyReply, refusal: ServiceError) => Promise<unknown>;
  /**
   * OAuth routes only: the code a body that cannot be parsed is answered with (OID4VCI §8.3.1.2
   * wants invalid_credential_request at the credential endpoint). Default: invalid_request.
   */
  malformedBodyCode?: 'invalid_request' | 'invalid_credential_request';
  /**
   * The request body's media type: JSON (the default) or an HTML form (RFC 6749 token requests,
   * browser form actions). A body of any other type is refused with 415 before it is parsed.
   */
  accepts?: 'json' | 'form';
  body?: TSchema;
  /**
   * Runs on the parsed body before it is validated, to refuse with a more precise code than the
   * schema would (the deposit rail's unsupported_contract, before a future contract's fields).
   */
  beforeValidation?: (request: FastifyRequest) => void;
  /** A request without a body is read as `{}` (so the body schema's defaults apply). */
  bodyOptional?: boolean;
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

/** The declared success answers of a route (2xx). */
type Successes<R> = { [C in keyof R]: C extends 200 | 201 | 202 | 203 | 206 ? R[C] : never }[keyof R];
/** What a handler may return: the body of one of its declared success answers (anything where one has no schema), or the reply it sent. */
type HandlerResult<R> =
  | (Successes<R> extends infer S ? (S extends { schema: infer T extends TSchema } ? Static<T> : unknown) : never)
  | FastifyReply
  | undefined;

/**
 * The fields of an operation of our own consoles (the back office, the organisation console): the
 * operator plane, internal (left out of the published description), its bodies unpublished and
 * stated where `undocumented` says.
 */
export const internalOperatorRoute = (undocumented: string) =>
  ({ auth: 'operator', stability: 'unpromised', internal: true, undocumented }) as const;

/**
 * The fields of an issuer-side operation (interface, Authentication 7: tenants, types, offers,
 * revoke): the operator plane, the `issuer` role or `owner`, and the integration-token scopes that
 * reach it (none: no integration token does).
 */
export const issuerRoute = (scopes?: readonly IntegrationScope[]) =>
  ({ auth: 'operator', roles: ['issuer', 'owner'], ...(scopes ? { scopes } : {}) }) as const;

/** Declares an operation with its handler typed from its schemas: its request from the request schemas, its result from the declared answers. */
export function defineRoute<
  B extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  R extends Record<number, RouteResponse> = Record<number, RouteResponse>,
>(
  def: Omit<RouteDef, 'handler' | 'body' | 'params' | 'querystring' | 'budgetSubject' | 'responses'> & {
    body?: B;
    params?: P;
    querystring?: Q;
    responses: R;
    budgetSubject?: (request: TypedRequest<B, P, Q>) => string | undefined;
    handler: (request: TypedRequest<B, P, Q>, reply: FastifyReply) => Promise<HandlerResult<R>>;
  },
): RouteDef {
  return { ...def, responses: statusKeyed(def.responses) } as unknown as RouteDef;
}

/**
 * The same entries in an object keyed by status code that V8 stores as small as an object literal.
 * Built by adding keys (a spread, a loop), an object keyed 200, 400 and 429 gets an array of about
 * 650 slots behind it, some 5 KB, and each of about 300 operations holds two (its declaration's
 * and its Fastify schema's; issue 54, docs/scaling.md "Memory"). JSON.parse makes a small
 * dictionary of the keys, and setting the values keeps it one.
 */
export function statusKeyed<T>(entries: Readonly<Record<number, T>>): Record<number, T> {
  const keys = Object.keys(entries);
  const out = JSON.parse(`{${keys.map((key) => `"${key}":0`).join(',')}}`) as Record<string, T>;
  for (const key of keys) out[key] = (entries as Record<string, T>)[key] as T;
  return out;
}

/** A group of operations a deployment mounts or leaves unmounted as a whole. */
export interface RouteGroup {
  name: string;
  routes: RouteDef[];
}
