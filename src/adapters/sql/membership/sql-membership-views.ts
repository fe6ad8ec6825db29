import { sql } from 'kysely';
import type { CountWindow, DayCount } from '../../../ports/day-counts.ts';
import type { CoinEntry, ProposalRecord } from '../../../ports/membership-store.ts';
import type {
  AccountMembership,
  CoinEconomy,
  MemberRow,
  MembershipRow,
  MembershipViews,
  OptionCount,
} from '../../../ports/membership-views.ts';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { AccountInTenant, TenantCount, TenantWindow } from '../../../ports/view-records.ts';
import { accountLists } from '../account-lists.ts';
import type { Db } from '../connect.ts';
import { sourcePage } from '../timeline-page.ts';
import { dayOf, inTenant, inWindow, newestFirst, type TimeWindow } from '../windowed.ts';
import { toCoinEntry, toProposal } from './sql-membership-store.ts';

/** The membership module's published views of `members` (ports/membership-views.ts). */
export class SqlMembershipViews implements MembershipViews {
  constructor(private readonly db: Db) {}

  async membershipsOf(accountId: string, tenant: string | null, page: SourcePage): Promise<MembershipRow[]> {
    const query = this.db
      .selectFrom('members')
      .select(['tenant', 'tier', 'status', 'joined_at'])
      .where('account_id', '=', accountId)
      .where(inTenant(tenant));
    const rows = await sourcePage(query, 'joined_at', 'tenant', page);
    return rows.map((r) => ({ tenant: r.tenant, tier: r.tier, status: r.status, joinedAt: Number(r.joined_at) }));
  }

  async enrolledPerDay(w: CountWindow): Promise<DayCount[]> {
    const day = dayOf('joined_at');
    const rows = await this.db
      .selectFrom('members')
      .select((eb) => ['tenant', day.as('day'), eb.fn.countAll().as('n')])
      .where('joined_at', '>=', w.since)
      .where('joined_at', '<', w.until)
      .where(inTenant(w.tenant))
      .groupBy(['tenant', day])
      .execute();
    return rows.map((r) => ({ day: Number(r.day), tenant: r.tenant, typeId: null, n: Number(r.n) }));
  }

