import { KindGuard, type Static, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../core/actor.ts';
import { type ErrorCode, ServiceError } from '../../core/errors.ts';
import { type OperatorPrincipal, operatorActor, operatorOf } from '../auth/operator-bearer.ts';
import { cursorOf, ListPage, PageQuery, page, windowOf } from '../list.ts';
import { internalOperatorRoute, type RouteDef, type RouteResponse, type TenantScope } from '../route.ts';
import { AdminMutation, OPERATOR_ERRORS, refusal } from '../schemas/common.ts';
import { ApprovalSchema, type ApprovalView } from './approval-desk.ts';
import { adminRoute, LIST_SCOPE, ListQuery, listParams, listTenant } from './kit.ts';
import { type MatrixRow, ROLE_MATRIX } from './role-matrix.ts';

/**
 * The back office's operations, each declared as what it is (docs/architecture.md, "A new
 * back-office operation"): a list, a detail or an action, from its path, its role-matrix row, its
 * view and its read or write. What every operation of a kind shares is derived here, once: the
 * operator plane and the group's page, the path parameters' schemas, the list query, cursor,
 * window and page, the tenant a list shows, the 404 of a detail not found, the `{ok, auditSeq}`
 * of a change, the operator plane's refusals and the actor. The route table sees the same
 * declarations a `defineRoute` would make.
 */

type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer R}` ? N | ParamNames<R> : never;

/** What an operation's read or write is given: the validated request, its caller and the tenant it shows. */
export interface Call<P extends string = string, Q = unknown, B = unknown> {
  params: { [K in ParamNames<P>]: string };
  query: Q;
  body: B;
  principal: OperatorPrincipal;
  /** The caller as the audit log names it. */
  actor: Actor;
  /** The tenant a list-scoped operation shows: the credential's own, else `?tenant=`, else null (every tenant). */
  tenant: string | null;
  request: FastifyRequest;
  reply: FastifyReply;
}

type CursorKind = 'number' | 'string';
type CursorValues<K extends readonly CursorKind[]> = { -readonly [I in keyof K]: K[I] extends 'number' ? number : string };
/**
 * A list's cursor: the kinds of its order's values, checked by `cursorOf`; or, for an order whose
 * values' kinds depend on each other, a reader that refuses any other (`400 invalid_request`).
 */
type CursorRule = readonly CursorKind[] | ((after: readonly (string | number)[], call: never) => unknown);
type After<C extends CursorRule> = C extends readonly CursorKind[]
  ? CursorValues<C>
  : C extends (after: never, call: never) => infer T
    ? T
    : never;

/** What a list reads: the tenant shown, the window, the rows after the cursor, one more than the page, and the filters given. */
export type ListRead<C extends CursorRule, F> = F & {
  tenant: string | null;
  since?: number;
  until?: number;
  after?: After<C>;
  limit: number;
};

interface Declared {
  summary: string;
  /** The role-matrix row; default the group's `read` (lists, details) or `write` (actions). */
  roles?: MatrixRow;
  /** Default: LIST_SCOPE for a list, the group's `scope` otherwise. */
  scope?: TenantScope;
  /**
   * Refusals beyond the operator plane's own, by status: the catalogue code or codes, or a
   * `refusal` that adds a note (or, rarely, another whole answer).
   */
  refusals?: Record<number, ErrorCode | readonly ErrorCode[] | RouteResponse>;
  bodyOptional?: boolean;
  /** The anonymous budget the operation spends, per the subject its path names (route.ts, `budget`). */
  budget?: Pick<RouteDef, 'budget' | 'budgetSubject'>;
}

/** A detail's 404: the catalogue code, and the message naming what was not found. */
type Missing<C> = readonly [code: ErrorCode, message: (call: C) => string];

type Body<B> = B extends TSchema ? Static<B> : B extends TProperties ? Static<TObject<B>> : undefined;
type Query<Q> = Q extends TProperties ? Static<TObject<Q>> : Record<string, never>;

export interface GroupOptions {
  /** The page that states the group's bodies (`docs/backoffice/<area>.md`). */
  doc: string;
  /** What the route table says of the bodies, when not the back office's sentence (the console's operations). */
  undocumented?: string;
  /** The prefix of the group's paths. */
  base?: string;
  /** The schema of each path parameter, by name: `{slug}` in a path is validated by `params.slug`. */
  params?: Record<string, TSchema>;
  /** The tenant scope of the details and actions that declare none. */
  scope?: TenantScope;
  /** The role-matrix row of the reads, and of the actions, that name none. */
  read?: MatrixRow;
  write?: MatrixRow;
}

/** The handler the kit writes; the operation's own read or write is typed from its schemas instead. */
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The operations of one back-office group. */
export function adminOperations(group: GroupOptions) {
  const common = group.undocumented ? internalOperatorRoute(group.undocumented) : adminRoute(group.doc);

  const paramsOf = (path: string): TSchema | undefined => {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    if (names.length === 0) return undefined;
    return Type.Object(
      Object.fromEntries(
        names.map((name) => {
          const schema = group.params?.[name];
          if (!schema) throw new Error(`${path}: no schema for the path parameter {${name}}`);
          return [name, schema];
        }),
      ),
    );
  };
  const rolesOf = (row: MatrixRow | undefined, kind: 'read' | 'write') => {
    const name = row ?? group[kind];
    if (!name) throw new Error(`an operation of ${group.doc} names no role-matrix row`);
    return ROLE_MATRIX[name];
  };
  const scopeOf = (scope: TenantScope | undefined) => {
    const chosen = scope ?? group.scope;
    if (!chosen) throw new Error(`an operation of ${group.doc} names no tenant scope`);
    return chosen;
  };
  const responses = (success: Record<number, RouteResponse>, refusals: Declared['refusals'] = {}) => ({
    ...success,
    ...OPERATOR_ERRORS,
    ...Object.fromEntries(
      Object.entries(refusals).map(([status, answer]) => [
        status,
        typeof answer === 'string' || Array.isArray(answer) ? refusal(answer as ErrorCode | readonly ErrorCode[]) : answer,
      ]),
    ),
  });
  const callOf = (request: FastifyRequest, reply: FastifyReply) => {
    const principal = operatorOf(request);
    return {
      params: request.params,
      query: request.query,
      body: request.body,
      principal,
      actor: operatorActor(principal),
      tenant: listTenant(request),
      request,
      reply,
    } as Call<string, never, never>;
  };
  const route = (
    method: 'GET' | 'POST',
    path: string,
    def: Declared,
    kind: 'read' | 'write',
    scope: TenantScope,
    parts: { querystring?: TSchema; body?: TSchema; responses: Record<number, RouteResponse>; handler: Handler },
  ): RouteDef => {
    const params = paramsOf(path);
    return {
      ...common,
      method,
      path: `${group.base ?? ''}${path}`,
      roles: rolesOf(def.roles, kind),
      scope,
      summary: def.summary,
      ...(params ? { params } : {}),
      ...(parts.querystring ? { querystring: parts.querystring } : {}),
      ...(parts.body ? { body: parts.body } : {}),
      ...(def.bodyOptional ? { bodyOptional: true } : {}),
      ...def.budget,
      responses: parts.responses,
      handler: parts.handler,
    };
  };
  const bodySchema = (body: TSchema | TProperties | undefined) =>
    body === undefined ? undefined : KindGuard.IsSchema(body) ? body : Type.Object(body, { additionalProperties: false });
  const querySchema = (query: TProperties | undefined) =>
    query === undefined ? undefined : Type.Object(query, { additionalProperties: false });

  return {
    /**
     * A page of rows in the list's order (http/list.ts): the query is the list convention's with
     * `tenant` and the filters, the scope LIST_SCOPE (a list of the platform's own records,
     * `tenanted: false`, has no `tenant` and is a platform operation); `read` is given the window
     * and the filters the caller set, and answers the rows after the cursor (`limit` is one more
     * than the page, so the kit knows whether another follows); `order` is a row's cursor, `view`
     * (or `views`, for a page at once) what the list answers of it, and `beside` what the page
     * says beside its rows (`page`'s fields).
     */
    list<
      const P extends string,
      F extends TProperties,
      K extends string,
      V extends TSchema,
      const C extends CursorRule,
      R,
      S extends TProperties = Record<never, never>,
    >(
      path: P,
      def: Declared & {
        filters?: F;
        tenanted?: false;
        /** Rows a page holds at most, below the convention's PAGE_MAX: each costs work beyond a read (a fetch, a check). */
        pageMax?: number;
        page: readonly [key: K, view: V, description: string, fields?: S];
        cursor: C;
        read: (window: ListRead<C, Partial<Static<TObject<F>>>>, call: Call<P, Static<TObject<F>>>) => Promise<readonly R[]>;
        order: (row: R, call: Call<P, Static<TObject<F>>>) => readonly (string | number)[];
        beside?: (rows: Static<V>[], call: Call<P, Static<TObject<F>>>) => Static<TObject<S>> | Promise<Static<TObject<S>>>;
      } & (
          | { view: (row: R) => Static<V>; views?: never }
          | { views: (rows: R[], call: Call<P, Static<TObject<F>>>) => Promise<Static<V>[]>; view?: never }
        ),
    ): RouteDef {
      const [key, view, description, fields] = def.page;
      const filterNames = Object.keys(def.filters ?? {});
      type Q = Static<TObject<F>>;
      return route('GET', path, def, 'read', def.scope ?? (def.tenanted === false ? 'platform' : LIST_SCOPE), {
        querystring: def.tenanted === false ? PageQuery(def.filters) : ListQuery(def.filters),
        responses: responses({ 200: { description, schema: ListPage(key, view, fields) } }, def.refusals),
        handler: async (request, reply) => {
          const call = callOf(request, reply) as Call<P, Q>;
          const asked = listParams(request);
          const p = def.pageMax === undefined ? asked : { ...asked, limit: Math.min(asked.limit, def.pageMax) };
          const after =
            p.after === undefined || Array.isArray(def.cursor)
              ? cursorOf(p.after, def.cursor as readonly CursorKind[])
              : (def.cursor as (after: readonly (string | number)[], call: Call<P, Q>) => unknown)(p.after, call);
          const query = request.query as Record<string, unknown>;
          const filters = Object.fromEntries(filterNames.filter((n) => query[n] !== undefined).map((n) => [n, query[n]]));
          const window = {
            ...filters,
            tenant: p.tenant,
            ...windowOf(p),
            ...(after === undefined ? {} : { after }),
            limit: p.limit + 1,
          };
          const rows = await def.read(window as ListRead<C, Partial<Q>>, call);
          const shown = page(
            rows,
            p.limit,
            (row) => def.order(row, call),
            (row) => row,
          );
          const views = def.views
            ? await def.views(shown.rows, call)
            : shown.rows.map((row) => (def.view as (r: R) => Static<V>)(row));
          return { ...(await def.beside?.(views, call)), [key]: views, nextCursor: shown.nextCursor };
        },
      });
    },

    /**
     * One thing, by its path (and query): `read` answers its view, or undefined when there is none,
     * which `missing` answers as a 404 with its catalogue code. A detail computed from a body (a
     * preview, a lookup) is POSTed.
     */
    detail<
      const P extends string,
      Q extends TProperties | undefined = undefined,
      B extends TSchema | TProperties | undefined = undefined,
      V extends TSchema = TSchema,
    >(
      path: P,
      def: Declared & {
        query?: Q;
        body?: B;
        answer: readonly [description: string, view: V];
        /** Undefined only where the detail declares what is `missing` (its 404); elsewhere a programming error. */
        read: (call: Call<P, Query<Q>, Body<B>>) => Promise<Static<V> | undefined>;
        missing?: Missing<Call<P, Query<Q>, Body<B>>>;
      },
    ): RouteDef {
      const [description, view] = def.answer;
      const missing = def.missing;
      const refusals = missing && !def.refusals?.[404] ? { 404: missing[0], ...def.refusals } : def.refusals;
      const body = bodySchema(def.body);
      const querystring = querySchema(def.query);
      return route(body ? 'POST' : 'GET', path, def, 'read', scopeOf(def.scope), {
        ...(querystring ? { querystring } : {}),
        ...(body ? { body } : {}),
        responses: responses({ 200: { description, schema: view } }, refusals),
        handler: async (request, reply) => {
          const call = callOf(request, reply) as Call<P, Query<Q>, Body<B>>;
          const found = await def.read(call);
          if (found !== undefined) return found;
          if (missing) throw new ServiceError(missing[0], missing[1](call));
          throw new Error(`${path} read nothing and declares nothing missing`);
        },
      });
    },

    /**
     * A change: `write` makes it (through the owning service, which writes its audit entry and
     * event in its unit of work) and answers the audit entry's `auditSeq` with the changed things;
     * the kit answers them as `{ok: true, auditSeq, ...}` with the declared status.
     */
    action<
      const P extends string,
      F extends TProperties,
      B extends TSchema | TProperties | undefined = undefined,
      Q extends TProperties | undefined = undefined,
      D extends string | undefined = undefined,
    >(
      path: P,
      def: Declared & {
        query?: Q;
        body?: B;
        answer: readonly [status: 200 | 201 | 202, description: string, changes: F];
        /** A change that may instead be filed for a second operator: the 202 that answers its approval. */
        filed?: D;
        write: (
          call: Call<P, Query<Q>, Body<B>>,
        ) => Promise<
          ({ auditSeq: number } & Static<TObject<F>>) | (D extends string ? { auditSeq: number; approval: ApprovalView } : never)
        >;
      },
    ): RouteDef {
      const [status, description, changes] = def.answer;
      const body = bodySchema(def.body);
      const querystring = querySchema(def.query);
      const filed: Record<number, RouteResponse> = def.filed
        ? { 202: { description: def.filed, schema: AdminMutation({ approval: ApprovalSchema }) } }
        : {};
      return route('POST', path, def, 'write', scopeOf(def.scope), {
        ...(querystring ? { querystring } : {}),
        ...(body ? { body } : {}),
        responses: responses({ [status]: { description, schema: AdminMutation(changes) }, ...filed }, def.refusals),
        handler: async (request, reply) => {
          const done = await def.write(callOf(request, reply) as Call<P, Query<Q>, Body<B>>);
          const code = def.filed && 'approval' in done && !('approval' in changes) ? 202 : status;
          return reply.code(code).send({ ok: true as const, ...done });
        },
      });
    },
  };
}
