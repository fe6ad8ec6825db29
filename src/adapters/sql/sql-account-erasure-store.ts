import { sql } from 'kysely';
import type {
  AccountErasureStore,
  DiskState,
  EndedOffer,
  ErasureCounts,
  ErasureOutcome,
  ErasureReceipt,
} from '../../ports/account-erasure-store.ts';
import { randomText } from '../crypto/random-pool.ts';
import type { Db } from './connect.ts';

const n = (result: { numDeletedRows?: bigint; numUpdatedRows?: bigint }) =>
  Number(result.numDeletedRows ?? result.numUpdatedRows ?? 0n);

/**
 * The erasure of an account (docs/account.md, "Erasure"), table by table. Meant to run on a unit
 * of work's transaction: `erase` and `remaining` then see one state, and a failure undoes all.
 */
export class SqlAccountErasureStore implements AccountErasureStore {
  constructor(private readonly db: Db) {}

  async erase(accountId: string, now: number, rateKeys: readonly string[]): Promise<ErasureOutcome> {
    const db = this.db;
    const tenants = new Set<string>();
    const note = (rows: Array<{ tenant: string }>) => {
      for (const r of rows) tenants.add(r.tenant);
    };
    const items = await db
      .selectFrom('wallet_items')
      .select(['id', 'tenant', 'kind', 'ref'])
      .where('account_id', '=', accountId)
      .execute();
    note(items);
    note(await db.selectFrom('members').select('tenant').where('account_id', '=', accountId).execute());
    note(await db.selectFrom('channels').select('tenant').where('account_id', '=', accountId).execute());
    note(await db.selectFrom('deposits').select('tenant').where('account_id', '=', accountId).execute());
    note(
      await db.selectFrom('issued_credentials').select('tenant').where('holder_thumbprint', '=', accountId).distinct().execute(),
    );

    // An offer made out to the account and not collected holds claims about it: end it now.
    const endedOffers: EndedOffer[] = [];
    for (const item of items.filter((i) => i.kind === 'offer')) {
      const ended = await db
        .updateTable('offers')
        .set({
          subject: null,
          erase_after: now,
          expires_at: sql<number>`case when expires_at > ${now} then ${now} else expires_at end`,
        })
        .where('tenant', '=', item.tenant)
        .where('id', '=', item.ref)
        .where('subject', 'is not', null)
        .returning(['id', 'tenant', 'type_id', 'redeemed_at'])
        .execute();
      for (const o of ended)
        endedOffers.push({ id: o.id, tenant: o.tenant, typeId: o.type_id, redeemed: o.redeemed_at !== null });
    }

    const counts: ErasureCounts = {
      offers: endedOffers.length,
      deposits: n(
        await db
          .updateTable('deposits')
          .set({ body: '', body_hash: '', account_id: '', erased_at: now })
          .where('account_id', '=', accountId)
          .executeTakeFirst(),
      ),
      walletItems: n(await db.deleteFrom('wallet_items').where('account_id', '=', accountId).executeTakeFirst()),
      shareSettings: n(await db.deleteFrom('share_settings').where('account_id', '=', accountId).executeTakeFirst()),
      sharingLog: n(await db.deleteFrom('sharing_log').where('account_id', '=', accountId).executeTakeFirst()),
      channels: n(await db.deleteFrom('channels').where('account_id', '=', accountId).executeTakeFirst()),
      coinEntries: n(await db.deleteFrom('coin_entries').where('account_id', '=', accountId).executeTakeFirst()),
      members: n(await db.deleteFrom('members').where('account_id', '=', accountId).executeTakeFirst()),
      // One id for all of the account's votes: a proposal holds one vote per account, so it stays unique.
      votes: n(
        await db
          .updateTable('votes')
          .set({ account_id: `erased:${randomText(16)}` })
          .where('account_id', '=', accountId)
          .executeTakeFirst(),
      ),
      directoryContacts: n(await db.deleteFrom('directory_contacts').where('account_id', '=', accountId).executeTakeFirst()),
      directoryListings: n(await db.deleteFrom('directory_listings').where('account_id', '=', accountId).executeTakeFirst()),
      credentials: n(
        await db
          .updateTable('issued_credentials')
          .set({ holder_thumbprint: '' })
          .where('holder_thumbprint', '=', accountId)
          .executeTakeFirst(),
      ),
      presentations: n(
        await db
          .updateTable('presentation_transactions')
          .set({ holder_thumbprint: null })
          .where('holder_thumbprint', '=', accountId)
          .executeTakeFirst(),
      ),
      signinTickets: n(await db.deleteFrom('signin_tickets').where('approved_account', '=', accountId).executeTakeFirst()),
      sessions: n(await db.deleteFrom('account_sessions').where('account_id', '=', accountId).executeTakeFirst()),
      rateWindows:
        rateKeys.length === 0
          ? 0
          : n(
              await db
                .deleteFrom('rate_windows')
                .where('key', 'in', [...rateKeys])
                .executeTakeFirst(),
            ),
      approvals: n(await db.deleteFrom('approvals').where('account_id', '=', accountId).executeTakeFirst()),
    };
    return { counts, tenants: [...tenants].sort(), endedOffers };
  }

