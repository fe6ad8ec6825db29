import type { AuditEntry } from '../../../core/audit-chain.ts';
import type { LookupKey, SubjectPlace } from '../../../ports/compliance-store.ts';
import type { LeftOut, LookupKeys } from '../../../ports/holder-records.ts';
import type { LookupView, Subject } from './schemas.ts';

/** What the lookup reads: the registry's parts, and two owners' views. */
export interface LookupDeps {
  /** Every owner's part of the holder-data registry, composed (features/account/holder-data.ts). */
  holderData: { lookup(keys: LookupKeys, leftOut?: LeftOut): Promise<SubjectPlace[]> };
  /** The partner team member ids an e-mail address is (the partners module's view). */
  memberIdsByEmail(email: string): Promise<string[]>;
  /** The audit entries of these actions about `target` (the kernel's view). */
  auditAbout(actions: readonly string[], target: string): Promise<AuditEntry[]>;
}

/** The access request a lookup is made to answer: the request and the export it names now. */
export interface Answering {
  id: string;
  approvalId: string | null;
}

export const subjectOf = (s: Subject) =>
  'accountId' in s
    ? { subjectKind: 'account' as const, accountId: s.accountId, identifier: null }
    : 'email' in s
      ? { subjectKind: 'email' as const, accountId: null, identifier: s.email.toLowerCase() }
      : { subjectKind: 'username' as const, accountId: null, identifier: s.username };

/**
 * The data-subject lookup (docs/backoffice/compliance.md): every registered place that holds the
 * subject, with counts, never a row of anyone, each counted by the owner of its table.
 */
export class SubjectLookup {
  constructor(private readonly d: LookupDeps) {}

  /** Made to answer the access request `answering`, that request's own records are left out. */
  async lookup(subject: Subject, answering?: Answering): Promise<LookupView> {
    const { subjectKind, accountId, identifier } = subjectOf(subject);
    const keys: Partial<Record<LookupKey, readonly string[]>> = {};
    if (accountId !== null) keys.account = [accountId];
    if (subjectKind === 'email' && identifier !== null) {
      keys.email = [identifier];
      keys.member = await this.d.memberIdsByEmail(identifier);
    }
    if (subjectKind === 'username' && identifier !== null) keys.username = [identifier];
    const leftOut = answering === undefined ? undefined : await this.ownRecords(answering);
    const places = await this.d.holderData.lookup(keys, leftOut);
    const categories = new Map<string, number>();
    for (const p of places) categories.set(p.category, (categories.get(p.category) ?? 0) + p.count);
    return {
      subject: { kind: subjectKind, value: accountId ?? identifier },
      held: places.length > 0,
      places,
      categories: [...categories].map(([category, count]) => ({ category, count })),
    };
  }

  /**
   * A request's own records, which are the request being answered, not data held on its subject:
   * the request, every export filed for it (the one it names now, and those an earlier filing
   * named: each filing's `dsar.export_requested` entry carries its approval), and the audit
   * entries about them.
   */
  private async ownRecords(request: Answering): Promise<LeftOut> {
    const exports = new Set<string>();
    if (request.approvalId) exports.add(request.approvalId);
    for (const filing of await this.d.auditAbout(['dsar.export_requested'], request.id)) {
      const approvalId = filing.detail.approvalId;
      if (typeof approvalId === 'string') exports.add(approvalId);
    }
    return {
      compliance_requests: { column: 'id', ids: [request.id] },
      approvals: { column: 'id', ids: [...exports] },
      audit_log: { column: 'target', ids: [request.id, ...exports] },
    };
  }
}
