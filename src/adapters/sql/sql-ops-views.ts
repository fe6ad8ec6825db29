import { sql } from 'kysely';
import type { PageWindow } from '../../core/page.ts';
import type {
  JobLeaseRow,
  KeyRow,
  MailRates,
  OpsViews,
  RevocationRow,
  RotationRow,
  StatusListRow,
  WebhookBacklog,
  WebhookRates,
} from '../../ports/ops-views.ts';
import type { Db } from './connect.ts';
import { rowCodec } from './row-codec.ts';
import type { JobLeasesTable } from './schema.ts';
import { json, num, numOrNull } from './sql-backoffice-rows.ts';
import { inTenant, inWindow, pastCursor } from './windowed.ts';

const leases = rowCodec<JobLeaseRow, JobLeasesTable>()('name holder leaseUntil startedAt finishedAt lastError', {});

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
      .select(['tenant', 'kid', 'purpose', 'created_at', 'superseded_at', 'retired_at'])
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
      .select(['tenant', 'kid', 'purpose', 'created_at', 'superseded_at', 'retired_at'])
      .where('purpose', '=', 'issuer')
      .where('superseded_at', 'is not', null)
      .where('retired_at', 'is', null)
      .orderBy('superseded_at')
      .limit(limit)
      .execute();
    return rows.map(keyRow);
  }

  async outstandingBetween(tenant: string, from: number, to: number): Promise<number> {
    const row = await this.db
      .selectFrom('issued_credentials')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('tenant', '=', tenant)
      .where('issued_at', '>=', from)
      .where('issued_at', '<', to)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return num(row.n);
  }

  async rotations(tenant: string | null, page: PageWindow<readonly [number]>): Promise<RotationRow[]> {
    const rows = await this.auditOf('key.rotated', tenant, page);
    return rows.map((r) => ({
      seq: r.seq,
      at: r.at,
      actor: r.actor,
      tenant: r.tenant,
      kid: r.target,
      previousKid: typeof r.detail.previousKid === 'string' ? r.detail.previousKid : null,
    }));
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

  async revocations(tenant: string | null, page: PageWindow<readonly [number]>): Promise<RevocationRow[]> {
    const rows = await this.auditOf('credential.revoked', tenant, page);
    return rows.map((r) => ({
      seq: r.seq,
      at: r.at,
      actor: r.actor,
      tenant: r.tenant,
      credentialId: r.target,
      typeId: typeof r.detail.typeId === 'string' ? r.detail.typeId : null,
      reason: typeof r.detail.reason === 'string' ? r.detail.reason : null,
    }));
  }

  /** The audit entries of one action, newest first, as a page. */
  private async auditOf(action: string, tenant: string | null, page: PageWindow<readonly [number]>) {
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
}
