import { type SqlBool, sql } from 'kysely';
import { isIdLike } from '../../core/ids.ts';
import type {
  AuditMark,
  BackofficeViews,
  Counted,
  CredentialFilter,
  CredentialRow,
  DeadDelivery,
  HolderDetail,
  HolderSummary,
  LookupMatch,
  OfferRow,
  OperatorHit,
  PartnerHit,
  PartnerInReview,
  PendingProvisioning,
  StatusRef,
  Subject,
  TenantHit,
  TimelineCursor,
  TimelineEntry,
  TypeHit,
  TypeUsage,
} from '../../ports/backoffice-views.ts';
import type { Db } from './connect.ts';
import {
  CREDENTIAL_COLUMNS,
  containsCi,
  like,
  num,
  numOrNull,
  OFFER_COLUMNS,
  startsWith,
  toCredential,
  toOffer,
} from './sql-backoffice-rows.ts';
import { readTimeline } from './sql-backoffice-timeline.ts';
import { inTenant, inWindow } from './windowed.ts';

/**
 * The back office's read models over the tables the features keep (docs/backoffice/views.md).
 * Read-only: every query here is a SELECT. The offers' `subject` column (claim values until the
 * credential is collected) is never selected; `subject is not null` is read as "still live" only.
 * A subject's timeline is sql-backoffice-timeline.ts; what both share, sql-backoffice-rows.ts.
 */
export class SqlBackofficeViews implements BackofficeViews {
  constructor(private readonly db: Db) {}

  async searchTenants(q: string, tenant: string | null, cap: number): Promise<TenantHit[]> {
    const rows = await this.db
      .selectFrom('tenants')
      .select(['slug', 'name'])
      .where((eb) => eb.or([containsCi('slug', q), containsCi('name', q)]))
      .where(inTenant(tenant, 'slug'))
      .orderBy('slug')
      .limit(cap)
      .execute();
    return rows.map((r) => ({ slug: r.slug, name: r.name }));
  }

