import { Type } from '@sinclair/typebox';
import type { AuditEntry } from '../../../core/audit-chain.ts';
import { ActorLabel, adminRoute, iso, LIST_SCOPE, ListPage, ListQuery, listParams, listTenant } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { defineRoute } from '../../../http/route.ts';
import { DateTimeView, errorResponse, Nullable, OPERATOR_ERRORS, Slug } from '../../../http/schemas/common.ts';
import type { GroupBuilder } from '../module.ts';
import { ACTIVITY_KINDS, REF_FIELDS } from './activity.ts';
import { AuditReader } from './audit-reader.ts';

export { AuditReader, type ChainVerification, VERIFY_BATCH, verifyAuditChain } from './audit-reader.ts';

const DOC = 'docs/backoffice/audit.md';

/** An exact action (`org.created`), or a prefix ending in a dot (`org.`). */
const ActionFilter = Type.String({
  pattern: '^[a-z][a-z0-9_]{0,39}(\\.([a-z0-9_]{1,40})?)?$',
  description: 'An exact action, or a prefix ending in a dot.',
});
const Seq = Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'The entry’s sequence number.' });

const Entry = Type.Object({
  seq: Type.Integer(),
  at: DateTimeView,
  actor: Type.String(),
  action: Type.String(),
  tenant: Nullable(Type.String()),
  target: Nullable(Type.String()),
  detail: Type.Object({}, { additionalProperties: true }),
  prevHash: Type.String(),
  hash: Type.String(),
});

const Item = Type.Object({
  at: DateTimeView,
  type: Type.String({ description: 'The event type (docs/events.md).' }),
  kind: Type.String(),
  tenant: Type.String({ description: 'The tenant the event concerns; for a verification, the tenant of the credential type.' }),
  summary: Type.String(),
  refs: Type.Object({
    eventId: Type.String(),
    ...Object.fromEntries(REF_FIELDS.map((field) => [field, Type.Optional(Type.String())])),
  }),
});

const entryView = (e: AuditEntry) => ({ ...e, at: iso(e.at) });

/**
 * The audit log and the activity feed, read (docs/backoffice/audit.md): GET /api/admin/audit,
 * /api/admin/audit/{seq} and /api/admin/activity. Verifying the chain is `AuditReader.verify`,
 * for the ops group to serve.
 */
export const auditGroup: GroupBuilder = async (ctx) => {
  const reader = new AuditReader(ctx.views, ctx.urls);
  const common = { ...adminRoute(DOC), roles: ROLE_MATRIX.audit, scope: LIST_SCOPE } as const;
  return {
    group: {
      name: 'admin-audit',
      routes: [
        defineRoute({
          ...common,
          method: 'GET',
          path: '/api/admin/audit',
          summary: 'The audit log, newest first (or oldest first), with every field and the hash chain.',
          querystring: ListQuery({
            actor: Type.Optional(ActorLabel),
            action: Type.Optional(ActionFilter),
            order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')])),
          }),
          responses: { 200: { description: 'A page of entries.', schema: ListPage('entries', Entry) }, ...OPERATOR_ERRORS },
          handler: async (request) => {
            const { actor, action, order } = request.query;
            const page = await reader.page(listParams(request), {
              ...(actor === undefined ? {} : { actor }),
              ...(action === undefined ? {} : { action }),
              order: order ?? 'desc',
            });
            return { entries: page.entries.map(entryView), nextCursor: page.nextCursor };
          },
        }),
        defineRoute({
          ...common,
          method: 'GET',
          path: '/api/admin/audit/{seq}',
          summary: 'One audit entry, with its hash and the hash it links to.',
          params: Type.Object({ seq: Seq }),
          querystring: Type.Object({ tenant: Type.Optional(Slug) }, { additionalProperties: false }),
          responses: {
            200: { description: 'The entry.', schema: Entry },
            ...OPERATOR_ERRORS,
            404: errorResponse('unknown_audit_entry: no entry has this seq, or it is not one the caller may see.'),
          },
          handler: async (request) => entryView(await reader.entry(Number(request.params.seq), listTenant(request))),
        }),
        defineRoute({
          ...common,
          method: 'GET',
          path: '/api/admin/activity',
          summary: 'What happened, newest first: one sentence per event of the outbox, with the ids it refers to.',
          querystring: ListQuery({ kind: Type.Optional(Type.Union(ACTIVITY_KINDS.map((k) => Type.Literal(k)))) }),
          responses: { 200: { description: 'A page of the feed.', schema: ListPage('items', Item) }, ...OPERATOR_ERRORS },
          handler: async (request) => {
            const { kind } = request.query;
            const page = await reader.activity(listParams(request), kind === undefined ? undefined : [kind]);
            return {
              items: page.items.map(({ seq: _seq, at, ...item }) => ({ at: iso(at), ...item })),
              nextCursor: page.nextCursor,
            };
          },
        }),
      ],
    },
  };
};
