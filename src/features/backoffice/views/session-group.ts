import { type TSchema, Type } from '@sinclair/typebox';
import { ServiceError } from '../../../core/errors.ts';
import { ID_PREFIXES, idLikePattern } from '../../../core/ids.ts';
import { ApprovalSchema } from '../../../http/admin/approval-desk.ts';
import {
  adminRoute,
  encodeCursor,
  iso,
  isoOrNull,
  LIST_SCOPE,
  ListPage,
  ListQuery,
  listParams,
  listTenant,
} from '../../../http/admin/kit.ts';
import { holds, ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute } from '../../../http/route.ts';
import { DateTimeView, errorResponse, Nullable, OPERATOR_ERRORS, Slug } from '../../../http/schemas/common.ts';
import { TIMELINE_SOURCES, type TimelineCursor, type TimelineEntry } from '../../../ports/backoffice-views.ts';
import { approvalsModule } from '../../approvals/module.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { offersModule } from '../../offers/module.ts';
import { partnersModule } from '../../partners/module.ts';
import { webhooksModule } from '../../webhooks/module.ts';
import type { GroupBuilder } from '../module.ts';
import { offboardingRoute } from '../orgs/offboarding-route.ts';
import { credentialDetail } from './credential-detail.ts';
import { lookup } from './lookup.ts';
import { CredentialDetail, CredentialView, Json, ListSeq } from './schemas.ts';
import { SearchBox } from './search-box.ts';
import { SessionViews } from './session-views.ts';
import { finderSources } from './sources.ts';

const DOC = 'docs/backoffice/views.md';
const base = '/api/admin';
const LOOKUP_CAP = 50;

