import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import type { ComplianceRequestRecord, ListedRequest } from '../../../ports/compliance-store.ts';
import type { AccessRequestView, ErasureRequestView } from './schemas.ts';

/**
 * What a request is read with beside its own row, each from its owner: the state of its export's
 * approval (the approvals module) and its erasure's disk check (the account module's receipt).
 */
export interface RequestStates {
  approvalStates(ids: readonly string[]): Promise<Array<{ id: string; state: string }>>;
  receiptDisks(ids: readonly string[]): Promise<Array<{ id: string; disk: string }>>;
}

/** The requests with their export's and erasure's states: one read of each owner per page. */
export async function listed(states: RequestStates, rows: readonly ComplianceRequestRecord[]): Promise<ListedRequest[]> {
  const ids = (pick: (r: ComplianceRequestRecord) => string | null) => [
    ...new Set(rows.flatMap((r) => (pick(r) === null ? [] : [pick(r) as string]))),
  ];
  const approvals = ids((r) => r.approvalId);
  const receipts = ids((r) => r.receiptId);
  const approval = new Map((approvals.length === 0 ? [] : await states.approvalStates(approvals)).map((a) => [a.id, a.state]));
  const disk = new Map((receipts.length === 0 ? [] : await states.receiptDisks(receipts)).map((e) => [e.id, e.disk]));
  return rows.map((r) => ({
    ...r,
    approvalState: r.approvalId === null ? null : (approval.get(r.approvalId) ?? null),
    receiptDisk: r.receiptId === null ? null : (disk.get(r.receiptId) ?? null),
  }));
}

export const subjectView = (r: ComplianceRequestRecord) => ({
  kind: r.subjectKind,
  value: r.subjectKind === 'account' ? r.accountId : r.identifier,
});

export function accessView(r: ListedRequest, now: number): AccessRequestView {
  return {
    requestId: r.id,
    state: r.state,
    subject: subjectView(r),
    source: r.source,
    receivedAt: iso(r.receivedAt),
    dueAt: iso(r.dueAt),
    overdue: r.state === 'received' && now > r.dueAt,
    filedBy: r.filedBy,
    filedAt: iso(r.filedAt),
    answeredBy: r.decidedBy,
    answeredAt: isoOrNull(r.decidedAt),
    outcome: r.outcome,
    ground: r.ground,
    note: r.note,
    export: r.approvalId === null ? null : { approvalId: r.approvalId, state: r.approvalState },
    statement: r.statement,
  };
}

export function erasureView(r: ListedRequest, now: number): ErasureRequestView {
  const state = r.state === 'completed' && r.receiptDisk === 'pending' ? 'verified' : r.state;
  return {
    requestId: r.id,
    state,
    subject: subjectView(r),
    source: r.source,
    identityCheck: r.identityCheck,
    receivedAt: iso(r.receivedAt),
    dueAt: iso(r.dueAt),
    overdue: r.state === 'received' && now > r.dueAt,
    filedBy: r.filedBy,
    filedAt: iso(r.filedAt),
    decidedBy: r.decidedBy,
    decidedAt: isoOrNull(r.decidedAt),
    ground: r.ground,
    note: r.note,
    receiptId: r.receiptId,
    disk: r.receiptDisk,
  };
}
