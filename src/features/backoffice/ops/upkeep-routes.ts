import { Type } from '@sinclair/typebox';
import { iso, LIST_SCOPE } from '../../../http/admin/kit.ts';
import { Slug } from '../../../http/schemas/common.ts';
import type { OpsReads } from './reads.ts';
import { opsOperations } from './routes-common.ts';
import { DemoHygieneView, StuckView } from './schemas.ts';
import { type DemoBreach, demoBreaches, type StuckKind, stuck } from './upkeep.ts';

const MINUTE = 60_000;
/** Per kind: how late counts as stuck (its job's period and some), and what to do. */
export const STUCK: Record<StuckKind, { graceMs: number; action: string }> = {
  presentation: {
    graceMs: 5 * MINUTE,
    action: 'The job verification.sweep deletes expired transactions every minute: check it runs (GET /ops/health, jobs).',
  },
  offer: {
    graceMs: 5 * MINUTE,
    action: 'The job offers.erase-subjects erases due subjects every minute: check it runs (GET /ops/health, jobs).',
  },
  delivery: {
    graceMs: 15 * MINUTE,
    action:
      'Every process’s dispatcher sends due deliveries: check that one runs and the endpoint answers; POST /api/admin/integration/deliveries/{deliveryId}/redrive sends it again.',
  },
  lane: {
    graceMs: 10 * MINUTE,
    action:
      'A process stopped while holding this endpoint’s lane; another takes it over when its lease lapses. If it stays, check the processes (GET /ops/cloud).',
  },
  request: {
    graceMs: 0,
    action: 'A data-subject request past its due date: decide it (docs/backoffice/compliance.md).',
  },
  approval: {
    graceMs: 2 * 60 * MINUTE,
    action: 'The job backoffice.approvals-expire marks expired approvals hourly: check it runs. It can no longer be approved.',
  },
};
const STUCK_SHOWN = 50;
const BREACHES_SHOWN = 200;
const KINDS = Object.keys(STUCK) as StuckKind[];

const RULES: Record<DemoBreach['rule'], string> = {
  'demo-name': 'A demonstration tenant’s name and display name end with “ (Demo)”.',
  'marked-real': 'No other tenant’s name or display name ends with “(Demo)”.',
  'demo-item-flag': 'A wallet item is marked demonstration data exactly when its tenant is a demonstration tenant.',
};

/** Stuck work and the demo-tenant law (docs/operations.md, "Stuck work", "Demo hygiene"). */
export function upkeepRoutes(reads: OpsReads, clockNow: () => number) {
  const { detail } = opsOperations;
  return [
    detail('/stuck-transactions', {
      scope: LIST_SCOPE,
      summary:
        'Presentations, offers, deliveries, lanes, data-subject requests and approvals past their time, with the action to take.',
      query: { tenant: Type.Optional(Slug), kind: Type.Optional(Type.Union(KINDS.map((k) => Type.Literal(k)))) },
      answer: ['What is stuck, oldest first per kind.', StuckView],
      read: async ({ query, tenant }) => {
        const now = clockNow();
        const items = [];
        let complete = true;
        for (const kind of query.kind ? [query.kind as StuckKind] : KINDS) {
          const rows = await stuck(reads, kind, tenant, now - STUCK[kind].graceMs, STUCK_SHOWN + 1);
          if (rows.length > STUCK_SHOWN) complete = false;
          for (const r of rows.slice(0, STUCK_SHOWN)) {
            items.push({ ...r, dueAt: iso(r.dueAt), overdueS: Math.floor((now - r.dueAt) / 1000), action: STUCK[kind].action });
          }
        }
        return { checkedAt: iso(now), complete, items };
      },
    }),
    detail('/demo-hygiene', {
      summary: 'The demo-tenant law checked over the data: every breach named.',
      answer: ['The breaches, none when `ok`.', DemoHygieneView],
      read: async () => {
        const breaches = (await demoBreaches(reads, BREACHES_SHOWN)).map((b) => ({ ...b, what: RULES[b.rule] }));
        return { ok: breaches.length === 0, checkedAt: iso(clockNow()), breaches };
      },
    }),
  ];
}
