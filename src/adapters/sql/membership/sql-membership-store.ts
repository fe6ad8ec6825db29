import { sql } from 'kysely';
import {
  type CoinEntry,
  type CoinResult,
  type MemberPatch,
  type MemberRecord,
  type MembershipStore,
  ProposalNotOpen,
  type ProposalRecord,
  type ProposalState,
  type TallyRow,
  type VoteRecord,
} from '../../../ports/membership-store.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { CoinEntriesTable, MembersTable, ProposalsTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { holdTenant } from '../tenants/tenants-statements.ts';
import { spendForEnrolment } from '../verification/verification-statements.ts';

const members = rowCodec<MemberRecord, MembersTable>()('tenant accountId displayName tier status balance joinedAt updatedAt', {});
const toMember = members.record;

const coinEntries = rowCodec<CoinEntry, CoinEntriesTable>()(
  'id tenant accountId idempotencyKey delta reason balanceAfter createdAt',
  {},
);
/** A coin_entries row as the port answers it (also the back office's coin ledger). */
export const toCoinEntry = coinEntries.record;

const proposals = rowCodec<ProposalRecord, ProposalsTable>()(
  'id tenant title opensAt closesAt state votesCast createdAt openedAt closedAt',
  { options: json, tiers: json },
);
/** A proposals row as the port answers it (also the back office's governance list). */
export const toProposal = proposals.record;

/** Thrown inside `applyCoins` to undo the entry when the balance cannot move. */
class Insufficient extends Error {}

export class SqlMembershipStore implements MembershipStore {
  constructor(private readonly db: Db) {}

  async coinLedger(tenant: string, accountId: string, limit: number): Promise<CoinEntry[]> {
    const rows = await this.db
      .selectFrom('coin_entries')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('account_id', '=', accountId)
      .orderBy('entry_no')
      .limit(limit)
      .execute();
    return rows.map(toCoinEntry);
  }

  async setEnrolmentTypes(tenant: string, typeIds: string[], now: number): Promise<void> {
    await atomically(this.db, async (trx) => {
      // Two settings of one tenant at once follow each other (a deleted-then-inserted key would
      // otherwise meet the other's insert on the primary key, or the two deadlock on each other's rows).
      await holdTenant(trx, tenant);
      // Only the types that leave are deleted, and the ones that stay or come are written with one
      // insert that leaves an existing row as it is: the same set again changes nothing.
      let leaving = trx.deleteFrom('enrolment_types').where('tenant', '=', tenant);
      if (typeIds.length > 0) leaving = leaving.where('type_id', 'not in', typeIds);
      await leaving.execute();
      if (typeIds.length === 0) return;
      await trx
        .insertInto('enrolment_types')
        .values(typeIds.map((typeId) => ({ tenant, type_id: typeId, created_at: now })))
        .onConflict((oc) => oc.columns(['tenant', 'type_id']).doNothing())
        .execute();
    });
  }

  async enrolmentTypes(tenant: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('enrolment_types')
      .select('type_id')
      .where('tenant', '=', tenant)
      .orderBy('type_id')
      .execute();
    return rows.map((r) => r.type_id);
  }

  async enrol(m: MemberRecord): Promise<boolean> {
    return insertOnce(this.db, 'members', members.row(m), ['tenant', 'account_id']);
  }

  spendTransaction(transactionId: string, now: number): Promise<boolean> {
    return spendForEnrolment(this.db, transactionId, now);
  }

  async getMember(tenant: string, accountId: string): Promise<MemberRecord | undefined> {
    const row = await this.db
      .selectFrom('members')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? toMember(row) : undefined;
  }

  async membershipsOf(accountId: string): Promise<MemberRecord[]> {
    const rows = await this.db
      .selectFrom('members')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('joined_at')
      .orderBy('tenant')
      .execute();
    return rows.map(toMember);
  }