  async searchTypes(q: string, tenant: string | null, cap: number): Promise<TypeHit[]> {
    const rows = await this.db
      .selectFrom('credential_types')
      .select(['tenant', 'type_id', 'name'])
      .where((eb) => eb.or([containsCi('type_id', q), containsCi('name', q)]))
      .where(inTenant(tenant))
      .orderBy('tenant')
      .orderBy('type_id')
      .limit(cap)
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, typeId: r.type_id, name: r.name }));
  }

  async credentialsByStatus(ref: StatusRef, tenant: string | null, cap: number): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .where('idx', '=', ref.idx)
      .$if(ref.listSeq !== undefined, (qb) => qb.where('list_seq', '=', ref.listSeq as number))
      .where(inTenant(tenant))
      .orderBy('tenant')
      .orderBy('list_seq')
      .limit(cap)
      .execute();
    return rows.map(toCredential);
  }

  async credentialsByIdPrefix(prefix: string, tenant: string | null, cap: number): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .where(startsWith('id', prefix))
      .where(inTenant(tenant))
      .orderBy('id')
      .limit(cap)
      .execute();
    return rows.map(toCredential);
  }

  async holdersByPrefix(prefix: string, tenant: string | null, cap: number) {
    const known = this.db
      .selectFrom('members')
      .select(['account_id', 'tenant'])
      .where(startsWith('account_id', prefix))
      .where(inTenant(tenant))
      .union(
        this.db
          .selectFrom('wallet_items')
          .select(['account_id', 'tenant'])
          .where(startsWith('account_id', prefix))
          .where(inTenant(tenant)),
      );
    const rows = await this.db
      .selectFrom(known.as('known'))
      .select(['known.account_id', 'known.tenant'])
      .orderBy('known.account_id')
      .orderBy('known.tenant')
      .limit(cap)
      .execute();
    return rows.map((r) => ({ accountId: r.account_id, tenant: r.tenant }));
  }

  async searchPartners(q: string, tenant: string | null, cap: number): Promise<PartnerHit[]> {
    const rows = await this.db
      .selectFrom('partner_applications')
      .select(['id', 'organisation', 'kind', 'stage', 'tenant'])
      .where((eb) => eb.or([startsWith('id', q), containsCi('organisation', q)]))
      .where(inTenant(tenant))
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(cap)
      .execute();
    return rows.map((r) => ({
      applicationId: r.id,
      organisation: r.organisation,
      kind: r.kind,
      stage: r.stage,
      tenant: r.tenant,
    }));
  }

  async operatorsByPrefix(prefix: string, tenant: string | null, cap: number): Promise<OperatorHit[]> {
    const rows = await this.db
      .selectFrom('operators')
      .select(['username', 'roles', 'tenant', 'status'])
      .where(sql<SqlBool>`lower(${sql.ref('username')}) like ${`${like(prefix.toLowerCase())}%`} escape '\\'`)
      .where('status', '<>', 'removed')
      .where(inTenant(tenant))
      .orderBy('username')
      .limit(cap)
      .execute();
    return rows.map((r) => ({
      username: r.username,
      roles: JSON.parse(r.roles) as string[],
      tenant: r.tenant,
      status: r.status,
    }));
  }

  async deadDeliveries(tenant: string | null, top: number): Promise<Counted<DeadDelivery>> {
    const base = this.db.selectFrom('webhook_deliveries').where('state', '=', 'dead').where(inTenant(tenant));
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      base
        .select(['id', 'webhook_id', 'tenant', 'event_type', 'failures', 'last_status', 'finished_at'])
        .orderBy('finished_at', 'desc')
        .orderBy('seq', 'desc')
        .limit(top)
        .execute(),
    ]);
    return {
      count: num(count.n),
      top: rows.map((r) => ({
        deliveryId: r.id,
        webhookId: r.webhook_id,
        tenant: r.tenant,
        eventType: r.event_type,
        failures: num(r.failures),
        lastStatus: numOrNull(r.last_status),
        finishedAt: numOrNull(r.finished_at),
      })),
    };
  }

  async pendingProvisioning(tenant: string | null, now: number, top: number): Promise<Counted<PendingProvisioning>> {
    const base = this.db
      .selectFrom('provisioning_requests')
      .where('state', '=', 'pending')
      .where('expires_at', '>', now)
      .where(inTenant(tenant));
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      base
        .select(['id', 'tenant', 'label', 'requested_by', 'created_at', 'expires_at'])
        .orderBy('created_at')
        .orderBy('id')
        .limit(top)
        .execute(),
    ]);
    return {
      count: num(count.n),
      top: rows.map((r) => ({
        requestId: r.id,
        tenant: r.tenant,
        label: r.label,
        requestedBy: r.requested_by,
        createdAt: num(r.created_at),
        expiresAt: num(r.expires_at),
      })),
    };
  }

  async partnersInReview(stages: readonly string[], top: number): Promise<Counted<PartnerInReview>> {
    const base = this.db.selectFrom('partner_applications').where('stage', 'in', [...stages]);
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      base.select(['id', 'organisation', 'kind', 'stage', 'stage_at']).orderBy('stage_at').orderBy('id').limit(top).execute(),
    ]);
    return {
      count: num(count.n),
      top: rows.map((r) => ({
        applicationId: r.id,
        organisation: r.organisation,
        kind: r.kind,
        stage: r.stage,
        stageAt: num(r.stage_at),
      })),
    };
  }

  async expiringOffers(tenant: string | null, from: number, to: number, top: number): Promise<Counted<OfferRow>> {
    const base = this.db
      .selectFrom('offers')
      .where('expires_at', '>=', from)
      .where('expires_at', '<', to)
      .where('redeemed_at', 'is', null)
      .where('collected_at', 'is', null)
      .where('subject', 'is not', null)
      .where(inTenant(tenant));
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      base.select(OFFER_COLUMNS).orderBy('expires_at').orderBy('id').limit(top).execute(),
    ]);
    return { count: num(count.n), top: rows.map(toOffer) };
  }

  async lookup(q: string, tenant: string | null, cap: number): Promise<LookupMatch[]> {
    const matches: LookupMatch[] = [];
    const credential = (c: CredentialRow): LookupMatch => ({
      kind: 'credential',
      id: c.id,
      tenant: c.tenant,
      accountId: c.accountId,
      typeId: c.typeId,
      state: c.revokedAt === null ? 'valid' : 'revoked',
      at: c.issuedAt,
    });
    if (isIdLike('credential', q)) {
      const found = await this.credential(q, tenant);
      if (found) matches.push(credential(found));
    }
    if (isIdLike('offer', q)) {
      const offer = await this.offer(q, tenant);
      if (offer) {
        matches.push({
          kind: 'offer',
          id: offer.id,
          tenant: offer.tenant,
          accountId: null,
          typeId: offer.typeId,
          state: offer.collectedAt !== null ? 'collected' : offer.redeemedAt !== null ? 'redeemed' : 'open',
          at: offer.createdAt,
        });
        const issued = await this.db
          .selectFrom('issued_credentials')
          .select(CREDENTIAL_COLUMNS)
          .where('offer_id', '=', q)
          .where(inTenant(tenant))
          .orderBy('issued_at')
          .orderBy('id')
          .limit(cap)
          .execute();
        matches.push(...issued.map(toCredential).map(credential));
      }
    }
    if (isIdLike('item', q)) {
      const item = await this.db
        .selectFrom('wallet_items')
        .select(['id', 'tenant', 'account_id', 'kind', 'state', 'created_at'])
        .where('id', '=', q)
        .where(inTenant(tenant))
        .executeTakeFirst();
      if (item) {
        matches.push({
          kind: 'item',
          id: item.id,
          tenant: item.tenant,
          accountId: item.account_id,
          typeId: null,
          state: `${item.kind}:${item.state}`,
          at: num(item.created_at),
        });
      }
    }
    if (isIdLike('transaction', q)) {
      const tx = await this.db
        .selectFrom('presentation_transactions')
        .select(['id', 'type_tenant', 'type_id', 'holder_thumbprint', 'created_at', 'completed_at'])
        .where('id', '=', q)
        .where(inTenant(tenant, 'type_tenant'))
        .executeTakeFirst();
      if (tx) {
        matches.push({
          kind: 'transaction',
          id: tx.id,
          tenant: tx.type_tenant,
          accountId: tx.holder_thumbprint,
          typeId: tx.type_id,
          state: tx.completed_at === null ? 'open' : 'completed',
          at: num(tx.created_at),
        });
      }
    }
    if (/^[A-Za-z0-9_-]{43}$/.test(q)) {
      const known = await this.accountTenants(q, tenant);
      matches.push(
        ...known.map(
          (t): LookupMatch => ({ kind: 'holder', id: q, tenant: t, accountId: q, typeId: null, state: null, at: null }),
        ),
      );
    }
    const status = /^(?:([1-9][0-9]{0,8}):)?([0-9]{1,9})$/.exec(q);
    if (status) {
      const ref = { idx: Number(status[2]), ...(status[1] ? { listSeq: Number(status[1]) } : {}) };
      matches.push(...(await this.credentialsByStatus(ref, tenant, cap)).map(credential));
    }
    if (/^[A-Za-z0-9._:-]{1,64}$/.test(q)) {
      const deposits = await this.db
        .selectFrom('deposits')
        .select(['deposit_id', 'tenant', 'account_id', 'created_at', 'erased_at'])
        .where('deposit_id', '=', q)
        .where(inTenant(tenant))
        .orderBy('tenant')
        .limit(cap)
        .execute();
      matches.push(
        ...deposits.map(
          (d): LookupMatch => ({
            kind: 'deposit',
            id: d.deposit_id,
            tenant: d.tenant,
            accountId: d.account_id === '' ? null : d.account_id,
            typeId: null,
            state: d.erased_at === null ? 'kept' : 'erased',
            at: num(d.created_at),
          }),
        ),
      );
    }
    return matches.slice(0, cap);
  }

  /** The tenants that hold something of an account: a membership, an item, a channel, a deposit, a credential. */
  private async accountTenants(accountId: string, tenant: string | null): Promise<string[]> {
    const of = <T extends 'members' | 'wallet_items' | 'channels' | 'deposits'>(table: T) =>
      this.db
        .selectFrom(table as 'members')
        .select('tenant')
        .where('account_id', '=', accountId)
        .where(inTenant(tenant));
    const rows = await of('members')
      .union(of('wallet_items'))
      .union(of('channels'))
      .union(of('deposits'))
      .union(
        this.db
          .selectFrom('issued_credentials')
          .select('tenant')
          .where('holder_thumbprint', '=', accountId)
          .where(inTenant(tenant)),
      )
      .execute();
    return rows.map((r) => r.tenant).sort();
  }

  async offer(id: string, tenant: string | null): Promise<OfferRow | undefined> {
    const row = await this.db
      .selectFrom('offers')
      .select(OFFER_COLUMNS)
      .where('id', '=', id)
      .where(inTenant(tenant))
      .executeTakeFirst();
    return row && toOffer(row);
  }

  async credential(id: string, tenant: string | null): Promise<CredentialRow | undefined> {
    const row = await this.db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .where('id', '=', id)
      .where(inTenant(tenant))
      .executeTakeFirst();
    return row && toCredential(row);
  }

  async auditMark(action: string, target: string, tenant: string | null): Promise<AuditMark | undefined> {
    const row = await this.db
      .selectFrom('audit_log')
      .select(['seq', 'at', 'actor'])
      .where('target', '=', target)
      .where('action', '=', action)
      .where(inTenant(tenant))
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    return row && { seq: num(row.seq), at: num(row.at), actor: row.actor };
  }

  timeline(subject: Subject, tenant: string | null, cursor: TimelineCursor | undefined, limit: number): Promise<TimelineEntry[]> {
    return readTimeline(this.db, subject, tenant, cursor, limit, (id) => this.credential(id, tenant));
  }

  async credentials(f: CredentialFilter): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .where(inTenant(f.tenant))
      .$if(f.typeId !== undefined, (qb) => qb.where('type_id', '=', f.typeId as string))
      .$if(f.status === 'valid', (qb) => qb.where('revoked_at', 'is', null))
      .$if(f.status === 'revoked', (qb) => qb.where('revoked_at', 'is not', null))
      .where(inWindow('issued_at', f))
      .$if(f.after !== undefined, (qb) => {
        const [at, id] = f.after as [number, string];
        return qb.where((eb) => eb(eb.refTuple('issued_at', 'id'), '<', eb.tuple(at, id)));
      })
      .orderBy('issued_at', 'desc')
      .orderBy('id', 'desc')
      .limit(f.limit)
      .execute();
    return rows.map(toCredential);
  }

  /** Types with how many offers and credentials each has (correlated counts: both tables are indexed by tenant and type). */
  private usage() {
    return this.db
      .selectFrom('credential_types as ct')
      .select(['ct.tenant', 'ct.type_id', 'ct.name', 'ct.claims', 'ct.created_at'])
      .select((eb) => [
        eb
          .selectFrom('offers')
          .select(eb.fn.countAll().as('n'))
          .whereRef('offers.tenant', '=', 'ct.tenant')
          .whereRef('offers.type_id', '=', 'ct.type_id')
          .as('offers'),
        eb
          .selectFrom('issued_credentials')
          .select(eb.fn.countAll().as('n'))
          .whereRef('issued_credentials.tenant', '=', 'ct.tenant')
          .whereRef('issued_credentials.type_id', '=', 'ct.type_id')
          .as('issued'),
        eb
          .selectFrom('issued_credentials')
          .select(eb.fn.countAll().as('n'))
          .whereRef('issued_credentials.tenant', '=', 'ct.tenant')
          .whereRef('issued_credentials.type_id', '=', 'ct.type_id')
          .where('issued_credentials.revoked_at', 'is not', null)
          .as('revoked'),
      ]);
  }

  private static toUsage(r: {
    tenant: string;
    type_id: string;
    name: string;
    claims: string;
    created_at: number;
    offers: unknown;
    issued: unknown;
    revoked: unknown;
  }): TypeUsage {
    return {
      tenant: r.tenant,
      typeId: r.type_id,
      name: r.name,
      claims: JSON.parse(r.claims) as string[],
      createdAt: num(r.created_at),
      offers: num(r.offers ?? 0),
      issued: num(r.issued ?? 0),
      revoked: num(r.revoked ?? 0),
    };
  }

  async typeUsage(
    tenant: string | null,
    window: { since?: number; until?: number },
    afterKey: [string, string] | undefined,
    limit: number,
  ): Promise<TypeUsage[]> {
    const rows = await this.usage()
      .where(inTenant(tenant, 'ct.tenant'))
      .where(inWindow('ct.created_at', window))
      .$if(afterKey !== undefined, (qb) => {
        const [t, id] = afterKey as [string, string];
        return qb.where((eb) => eb.or([eb('ct.tenant', '>', t), eb.and([eb('ct.tenant', '=', t), eb('ct.type_id', '>', id)])]));
      })
      .orderBy('ct.tenant')
      .orderBy('ct.type_id')
      .limit(limit)
      .execute();
    return rows.map(SqlBackofficeViews.toUsage);
  }

  async oneTypeUsage(tenant: string, typeId: string): Promise<TypeUsage | undefined> {
    const row = await this.usage().where('ct.tenant', '=', tenant).where('ct.type_id', '=', typeId).executeTakeFirst();
    return row && SqlBackofficeViews.toUsage(row);
  }

  async typesByTypeId(
    tenant: string | null,
    window: { since?: number; until?: number },
    afterId: string | undefined,
    limit: number,
  ) {
    const ids = await this.db
      .selectFrom('credential_types')
      .select('type_id')
      .distinct()
      .where(inTenant(tenant))
      .where(inWindow('created_at', window))
      .$if(afterId !== undefined, (qb) => qb.where('type_id', '>', afterId as string))
      .orderBy('type_id')
      .limit(limit)
      .execute();
    if (ids.length === 0) return [];
    const typeIds = ids.map((r) => r.type_id);
    const rows = await this.usage()
      .where('ct.type_id', 'in', typeIds)
      .where(inTenant(tenant, 'ct.tenant'))
      .where(inWindow('ct.created_at', window))
      .orderBy('ct.tenant')
      .execute();
    const uses = rows.map(SqlBackofficeViews.toUsage);
    return typeIds.map((typeId) => ({ typeId, uses: uses.filter((u) => u.typeId === typeId) }));
  }

  async holders(
    tenant: string | null,
    window: { since?: number; until?: number },
    afterId: string | undefined,
    limit: number,
  ): Promise<HolderSummary[]> {
    const members = this.db
      .selectFrom('members')
      .select('account_id')
      .where(inTenant(tenant))
      .where(inWindow('joined_at', window));
    const items = this.db
      .selectFrom('wallet_items')
      .select('account_id')
      .where(inTenant(tenant))
      .where(inWindow('created_at', window));
    const page = await this.db
      .selectFrom(members.union(items).as('known'))
      .select('known.account_id')
      .where('known.account_id', '<>', '')
      .$if(afterId !== undefined, (qb) => qb.where('known.account_id', '>', afterId as string))
      .orderBy('known.account_id')
      .limit(limit)
      .execute();
    if (page.length === 0) return [];
    const ids = page.map((r) => r.account_id);
    const [memberships, itemCounts] = await Promise.all([
      this.db
        .selectFrom('members')
        .select(['account_id', 'tenant'])
        .where('account_id', 'in', ids)
        .where(inTenant(tenant))
        .execute(),
      this.db
        .selectFrom('wallet_items')
        .select(['account_id', 'tenant'])
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', 'in', ids)
        .groupBy(['account_id', 'tenant'])
        .where(inTenant(tenant))
        .execute(),
    ]);
    return ids.map((accountId) => {
      const own = memberships.filter((m) => m.account_id === accountId);
      const its = itemCounts.filter((i) => i.account_id === accountId);
      const tenants = [...new Set([...own.map((m) => m.tenant), ...its.map((i) => i.tenant)])].sort();
      return { accountId, tenants, memberships: own.length, items: its.reduce((n, i) => n + num(i.n), 0) };
    });
  }

  async holder(accountId: string, tenant: string | null, now: number): Promise<HolderDetail | undefined> {
    // A pending item past its expiry reads `expired` (docs/wallet.md), as the holder sees it;
    // grouped by its output name, since the expression's parameter would not match itself.
    const state = sql<string>`case when ${sql.ref('state')} = 'pending' and ${sql.ref('expires_at')} is not null and ${sql.ref('expires_at')} <= ${now} then 'expired' else ${sql.ref('state')} end`;
    const [memberships, items, channels, credentials, deposits, listing] = await Promise.all([
      this.db
        .selectFrom('members')
        .select(['tenant', 'tier', 'status', 'joined_at'])
        .where('account_id', '=', accountId)
        .where(inTenant(tenant))
        .orderBy('tenant')
        .execute(),
      this.db
        .selectFrom('wallet_items')
        .select(['tenant', 'kind', state.as('shown')])
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .groupBy(['tenant', 'kind', sql.ref('shown')])
        .where(inTenant(tenant))
        .execute(),
      this.db
        .selectFrom('channels')
        .select(['tenant', 'state', 'elements', 'requested_by', 'created_at', 'updated_at'])
        .where('account_id', '=', accountId)
        .where(inTenant(tenant))
        .orderBy('tenant')
        .execute(),
      this.db
        .selectFrom('issued_credentials')
        .select('tenant')
        .select((eb) => [eb.fn.countAll().as('issued'), eb.fn.count('revoked_at').as('revoked')])
        .where('holder_thumbprint', '=', accountId)
        .groupBy('tenant')
        .where(inTenant(tenant))
        .orderBy('tenant')
        .execute(),
      this.db
        .selectFrom('deposits')
        .select('tenant')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .groupBy('tenant')
        .where(inTenant(tenant))
        .orderBy('tenant')
        .execute(),
      this.db
        .selectFrom('directory_listings')
        .select('community')
        .where('account_id', '=', accountId)
        .where(inTenant(tenant, 'community'))
        .executeTakeFirst(),
    ]);
    if (memberships.length + items.length + channels.length + credentials.length + deposits.length === 0 && !listing) {
      return undefined;
    }
    return {
      accountId,
      memberships: memberships.map((m) => ({ tenant: m.tenant, tier: m.tier, status: m.status, joinedAt: num(m.joined_at) })),
      items: items
        .map((i) => ({ tenant: i.tenant, kind: i.kind, state: i.shown, count: num(i.n) }))
        .sort((a, b) => a.tenant.localeCompare(b.tenant) || a.kind.localeCompare(b.kind) || a.state.localeCompare(b.state)),
      channels: channels.map((c) => ({
        tenant: c.tenant,
        state: c.state,
        elements: JSON.parse(c.elements) as string[],
        requestedBy: c.requested_by,
        createdAt: num(c.created_at),
        updatedAt: num(c.updated_at),
      })),
      credentials: credentials.map((c) => ({ tenant: c.tenant, issued: num(c.issued), revoked: num(c.revoked) })),
      deposits: deposits.map((d) => ({ tenant: d.tenant, count: num(d.n) })),
      directoryListed: listing !== undefined,
    };
  }
}
