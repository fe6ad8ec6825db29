import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import {
  accountSessionOf,
  browserTicketOf,
  SESSION_COOKIE,
  TICKET_COOKIE,
  ticketCookieValue,
} from '../../http/auth/account-cookies.ts';
import { holderOf } from '../../http/auth/holder-jws.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { htmlResponse, refusal } from '../../http/schemas/common.ts';
import { setSessionCookie } from '../../web/cookies.ts';
import { assertSameOriginForm, seeOther } from '../../web/forms.ts';
import { sendPage } from '../../web/serve.ts';
import { type AccountData, OVERVIEW_LEDGER_LIMIT } from './account-data.ts';
import type { ErasureService } from './erasure-service.ts';
import {
  renderApprovePage,
  renderDataPage,
  renderErasedPage,
  renderGonePage,
  renderOverviewPage,
  renderSigninNeededPage,
  renderSigninPage,
} from './pages.ts';
import { SESSION_TTL_MS, type SigninService, TICKET_ID, TICKET_TTL_MS } from './signin-service.ts';

const UNDOCUMENTED = 'An account portal page or action; docs/account.md states its behaviour.';
const HTML = htmlResponse;
const Ticket = Type.String({ pattern: TICKET_ID.source });

export interface AccountDeps {
  signin: SigninService;
  data: AccountData;
  erasure: ErasureService;
  siteName: string;
}

