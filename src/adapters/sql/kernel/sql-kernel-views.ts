import { type Selectable, sql } from 'kysely';
import type { AuditEntry } from '../../../core/audit-chain.ts';
import type { PageWindow } from '../../../core/page.ts';
import type {
  ActionEntry,
  ActivityQuery,
  AuditHead,
  AuditListQuery,
  AuditMark,
  EventCoverageRow,
  JobLeaseRow,
  KernelViews,
  KeyRow,
  MailRates,
  OutboxRow,
  VerificationDayCount,
} from '../../../ports/kernel-views.ts';
import type { KeyPurpose } from '../../../ports/signing-key-store.ts';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { Db } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { JobLeasesTable, SigningKeysTable } from '../schema.ts';
import { inTenant, inWindow, newestFirst } from '../windowed.ts';
import * as audit from './sql-audit-reads.ts';
import { readAuditLog, toAuditEntry } from './sql-audit-trail.ts';
import * as outbox from './sql-outbox-reads.ts';

const leases = rowCodec<JobLeaseRow, JobLeasesTable>()('name holder leaseUntil startedAt finishedAt lastError', {});
const KEY_COLUMNS = [
  'tenant',
  'kid',
  'purpose',
  'created_at',
  'superseded_at',
  'retired_at',
  'key_backend',
  'token_label',
  'object_label',
  'object_id',
] as const;
const keyRow = (r: Selectable<Pick<SigningKeysTable, (typeof KEY_COLUMNS)[number]>>): KeyRow => ({
  tenant: r.tenant,
  kid: r.kid,
  purpose: r.purpose,
  createdAt: Number(r.created_at),
  supersededAt: r.superseded_at === null ? null : Number(r.superseded_at),
  retiredAt: r.retired_at === null ? null : Number(r.retired_at),
  keyObject:
    r.key_backend === 'pkcs11' && r.token_label !== null && r.object_label !== null && r.object_id !== null
      ? { token: r.token_label, label: r.object_label, id: r.object_id }
      : null,
});
const detailOf = (text: string): Record<string, unknown> => {
  const value = JSON.parse(text) as unknown;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
};

/** A row of `collate`'s query: the position it was given. */
type Positioned = { column1: number | string };

/** The kernel's published views (ports/kernel-views.ts), on the ambient database. */
export class SqlKernelViews implements KernelViews {
  constructor(private readonly db: Db) {}

  auditEntries(fromSeq: number, limit: number): Promise<AuditEntry[]> {
    return readAuditLog(this.db, fromSeq, limit);
  }

  async auditOfActions(
    actions: readonly string[],
    target: string | undefined,
    page: PageWindow<readonly [number]>,
  ): Promise<AuditEntry[]> {
    let q = this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', 'in', [...actions])
      .where(inWindow('at', page));
    if (page.after !== undefined) q = q.where('seq', '<', page.after[0]);
    if (target !== undefined) q = q.where('target', '=', target);
    const rows = await q.orderBy('seq', 'desc').limit(page.limit).execute();
    return rows.map(toAuditEntry);
  }

  auditHead(): Promise<AuditHead> {
    return audit.auditHead(this.db);
  }

  auditEntry(seq: number): Promise<AuditEntry | undefined> {
    return audit.auditEntry(this.db, seq);
  }

  auditPage(query: AuditListQuery): Promise<AuditEntry[]> {
    return audit.auditPage(this.db, query);
  }

  auditMark(action: string, target: string, tenant: string | null): Promise<AuditMark | undefined> {
    return audit.auditMark(this.db, action, target, tenant);
  }

  auditNaming(key: string, tenant: string | null, page: SourcePage): Promise<AuditEntry[]> {
    return audit.auditNaming(this.db, key, tenant, page);
  }

  activity(query: ActivityQuery): Promise<OutboxRow[]> {
    return outbox.activity(this.db, query);
  }

  eventsNaming(key: string, tenant: string | null, page: SourcePage): Promise<OutboxRow[]> {
    return outbox.eventsNaming(this.db, key, tenant, page);
  }

  verificationsPerDay(window: {
    since: number;
    until: number;
    vct?: string;
    vctPrefix?: string;
  }): Promise<VerificationDayCount[]> {
    return outbox.verificationsPerDay(this.db, window);
  }

  async auditOfAction(action: string, tenant: string | null, page: PageWindow<readonly [number]>): Promise<ActionEntry[]> {
    let q = this.db
      .selectFrom('audit_log')
      .select(['seq', 'at', 'actor', 'tenant', 'target', 'detail'])
      .where('action', '=', action)
      .where(inTenant(tenant))
      .where(inWindow('at', page));
    if (page.after !== undefined) q = q.where('seq', '<', page.after[0]);
    const rows = await q.orderBy('seq', 'desc').limit(page.limit).execute();
    return rows.map((r) => ({
      seq: Number(r.seq),
      at: Number(r.at),
      actor: r.actor,
      tenant: r.tenant ?? '',
      target: r.target ?? '',
      detail: detailOf(r.detail),
    }));
  }