/** Free text in a query: no control characters. */
const QueryText = (minLength: number) => Type.String({ minLength, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]*$' });

/** A timeline's subject: an account id (43 base64url characters), a credential id or an offer id. */
const Subject = Type.String({
  pattern: `^(?:[A-Za-z0-9_-]{43}|${idLikePattern('credential').slice(1, -1)}|${idLikePattern('offer').slice(1, -1)})$`,
});

const TimelineEntryView = Type.Object({
  at: DateTimeView,
  source: Type.String({ description: TIMELINE_SOURCES.join(', ') }),
  what: Type.String(),
  tenant: Nullable(Type.String()),
  ref: Type.String(),
  actor: Nullable(Type.String()),
  detail: Json,
});

const Section = <T extends TSchema>(item: T) => Type.Optional(Type.Object({ count: Type.Integer(), top: Type.Array(item) }));

const LookupMatchView = Type.Object({
  kind: Type.String({ description: 'holder, credential, offer, deposit, transaction or item' }),
  id: Type.String(),
  tenant: Type.String(),
  accountId: Nullable(Type.String()),
  typeId: Nullable(Type.String()),
  state: Nullable(Type.String()),
  at: Nullable(DateTimeView),
});

/** The timeline's cursor: the last entry's (time, source rank, key); anything else is refused. */
function timelineCursor(after: readonly (string | number)[] | undefined): TimelineCursor | undefined {
  if (after === undefined) return undefined;
  const [at, rank, key] = after;
  const ok =
    after.length === 3 &&
    typeof at === 'number' &&
    typeof rank === 'number' &&
    rank >= 0 &&
    rank < TIMELINE_SOURCES.length &&
    (rank === 0 ? typeof key === 'number' : typeof key === 'string');
  if (!ok) throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
  return { at, rank, id: key as string | number };
}

const withoutKey = ({ key: _key, ...entry }: TimelineEntry) => ({ ...entry, at: iso(entry.at) });

/**
 * Who am I, what needs attention, the search box, and the support desk's reads
 * (docs/backoffice/views.md). Read models only: nothing here writes.
 */
export const sessionGroup: GroupBuilder = async (ctx, { desk, orgs, timeline }) => {
  const detailReads = { offers: ctx.viewsOf(offersModule), kernel: ctx.views };
  const types = await ctx.use(credentialTypesModule);
  const urls = ctx.urls;
  const attention = {
    webhooks: ctx.viewsOf(webhooksModule),
    approvals: ctx.viewsOf(approvalsModule),
    partners: ctx.viewsOf(partnersModule),
    offers: ctx.viewsOf(offersModule),
  };
  const sessions = new SessionViews(attention, desk, ctx.clock);
  const finder = finderSources(ctx);
  const searchBox = new SearchBox(finder, urls);
  const offboarding = offboardingRoute(orgs);

  return {
    group: {
      name: 'admin-session',
      routes: [
        offboarding,
        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/me`,
          roles: ROLE_MATRIX.session,
          scope: 'none',
          summary: 'Who the caller is: username, how it signed in, roles, tenant scope, and approvals it could decide.',
          responses: {
            200: {
              description: 'The caller.',
              schema: Type.Object({
                username: Nullable(Type.String()),
                via: Type.String(),
                roles: Type.Array(Type.String()),
                tenant: Nullable(Type.String()),
                pendingApprovals: Type.Array(ApprovalSchema),
              }),
            },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => {
            const principal = operatorOf(request);
            return {
              username: principal.username,
              via: principal.via,
              roles: principal.roles,
              tenant: principal.tenant,
              pendingApprovals: holds(principal, 'approvalsWrite') ? await desk.pendingFor(principal, 20) : [],
            };
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/search`,
          roles: ROLE_MATRIX.session,
          scope: LIST_SCOPE,
          summary: 'One search box over tenants, credential types, credentials, holders, partners and operators.',
          querystring: Type.Object({ q: QueryText(2), tenant: Type.Optional(Slug) }, { additionalProperties: false }),
          responses: {
            200: {
              description: 'At most ten hits of each kind the caller may read.',
              schema: Type.Object({
                q: Type.String(),
                tenant: Nullable(Type.String()),
                tenants: Type.Array(Type.Object({ slug: Type.String(), name: Type.String() })),
                types: Type.Array(Type.Object({ tenant: Type.String(), typeId: Type.String(), name: Type.String() })),
                credentials: Type.Array(CredentialView),
                holders: Type.Array(Type.Object({ accountId: Type.String(), tenant: Type.String() })),
                partners: Type.Array(
                  Type.Object({
                    applicationId: Type.String(),
                    organisation: Type.String(),
                    kind: Type.String(),
                    stage: Type.String(),
                    tenant: Nullable(Type.String()),
                  }),
                ),
                operators: Type.Array(
                  Type.Object({
                    username: Type.String(),
                    roles: Type.Array(Type.String()),
                    tenant: Nullable(Type.String()),
                    status: Type.String(),
                  }),
                ),
                truncated: Type.Array(Type.String({ description: 'Kinds with more hits than shown.' })),
                omitted: Type.Array(Type.String({ description: 'Kinds the caller may not read, so not searched.' })),
              }),
            },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => searchBox.search(operatorOf(request), listTenant(request), request.query.q),
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/today`,
          roles: ROLE_MATRIX.session,
          scope: LIST_SCOPE,
          summary:
            'What needs attention: approvals to decide, dead deliveries, pending provisioning, partners in review, expiring offers.',
          querystring: Type.Object({ tenant: Type.Optional(Slug) }, { additionalProperties: false }),
          responses: {
            200: {
              description: 'Each section the caller may read: a count and the first few.',
              schema: Type.Object({
                tenant: Nullable(Type.String()),
                at: DateTimeView,
                approvals: Section(ApprovalSchema),
                deadDeliveries: Section(
                  Type.Object({
                    deliveryId: Type.String(),
                    webhookId: Type.String(),
                    tenant: Type.String(),
                    eventType: Type.String(),
                    failures: Type.Integer(),
                    lastStatus: Nullable(Type.Integer()),
                    finishedAt: Nullable(DateTimeView),
                  }),
                ),
                provisioning: Section(
                  Type.Object({
                    requestId: Type.String(),
                    tenant: Type.String(),
                    label: Type.String(),
                    requestedBy: Type.String(),
                    createdAt: DateTimeView,
                    expiresAt: DateTimeView,
                  }),
                ),
                partnersInReview: Section(
                  Type.Object({
                    applicationId: Type.String(),
                    organisation: Type.String(),
                    kind: Type.String(),
                    stage: Type.String(),
                    stageAt: DateTimeView,
                  }),
                ),
                expiringOffers: Section(
                  Type.Object({
                    offerId: Type.String(),
                    tenant: Type.String(),
                    typeId: Type.String(),
                    createdAt: DateTimeView,
                    expiresAt: DateTimeView,
                  }),
                ),
                omitted: Type.Array(Type.String({ description: 'Sections the caller may not read.' })),
              }),
            },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => sessions.today(operatorOf(request), listTenant(request)),
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/support/lookup`,
          roles: ROLE_MATRIX.support,
          scope: LIST_SCOPE,
          summary:
            'Find what a caller names: an account id, a credential, offer, item or transaction id, a status index, a deposit id.',
          querystring: Type.Object({ q: QueryText(1), tenant: Type.Optional(Slug) }, { additionalProperties: false }),
          responses: {
            200: {
              description: 'Every match, with its kind and tenant (at most 50).',
              schema: Type.Object({ q: Type.String(), tenant: Nullable(Type.String()), matches: Type.Array(LookupMatchView) }),
            },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => {
            const tenant = listTenant(request);
            const matches = await lookup(finder, request.query.q, tenant, LOOKUP_CAP);
            return { q: request.query.q, tenant, matches: matches.map((m) => ({ ...m, at: isoOrNull(m.at) })) };
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/support/credential/{statusIndex}`,
          roles: ROLE_MATRIX.support,
          scope: { tenantIn: 'query' },
          summary:
            'One credential by its status entry: the tenant, the list (default 1) and the index; its history, never its claims.',
          params: Type.Object({ statusIndex: Type.String({ pattern: '^[0-9]{1,9}$' }) }),
          querystring: Type.Object({ tenant: Slug, list: Type.Optional(ListSeq) }, { additionalProperties: false }),
          responses: {
            200: { description: 'The credential.', schema: CredentialDetail },
            ...OPERATOR_ERRORS,
            404: errorResponse('unknown_credential'),
          },
          handler: async (request) => {
            const { tenant, list } = request.query;
            const listSeq = list === undefined ? 1 : Number(list);
            const [found] = await finder.credentials.byStatus({ listSeq, idx: Number(request.params.statusIndex) }, tenant, 1);
            if (!found) {
              throw new ServiceError(
                'unknown_credential',
                `Tenant ${tenant} has no credential at index ${request.params.statusIndex} of status list ${listSeq}.`,
              );
            }
            return credentialDetail(detailReads, types, urls, found);
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/support/timeline/{subject}`,
          roles: ROLE_MATRIX.support,
          scope: LIST_SCOPE,
          summary: 'Everything that happened to an account, a credential or an offer, oldest first.',
          params: Type.Object({ subject: Subject }),
          querystring: ListQuery(),
          responses: {
            200: { description: 'A page of the timeline.', schema: ListPage('entries', TimelineEntryView) },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => {
            const p = listParams(request);
            const key = request.params.subject;
            // An account id is 43 characters and may itself begin with `crd_` or `off_`.
            const subject =
              key.length === 43
                ? ({ kind: 'account', accountId: key } as const)
                : key.startsWith(`${ID_PREFIXES.credential}_`)
                  ? ({ kind: 'credential', id: key } as const)
                  : ({ kind: 'offer', id: key } as const);
            let cursor = timelineCursor(p.after);
            // `since` starts the timeline at that millisecond, before every source of it.
            if (p.since !== undefined && (cursor === undefined || cursor.at < p.since)) {
              cursor = { at: p.since, rank: -1, id: '' };
            }
            const rows = await timeline.read(subject, p.tenant, cursor, p.limit + 1);
            const inWindow = p.until === undefined ? rows : rows.filter((r) => r.at < (p.until as number));
            const shown = inWindow.slice(0, p.limit);
            const last = shown.at(-1);
            return {
              entries: shown.map(withoutKey),
              nextCursor:
                inWindow.length > p.limit && last
                  ? encodeCursor([last.at, TIMELINE_SOURCES.indexOf(last.source), last.key])
                  : null,
            };
          },
        }),
      ],
    },
  };
};