  async remaining(accountId: string, endedOffers: readonly EndedOffer[], rateKeys: readonly string[]): Promise<ErasureCounts> {
    const db = this.db;
    const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
      Number((await query.executeTakeFirstOrThrow()).n);
    const byAccount = (
      table:
        | 'wallet_items'
        | 'share_settings'
        | 'sharing_log'
        | 'channels'
        | 'members'
        | 'votes'
        | 'directory_contacts'
        | 'directory_listings'
        | 'account_sessions'
        | 'deposits'
        | 'approvals',
    ) =>
      count(
        db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId),
      );
    return {
      offers:
        endedOffers.length === 0
          ? 0
          : await count(
              db
                .selectFrom('offers')
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where(
                  'id',
                  'in',
                  endedOffers.map((o) => o.id),
                )
                .where('subject', 'is not', null),
            ),
      deposits: await byAccount('deposits'),
      walletItems: await byAccount('wallet_items'),
      shareSettings: await byAccount('share_settings'),
      sharingLog: await byAccount('sharing_log'),
      channels: await byAccount('channels'),
      coinEntries: await count(
        db
          .selectFrom('coin_entries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId),
      ),
      members: await byAccount('members'),
      votes: await byAccount('votes'),
      directoryContacts: await byAccount('directory_contacts'),
      directoryListings: await byAccount('directory_listings'),
      credentials: await count(
        db
          .selectFrom('issued_credentials')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('holder_thumbprint', '=', accountId),
      ),
      presentations: await count(
        db
          .selectFrom('presentation_transactions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('holder_thumbprint', '=', accountId),
      ),
      signinTickets: await count(
        db
          .selectFrom('signin_tickets')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('approved_account', '=', accountId),
      ),
      sessions: await byAccount('account_sessions'),
      rateWindows:
        rateKeys.length === 0
          ? 0
          : await count(
              db
                .selectFrom('rate_windows')
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where('key', 'in', [...rateKeys]),
            ),
      approvals: await byAccount('approvals'),
    };
  }

  async saveReceipt(r: ErasureReceipt): Promise<void> {
    await this.db
      .insertInto('erasure_receipts')
      .values({
        id: r.id,
        completed_at: r.completedAt,
        counts: JSON.stringify(r.counts),
        tenants: r.tenants,
        disk: r.disk,
        disk_checked_at: r.diskCheckedAt,
      })
      .execute();
  }

  async receipt(id: string): Promise<ErasureReceipt | undefined> {
    const row = await this.db.selectFrom('erasure_receipts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      completedAt: Number(row.completed_at),
      counts: JSON.parse(row.counts) as ErasureCounts,
      tenants: Number(row.tenants),
      disk: row.disk as DiskState,
      diskCheckedAt: row.disk_checked_at === null ? null : Number(row.disk_checked_at),
    };
  }

  async markDisk(id: string, disk: DiskState, at: number): Promise<void> {
    await this.db.updateTable('erasure_receipts').set({ disk, disk_checked_at: at }).where('id', '=', id).execute();
  }

  async pendingDisk(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('erasure_receipts')
      .select('id')
      .where('disk', '=', 'pending')
      .orderBy('completed_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }
}