  async jobLeases(): Promise<JobLeaseRow[]> {
    const rows = await this.db.selectFrom('job_leases').selectAll().orderBy('name').execute();
    return rows.map(leases.record);
  }

  async unroutedEvents(): Promise<{ count: number; oldestAt: number | null }> {
    const row = await this.db
      .selectFrom('outbox')
      .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('routed_to', 'is', null)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), oldestAt: row.oldest === null ? null : Number(row.oldest) };
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
      if (Number(r.ok) === 1) {
        rates.sent += Number(r.n);
        continue;
      }
      rates.refused += Number(r.n);
      rates.failures[r.failure ?? 'ERROR'] = (rates.failures[r.failure ?? 'ERROR'] ?? 0) + Number(r.n);
      rates.lastRefusedAt = Math.max(rates.lastRefusedAt ?? 0, Number(r.last));
    }
    return rates;
  }

  async signingKeys(tenant: string | null, page: PageWindow<readonly [number, string]>): Promise<KeyRow[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .select(KEY_COLUMNS)
      .where(inTenant(tenant))
      .$call((q) => newestFirst(q, ['created_at', 'kid'], page))
      .execute();
    return rows.map(keyRow);
  }

  async supersededKeys(limit: number, purpose: KeyPurpose): Promise<KeyRow[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .select(KEY_COLUMNS)
      .where('purpose', '=', purpose)
      .where('superseded_at', 'is not', null)
      .where('retired_at', 'is', null)
      .orderBy('superseded_at')
      .limit(limit)
      .execute();
    return rows.map(keyRow);
  }

  async activeKeys(limit: number): Promise<KeyRow[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .select(KEY_COLUMNS)
      .where('superseded_at', 'is', null)
      .where('retired_at', 'is', null)
      .orderBy('tenant')
      .orderBy('purpose')
      .limit(limit)
      .execute();
    return rows.map(keyRow);
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

  async issuerKeys(named: readonly { tenant: string; kid: string }[]): Promise<KeyRow[]> {
    if (named.length === 0) return [];
    const rows = await this.db
      .selectFrom('signing_keys')
      .select(KEY_COLUMNS)
      .where('purpose', '=', 'issuer')
      .where(
        sql<boolean>`(${sql.join(
          named.map((k) => sql`(tenant = ${k.tenant} and kid = ${k.kid})`),
          sql` or `,
        )})`,
      )
      .execute();
    return rows.map(keyRow);
  }

  async lastSignIn(username: string): Promise<number | null> {
    // The action is a literal so that both engines read the partial index of sign-ins.
    const row = await this.db
      .selectFrom('audit_log')
      .select('at')
      .where('action', '=', sql.lit('operator.signed_in'))
      .where('target', '=', username)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.at) : null;
  }

  async collate(keys: readonly (readonly string[])[]): Promise<number[]> {
    const width = keys[0]?.length ?? 0;
    if (keys.length < 2 || width === 0) return keys.map((_, i) => i);
    // VALUES names its columns column1, column2, … on both engines; column1 is the position.
    const rows = keys.map((k, i) => sql`(${sql.lit(i)}, ${sql.join(k.map((v) => sql`${v}`))})`);
    const order = Array.from({ length: width }, (_, c) => sql.ref(`column${c + 2}`));
    const values = sql.join(rows);
    const query = sql<Positioned>`select column1 from (values ${values}) as keyed order by ${sql.join(order)}`;
    return (await query.execute(this.db)).rows.map((r) => Number(r.column1));
  }

  async eventCoverage(within: string | null, since: number): Promise<EventCoverageRow[]> {
    let q = this.db
      .selectFrom('outbox')
      .select(['tenant', 'type'])
      .select((eb) => [
        eb.fn.countAll<number>().as('events'),
        sql<number>`sum(case when ${eb.ref('routed_to')} = 0 then 1 else 0 end)`.as('unrouted'),
        sql<number>`sum(case when ${eb.ref('routed_to')} is null then 1 else 0 end)`.as('waiting'),
      ])
      .where('created_at', '>=', since);
    if (within !== null) q = q.where('tenant', '=', within);
    const rows = await q.groupBy(['tenant', 'type']).orderBy('tenant').orderBy('type').execute();
    return rows.map((r) => ({
      tenant: r.tenant,
      type: r.type,
      events: Number(r.events),
      unrouted: Number(r.unrouted ?? 0),
      waiting: Number(r.waiting ?? 0),
    }));
  }
}
