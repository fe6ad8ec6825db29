import { sql } from 'kysely';
import type { PageWindow } from '../../../core/page.ts';
import type {
  AuditRow,
  DemoBreach,
  ExpiringGroup,
  FunnelRow,
  JobLeaseRow,
  KeyRow,
  MailRates,
  OpsViews,
  StatusListRow,
  StuckKind,
  StuckRow,
  WebhookBacklog,
  WebhookRates,
} from '../../../ports/ops-views.ts';
import type { Db } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { JobLeasesTable } from '../schema.ts';
import { inTenant, inWindow, pastCursor } from '../windowed.ts';
import { json, num, numOrNull } from './sql-backoffice-rows.ts';

const leases = rowCodec<JobLeaseRow, JobLeasesTable>()('name holder leaseUntil startedAt finishedAt lastError', {});

/**
 * Where each kind of stuck work is: its table, its tenant column (null: the platform's), the time
 * it should have moved by, and what it is while it has not (constant SQL, no input in it).
 */
const STUCK_SOURCES: Record<StuckKind, { table: string; tenant: string | null; due: string; stuck: string }> = {
  presentation: { table: 'presentation_transactions', tenant: 'type_tenant', due: 'expires_at', stuck: 'true' },
  offer: { table: 'offers', tenant: 'tenant', due: 'erase_after', stuck: 'subject is not null' },
  delivery: { table: 'webhook_deliveries', tenant: 'tenant', due: 'next_attempt_at', stuck: "state in ('pending', 'failed')" },
  lane: { table: 'webhooks', tenant: 'tenant', due: 'lane_until', stuck: 'lane_holder is not null' },
  request: { table: 'compliance_requests', tenant: null, due: 'due_at', stuck: 'decided_at is null' },
  approval: { table: 'approvals', tenant: 'tenant', due: 'expires_at', stuck: "state = 'pending'" },
};

const KEY_COLUMNS = ['tenant', 'kid', 'purpose', 'created_at', 'superseded_at', 'retired_at'] as const;
const keyRow = (r: {
  tenant: string;
  kid: string;
  purpose: 'issuer' | 'verifier';
  created_at: number;
  superseded_at: number | null;
  retired_at: number | null;
}): KeyRow => ({
  tenant: r.tenant,
  kid: r.kid,
  purpose: r.purpose,
  createdAt: num(r.created_at),
  supersededAt: numOrNull(r.superseded_at),
  retiredAt: numOrNull(r.retired_at),
});

/** The operations group's reads (ports/ops-views.ts). */
export class SqlOpsViews implements OpsViews {
  constructor(private readonly db: Db) {}

  async jobLeases(): Promise<JobLeaseRow[]> {
    const rows = await this.db.selectFrom('job_leases').selectAll().orderBy('name').execute();
    return rows.map(leases.record);
  }