/** The account portal's sign-in and overview (docs/account.md). */
export function accountRoutes(deps: AccountDeps): RouteGroup {
  const { signin, siteName } = deps;
  const setCookie = (reply: FastifyReply, name: string, value: string, path: string, maxAgeMs: number) =>
    setSessionCookie(reply, { name, value, path, maxAgeMs, origin: signin.origin });
  /** Not signed in: to the sign-in page; any other refusal: the error page. */
  const toSignin = async (_request: FastifyRequest, reply: FastifyReply, refusal: ServiceError) =>
    refusal.code === 'unauthorized' ? seeOther(reply, '/account/signin') : undefined;
  const approveUrl = (ticket: string) => `${signin.approveAudience}?t=${ticket}`;
  /** A fresh ticket in the browser's cookie, and the sign-in page for it. */
  const signinPage = async (request: FastifyRequest, reply: FastifyReply, notice?: string) => {
    const { ticket, browserSecret } = await signin.open(request.headers['user-agent'], request.ip);
    setCookie(reply, TICKET_COOKIE, ticketCookieValue(ticket, browserSecret), '/account', TICKET_TTL_MS);
    return sendPage(reply, await renderSigninPage(siteName, approveUrl(ticket), notice), 'no-store');
  };
  const startSession = (reply: FastifyReply, session: string) => {
    setCookie(reply, SESSION_COOKIE, session, '/', SESSION_TTL_MS);
    setCookie(reply, TICKET_COOKIE, '', '/account', 0);
    return seeOther(reply, '/account');
  };
  const common = { auth: 'public', stability: 'unpromised', undocumented: UNDOCUMENTED } as const;

  return {
    name: 'account',
    routes: [
      defineRoute({
        ...common,
        method: 'GET',
        path: '/account/signin',
        surface: 'page',
        spends: ['account-signin'],
        summary:
          'The sign-in page: a QR code of the approval for the wallet; the browser’s own secret for the ticket is held in an HttpOnly cookie.',
        responses: { 200: HTML('The sign-in page.'), 429: refusal('rate_limited') },
        handler: async (request, reply) => signinPage(request, reply),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: '/account/approve',
        summary:
          'What is being approved: the browser that asked. With Accept: application/json, {askedBy, approved}. 410 when spent or expired.',
        querystring: Type.Object({ t: Ticket }, { additionalProperties: false }),
        responses: {
          200: {
            description: 'The explainer, or {askedBy, approved}.',
            contentType: 'text/html',
            schema: Type.Object({ askedBy: Type.String(), approved: Type.Boolean() }),
          },
          400: refusal('invalid_request', 'no ticket, or not one'),
          410: {
            description: 'The ticket is spent, expired or unknown: a page, or {error: signin_ended, message}.',
            contentType: 'text/html',
          },
        },
        handler: async (request, reply) => {
          const json = (request.headers.accept ?? '').includes('application/json');
          const asked = await signin.askedBy(request.query.t);
          if (!asked) {
            if (json) throw new ServiceError('signin_ended', 'This sign-in request is spent, expired or unknown.');
            return sendPage(reply.code(410), renderGonePage(siteName), 'no-store');
          }
          if (json) {
            return reply
              .type('application/json; charset=utf-8')
              .header('cache-control', 'no-store')
              .send({ askedBy: asked.askedBy, approved: asked.approved });
          }
          return sendPage(reply, renderApprovePage(siteName, asked.askedBy, asked.askedAt, asked.approved), 'no-store');
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/account/approve',
        auth: 'holder',
        audience: '/account/approve',
        summary: 'The wallet approves a ticket with a holder JWS for the approve audience; no cookie is read or set.',
        // Any value of `t` reaches the service: one that cannot be a ticket is answered as an
        // unknown one (interface spec, Browser sign-in ticket: one identical 409), never a 400.
        body: Type.Object(
          { t: Type.Unknown({ description: 'The ticket id the approve URL carries (43 base64url characters).' }) },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'Approved.', schema: Type.Object({ ok: Type.Literal(true) }) },
          400: refusal(['invalid_request', 'malformed_json'], 'no t, another member, or not a JSON object'),
          401: refusal('unauthorized', 'no holder JWS for the approve audience'),
          409: refusal('signin_unavailable', 'malformed, unknown, expired or already approved (one identical answer for all)'),
        },
        handler: async (request) => {
          await signin.approve(holderOf(request).accountId, request.body.t);
          return { ok: true as const };
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/account/signin/continue',
        auth: 'browser-ticket',
        // A new ticket when the old one ended (a session only from a ticket, at most one each).
        spends: ['account-signin'],
        surface: 'page',
        accepts: 'form',
        bodyOptional: true,
        summary:
          'The browser collects its approved ticket: a session cookie and 303 to /account; otherwise the sign-in page with a notice.',
        responses: {
          200: HTML('The sign-in page with a notice: not approved yet, or a new ticket when the old one ended.'),
          401: HTML('No ticket cookie: a page that explains and links to a new sign-in.'),
          303: { description: 'Signed in: to /account.' },
          403: HTML('cross_origin_form: a form from another site.'),
        },
        // No ticket cookie: a fresh sign-in page rather than an error.
        onRefusal: async (_request, reply, refusal) =>
          refusal.code === 'unauthorized'
            ? sendPage(
                reply.code(401),
                renderSigninNeededPage(siteName, 'This browser has no sign-in request to continue.'),
                'no-store',
              )
            : undefined,
        handler: async (request, reply) => {
          assertSameOriginForm(request, signin.origin);
          const { ticket, browserSecret } = browserTicketOf(request);
          const outcome = await signin.continue(ticket, browserSecret);
          if ('session' in outcome) return startSession(reply, outcome.session);
          if ('waiting' in outcome) {
            const notice = 'Not approved yet: scan the code with your wallet, approve it there, then continue.';
            return sendPage(reply, await renderSigninPage(siteName, approveUrl(ticket), notice), 'no-store');
          }
          return signinPage(request, reply, 'That sign-in request has ended. Here is a new one.');
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/account/session',
        auth: 'holder',
        budget: 'account-session',
        surface: 'page',
        bodyOptional: true,
        summary:
          'A wallet on this device opens a session with Authorization: Holder <jws> for the session audience: cookie and 303.',
        responses: {
          303: { description: 'Signed in: to /account.' },
          401: HTML('The sign-in page, explaining why the handoff was refused (never a bare 401).'),
        },
        onRefusal: async (_request, reply, refusal) =>
          sendPage(
            reply.code(refusal.status),
            renderSigninNeededPage(siteName, `Your wallet’s sign-in could not be accepted: ${refusal.message}`),
            'no-store',
          ),
        handler: async (request, reply) => startSession(reply, await signin.startSession(holderOf(request).accountId)),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: '/account',
        auth: 'account-session',
        surface: 'page',
        summary: 'The holder’s memberships, tiers, coins and coin ledgers; never credentials, claims or the sharing log.',
        responses: { 200: HTML('The overview.'), 303: { description: 'Not signed in: to /account/signin.' } },
        onRefusal: toSignin,
        handler: async (request, reply) => {
          const { accountId } = accountSessionOf(request);
          const memberships = await deps.data.memberships(accountId, OVERVIEW_LEDGER_LIMIT);
          return sendPage(reply, renderOverviewPage(siteName, accountId, memberships), 'no-store');
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/account/export',
        auth: 'account-session',
        surface: 'page',
        accepts: 'form',
        bodyOptional: true,
        summary: 'The account’s memberships, coin ledgers and records, as a JSON attachment (docs/account.md, "Export").',
        responses: {
          200: { description: 'The export, as an attachment.', contentType: 'application/json' },
          303: { description: 'Not signed in: to /account/signin.' },
          403: HTML('cross_origin_form'),
        },
        onRefusal: toSignin,
        handler: async (request, reply) => {
          assertSameOriginForm(request, signin.origin);
          const { accountId } = accountSessionOf(request);
          const exported = await deps.data.export(accountId);
          return reply
            .type('application/json; charset=utf-8')
            .header('content-disposition', `attachment; filename="openrail-account-${accountId.slice(0, 8)}.json"`)
            .header('cache-control', 'no-store')
            .send(JSON.stringify(exported, null, 2));
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: '/account/data',
        auth: 'account-session',
        surface: 'page',
        summary: 'What is held of the account, per kind of record, with its export and its erasure.',
        responses: { 200: HTML('The data page.'), 303: { description: 'Not signed in: to /account/signin.' } },
        onRefusal: toSignin,
        handler: async (request, reply) => {
          const { accountId } = accountSessionOf(request);
          return sendPage(reply, renderDataPage(siteName, accountId, await deps.erasure.held(accountId)), 'no-store');
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/account/erase',
        auth: 'account-session',
        surface: 'page',
        accepts: 'form',
        bodyOptional: true,
        summary:
          'The verified erasure of the account (docs/account.md, "Erasure"): the receipt page; every session of the account ends.',
        body: Type.Object({ confirm: Type.Optional(Type.String({ maxLength: 16 })) }, { additionalProperties: false }),
        responses: {
          200: HTML('Erased: the receipt, and the session cookie cleared.'),
          400: HTML('The confirmation box was not ticked: the data page with a notice; nothing was erased.'),
          303: { description: 'Not signed in: to /account/signin.' },
          403: HTML('cross_origin_form'),
        },
        onRefusal: toSignin,
        handler: async (request, reply) => {
          assertSameOriginForm(request, signin.origin);
          const { accountId } = accountSessionOf(request);
          if (request.body?.confirm !== 'erase') {
            const held = await deps.erasure.held(accountId);
            const notice = 'Nothing was erased: tick the box to confirm, then erase.';
            return sendPage(reply.code(400), renderDataPage(siteName, accountId, held, notice), 'no-store');
          }
          const receipt = await deps.erasure.erase(accountId);
          setCookie(reply, SESSION_COOKIE, '', '/', 0);
          return sendPage(reply, renderErasedPage(siteName, receipt), 'no-store');
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/account/signout',
        auth: 'account-session',
        surface: 'page',
        accepts: 'form',
        bodyOptional: true,
        summary: 'Ends the session and clears its cookie; 303 to the sign-in page.',
        responses: { 303: { description: 'Signed out, or not signed in.' }, 403: HTML('cross_origin_form') },
        onRefusal: toSignin,
        handler: async (request, reply) => {
          assertSameOriginForm(request, signin.origin);
          await signin.signOut(accountSessionOf(request).session);
          setCookie(reply, SESSION_COOKIE, '', '/', 0);
          return seeOther(reply, '/account/signin');
        },
      }),
    ],
  };
}