  async members(
    filter: TenantWindow & { status?: string; tier?: string },
    limit: number,
    after?: readonly [number, string, string],
  ): Promise<MemberRow[]> {
    const rows = await this.db
      .selectFrom('members')
      .select(['tenant', 'account_id', 'tier', 'status', 'balance', 'joined_at'])
      .where(inTenant(filter.tenant))
      .$if(filter.status !== undefined, (qb) => qb.where('status', '=', filter.status as string))
      .$if(filter.tier !== undefined, (qb) => qb.where('tier', '=', filter.tier as string))
      .where(inWindow('joined_at', filter))
      .$if(after !== undefined, (qb) => {
        const [at, tenant, accountId] = after as readonly [number, string, string];
        return qb.where((eb) =>
          eb.or([
            eb('joined_at', '<', at),
            eb.and([eb('joined_at', '=', at), eb(eb.refTuple('tenant', 'account_id'), '>', eb.tuple(tenant, accountId))]),
          ]),
        );
      })
      .orderBy('joined_at', 'desc')
      .orderBy('tenant')
      .orderBy('account_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      tenant: r.tenant,
      accountId: r.account_id,
      tier: r.tier,
      status: r.status,
      balance: Number(r.balance),
      joinedAt: Number(r.joined_at),
    }));
  }

  async coinEntries(
    filter: TenantWindow & { accountId?: string },
    limit: number,
    after?: readonly [number, string],
  ): Promise<CoinEntry[]> {
    const rows = await this.db
      .selectFrom('coin_entries')
      .selectAll()
      .where(inTenant(filter.tenant))
      .$if(filter.accountId !== undefined, (qb) => qb.where('account_id', '=', filter.accountId as string))
      .$call((q) => newestFirst(q, ['created_at', 'id'], { ...filter, after, limit }))
      .execute();
    return rows.map(toCoinEntry);
  }

  async proposals(
    filter: TenantWindow & { state?: string },
    limit: number,
    after?: readonly [number, string],
  ): Promise<ProposalRecord[]> {
    const rows = await this.db
      .selectFrom('proposals')
      .selectAll()
      .where(inTenant(filter.tenant))
      .$if(filter.state !== undefined, (qb) => qb.where('state', '=', filter.state as string))
      .$call((q) => newestFirst(q, ['created_at', 'id'], { ...filter, after, limit }))
      .execute();
    return rows.map(toProposal);
  }

  async optionCounts(proposalIds: readonly string[]): Promise<OptionCount[]> {
    if (proposalIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('votes')
      .select((eb) => [
        'proposal_id',
        'option',
        eb.fn.countAll<number>().as('votes'),
        eb.fn.sum<number>('assisted').as('assisted'),
      ])
      .where('proposal_id', 'in', proposalIds)
      .groupBy(['proposal_id', 'option'])
      .execute();
    return rows.map((r) => ({
      proposalId: r.proposal_id,
      option: r.option,
      votes: Number(r.votes),
      assisted: Number(r.assisted),
    }));
  }

  async economies(tenants: readonly string[], window: TimeWindow): Promise<CoinEconomy[]> {
    if (tenants.length === 0) return [];
    // Sums come back from PostgreSQL as strings: every number is read through Number.
    const [flows, members] = await Promise.all([
      this.db
        .selectFrom('coin_entries')
        .select((eb) => [
          'tenant',
          eb.fn.sum<number | string>(sql`case when delta > 0 then delta else 0 end`).as('issued'),
          eb.fn.sum<number | string>(sql`case when delta < 0 then delta else 0 end`).as('spent'),
        ])
        .where('tenant', 'in', tenants)
        .where(inWindow('created_at', window))
        .groupBy('tenant')
        .execute(),
      this.db
        .selectFrom('members')
        .select((eb) => [
          'tenant',
          eb.fn.sum<number | string>('balance').as('outstanding'),
          eb.fn.countAll<number>().as('members'),
          eb.fn.sum<number | string>(sql`case when status = 'active' then 1 else 0 end`).as('active'),
        ])
        .where('tenant', 'in', tenants)
        .groupBy('tenant')
        .execute(),
    ]);
    return tenants.map((tenant) => {
      const f = flows.find((r) => r.tenant === tenant);
      const m = members.find((r) => r.tenant === tenant);
      return {
        tenant,
        issued: Number(f?.issued ?? 0),
        // The sum of the negative entries, as a positive amount.
        spent: Math.abs(Number(f?.spent ?? 0)),
        outstanding: Number(m?.outstanding ?? 0),
        members: Number(m?.members ?? 0),
        activeMembers: Number(m?.active ?? 0),
      };
    });
  }

  accountsByPrefix(prefix: string, tenant: string | null, cap: number): Promise<AccountInTenant[]> {
    return accountLists(this.db, 'members', 'joined_at').accountsByPrefix(prefix, tenant, cap);
  }

  accounts(window: TenantWindow, after: string | undefined, limit: number): Promise<string[]> {
    return accountLists(this.db, 'members', 'joined_at').accounts(window, after, limit);
  }

  async memberships(accountIds: readonly string[], tenant: string | null): Promise<AccountMembership[]> {
    if (accountIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('members')
      .select(['account_id', 'tenant', 'tier', 'status', 'joined_at'])
      .where('account_id', 'in', accountIds)
      .where(inTenant(tenant))
      .orderBy('account_id')
      .orderBy('tenant')
      .execute();
    return rows.map((r) => ({
      accountId: r.account_id,
      tenant: r.tenant,
      tier: r.tier,
      status: r.status,
      joinedAt: Number(r.joined_at),
    }));
  }

  async membersPerTenant(tenants: readonly string[]): Promise<TenantCount[]> {
    if (tenants.length === 0) return [];
    const rows = await this.db
      .selectFrom('members')
      .select(['tenant', (eb) => eb.fn.countAll().as('n')])
      .where('tenant', 'in', [...tenants])
      .where('status', '<>', 'erased')
      .groupBy('tenant')
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, count: Number(r.n) }));
  }
}
