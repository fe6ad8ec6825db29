import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../../core/errors.ts';
import { ID_PREFIXES } from '../../../core/ids.ts';
import { iso, isoOrNull, LIST_SCOPE } from '../../../http/admin/kit.ts';
import { adminOperations } from '../../../http/admin/operations.ts';
import { holds } from '../../../http/admin/role-matrix.ts';
import { Slug } from '../../../http/schemas/common.ts';
import { TIMELINE_SOURCES, type TimelineCursor, type TimelineEntry } from '../../../ports/backoffice-views.ts';
import { approvalsModule } from '../../approvals/module.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { offersModule } from '../../offers/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { partnersModule } from '../../partners/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { webhooksModule } from '../../webhooks/module.ts';
import { credentialDetail } from '../credentials/credential-detail.ts';
import { CredentialDetail } from '../credentials/schemas.ts';
import { finderSources } from '../credentials/sources.ts';
import type { GroupBuilder } from '../module.ts';
import { lookup } from './lookup.ts';
import { offboarding, offboardingCursor } from './offboarding.ts';
import {
  ListSeq,
  LookupView,
  MeView,
  OffboardingEntry,
  QueryText,
  SearchView,
  Subject,
  TimelineEntryView,
  TodayView,
} from './schemas.ts';
import { SearchBox } from './search-box.ts';
import { SessionViews } from './session-views.ts';

const LOOKUP_CAP = 50;

/** The timeline's cursor: the last entry's (time, source rank, key); anything else is refused. */
function timelineCursor(after: readonly (string | number)[]): TimelineCursor {
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

/** What a timeline's path names: an account id is 43 characters and may itself begin with `crd_` or `off_`. */
const subjectOf = (key: string) =>
  key.length === 43
    ? ({ kind: 'account', accountId: key } as const)
    : key.startsWith(`${ID_PREFIXES.credential}_`)
      ? ({ kind: 'credential', id: key } as const)
      : ({ kind: 'offer', id: key } as const);

/**
 * Who am I, what needs attention, the search box, the support desk's reads and what is being
 * wound down (docs/backoffice/views.md, docs/backoffice/orgs.md). Read models only: nothing here
 * writes.
 */
export const sessionGroup: GroupBuilder = async (ctx, { desk, timeline }) => {
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
  const [tenants, operators] = [ctx.viewsOf(tenantsModule), ctx.viewsOf(operatorsModule)];
  const wound = { suspended: tenants.suspended.bind(tenants), offboarded: operators.offboarded.bind(operators) };
  const { list, detail } = adminOperations({
    doc: 'docs/backoffice/views.md',
    base: '/api/admin',
    params: { statusIndex: Type.String({ pattern: '^[0-9]{1,9}$' }), subject: Subject },
    read: 'session',
    scope: LIST_SCOPE,
  });
  const { list: orgsList } = adminOperations({ doc: 'docs/backoffice/orgs.md', base: '/api/admin' });

  return {
    group: {
      name: 'admin-session',
      routes: [
        orgsList('/offboarding', {
          roles: 'offboarding',
          scope: 'platform',
          summary: 'Suspended tenants and suspended or removed operators, newest change first.',
          filters: { kind: Type.Optional(Type.Union([Type.Literal('tenant'), Type.Literal('operator')])) },
          page: ['entries', OffboardingEntry, 'A page of entries.'],
          cursor: offboardingCursor,
          read: (window) => offboarding(wound, window),
          order: (r) => [r.since, r.kind, r.id],
          view: (r) => ({ kind: r.kind, id: r.id, status: r.status, tenant: r.tenant, since: iso(r.since), reason: r.reason }),
        }),
        detail('/me', {
          scope: 'none',
          summary: 'Who the caller is: username, how it signed in, roles, tenant scope, and approvals it could decide.',
          answer: ['The caller.', MeView],
          read: async ({ principal }) => ({
            username: principal.username,
            via: principal.via,
            roles: principal.roles,
            tenant: principal.tenant,
            pendingApprovals: holds(principal, 'approvalsWrite') ? await desk.pendingFor(principal, 20) : [],
          }),
        }),
        detail('/search', {
          summary: 'One search box over tenants, credential types, credentials, holders, partners and operators.',
          query: { q: QueryText(2), tenant: Type.Optional(Slug) },
          answer: ['At most ten hits of each kind the caller may read.', SearchView],
          read: ({ principal, tenant, query }) => searchBox.search(principal, tenant, query.q),
        }),
        detail('/today', {
          summary:
            'What needs attention: approvals to decide, dead deliveries, pending provisioning, partners in review, expiring offers.',
          query: { tenant: Type.Optional(Slug) },
          answer: ['Each section the caller may read: a count and the first few.', TodayView],
          read: ({ principal, tenant }) => sessions.today(principal, tenant),
        }),
        detail('/support/lookup', {
          roles: 'support',
          summary:
            'Find what a caller names: an account id, a credential, offer, item or transaction id, a status index, a deposit id.',
          query: { q: QueryText(1), tenant: Type.Optional(Slug) },
          answer: ['Every match, with its kind and tenant (at most 50).', LookupView],
          read: async ({ query: { q }, tenant }) => {
            const matches = await lookup(finder, q, tenant, LOOKUP_CAP);
            return { q, tenant, matches: matches.map((m) => ({ ...m, at: isoOrNull(m.at) })) };
          },
        }),
        detail('/support/credential/{statusIndex}', {
          roles: 'support',
          scope: { tenantIn: 'query' },
          summary:
            'One credential by its status entry: the tenant, the list (default 1) and the index; its history, never its claims.',
          query: { tenant: Slug, list: Type.Optional(ListSeq) },
          answer: ['The credential.', CredentialDetail],
          missing: [
            'unknown_credential',
            ({ params, query }) =>
              `Tenant ${query.tenant} has no credential at index ${params.statusIndex} of status list ${query.list ?? 1}.`,
          ],
          read: async ({ params, query }) => {
            const entry = { listSeq: query.list === undefined ? 1 : Number(query.list), idx: Number(params.statusIndex) };
            const [found] = await finder.credentials.byStatus(entry, query.tenant, 1);
            return found && credentialDetail(detailReads, types, urls, found);
          },
        }),
        list('/support/timeline/{subject}', {
          roles: 'support',
          summary: 'Everything that happened to an account, a credential or an offer, oldest first.',
          page: ['entries', TimelineEntryView, 'A page of the timeline.'],
          cursor: timelineCursor,
          read: async ({ tenant, since, until, after, limit }, { params }) => {
            // `since` starts the timeline at that millisecond, before every source of it.
            const start =
              since !== undefined && (after === undefined || after.at < since) ? { at: since, rank: -1, id: '' } : after;
            const rows = await timeline.read(subjectOf(params.subject), tenant, start, limit);
            return until === undefined ? rows : rows.filter((r) => r.at < until);
          },
          order: (e) => [e.at, TIMELINE_SOURCES.indexOf(e.source), e.key],
          view: ({ key: _key, ...entry }: TimelineEntry) => ({ ...entry, at: iso(entry.at) }),
        }),
      ],
    },
  };
};
