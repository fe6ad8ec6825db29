import { type ExpressionBuilder, sql } from 'kysely';
import type {
  BackofficePeopleReads,
  ConsentRow,
  EconomyRow,
  MemberRow,
  OptionCount,
  PeopleWindow,
} from '../../../ports/backoffice-people.ts';
import type { CoinEntry, ProposalRecord } from '../../../ports/membership-store.ts';
import type { Db } from '../connect.ts';
import { toCoinEntry, toProposal } from '../membership/sql-membership-store.ts';
import type { Database, TenantsTable } from '../schema.ts';
import { inTenant, inWindow, pastCursor } from '../windowed.ts';

const SIGNED_IN = sql.lit('operator.signed_in');

/**
 * The back office's people views (docs/backoffice/people.md), read across tenants with the query
 * builder on both engines. Sums and counts come back from PostgreSQL as strings, so every number
 * is read through Number.
 */
export class SqlBackofficePeople implements BackofficePeopleReads {
  constructor(private readonly db: Db) {}

  async members(
    filter: PeopleWindow & { status?: string; tier?: string },
    limit: number,
    after?: readonly [number, string, string],
  ): Promise<MemberRow[]> {
    let query = this.db.selectFrom('members').select(['tenant', 'account_id', 'tier', 'status', 'balance', 'joined_at']);
    query = query.where(inTenant(filter.tenant));
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.tier !== undefined) query = query.where('tier', '=', filter.tier);
    query = query.where(inWindow('joined_at', filter));
    if (after) {
      const [at, tenant, accountId] = after;
      query = query.where((eb) =>
        eb.or([
          eb('joined_at', '<', at),
          eb.and([eb('joined_at', '=', at), eb(eb.refTuple('tenant', 'account_id'), '>', eb.tuple(tenant, accountId))]),
        ]),
      );
    }
    const rows = await query.orderBy('joined_at', 'desc').orderBy('tenant').orderBy('account_id').limit(limit).execute();
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
    filter: PeopleWindow & { accountId?: string },
    limit: number,
    after?: readonly [number, string],
  ): Promise<CoinEntry[]> {
    let query = this.db.selectFrom('coin_entries').selectAll();
    query = query.where(inTenant(filter.tenant));
    if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
    query = query.where(inWindow('created_at', filter));
    query = query.where(pastCursor(['created_at', 'id'], after, 'desc'));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toCoinEntry);
  }

  async proposals(
    filter: PeopleWindow & { state?: string },
    limit: number,
    after?: readonly [number, string],
  ): Promise<ProposalRecord[]> {
    let query = this.db.selectFrom('proposals').selectAll();
    query = query.where(inTenant(filter.tenant));
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    query = query.where(inWindow('created_at', filter));
    query = query.where(pastCursor(['created_at', 'id'], after, 'desc'));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
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

  async consent(
    filter: PeopleWindow & { accountId?: string },
    limit: number,
    after?: readonly [string, string, string],
  ): Promise<ConsentRow[]> {
    let query = this.db
      .selectFrom('share_settings as s')
      .innerJoin('wallet_items as i', 'i.id', 's.item_id')
      .leftJoin('channels as c', (join) => join.onRef('c.tenant', '=', 's.tenant').onRef('c.account_id', '=', 's.account_id'))
      .select((eb) => [
        's.tenant',
        's.account_id',
        's.item_id',
        's.elements',
        'i.tenant as item_tenant',
        'i.kind as item_kind',
        'c.state as channel',
        eb
          .selectFrom('sharing_log as l')
          .select((l) => l.fn.max('l.at').as('at'))
          .whereRef('l.account_id', '=', 's.account_id')
          .whereRef('l.item_id', '=', 's.item_id')
          .whereRef('l.tenant', '=', 's.tenant')
          .as('since'),
      ]);
    query = query.where(inTenant(filter.tenant, 's.tenant'));
    if (filter.accountId !== undefined) query = query.where('s.account_id', '=', filter.accountId);
    if (filter.since !== undefined || filter.until !== undefined) {
      const since = filter.since;
      const until = filter.until;
      query = query.where((eb) => {
        const newest = eb
          .selectFrom('sharing_log as l')
          .select((l) => l.fn.max('l.at').as('at'))
          .whereRef('l.account_id', '=', 's.account_id')
          .whereRef('l.item_id', '=', 's.item_id')
          .whereRef('l.tenant', '=', 's.tenant');
        return eb.and([
          ...(since === undefined ? [] : [eb(newest, '>=', since)]),
          ...(until === undefined ? [] : [eb(newest, '<', until)]),
        ]);
      });
    }
    if (after) {
      const [tenant, accountId, itemId] = after;
      query = query.where((eb) =>
        eb.or([
          eb('s.tenant', '>', tenant),
          eb.and([
            eb('s.tenant', '=', tenant),
            eb.or([
              eb('s.account_id', '>', accountId),
              eb.and([eb('s.account_id', '=', accountId), eb('s.item_id', '>', itemId)]),
            ]),
          ]),
        ]),
      );
    }
    const rows = await query.orderBy('s.tenant').orderBy('s.account_id').orderBy('s.item_id').limit(limit).execute();
    return rows.map((r) => ({
      tenant: r.tenant,
      accountId: r.account_id,
      itemId: r.item_id,
      itemTenant: r.item_tenant,
      itemKind: r.item_kind,
      elements: JSON.parse(r.elements),
      channel: r.channel ?? 'none',
      since: r.since === null || r.since === undefined ? null : Number(r.since),
    }));
  }

  async economy(filter: PeopleWindow, limit: number, after?: string): Promise<EconomyRow[]> {
    const flows = (eb: ExpressionBuilder<Database & { t: TenantsTable }, 't'>, sign: '>' | '<') => {
      let sub = eb
        .selectFrom('coin_entries as e')
        .select((e) => e.fn.coalesce(e.fn.sum<number>('e.delta'), sql<number>`0`).as('n'))
        .whereRef('e.tenant', '=', 't.slug')
        .where('e.delta', sign, 0);
      sub = sub.where(inWindow('e.created_at', filter));
      return sub;
    };
    let query = this.db.selectFrom('tenants as t').select((eb) => [
      't.slug',
      flows(eb, '>').as('issued'),
      flows(eb, '<').as('spent'),
      eb
        .selectFrom('members as m')
        .select((m) => m.fn.coalesce(m.fn.sum<number>('m.balance'), sql<number>`0`).as('n'))
        .whereRef('m.tenant', '=', 't.slug')
        .as('outstanding'),
      eb
        .selectFrom('members as m')
        .select((m) => m.fn.countAll<number>().as('n'))
        .whereRef('m.tenant', '=', 't.slug')
        .as('members'),
      eb
        .selectFrom('members as m')
        .select((m) => m.fn.countAll<number>().as('n'))
        .whereRef('m.tenant', '=', 't.slug')
        .where('m.status', '=', 'active')
        .as('active_members'),
    ]);
    query = query.where(inTenant(filter.tenant, 't.slug'));
    if (after !== undefined) query = query.where('t.slug', '>', after);
    const rows = await query.orderBy('t.slug').limit(limit).execute();
    return rows.map((r) => ({
      tenant: r.slug,
      issued: Number(r.issued ?? 0),
      spent: -Number(r.spent ?? 0),
      outstanding: Number(r.outstanding ?? 0),
      members: Number(r.members ?? 0),
      activeMembers: Number(r.active_members ?? 0),
    }));
  }

  async lastSignIn(username: string): Promise<number | null> {
    // The action is a literal so that both engines read the partial index of sign-ins.
    const row = await this.db
      .selectFrom('audit_log')
      .select('at')
      .where('action', '=', SIGNED_IN)
      .where('target', '=', username)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.at) : null;
  }
}
