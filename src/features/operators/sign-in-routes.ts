import { Type } from '@sinclair/typebox';
import { parse } from 'cookie';
import type { FastifyReply } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import {
  assertSessionForm,
  enterpriseSessionOf,
  OPERATOR_SESSION_COOKIE,
  sessionCookie,
} from '../../http/auth/enterprise-session.ts';
import { defineRoute } from '../../http/route.ts';
import { htmlResponse, refusal } from '../../http/schemas/common.ts';
import { setSessionCookie } from '../../web/cookies.ts';
import { assertNotCrossSite } from '../../web/fetch-metadata.ts';
import { assertSameOriginForm, seeOther } from '../../web/forms.ts';
import { sendPage } from '../../web/serve.ts';
import {
  renderApiTokenMintedPage,
  renderPasswordSignInPage,
  renderSignedOutPage,
  renderSignInRefusedPage,
  renderSignOutPage,
} from './sign-in-pages.ts';
import { type OperatorSignIn, SIGN_IN, SignInRefused, safeReturn } from './sign-in-service.ts';

/** The cookie binding a sign-in at the provider to the browser that started it (docs/operator-sign-in.md). */
export const BINDER_COOKIE = 'openrail_oidc';
const CALLBACK = '/auth/callback';
const DOC = 'docs/operator-sign-in.md';
const HTML = htmlResponse;
const ReturnPath = Type.String({ maxLength: 512, description: 'A path of this site to land on once signed in.' });
/** A form of this session's pages: its anti-forgery token (checked by the handler, so a missing one is 403, not 400). */
const FormToken = Type.Object(
  {
    _csrf: Type.Optional(
      Type.String({ maxLength: 128, description: 'The session’s anti-forgery token, as its pages carry it.' }),
    ),
  },
  { additionalProperties: false },
);

/**
 * GET /auth/login, /auth/callback, /auth/logout, /auth/whoami, /auth/api-token and the password
 * form (docs/operator-sign-in.md). Signing out is a POST of a form of this session's pages, never a
 * GET another site can make a browser send. A new API token is the interface's GET exchange,
 * refused when Fetch Metadata says another site sent it, or the POST of the form; both capped.
 */