  async webhookBacklog(): Promise<WebhookBacklog> {
    const [pending, unrouted] = await Promise.all([
      this.db
        .selectFrom('webhook_deliveries')
        .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('created_at').as('oldest')])
        .where('state', 'in', ['pending', 'failed'])
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('outbox')
        .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('created_at').as('oldest')])
        .where('routed_to', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      pending: num(pending.n),
      oldestPendingAt: numOrNull(pending.oldest),
      unrouted: num(unrouted.n),
      oldestUnroutedAt: numOrNull(unrouted.oldest),
    };
  }

  async mailRates(since: number): Promise<MailRates> {
    const rows = await this.db
      .selectFrom('mail_outcomes')
      .select((eb) => ['ok', 'failure', eb.fn.countAll<number | string>().as('n'), eb.fn.max('at').as('last')])
      .where('at', '>=', since)
      .groupBy(['ok', 'failure'])
      .execute();
    const rates: MailRates = { sent: 0, refused: 0, failures: {}, lastRefusedAt: null };
    for (const r of rows) {
      if (num(r.ok) === 1) {
        rates.sent += num(r.n);
        continue;
      }
      rates.refused += num(r.n);
      rates.failures[r.failure ?? 'ERROR'] = (rates.failures[r.failure ?? 'ERROR'] ?? 0) + num(r.n);
      rates.lastRefusedAt = Math.max(rates.lastRefusedAt ?? 0, num(r.last));
    }
    return rates;
  }

  async webhookRates(since: number): Promise<WebhookRates> {
    const [attempts, dead, failing, disabled] = await Promise.all([
      this.db
        .selectFrom('webhook_attempts')
        .select((eb) => [
          eb.fn.countAll<number | string>().as('n'),
          eb.fn.sum<number | string>(eb.case().when('ok', '=', 0).then(1).else(0).end()).as('failed'),
        ])
        .where('at', '>=', since)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('state', '=', 'dead')
        .where('finished_at', '>=', since)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
        .select(sql<number | string>`count(distinct d.webhook_id)`.as('n'))
        .where('a.at', '>=', since)
        .where('a.ok', '=', 0)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('active', '=', 0)
        .where('inactive_reason', '=', 'failing')
        .executeTakeFirstOrThrow(),
    ]);
    return {
      attempts: num(attempts.n),
      failed: num(attempts.failed ?? 0),
      dead: num(dead.n),
      endpointsFailing: num(failing.n),
      endpointsDisabled: num(disabled.n),
    };
  }

  async keys(tenant: string | null, page: PageWindow<readonly [number, string]>): Promise<KeyRow[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .select(KEY_COLUMNS)
      .where(inTenant(tenant))
      .where(inWindow('created_at', page))
      .where(pastCursor(['created_at', 'kid'], page.after, 'desc'))
      .orderBy('created_at', 'desc')
      .orderBy('kid', 'desc')
      .limit(page.limit)
      .execute();
    return rows.map(keyRow);
  }

  async supersededKeys(limit: number): Promise<KeyRow[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .select(KEY_COLUMNS)
      .where('purpose', '=', 'issuer')
      .where('superseded_at', 'is not', null)
      .where('retired_at', 'is', null)
      .orderBy('superseded_at')
      .limit(limit)
      .execute();
    return rows.map(keyRow);
  }

  async outstandingBetween(tenant: string, from: number, to: number, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('issued_credentials')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('tenant', '=', tenant)
      .where('issued_at', '>=', from)
      .where('issued_at', '<', to)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirstOrThrow();
    return num(row.n);
  }

  async issuedBetween(tenant: string, from: number, to: number | null): Promise<number> {
    let q = this.db
      .selectFrom('issued_credentials')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('tenant', '=', tenant)
      .where('issued_at', '>=', from);
    if (to !== null) q = q.where('issued_at', '<', to);
    return num((await q.executeTakeFirstOrThrow()).n);
  }

  async statusLists(tenant: string | null, page: PageWindow<readonly [string, number]>): Promise<StatusListRow[]> {
    const rows = await this.db
      .selectFrom('status_lists as l')
      .select((eb) => [
        'l.tenant',
        'l.seq',
        'l.size',
        'l.capacity',
        'l.allocated',
        'l.revision',
        'l.created_at',
        eb
          .selectFrom('issued_credentials as c')
          .select((c) => c.fn.countAll<number | string>().as('n'))
          .whereRef('c.tenant', '=', 'l.tenant')
          .whereRef('c.list_seq', '=', 'l.seq')
          .where('c.revoked_at', 'is not', null)
          .as('revoked'),
      ])
      .where(inTenant(tenant, 'l.tenant'))
      .where(inWindow('l.created_at', page))
      .where(pastCursor(['l.tenant', 'l.seq'], page.after, 'asc'))
      .orderBy('l.tenant')
      .orderBy('l.seq')
      .limit(page.limit)
      .execute();
    return rows.map((r) => ({
      tenant: r.tenant,
      seq: num(r.seq),
      size: num(r.size),
      capacity: num(r.capacity),
      allocated: num(r.allocated),
      revoked: num(r.revoked ?? 0),
      revision: num(r.revision),
      createdAt: num(r.created_at),
    }));
  }

  async stuck(kind: StuckKind, tenant: string | null, before: number, limit: number): Promise<StuckRow[]> {
    const source = STUCK_SOURCES[kind];
    // The data-subject requests are the platform's: none is a tenant's.
    if (source.tenant === null && tenant !== null) return [];
    const tenantOf = source.tenant === null ? sql<string | null>`null` : sql.ref(source.tenant);
    const { rows } = await sql<{ id: string; tenant: string | null; due_at: number }>`
      select id, ${tenantOf} as tenant, ${sql.ref(source.due)} as due_at from ${sql.table(source.table)}
      where ${sql.ref(source.due)} < ${before} and ${sql.raw(source.stuck)}
        and ${source.tenant === null ? sql`true` : inTenant(tenant, source.tenant)}
      order by ${sql.ref(source.due)} limit ${limit}`.execute(this.db);
    return rows.map((r) => ({ kind, id: r.id, tenant: r.tenant, dueAt: num(r.due_at) }));
  }

  async demoBreaches(limit: number): Promise<DemoBreach[]> {
    const tenants = await this.db.selectFrom('tenants').select(['slug', 'name', 'display_name']).execute();
    const breaches: DemoBreach[] = [];
    const marked = (text: string | null) => text !== null && /\(demo\)\s*$/i.test(text);
    for (const t of tenants) {
      const demo = t.slug.startsWith('demo-');
      if (demo && (!t.name.endsWith(' (Demo)') || (t.display_name !== null && !t.display_name.endsWith(' (Demo)')))) {
        breaches.push({ rule: 'demo-name', tenant: t.slug, subject: t.display_name ?? t.name });
      }
      if (!demo && (marked(t.name) || marked(t.display_name)))
        breaches.push({ rule: 'marked-real', tenant: t.slug, subject: t.display_name ?? t.name });
    }
    const items = await this.db
      .selectFrom('wallet_items')
      .select(['id', 'tenant'])
      .where((eb) =>
        eb.or([
          eb.and([eb('demo', '=', 1), sql<boolean>`substr(tenant, 1, 5) <> 'demo-'`]),
          eb.and([eb('demo', '=', 0), sql<boolean>`substr(tenant, 1, 5) = 'demo-'`]),
        ]),
      )
      .orderBy('tenant')
      .orderBy('id')
      .limit(limit)
      .execute();
    for (const i of items) breaches.push({ rule: 'demo-item-flag', tenant: i.tenant, subject: i.id });
    return breaches.slice(0, limit);
  }

  async auditEntries(action: string, tenant: string | null, page: PageWindow<readonly [number]>): Promise<AuditRow[]> {
    let q = this.db
      .selectFrom('audit_log')
      .select(['seq', 'at', 'actor', 'tenant', 'target', 'detail'])
      .where('action', '=', action)
      .where(inTenant(tenant))
      .where(inWindow('at', page));
    if (page.after !== undefined) q = q.where('seq', '<', page.after[0]);
    const rows = await q.orderBy('seq', 'desc').limit(page.limit).execute();
    return rows.map((r) => ({
      seq: num(r.seq),
      at: num(r.at),
      actor: r.actor,
      tenant: r.tenant ?? '',
      target: r.target ?? '',
      detail: json(r.detail),
    }));
  }

  async expiring(
    what: 'credentials' | 'offers',
    tenant: string | null,
    from: number,
    to: number,
    limit: number,
  ): Promise<ExpiringGroup[]> {
    // Both tables have tenant, type_id and expires_at; what ends each one's life differs.
    const [table, ended] = what === 'credentials' ? ['issued_credentials', 'revoked_at'] : ['offers', 'collected_at'];
    const rows = await this.db
      .selectFrom(table as 'offers')
      .where(sql.ref(ended), 'is', null)
      .select((eb) => ['tenant', 'type_id', eb.fn.countAll<number | string>().as('n'), eb.fn.min('expires_at').as('first_at')])
      .where('expires_at', '>=', from)
      .where('expires_at', '<', to)
      .where(inTenant(tenant))
      .groupBy(['tenant', 'type_id'])
      .orderBy('first_at')
      .orderBy('tenant')
      .orderBy('type_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, typeId: r.type_id, count: num(r.n), firstAt: num(r.first_at) }));
  }

  async signingKeysOlderThan(tenant: string | null, before: number, limit: number): Promise<KeyRow[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .select(KEY_COLUMNS)
      .where('purpose', '=', 'issuer')
      .where('superseded_at', 'is', null)
      .where('retired_at', 'is', null)
      .where('created_at', '<', before)
      .where(inTenant(tenant))
      .orderBy('created_at')
      .orderBy('kid')
      .limit(limit)
      .execute();
    return rows.map(keyRow);
  }

  async issuanceFunnel(tenant: string | null, since: number, limit: number): Promise<FunnelRow[]> {
    const rows = await this.db
      .selectFrom('offers')
      .select((eb) => [
        'tenant',
        'type_id',
        eb.fn.countAll<number | string>().as('offered'),
        eb.fn.count<number | string>('redeemed_at').as('redeemed'),
        eb.fn.count<number | string>('collected_at').as('collected'),
      ])
      .where('created_at', '>=', since)
      .where(inTenant(tenant))
      .groupBy(['tenant', 'type_id'])
      .orderBy('offered', 'desc')
      .orderBy('tenant')
      .orderBy('type_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, typeId: r.type_id, steps: [num(r.offered), num(r.redeemed), num(r.collected)] }));
  }

  async verificationFunnel(tenant: string | null, since: number, limit: number): Promise<FunnelRow[]> {
    // The live transactions and the swept ones' daily counts, added per tenant and type.
    const rows = await sql<{
      tenant: string;
      type_id: string;
      requests: number | string;
      responses: number | string;
      accepted: number | string;
    }>`
      select tenant, type_id, sum(requests) as requests, sum(responses) as responses, sum(accepted) as accepted from (
        select tenant, type_id, requests, responses, accepted from verification_counts
        where day >= ${since} and ${inTenant(tenant)}
        union all
        select type_tenant, type_id, count(*), count(completed_at),
               sum(case when substr(outcome, 1, 10) = '{"ok":true' then 1 else 0 end)
        from presentation_transactions
        where created_at >= ${since} and ${inTenant(tenant, 'type_tenant')}
        group by type_tenant, type_id
      ) as funnel
      group by tenant, type_id
      order by sum(requests) desc, tenant, type_id
      limit ${limit}`.execute(this.db);
    return rows.rows.map((r) => ({
      tenant: r.tenant,
      typeId: r.type_id,
      steps: [num(r.requests), num(r.responses), num(r.accepted)],
    }));
  }
}
