import { type TSchema, Type } from '@sinclair/typebox';
import { parse as parseCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../../core/errors.ts';
import { type IntegrationScope, SCOPE_NAMES } from '../../../core/integration-scopes.ts';
import { PARTNER_KEYS, PARTNER_READ, PARTNER_TEAM, type PartnerRole } from '../../../core/partner-pipeline.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteGroup, type RouteResponse, type TypedRequest } from '../../../http/route.ts';
import { htmlResponse as HTML } from '../../../http/schemas/common.ts';
import { setSessionCookie } from '../../../web/cookies.ts';
import { assertSameOriginForm, seeOther } from '../../../web/forms.ts';
import type { RenderedPage } from '../../../web/layout.ts';
import { sendPage } from '../../../web/serve.ts';
import { partnerSessionOf } from '../api-routes.ts';
import { type keyView, type PartnerAccess, SESSION_TTL_MS } from '../partner-access.ts';
import { Code, Email, KeyId, KeyLabel, MemberId, TeamRoleSchema } from '../schemas.ts';
import { renderCodePage, renderKeysPage, renderOverviewPage, renderSigninPage, renderTeamPage } from './pages.ts';

/** The portal's session cookie: the partner session bearer, for the portal's pages only. */
export const PORTAL_COOKIE = 'openrail_portal';

const UNDOCUMENTED = 'A partner portal page or action; docs/partners.md states its behaviour.';
const SIGNED_OUT = { description: 'Not signed in: to /portal/signin.' };

/** One checkbox per scope (a form sends a name once): `scope_<name>=on`. */
const ScopeBoxes = Object.fromEntries(SCOPE_NAMES.map((s) => [`scope_${s}`, Type.Optional(Type.Literal('on'))]));

type Minted = ReturnType<typeof keyView> & { secret: string };

/**
 * The partner portal (docs/partners.md, "The portal"): the mailed-code sign-in in the browser,
 * ending in an HttpOnly cookie that carries the partner session; the overview, keys and team.
 * A screen is a page of the signed-in partner; a form passes the web kit's same-origin check and
 * answers with a 303, or with its page again explaining a refusal it can (a scope outside the
 * grant, the last admin), or with the page a key is shown on once.
 */
export function portalGroup(access: PartnerAccess, siteName: string, origin: string): RouteGroup {
  const setSession = (reply: FastifyReply, value: string, maxAgeMs: number) =>
    setSessionCookie(reply, { name: PORTAL_COOKIE, value, path: '/portal', maxAgeMs, origin });
  const send = (reply: FastifyReply, page: RenderedPage) => sendPage(reply, page, 'no-store');
  const signedIn = {
    auth: 'operator',
    stability: 'unpromised',
    undocumented: UNDOCUMENTED,
    surface: 'page',
    scope: 'none',
    bearerCookie: PORTAL_COOKIE,
    /** Signed out (or never in): the sign-in page; any other refusal: the error page. */
    onRefusal: async (_request: FastifyRequest, reply: FastifyReply, refusal: ServiceError) =>
      refusal.code === 'unauthorized' ? seeOther(reply, '/portal/signin') : undefined,
  } as const;
  const publicPage = { auth: 'public', stability: 'unpromised', undocumented: UNDOCUMENTED, surface: 'page' } as const;
  const may = (request: FastifyRequest, roles: readonly PartnerRole[]) =>
    operatorOf(request).roles.some((r) => roles.includes(r as PartnerRole));

  const keysPage = async (request: FastifyRequest, reply: FastifyReply, extra: { notice?: string; minted?: Minted } = {}) => {
    const session = partnerSessionOf(request);
    const keys = await access.keys(session);
    const canManage = may(request, PARTNER_KEYS);
    return send(reply, renderKeysPage(siteName, { keys, grantScopes: session.grant?.scopes ?? null, canManage, ...extra }));
  };
  const teamPage = async (request: FastifyRequest, reply: FastifyReply, notice?: string) => {
    const session = partnerSessionOf(request);
    const members = await access.team(session);
    const canManage = may(request, PARTNER_TEAM);
    return send(reply, renderTeamPage(siteName, { members, me: session.memberId, canManage, ...(notice ? { notice } : {}) }));
  };

  const screen = (
    path: string,
    summary: string,
    answer: string,
    page: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  ) =>
    defineRoute({
      ...signedIn,
      method: 'GET',
      path,
      roles: PARTNER_READ,
      summary,
      responses: { 200: HTML(answer), 303: SIGNED_OUT },
      handler: async (request, reply) => (await page(request, reply)) as FastifyReply,
    });
  /** A refusal the page explains: any 4xx but the plane's own, answered by `explain` with `status`. */
  const form = <B extends TSchema>(
    path: string,
    def: {
      roles: readonly PartnerRole[];
      summary: string;
      body?: B;
      responses: Record<number, RouteResponse>;
      run: (request: TypedRequest<B, undefined, undefined>, reply: FastifyReply) => Promise<unknown>;
      explain?: [status: 400 | 409, page: (request: FastifyRequest, reply: FastifyReply, notice: string) => Promise<unknown>];
    },
  ) =>
    defineRoute({
      ...signedIn,
      accepts: 'form',
      method: 'POST',
      path,
      roles: def.roles,
      summary: def.summary,
      ...(def.body ? { body: def.body } : { bodyOptional: true }),
      responses: def.responses,
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        try {
          return (await def.run(request as TypedRequest<B, undefined, undefined>, reply)) as FastifyReply;
        } catch (err) {
          const [status, page] = def.explain ?? [];
          const explained =
            err instanceof ServiceError && err.status < 500 && err.code !== 'unauthorized' && err.code !== 'forbidden';
          if (!page || !status || !explained) throw err;
          return (await page(request, reply.code(status), err.message)) as FastifyReply;
        }
      },
    });
  const actor = (request: FastifyRequest) => operatorActor(operatorOf(request));

  return {
    name: 'portal',
    routes: [
      defineRoute({
        ...publicPage,
        method: 'GET',
        path: '/portal/signin',
        summary: 'The portal’s sign-in: an e-mail address, to which a code is mailed.',
        responses: { 200: HTML('The sign-in page.') },
        handler: async (_request, reply) => send(reply, renderSigninPage(siteName)),
      }),
      defineRoute({
        ...publicPage,
        method: 'POST',
        path: '/portal/signin',
        accepts: 'form',
        summary: 'Mail a code to the address if it is on an approved partner’s team; the code page either way.',
        body: Type.Object({ contactEmail: Email }, { additionalProperties: false }),
        responses: {
          200: HTML('The code page, the same whether or not the address may sign in.'),
          400: HTML('invalid_request: not an e-mail address'),
          403: HTML('cross_origin_form'),
          429: HTML('rate_limited'),
        },
        onRefusal: async (_request, reply, refusal) =>
          refusal.code === 'invalid_request'
            ? send(reply.code(400), renderSigninPage(siteName, 'That is not an e-mail address we can mail a code to.'))
            : undefined,
        handler: async (request, reply) => {
          assertSameOriginForm(request, origin);
          reply.headers(await access.start(request.body.contactEmail, request.ip));
          return send(reply, renderCodePage(siteName, request.body.contactEmail.trim().toLowerCase()));
        },
      }),
      defineRoute({
        ...publicPage,
        method: 'POST',
        path: '/portal/verify',
        accepts: 'form',
        summary: 'Exchange the mailed code for the portal’s session cookie; 303 to /portal.',
        body: Type.Object({ contactEmail: Email, code: Code }, { additionalProperties: false }),
        responses: {
          303: { description: 'Signed in: to /portal, with the session cookie.' },
          400: HTML('invalid_code: the code page again, explaining'),
          403: HTML('cross_origin_form'),
        },
        onRefusal: async (request, reply, refusal) => {
          const email = String((request.body as { contactEmail?: unknown } | undefined)?.contactEmail ?? '').slice(0, 254);
          const notice = 'That code is wrong, expired, used or out of attempts. Try again, or ask for a new one.';
          return refusal.code === 'invalid_code' || refusal.code === 'invalid_request'
            ? send(reply.code(400), renderCodePage(siteName, email, notice))
            : undefined;
        },
        handler: async (request, reply) => {
          assertSameOriginForm(request, origin);
          const { token } = await access.verify(request.body.contactEmail, request.body.code);
          setSession(reply, token, SESSION_TTL_MS);
          return seeOther(reply, '/portal');
        },
      }),
      screen(
        '/portal',
        'The overview: the partner, its stage, tenant and grant, and each key’s use of its rate class.',
        'The overview.',
        async (request, reply) => send(reply, renderOverviewPage(siteName, await access.overview(partnerSessionOf(request)))),
      ),
      screen(
        '/portal/keys',
        'The partner’s keys, and the forms to mint, rotate and revoke them.',
        'The keys.',
        (request, reply) => keysPage(request, reply),
      ),
      form('/portal/keys/mint', {
        roles: PARTNER_KEYS,
        summary: 'Mint a key inside the grant; the keys page shows it this once.',
        body: Type.Object({ label: KeyLabel, ...ScopeBoxes }, { additionalProperties: false }),
        responses: {
          200: HTML('The keys page with the new key, shown once; or with a notice when the key cannot be minted.'),
          303: SIGNED_OUT,
          403: HTML('forbidden (a viewer) or cross_origin_form'),
        },
        run: async (request, reply) => {
          const body = request.body as Record<string, string>;
          const scopes = SCOPE_NAMES.filter((s) => body[`scope_${s}`] === 'on') as IntegrationScope[];
          if (scopes.length === 0) throw new ServiceError('invalid_request', 'Tick at least one scope.');
          const { key } = await access.mint(partnerSessionOf(request), actor(request), { label: body.label ?? '', scopes });
          return keysPage(request, reply, { minted: key });
        },
        explain: [400, (request, reply, notice) => keysPage(request, reply, { notice })],
      }),
      form('/portal/keys/revoke', {
        roles: PARTNER_KEYS,
        summary: 'Revoke a key; 303 to the keys page.',
        body: Type.Object({ id: KeyId }, { additionalProperties: false }),
        responses: {
          303: { description: 'Revoked (or not signed in: to /portal/signin).' },
          403: HTML('forbidden or cross_origin_form'),
        },
        run: async (request, reply) => {
          await access.revoke(partnerSessionOf(request), actor(request), request.body.id);
          return seeOther(reply, '/portal/keys');
        },
        explain: [409, (request, reply, notice) => keysPage(request, reply, { notice })],
      }),
      form('/portal/keys/rotate', {
        roles: PARTNER_KEYS,
        summary: 'Rotate a key; the keys page shows the new secret this once.',
        body: Type.Object({ id: KeyId }, { additionalProperties: false }),
        responses: {
          200: HTML('The keys page with the new secret.'),
          303: { description: 'Not signed in.' },
          403: HTML('forbidden'),
        },
        run: async (request, reply) => {
          const { key } = await access.rotate(partnerSessionOf(request), actor(request), request.body.id);
          return keysPage(request, reply, { minted: key });
        },
        explain: [409, (request, reply, notice) => keysPage(request, reply, { notice })],
      }),
      screen(
        '/portal/team',
        'The partner’s team, and (for admins) the forms to add, remove and change the role of members.',
        'The team.',
        (request, reply) => teamPage(request, reply),
      ),
      form('/portal/team/add', {
        roles: PARTNER_TEAM,
        summary: 'Add a member (an address that can then sign in) with a role; 303 to the team page.',
        body: Type.Object({ email: Email, role: TeamRoleSchema }, { additionalProperties: false }),
        responses: {
          303: { description: 'Added.' },
          409: HTML('team_member_exists: the team page, explaining'),
          403: HTML('forbidden'),
        },
        run: async (request, reply) => {
          await access.addMember(partnerSessionOf(request), actor(request), request.body);
          return seeOther(reply, '/portal/team');
        },
        explain: [409, teamPage],
      }),
      form('/portal/team/remove', {
        roles: PARTNER_TEAM,
        summary: 'Remove a member (its sessions end); 303 to the team page.',
        body: Type.Object({ memberId: MemberId }, { additionalProperties: false }),
        responses: {
          303: { description: 'Removed.' },
          409: HTML('last_admin: the team page, explaining'),
          403: HTML('forbidden'),
        },
        run: async (request, reply) => {
          await access.removeMember(partnerSessionOf(request), actor(request), request.body.memberId);
          return seeOther(reply, '/portal/team');
        },
        explain: [409, teamPage],
      }),
      form('/portal/team/role', {
        roles: PARTNER_TEAM,
        summary: 'Change a member’s role; 303 to the team page.',
        body: Type.Object({ memberId: MemberId, role: TeamRoleSchema }, { additionalProperties: false }),
        responses: {
          303: { description: 'Changed.' },
          409: HTML('last_admin: the team page, explaining'),
          403: HTML('forbidden'),
        },
        run: async (request, reply) => {
          await access.setRole(partnerSessionOf(request), actor(request), request.body.memberId, request.body.role);
          return seeOther(reply, '/portal/team');
        },
        explain: [409, teamPage],
      }),
      form('/portal/signout', {
        roles: PARTNER_READ,
        summary: 'End the portal session and clear its cookie; 303 to the sign-in page.',
        responses: { 303: { description: 'Signed out, or not signed in.' }, 403: HTML('cross_origin_form') },
        run: async (request, reply) => {
          const token = parseCookie(request.headers.cookie ?? '')[PORTAL_COOKIE];
          if (token) await access.signOut(token);
          setSession(reply, '', 0);
          return seeOther(reply, '/portal/signin');
        },
      }),
    ],
  };
}