  async updateMember(tenant: string, accountId: string, patch: MemberPatch, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('members')
      .set({
        ...(patch.displayName !== undefined ? { display_name: patch.displayName } : {}),
        ...(patch.tier !== undefined ? { tier: patch.tier } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        updated_at: now,
      })
      .where('tenant', '=', tenant)
      .where('account_id', '=', accountId)
      .where('status', '!=', 'erased')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async applyCoins(e: Omit<CoinEntry, 'balanceAfter'>): Promise<CoinResult> {
    try {
      return await atomically(this.db, async (trx) => {
        // The key first: of two racing requests with one key, the second waits on the unique
        // index and then finds the first one's entry.
        const inserted = await trx
          .insertInto('coin_entries')
          .values(coinEntries.row({ ...e, balanceAfter: 0 }))
          .onConflict((oc) => oc.columns(['tenant', 'idempotency_key']).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) {
          const row = await trx
            .selectFrom('coin_entries')
            .selectAll()
            .where('tenant', '=', e.tenant)
            .where('idempotency_key', '=', e.idempotencyKey)
            .executeTakeFirstOrThrow();
          return { kind: 'replayed' as const, entry: toCoinEntry(row) };
        }
        // One conditional write moves the balance: it is never below zero, whoever races.
        const moved = await trx
          .updateTable('members')
          .set({ balance: sql`balance + ${e.delta}`, updated_at: e.createdAt })
          .where('tenant', '=', e.tenant)
          .where('account_id', '=', e.accountId)
          .where('status', '!=', 'erased')
          .where(sql<boolean>`balance + ${e.delta} >= 0`)
          .returning('balance')
          .executeTakeFirst();
        if (!moved) throw new Insufficient();
        const balanceAfter = Number(moved.balance);
        // Numbered after the balance moved, under the member row's lock: the ledger's own order.
        await trx
          .updateTable('coin_entries')
          .set({
            balance_after: balanceAfter,
            entry_no: sql`(select coalesce(max(l.entry_no), 0) + 1 from coin_entries l where l.tenant = ${e.tenant} and l.account_id = ${e.accountId})`,
          })
          .where('id', '=', e.id)
          .execute();
        return { kind: 'applied' as const, entry: { ...e, balanceAfter } };
      });
    } catch (err) {
      if (err instanceof Insufficient) return { kind: 'insufficient' };
      throw err;
    }
  }

  async createProposal(p: ProposalRecord): Promise<void> {
    await this.db.insertInto('proposals').values(proposals.row(p)).execute();
  }

  async getProposal(tenant: string, id: string): Promise<ProposalRecord | undefined> {
    const row = await this.db
      .selectFrom('proposals')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toProposal(row) : undefined;
  }

  async findProposal(id: string): Promise<ProposalRecord | undefined> {
    const row = await this.db.selectFrom('proposals').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toProposal(row) : undefined;
  }

  async moveProposal(tenant: string, id: string, from: ProposalState, to: ProposalState, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('proposals')
      .set({ state: to, ...(to === 'open' ? { opened_at: now } : {}), ...(to === 'closed' ? { closed_at: now } : {}) })
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .where('state', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async openProposals(tenant: string, now: number): Promise<ProposalRecord[]> {
    const rows = await this.db
      .selectFrom('proposals')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('state', '=', 'open')
      .where('opens_at', '<=', now)
      .where('closes_at', '>', now)
      .orderBy('closes_at')
      .orderBy('id')
      .limit(100)
      .execute();
    return rows.map(toProposal);
  }

  async castVote(v: VoteRecord): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      const inserted = await trx
        .insertInto('votes')
        .values({
          tenant: v.tenant,
          proposal_id: v.proposalId,
          account_id: v.accountId,
          option: v.option,
          assisted: v.assisted ? 1 : 0,
          cast_at: v.castAt,
        })
        .onConflict((oc) => oc.columns(['proposal_id', 'account_id']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      // Under the proposal's row lock: a close that committed first makes this match nothing.
      const counted = await trx
        .updateTable('proposals')
        .set({ votes_cast: sql`votes_cast + 1` })
        .where('tenant', '=', v.tenant)
        .where('id', '=', v.proposalId)
        .where('state', '=', 'open')
        .where('opens_at', '<=', v.castAt)
        .where('closes_at', '>', v.castAt)
        .executeTakeFirst();
      if (Number(counted.numUpdatedRows) !== 1) throw new ProposalNotOpen();
      return true;
    });
  }

  async votedOn(tenant: string, accountId: string, proposalIds: string[]): Promise<string[]> {
    if (proposalIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('votes')
      .select('proposal_id')
      .where('tenant', '=', tenant)
      .where('account_id', '=', accountId)
      .where('proposal_id', 'in', proposalIds)
      .execute();
    return rows.map((r) => r.proposal_id);
  }

  async tally(tenant: string, proposalId: string): Promise<TallyRow[]> {
    const rows = await this.db
      .selectFrom('votes')
      .select(['option', 'assisted', (eb) => eb.fn.countAll().as('n')])
      .where('tenant', '=', tenant)
      .where('proposal_id', '=', proposalId)
      .groupBy(['option', 'assisted'])
      .execute();
    return rows.map((r) => ({ option: r.option, assisted: Number(r.assisted) === 1, votes: Number(r.n) }));
  }
}
