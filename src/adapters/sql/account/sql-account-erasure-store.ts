import { sql } from 'kysely';
import {
  type AccountErasureStore,
  type DiskState,
  type EndedOffer,
  ERASURE_PARTS,
  type ErasureCounts,
  type ErasureOutcome,
  type ErasureReceipt,
} from '../../../ports/account-erasure-store.ts';
import { randomText } from '../../crypto/random-pool.ts';
import type { Db } from '../connect.ts';
import { ACCOUNT_COLUMNS, type EraseRule, type HolderColumn } from '../holder-data.ts';

const affected = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0n);

/** The registry's account columns an erasure deletes or unlinks (the others it ends by hand, or keeps). */
type Erased = HolderColumn & { erase: Extract<EraseRule, { rule: 'delete' | 'unlink' }> };
const ERASED = ACCOUNT_COLUMNS.filter((c): c is Erased => c.erase.rule === 'delete' || c.erase.rule === 'unlink');

const zero = (): ErasureCounts => Object.fromEntries(ERASURE_PARTS.map((p) => [p, 0])) as ErasureCounts;

/**
 * The erasure of an account (docs/account.md, "Erasure"), driven by the holder-data registry
 * (holder-data.ts): each account column it names is deleted or unlinked by its rule, and the
 * verification pass counts every such column again. Meant to run on a unit of work's transaction:
 * `erase` and `remaining` then see one state, and a failure undoes all.
 */
export class SqlAccountErasureStore implements AccountErasureStore {
  constructor(private readonly db: Db) {}

  async erase(accountId: string, now: number, rateKeys: readonly string[]): Promise<ErasureOutcome> {
    const db = this.db;
    const tenants = new Set<string>();
    for (const c of ACCOUNT_COLUMNS.filter((c) => c.tenant !== undefined)) {
      const rows = await sql<{ tenant: string }>`select distinct ${sql.ref(c.tenant as string)} as tenant
        from ${sql.table(c.table)} where ${sql.ref(c.column)} = ${accountId}`.execute(db);
      for (const r of rows.rows) tenants.add(r.tenant);
    }

    // An offer made out to the account and not collected holds claims about it: end it now,
    // through the wallet items that point at it (before the erasure deletes them).
    const endedOffers: EndedOffer[] = [];
    const offerItems = await db
      .selectFrom('wallet_items')
      .select(['tenant', 'ref'])
      .where('account_id', '=', accountId)
      .where('kind', '=', 'offer')
      .execute();
    for (const item of offerItems) {
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

    const counts = zero();
    counts.offers = endedOffers.length;
    for (const c of ERASED) {
      const where = sql`where ${sql.ref(c.column)} = ${accountId}`;
      let query: ReturnType<typeof sql>;
      if (c.erase.rule === 'delete') {
        query = sql`delete from ${sql.table(c.table)} ${where}`;
      } else {
        const values: Record<string, string | number | null> = { ...(c.erase.set?.(now) ?? {}) };
        // One id for all of the account's rows, naming nobody.
        if (c.erase.pseudonym !== undefined) values[c.column] = `${c.erase.pseudonym}${randomText(16)}`;
        const assignments = Object.entries(values).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
        query = sql`update ${sql.table(c.table)} set ${sql.join(assignments)} ${where}`;
      }
      counts[c.erase.part] += affected(await query.execute(db));
    }
    if (rateKeys.length > 0) {
      counts.rateWindows = Number(
        (
          await db
            .deleteFrom('rate_windows')
            .where('key', 'in', [...rateKeys])
            .executeTakeFirst()
        ).numDeletedRows,
      );
    }
    return { counts, tenants: [...tenants].sort(), endedOffers };
  }

  async remaining(accountId: string, endedOffers: readonly EndedOffer[], rateKeys: readonly string[]): Promise<ErasureCounts> {
    const db = this.db;
    const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
      Number((await query.executeTakeFirstOrThrow()).n);
    const counts = zero();
    for (const c of ERASED) {
      const rows = await sql<{ n: number | string | bigint }>`select count(*) as n from ${sql.table(c.table)}
        where ${sql.ref(c.column)} = ${accountId}`.execute(db);
      counts[c.erase.part] += Number(rows.rows[0]?.n ?? 0);
    }
    if (endedOffers.length > 0) {
      counts.offers = await count(
        db
          .selectFrom('offers')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where(
            'id',
            'in',
            endedOffers.map((o) => o.id),
          )
          .where('subject', 'is not', null),
      );
    }
    if (rateKeys.length > 0) {
      counts.rateWindows = await count(
        db
          .selectFrom('rate_windows')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('key', 'in', [...rateKeys]),
      );
    }
    return counts;
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
