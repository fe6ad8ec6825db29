import type { ApprovalFilter, ApprovalRecord, ApprovalStore, Decision, PendingFilter } from '../../../ports/approval-store.ts';
import type { Db } from '../connect.ts';
import { bool, json, rowCodec } from '../row-codec.ts';
import type { ApprovalsTable } from '../schema.ts';
import { inTenant, newestFirst } from '../windowed.ts';

const approvals = rowCodec<ApprovalRecord, ApprovalsTable>()(
  'id action tenant accountId state reason requestedBy requestedAt expiresAt decidedBy decidedAt note resultExpiresAt',
  { params: json, result: json, resultPrivate: bool },
);
const toRecord = approvals.record;

const changed = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows);

export class SqlApprovalStore implements ApprovalStore {
  constructor(private readonly db: Db) {}

  async create(r: ApprovalRecord): Promise<void> {
    await this.db.insertInto('approvals').values(approvals.row(r)).execute();
  }

  async get(id: string, within: string | null): Promise<ApprovalRecord | undefined> {
    let q = this.db.selectFrom('approvals').selectAll().where('id', '=', id);
    if (within !== null) q = q.where('tenant', '=', within);
    const row = await q.executeTakeFirst();
    return row && toRecord(row);
  }

  async list(f: ApprovalFilter): Promise<ApprovalRecord[]> {
    let q = this.db.selectFrom('approvals').selectAll();
    q = q.where(inTenant(f.tenant));
    if (f.action !== undefined) q = q.where('action', '=', f.action);
    if (f.requestedBy !== undefined) q = q.where('requested_by', '=', f.requestedBy);
    // Expiry is judged on read: a pending row past its time is expired before the job marks it.
    if (f.state === 'pending') q = q.where('state', '=', 'pending').where('expires_at', '>', f.now);
    else if (f.state === 'expired') {
      q = q.where((eb) =>
        eb.or([eb('state', '=', 'expired'), eb.and([eb('state', '=', 'pending'), eb('expires_at', '<=', f.now)])]),
      );
    } else if (f.state !== undefined) q = q.where('state', '=', f.state);
    const rows = await newestFirst(q, ['requested_at', 'id'], f).execute();
    return rows.map(toRecord);
  }

  async pending(f: PendingFilter): Promise<ApprovalRecord[]> {
    if (f.actions.length === 0) return [];
    let q = this.db
      .selectFrom('approvals')
      .selectAll()
      .where('state', '=', 'pending')
      .where('expires_at', '>', f.now)
      .where('requested_by', 'not in', [...f.notRequestedBy])
      .where('action', 'in', [...f.actions]);
    q = q.where(inTenant(f.tenant));
    const rows = await q.orderBy('requested_at').orderBy('id').limit(f.limit).execute();
    return rows.map(toRecord);
  }

  async decide(id: string, d: Decision): Promise<boolean> {
    const result = await this.db
      .updateTable('approvals')
      .set({ state: d.state, decided_by: d.by, decided_at: d.now, note: d.note })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .where('expires_at', '>', d.now)
      .executeTakeFirst();
    return changed(result) === 1;
  }

  async saveResult(id: string, result: Record<string, unknown>, priv: boolean, expiresAt: number | null): Promise<void> {
    await this.db
      .updateTable('approvals')
      .set({ result: JSON.stringify(result), result_private: priv ? 1 : 0, result_expires_at: expiresAt })
      .where('id', '=', id)
      .execute();
  }

  async markExpired(now: number): Promise<number> {
    const result = await this.db
      .updateTable('approvals')
      .set({ state: 'expired' })
      .where('state', '=', 'pending')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return changed(result);
  }

  async clearResults(now: number): Promise<number> {
    const result = await this.db
      .updateTable('approvals')
      .set({ result: null, result_expires_at: null })
      .where('result_expires_at', '<=', now)
      .executeTakeFirst();
    return changed(result);
  }
}
