/**
 * The parts of a page and a form action that /admin and /console build the same way: their four
 * routes, a filter form from an operation's query parameters, and running a posted form's
 * operation (docs/admin-app.md, "Forms").
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceError } from '../../core/errors.ts';
import { requestTarget } from '../../http/request-target.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { htmlResponse } from '../../http/schemas/common.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { type ApiAnswer, callApi } from './app-kit.ts';
import { fillTemplate, MissingParam, type Operation, type Param } from './contract.ts';
import { bodyOf, fieldsOf, humanize, renderField } from './schema-form.ts';

/** A posted app form: named text fields, bounded in number and size. */
export const AppForm = Type.Record(
  Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }),
  Type.String({ maxLength: 20_000 }),
  { maxProperties: 64 },
);

/** The longest return path GET /auth/login keeps (sign-in-service.ts, safeReturn). */
const RETURN_MAX = 512;

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** An app's routes: its home at `base` and `base/`, its pages under `base/*`, and their forms. */
export function appRouteDefs(app: {
  base: '/admin' | '/console';
  /** "the back office", "the console": for the contract's summaries. */
  name: string;
  home: Handler;
  page: Handler;
  act: Handler;
}): RouteDef[] {
  const common = {
    auth: 'enterprise-session',
    surface: 'page',
    stability: 'unpromised',
    undocumented: `A page of ${app.name}; docs/admin-app.md states what it shows.`,
    // Not signed in: to the sign-in, and back to this page after it.
    onRefusal: async (request: FastifyRequest, reply: FastifyReply, refusal: ServiceError) => {
      if (refusal.code !== 'unauthorized' || request.method !== 'GET') return undefined;
      const target = requestTarget(request.url);
      // The sign-in keeps a return path of 512 characters at most: a longer one returns to the page without its query.
      const full = target.path + target.query;
      const back = encodeURIComponent(
        full.length <= RETURN_MAX ? full : target.path.length <= RETURN_MAX ? target.path : app.base,
      );
      return reply.code(303).header('location', `/auth/login?return=${back}`).header('cache-control', 'no-store').send();
    },
  } as const;
  const signIn = { description: 'Not signed in: to /auth/login, returning here.' };
  const home = { 200: htmlResponse('The home page.'), 303: signIn };
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: app.base,
      summary: `The home page of ${app.name}.`,
      responses: home,
      handler: app.home,
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${app.base}/`,
      summary: `The home page of ${app.name} (as ${app.base}).`,
      responses: home,
      handler: app.home,
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${app.base}/*`,
      summary: `A page of ${app.name}, with the forms of its actions (docs/admin-app.md).`,
      responses: { 200: htmlResponse('The page.'), 303: signIn, 404: htmlResponse('not_found') },
      handler: app.page,
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${app.base}/*`,
      accepts: 'form',
      body: AppForm,
      summary: `A form of ${app.name}: runs the one operation it names as the signed-in operator and shows what it did.`,
      responses: {
        200: htmlResponse('Done, with the auditSeq.'),
        400: htmlResponse('Not done: invalid_request, or the operation’s own refusal.'),
        403: htmlResponse('cross_origin_form, or the operation’s own refusal.'),
      },
      handler: app.act,
    }),
  ];
}

/** A GET form over an operation's query parameters, folded away unless one is set (or one is required). */
export function renderFilterForm(
  action: string,
  params: readonly Param[],
  search: URLSearchParams,
  options: { legend: string; open: boolean; extra?: SafeHtml | null; idPrefix?: string },
): SafeHtml | null {
  if (params.length === 0 && !options.extra) return null;
  const open = options.open || params.some((q) => search.has(q.name));
  const fields = params.map((q) =>
    renderField(
      {
        name: q.name,
        kind: q.schema.enum ? 'choice' : 'text',
        required: q.required,
        schema: q.schema,
        ...(Array.isArray(q.schema.enum) ? { options: q.schema.enum.map(String) } : {}),
      },
      options.idPrefix ?? 'filter',
      q.name,
      search.get(q.name) ?? undefined,
    ),
  );
  return html`<details class="filter-form"${open ? html` open` : null}><summary>${options.legend}</summary><form method="get" action="${action}">
${fields}${options.extra ?? null}
<p><button class="button" type="submit">Show</button></p></form></details>`;
}

/** A link to the next page of a list: the page's own query with the cursor the answer gave. */
export const nextPage = (path: string, search: URLSearchParams) => (cursor: string) => {
  const next = new URLSearchParams(search);
  next.set('cursor', cursor);
  return `${path}?${next}`;
};

/**
 * Runs the operation a posted form names: its path parameters from what the page knows and the
 * form's `p_<name>` fields, its body from the `f_<name>` fields (`fixed` ones set by the app
 * instead). A form that cannot make a request answers a 400 of its own, and nothing is called.
 */
export async function runForm(
  request: FastifyRequest,
  post: Operation,
  known: Readonly<Record<string, string>>,
  form: Readonly<Record<string, string>>,
  fixed: Readonly<Record<string, string>> = {},
): Promise<ApiAnswer> {
  const refused = (message: string): ApiAnswer => ({ status: 400, body: { error: 'invalid_request', message } });
  const params: Record<string, string> = { ...known };
  for (const name of post.pathParams) params[name] ??= (form[`p_${name}`] ?? '').trim();
  let path: string;
  try {
    path = fillTemplate(post.path, params);
  } catch (err) {
    if (err instanceof MissingParam) return refused(`${humanize(err.param)} is missing or is not a value a path can carry.`);
    throw err;
  }
  const body = bodyOf(fieldsOf(post.body, new Set(Object.keys(fixed))), form);
  if (!body.ok) return refused(body.message);
  const given = Object.fromEntries(Object.entries(fixed).filter(([name]) => post.body?.properties?.[name]));
  const payload =
    typeof body.body === 'object' && body.body !== null && !Array.isArray(body.body) ? { ...body.body, ...given } : body.body;
  return callApi(request, 'POST', path, post.body ? payload : undefined);
}