export function signInRoutes(signIn: OperatorSignIn, site: { name: string; origin: string }) {
  const cookie = (reply: FastifyReply, name: string, value: string, path: string, maxAgeMs: number) =>
    setSessionCookie(reply, { name, value, path, maxAgeMs, origin: site.origin });
  const refused = (reply: FastifyReply, err: SignInRefused) =>
    sendPage(reply.code(err.status), renderSignInRefusedPage(site.name, err.title, err.message), 'no-store');
  const passwordPage = (reply: FastifyReply, status: number, returnTo: string, error?: string, username?: string) =>
    sendPage(
      reply.code(status),
      renderPasswordSignInPage(site.name, {
        returnTo,
        configured: signIn.configured,
        ...(error ? { error } : {}),
        ...(username ? { username } : {}),
      }),
      'no-store',
    );
  /** To the configured identity provider: the one redirect off this site, to a URL its own metadata gave. */
  const toProvider = (reply: FastifyReply, url: URL) =>
    reply.code(303).header('location', url.href).header('cache-control', 'no-store').send();
  const common = {
    stability: 'unpromised',
    undocumented: `An operator sign-in page or action; ${DOC} states its behaviour.`,
  } as const;
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: '/auth/login',
      auth: 'public',
      surface: 'page',
      budget: 'operator-signin',
      summary:
        'Sign in as an operator: to the identity provider (PKCE, state, nonce) when one is configured, else the password form.',
      querystring: Type.Object(
        { return: Type.Optional(ReturnPath), with: Type.Optional(Type.Literal('password')) },
        { additionalProperties: false },
      ),
      responses: {
        200: HTML('The password form: no provider is configured, or with=password asked for it.'),
        303: { description: 'To the identity provider; the binding cookie is set for the callback.' },
        429: refusal('rate_limited'),
        502: HTML('The identity provider cannot be reached: a page, and nothing stored.'),
      },
      handler: async (request, reply) => {
        const returnTo = safeReturn(request.query.return, site.origin);
        if (!signIn.configured || request.query.with === 'password') return passwordPage(reply, 200, returnTo);
        try {
          const { redirect, binder } = await signIn.begin(returnTo);
          cookie(reply, BINDER_COOKIE, binder, CALLBACK, SIGN_IN.pendingMs);
          return toProvider(reply, redirect);
        } catch (err) {
          if (err instanceof SignInRefused) return refused(reply, err);
          throw err;
        }
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/auth/login',
      auth: 'public',
      surface: 'page',
      accepts: 'form',
      budget: 'operator-login',
      budgetSubject: (request) => request.body.username.toLowerCase(),
      summary: 'The password form’s sign-in: the same check as POST /api/login, and a browser session.',
      body: Type.Object(
        {
          username: Type.String({ minLength: 1, maxLength: 64 }),
          password: Type.String({ minLength: 1, maxLength: 1024 }),
          return: Type.Optional(ReturnPath),
        },
        { additionalProperties: false },
      ),
      responses: {
        303: { description: 'Signed in: the session cookie, and to the return path.' },
        400: HTML('invalid_request'),
        401: HTML('The form again: the username or password is wrong, or the operator cannot sign in (one answer for all).'),
        403: HTML('cross_origin_form'),
        429: HTML('rate_limited'),
      },
      handler: async (request, reply) => {
        assertSameOriginForm(request, site.origin);
        const { username, password } = request.body;
        const returnTo = safeReturn(request.body.return, site.origin);
        try {
          const session = await signIn.password(username, password);
          cookie(reply, OPERATOR_SESSION_COOKIE, session, '/', SIGN_IN.sessionMs);
          return seeOther(reply, returnTo);
        } catch (err) {
          if (err instanceof ServiceError && err.code === 'invalid_credentials') {
            return passwordPage(
              reply,
              401,
              returnTo,
              'The username or password is wrong, or this operator cannot sign in.',
              username,
            );
          }
          throw err;
        }
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: CALLBACK,
      auth: 'public',
      surface: 'page',
      summary:
        'The identity provider’s answer: a session for the operator its identity is linked to, or a page saying what went wrong.',
      querystring: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 4096 }), { maxProperties: 16 }),
      responses: {
        303: { description: 'Signed in: the session cookie, and to the return path the sign-in started with.' },
        200: HTML('No provider is configured: the password form, which says so.'),
        400: HTML('Not this browser’s sign-in, a state or code used already or expired, or an ID token that does not match.'),
        403: HTML('The identity is linked to no operator, or the operator is not active.'),
        502: HTML('The provider refused or could not be reached.'),
      },
      handler: async (request, reply) => {
        // Nothing to finish here: the page says how operators sign in on this deployment.
        if (!signIn.configured) return passwordPage(reply, 200, '/');
        const header = request.headers.cookie;
        const binder = typeof header === 'string' ? parse(header)[BINDER_COOKIE] : undefined;
        const query = new URLSearchParams(request.query as Record<string, string>);
        // Used or not, the binding ends here.
        cookie(reply, BINDER_COOKIE, '', CALLBACK, 0);
        try {
          const { session, returnTo } = await signIn.complete(query, binder);
          cookie(reply, OPERATOR_SESSION_COOKIE, session, '/', SIGN_IN.sessionMs);
          return seeOther(reply, returnTo);
        } catch (err) {
          if (err instanceof SignInRefused) return refused(reply, err);
          throw err;
        }
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/auth/logout',
      auth: 'enterprise-session',
      surface: 'page',
      summary:
        'Asks whether to sign out, with the form that does it (POST /auth/logout); a GET, from this site or any other, changes nothing.',
      responses: { 200: HTML('The question and its form; not signed in (any more): the signed-out page.') },
      // Not signed in (any more): the same page as after signing out.
      onRefusal: async (_request, reply, refusal) =>
        refusal.code === 'unauthorized' ? sendPage(reply, renderSignedOutPage(site.name), 'no-store') : undefined,
      handler: async (request, reply) => {
        const { username, tenant, formToken } = enterpriseSessionOf(request);
        const back = tenant === null ? '/admin' : '/console';
        return sendPage(reply, renderSignOutPage(site.name, { username, formToken, back }), 'no-store');
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/auth/logout',
      auth: 'enterprise-session',
      surface: 'page',
      accepts: 'form',
      bodyOptional: true,
      summary:
        'Sign out: the session and the API tokens it made end here; a form of this site with the session’s anti-forgery token only.',
      body: FormToken,
      responses: {
        200: HTML('Signed out, with a link to sign out at the identity provider too when it offers that.'),
        403: HTML('cross_origin_form: not a form of this session’s pages; nothing ends.'),
      },
      onRefusal: async (_request, reply, refusal) =>
        refusal.code === 'unauthorized' ? sendPage(reply, renderSignedOutPage(site.name), 'no-store') : undefined,
      handler: async (request, reply) => {
        assertSessionForm(request, site.origin, request.body._csrf);
        const elsewhere = await signIn.end(enterpriseSessionOf(request).session, `${site.origin}/auth/login`);
        cookie(reply, OPERATOR_SESSION_COOKIE, '', '/', 0);
        return sendPage(reply, renderSignedOutPage(site.name, elsewhere), 'no-store');
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/auth/whoami',
      auth: 'enterprise-session',
      summary: 'Who this browser is signed in as: the operator, its roles and tenant scope, and the session.',
      responses: {
        200: {
          description: 'The signed-in operator.',
          schema: Type.Object({
            username: Type.String(),
            roles: Type.Array(Type.String()),
            tenant: Type.Union([Type.String(), Type.Null()], { description: 'The tenant it is scoped to; null: the platform.' }),
            via: Type.String({ description: 'oidc or password.' }),
            signedInAt: Type.String({ format: 'date-time' }),
            expiresAt: Type.String({ format: 'date-time' }),
          }),
        },
        401: refusal('unauthorized', 'not signed in'),
      },
      handler: async (request, reply) => {
        const { username, roles, tenant, session } = enterpriseSessionOf(request);
        reply.header('cache-control', 'no-store');
        return {
          username,
          roles,
          tenant,
          via: session.via,
          signedInAt: new Date(session.createdAt).toISOString(),
          expiresAt: new Date(session.expiresAt).toISOString(),
        };
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/auth/api-token',
      auth: 'enterprise-session',
      // The interface: GET /auth/api-token exchanges the enterprise sign-in for an operator API session.
      summary: `A short-lived operator bearer for the signed-in operator, shown this once; it ends with the session. Not from another site (Fetch Metadata); at most ${SIGN_IN.apiTokenCap} live per session.`,
      responses: {
        200: {
          description: 'The bearer, for Authorization: Bearer on the operator plane.',
          schema: Type.Object({
            token: Type.String(),
            tokenType: Type.Literal('Bearer'),
            expiresIn: Type.Integer({ description: 'Seconds until it ends (at the latest with the session).' }),
          }),
        },
        401: refusal('unauthorized', 'not signed in'),
        403: refusal('cross_site_request', 'Sec-Fetch-Site says another site sent it; nothing is made.'),
        409: refusal('api_token_limit', `the session has ${SIGN_IN.apiTokenCap} live API tokens already; nothing is made.`),
      },
      handler: async (request, reply) => {
        // A SameSite=Lax cookie rides on a top-level GET from any site: refuse those before minting.
        assertNotCrossSite(request);
        const { session } = enterpriseSessionOf(request);
        const { token, expiresIn } = await signIn.apiToken(session, sessionCookie(request.headers) ?? '');
        reply.header('cache-control', 'no-store');
        return { token, tokenType: 'Bearer' as const, expiresIn };
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/auth/api-token',
      auth: 'enterprise-session',
      surface: 'page',
      accepts: 'form',
      bodyOptional: true,
      summary: `A short-lived operator bearer for the signed-in operator, shown this once; it ends with the session. At most ${SIGN_IN.apiTokenCap} live per session.`,
      body: FormToken,
      responses: {
        200: HTML('The bearer, for Authorization: Bearer on the operator plane, shown this once.'),
        401: HTML('unauthorized: not signed in'),
        403: HTML('cross_origin_form: not a form of this session’s pages; nothing is made.'),
        409: HTML(`api_token_limit: the session has ${SIGN_IN.apiTokenCap} live API tokens already; nothing is made.`),
      },
      handler: async (request, reply) => {
        assertSessionForm(request, site.origin, request.body._csrf);
        const { session, tenant } = enterpriseSessionOf(request);
        const minted = await signIn.apiToken(session, sessionCookie(request.headers) ?? '');
        const back = tenant === null ? '/admin' : '/console';
        return sendPage(reply, renderApiTokenMintedPage(site.name, { ...minted, origin: site.origin, back }), 'no-store');
      },
    }),
  ];
}
