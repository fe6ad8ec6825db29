import { Type } from '@sinclair/typebox';
import type { AuditEntry } from '../../../core/audit-chain.ts';
import { ActorLabel, iso, LIST_SCOPE } from '../../../http/admin/kit.ts';
import { adminOperations } from '../../../http/admin/operations.ts';
import { DateTimeView, Nullable, refusal, Slug } from '../../../http/schemas/common.ts';
import type { GroupBuilder } from '../module.ts';
import { ACTIVITY_KINDS, REF_FIELDS } from './activity.ts';
import { AuditReader, cursorSeq, ORDER_MARK } from './audit-reader.ts';

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
  const { list, detail } = adminOperations({
    doc: 'docs/backoffice/audit.md',
    base: '/api/admin',
    params: { seq: Seq },
    read: 'audit',
    scope: LIST_SCOPE,
  });
  const order = (query: { order?: string }) => (query.order ?? 'desc') as 'asc' | 'desc';
  return {
    group: {
      name: 'admin-audit',
      routes: [
        list('/audit', {
          summary: 'The audit log, newest first (or oldest first), with every field and the hash chain.',
          filters: {
            actor: Type.Optional(ActorLabel),
            action: Type.Optional(ActionFilter),
            order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')])),
          },
          page: ['entries', Entry, 'A page of entries.'],
          cursor: (after, { query }) => cursorSeq(after, ORDER_MARK[order(query)]),
          read: ({ actor, action, order: _order, ...window }, { query }) =>
            reader.entries({ actor, action, order: order(query) }, window),
          order: (e, { query }) => [e.seq, ORDER_MARK[order(query)]],
          view: entryView,
        }),
        detail('/audit/{seq}', {
          summary: 'One audit entry, with its hash and the hash it links to.',
          query: { tenant: Type.Optional(Slug) },
          answer: ['The entry.', Entry],
          refusals: { 404: refusal('unknown_audit_entry', 'no entry has this seq, or it is not one the caller may see.') },
          read: async ({ params, tenant }) => entryView(await reader.entry(Number(params.seq), tenant)),
        }),
        list('/activity', {
          summary: 'What happened, newest first: one sentence per event of the outbox, with the ids it refers to.',
          filters: { kind: Type.Optional(Type.Union(ACTIVITY_KINDS.map((k) => Type.Literal(k)))) },
          page: ['items', Item, 'A page of the feed.'],
          cursor: (after) => cursorSeq(after),
          read: ({ kind, ...window }) => reader.activity(kind === undefined ? undefined : [kind], window),
          order: (item) => [item.seq],
          view: ({ seq: _seq, at, ...item }) => ({ at: iso(at), ...item }),
        }),
      ],
    },
  };
};
