import { Type } from '@sinclair/typebox';
import { parse as parseCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import { type IntegrationScope, SCOPE_NAMES } from '../../core/integration-scopes.ts';
import { PARTNER_KEYS, PARTNER_READ, PARTNER_TEAM } from '../../core/partner-pipeline.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteDef, type RouteGroup } from '../../http/route.ts';
import { htmlResponse } from '../../http/schemas/common.ts';
import { setSessionCookie } from '../../web/cookies.ts';
import { assertSameOriginForm, seeOther } from '../../web/forms.ts';
import { sendPage } from '../../web/serve.ts';
import { partnerSessionOf } from './api-routes.ts';
import { type keyView, type PartnerAccess, SESSION_TTL_MS } from './partner-access.ts';
import { renderCodePage, renderKeysPage, renderOverviewPage, renderSigninPage, renderTeamPage } from './portal-pages.ts';
import { Code, Email, KeyId, KeyLabel, MemberId, TeamRoleSchema } from './schemas.ts';

/** The portal's session cookie: the partner session bearer, for the portal's pages only. */
export const PORTAL_COOKIE = 'openrail_portal';

const UNDOCUMENTED = 'A partner portal page or action; docs/partners.md states its behaviour.';
const HTML = htmlResponse;

/** One checkbox per scope (a form sends a name once): `scope_<name>=on`. */
const ScopeBoxes = Object.fromEntries(SCOPE_NAMES.map((s) => [`scope_${s}`, Type.Optional(Type.Literal('on'))]));

/**
 * The partner portal (docs/partners.md, "The portal"): the mailed-code sign-in in the browser,
 * ending in an HttpOnly cookie that carries the partner session; the overview, keys and team.
 * Every form passes the web kit's same-origin check and answers with a 303, or with the page a
 * key is shown on once.
 */
export function portalRoutes(access: PartnerAccess, siteName: string, origin: string): RouteGroup {
  const setSession = (reply: FastifyReply, value: string, maxAgeMs: number) =>
    setSessionCookie(reply, { name: PORTAL_COOKIE, value, path: '/portal', maxAgeMs, origin });
  /** Signed out (or never in): the sign-in page; any other refusal: the error page. */
  const onRefusal = async (_request: FastifyRequest, reply: FastifyReply, refusal: ServiceError) =>
    refusal.code === 'unauthorized' ? seeOther(reply, '/portal/signin') : undefined;
  const screen = {
    auth: 'operator',
    stability: 'unpromised',
    undocumented: UNDOCUMENTED,
    surface: 'page',
    scope: 'none',
    bearerCookie: PORTAL_COOKIE,
    onRefusal,
  } as const;
  const action = { ...screen, accepts: 'form' } as const;
  const publicPage = { auth: 'public', stability: 'unpromised', undocumented: UNDOCUMENTED, surface: 'page' } as const;
  const actor = (request: FastifyRequest) => operatorActor(operatorOf(request));
  const canManageKeys = (request: FastifyRequest) => operatorOf(request).roles.some((r) => PARTNER_KEYS.includes(r as never));
  const canManageTeam = (request: FastifyRequest) => operatorOf(request).roles.some((r) => PARTNER_TEAM.includes(r as never));

  const keysPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { notice?: string; minted?: ReturnType<typeof keyView> & { secret: string } } = {},
  ) => {
    const session = partnerSessionOf(request);
    const page = renderKeysPage(siteName, {
      keys: await access.keys(session),
      grantScopes: session.grant?.scopes ?? null,
      canManage: canManageKeys(request),
      ...extra,
    });
    return sendPage(reply, page, 'no-store');
  };
  const teamPage = async (request: FastifyRequest, reply: FastifyReply, notice?: string) => {
    const session = partnerSessionOf(request);
    const page = renderTeamPage(siteName, {
      members: await access.team(session),
      me: session.memberId,
      canManage: canManageTeam(request),
      ...(notice ? { notice } : {}),
    });
    return sendPage(reply, page, 'no-store');
  };
  /** A refusal of a portal action that the page itself explains (a scope outside the grant, the last admin). */
  const explained = async <T, E>(work: () => Promise<T>, explain: (notice: string) => Promise<E>): Promise<T | E> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ServiceError && err.status < 500 && err.code !== 'unauthorized' && err.code !== 'forbidden') {
        return explain(err.message);
      }
      throw err;
    }
  };

  const routes: RouteDef[] = [
    defineRoute({
      ...publicPage,
      method: 'GET',
      path: '/portal/signin',
      summary: 'The portal’s sign-in: an e-mail address, to which a code is mailed.',
      responses: { 200: HTML('The sign-in page.') },
      handler: async (_request, reply) => sendPage(reply, renderSigninPage(siteName), 'no-store'),
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
          ? sendPage(
              reply.code(400),
              renderSigninPage(siteName, 'That is not an e-mail address we can mail a code to.'),
              'no-store',
            )
          : undefined,
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        reply.headers(await access.start(request.body.contactEmail, request.ip));
        return sendPage(reply, renderCodePage(siteName, request.body.contactEmail.trim().toLowerCase()), 'no-store');
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
        return refusal.code === 'invalid_code' || refusal.code === 'invalid_request'
          ? sendPage(
              reply.code(400),
              renderCodePage(
                siteName,
                email,
                'That code is wrong, expired, used or out of attempts. Try again, or ask for a new one.',
              ),
              'no-store',
            )
          : undefined;
      },
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        const { token } = await access.verify(request.body.contactEmail, request.body.code);
        setSession(reply, token, SESSION_TTL_MS);
        return seeOther(reply, '/portal');
      },
    }),
    defineRoute({
      ...screen,
      method: 'GET',
      path: '/portal',
      roles: PARTNER_READ,
      summary: 'The overview: the partner, its stage, tenant and grant, and each key’s use of its rate class.',
      responses: { 200: HTML('The overview.'), 303: { description: 'Not signed in: to /portal/signin.' } },
      handler: async (request, reply) =>
        sendPage(reply, renderOverviewPage(siteName, await access.overview(partnerSessionOf(request))), 'no-store'),
    }),
    defineRoute({
      ...screen,
      method: 'GET',
      path: '/portal/keys',
      roles: PARTNER_READ,
      summary: 'The partner’s keys, and the forms to mint, rotate and revoke them.',
      responses: { 200: HTML('The keys.'), 303: { description: 'Not signed in: to /portal/signin.' } },
      handler: async (request, reply) => keysPage(request, reply),
    }),
    defineRoute({
      ...action,
      method: 'POST',
      path: '/portal/keys/mint',
      roles: PARTNER_KEYS,
      summary: 'Mint a key inside the grant; the keys page shows it this once.',
      body: Type.Object({ label: KeyLabel, ...ScopeBoxes }, { additionalProperties: false }),
      responses: {
        200: HTML('The keys page with the new key, shown once; or with a notice when the key cannot be minted.'),
        303: { description: 'Not signed in: to /portal/signin.' },
        403: HTML('forbidden (a viewer) or cross_origin_form'),
      },
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        const body = request.body as Record<string, string>;
        const scopes = SCOPE_NAMES.filter((s) => body[`scope_${s}`] === 'on') as IntegrationScope[];
        return explained(
          async () => {
            if (scopes.length === 0) throw new ServiceError('invalid_request', 'Tick at least one scope.');
            const { key } = await access.mint(partnerSessionOf(request), actor(request), { label: body.label ?? '', scopes });
            return keysPage(request, reply, { minted: key });
          },
          (notice) => keysPage(request, reply.code(400), { notice }),
        );
      },
    }),
    defineRoute({
      ...action,
      method: 'POST',
      path: '/portal/keys/revoke',
      roles: PARTNER_KEYS,
      summary: 'Revoke a key; 303 to the keys page.',
      body: Type.Object({ id: KeyId }, { additionalProperties: false }),
      responses: {
        303: { description: 'Revoked (or not signed in: to /portal/signin).' },
        403: HTML('forbidden or cross_origin_form'),
      },
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        return explained(
          async () => {
            await access.revoke(partnerSessionOf(request), actor(request), request.body.id);
            return seeOther(reply, '/portal/keys');
          },
          (notice) => keysPage(request, reply.code(409), { notice }),
        );
      },
    }),
    defineRoute({
      ...action,
      method: 'POST',
      path: '/portal/keys/rotate',
      roles: PARTNER_KEYS,
      summary: 'Rotate a key; the keys page shows the new secret this once.',
      body: Type.Object({ id: KeyId }, { additionalProperties: false }),
      responses: {
        200: HTML('The keys page with the new secret.'),
        303: { description: 'Not signed in.' },
        403: HTML('forbidden'),
      },
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        return explained(
          async () => {
            const { key } = await access.rotate(partnerSessionOf(request), actor(request), request.body.id);
            return keysPage(request, reply, { minted: key });
          },
          (notice) => keysPage(request, reply.code(409), { notice }),
        );
      },
    }),
    defineRoute({
      ...screen,
      method: 'GET',
      path: '/portal/team',
      roles: PARTNER_READ,
      summary: 'The partner’s team, and (for admins) the forms to add, remove and change the role of members.',
      responses: { 200: HTML('The team.'), 303: { description: 'Not signed in: to /portal/signin.' } },
      handler: async (request, reply) => teamPage(request, reply),
    }),
    defineRoute({
      ...action,
      method: 'POST',
      path: '/portal/team/add',
      roles: PARTNER_TEAM,
      summary: 'Add a member (an address that can then sign in) with a role; 303 to the team page.',
      body: Type.Object({ email: Email, role: TeamRoleSchema }, { additionalProperties: false }),
      responses: {
        303: { description: 'Added.' },
        409: HTML('team_member_exists: the team page, explaining'),
        403: HTML('forbidden'),
      },
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        return explained(
          async () => {
            await access.addMember(partnerSessionOf(request), actor(request), request.body);
            return seeOther(reply, '/portal/team');
          },
          (notice) => teamPage(request, reply.code(409), notice),
        );
      },
    }),
    defineRoute({
      ...action,
      method: 'POST',
      path: '/portal/team/remove',
      roles: PARTNER_TEAM,
      summary: 'Remove a member (its sessions end); 303 to the team page.',
      body: Type.Object({ memberId: MemberId }, { additionalProperties: false }),
      responses: { 303: { description: 'Removed.' }, 409: HTML('last_admin: the team page, explaining'), 403: HTML('forbidden') },
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        return explained(
          async () => {
            await access.removeMember(partnerSessionOf(request), actor(request), request.body.memberId);
            return seeOther(reply, '/portal/team');
          },
          (notice) => teamPage(request, reply.code(409), notice),
        );
      },
    }),
    defineRoute({
      ...action,
      method: 'POST',
      path: '/portal/team/role',
      roles: PARTNER_TEAM,
      summary: 'Change a member’s role; 303 to the team page.',
      body: Type.Object({ memberId: MemberId, role: TeamRoleSchema }, { additionalProperties: false }),
      responses: { 303: { description: 'Changed.' }, 409: HTML('last_admin: the team page, explaining'), 403: HTML('forbidden') },
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        return explained(
          async () => {
            await access.setRole(partnerSessionOf(request), actor(request), request.body.memberId, request.body.role);
            return seeOther(reply, '/portal/team');
          },
          (notice) => teamPage(request, reply.code(409), notice),
        );
      },
    }),
    defineRoute({
      ...action,
      method: 'POST',
      path: '/portal/signout',
      roles: PARTNER_READ,
      bodyOptional: true,
      summary: 'End the portal session and clear its cookie; 303 to the sign-in page.',
      responses: { 303: { description: 'Signed out, or not signed in.' }, 403: HTML('cross_origin_form') },
      handler: async (request, reply) => {
        assertSameOriginForm(request, origin);
        const token = parseCookie(request.headers.cookie ?? '')[PORTAL_COOKIE];
        if (token) await access.signOut(token);
        setSession(reply, '', 0);
        return seeOther(reply, '/portal/signin');
      },
    }),
  ];
  return { name: 'portal', routes };
}
