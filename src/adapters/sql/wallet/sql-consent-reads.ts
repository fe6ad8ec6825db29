import type { ExpressionBuilder } from 'kysely';
import type { TenantWindow } from '../../../ports/view-records.ts';
import type { ConsentRow } from '../../../ports/wallet-views.ts';
import type { Db } from '../connect.ts';
import type { Database, ShareSettingsTable } from '../schema.ts';
import { inTenant } from '../windowed.ts';

/** When a setting took its present elements: the newest entry of the sharing log for its account, item and tenant. */
const newestShare = (eb: ExpressionBuilder<Database & { s: ShareSettingsTable }, 's'>) =>
  eb
    .selectFrom('sharing_log as l')
    .select((l) => l.fn.max('l.at').as('at'))
    .whereRef('l.account_id', '=', 's.account_id')
    .whereRef('l.item_id', '=', 's.item_id')
    .whereRef('l.tenant', '=', 's.tenant');

/**
 * What holders share with which tenant, per item (ports/wallet-views.ts, `consent`): the settings,
 * their item, the channel's state and the setting's time, by (tenant, account, item).
 */
export async function consentPage(
  db: Db,
  filter: TenantWindow & { accountId?: string },
  limit: number,
  after?: readonly [string, string, string],
): Promise<ConsentRow[]> {
  const { since, until } = filter;
  const rows = await db
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
      newestShare(eb).as('since'),
    ])
    .where(inTenant(filter.tenant, 's.tenant'))
    .$if(filter.accountId !== undefined, (qb) => qb.where('s.account_id', '=', filter.accountId as string))
    .$if(since !== undefined || until !== undefined, (qb) =>
      qb.where((eb) =>
        eb.and([
          ...(since === undefined ? [] : [eb(newestShare(eb), '>=', since)]),
          ...(until === undefined ? [] : [eb(newestShare(eb), '<', until)]),
        ]),
      ),
    )
    .$if(after !== undefined, (qb) => {
      const [tenant, accountId, itemId] = after as readonly [string, string, string];
      return qb.where((eb) =>
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
    })
    .orderBy('s.tenant')
    .orderBy('s.account_id')
    .orderBy('s.item_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    tenant: r.tenant,
    accountId: r.account_id,
    itemId: r.item_id,
    itemTenant: r.item_tenant,
    itemKind: r.item_kind,
    elements: JSON.parse(r.elements) as string[],
    channel: r.channel ?? 'none',
    since: r.since === null || r.since === undefined ? null : Number(r.since),
  }));
}
