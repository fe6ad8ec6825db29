import type { PageWindow } from '../core/page.ts';

/**
 * Data-subject requests (docs/backoffice/compliance.md): access requests and erasure requests
 * the operators answer. A platform's records, of no one tenant.
 */

/**
 * The identifiers a data-subject lookup is asked with: a holder's account id, an e-mail address (a
 * partner contact, an operator), an operator's username, and the partner team member ids an
 * e-mail address leads to.
 */
export type LookupKey = 'account' | 'email' | 'username' | 'member';

export type RequestKind = 'access' | 'erasure';
export type SubjectKind = 'account' | 'email' | 'username';

/** Stored states. An access request: received → answered | refused; an erasure request: received → completed | refused. */
export type StoredRequestState = 'received' | 'answered' | 'completed' | 'refused';

export const REFUSAL_GROUNDS = ['legal-hold', 'cannot-identify', 'manifestly-unfounded'] as const;
export type RefusalGround = (typeof REFUSAL_GROUNDS)[number];

export interface ComplianceRequestRecord {
  id: string;
  kind: RequestKind;
  state: StoredRequestState;
  subjectKind: SubjectKind;
  /** The account (an account subject), until that account is erased. */
  accountId: string | null;
  /** The e-mail address or username (the other subjects). */
  identifier: string | null;
  source: string;
  identityCheck: string | null;
  receivedAt: number;
  dueAt: number;
  filedBy: string;
  filedAt: number;
  decidedBy: string | null;
  decidedAt: number | null;
  /** negative (nothing held), exported, erased. */
  outcome: 'negative' | 'exported' | 'erased' | null;
  ground: RefusalGround | null;
  note: string | null;
  approvalId: string | null;
  receiptId: string | null;
  statement: string | null;
}

/** A request as it is read: with the state of its export's approval and its erasure's disk check. */
export interface ListedRequest extends ComplianceRequestRecord {
  approvalState: string | null;
  receiptDisk: string | null;
}

export interface RequestFilter {
  kind: RequestKind;
  state?: StoredRequestState | undefined;
}

/** Where a data-subject lookup found the person: one registered column, and how many rows hold them. */
export interface SubjectPlace {
  table: string;
  column: string;
  category: string;
  count: number;
  /** What an account's erasure does to the column (delete, unlink, end, expires, kept). */
  erasure: string;
  /** Why the erasure keeps it, or how long it stays, for the rules that keep it. */
  erasureNote: string | null;
}

/** An operator's attestation of a statement of the deployment (a policy, a training), once per version. */
export interface AttestationRecord {
  id: string;
  username: string;
  /** The operator's tenant scope when it attested; null for a platform operator. */
  tenant: string | null;
  statementId: string;
  version: string;
  note: string | null;
  attestedAt: number;
  auditSeq: number;
}

/** A column of the holder-data registry as the inventory answers it. */
export interface InventoryRow {
  table: string;
  column: string;
  /** account, partner-contact or operator. */
  names: string;
  category: string;
  /** What an account erasure does: delete, unlink, end, expires, kept. */
  erasure: string;
  /** Why it stays, or how long, for the rules that keep it. */
  erasureNote: string | null;
  /** The account export's section that carries it, or null. */
  exported: string | null;
  rows: number;
}

/** The audit actions that change who holds which roles (docs/audit.md). */
export const ROLE_ACTIONS = [
  'operator.created',
  'operator.roles_changed',
  'operator.suspended',
  'operator.enabled',
  'operator.removed',
] as const;

/** A credential type with the purpose it is bound to, if any (the record of processing). */
export interface TypeWithPurpose {
  tenant: string;
  typeId: string;
  name: string;
  /** The claim names it carries. */
  claims: string[];
  purposeId: string | null;
  boundAt: number | null;
  boundBy: string | null;
}

/** The purpose a credential type is bound to. */
export interface TypePurpose {
  tenant: string;
  typeId: string;
  purposeId: string;
  boundAt: number;
  boundBy: string;
}

/** A statement's newest version published (the version first attested last), and how many attested it. */
export interface StatementVersion {
  statementId: string;
  version: string;
  attested: number;
}

/**
 * The compliance group's own records (compliance_requests, attestations, type_purposes): the
 * platform's, with the reads that narrow to a tenant's types. What other modules hold (approvals,
 * receipts, credential types, operators, the audit chain) the group reads through their views.
 * @tenantOwned
 */
export interface ComplianceStore {
  add(request: ComplianceRequestRecord): Promise<void>;
  get(kind: RequestKind, id: string): Promise<ComplianceRequestRecord | undefined>;
  /** Requests of a kind, newest received first ([receivedAt, id] descending), received within the window. */
  list(filter: RequestFilter, page: PageWindow<readonly [number, string]>): Promise<ComplianceRequestRecord[]>;
  /** Moves a received request on; false when it was not received (one conditional write). */
  decide(
    kind: RequestKind,
    id: string,
    change: Partial<
      Pick<
        ComplianceRequestRecord,
        | 'state'
        | 'decidedBy'
        | 'decidedAt'
        | 'outcome'
        | 'ground'
        | 'note'
        | 'receiptId'
        | 'statement'
        | 'approvalId'
        | 'identityCheck'
      >
    >,
  ): Promise<boolean>;
  /**
   * Adds an access request answered `negative`: one conditional write, false (nothing written)
   * when a negative answer of the same subject stands.
   */
  addNegative(request: ComplianceRequestRecord): Promise<boolean>;
  /**
   * Moves a received access request on (an export filed, an answer, a refusal) when its export is
   * the one the caller read (`approvalId`, null for none) and that export is not live (pending
   * and unexpired at `now`, or approved): one conditional write; false otherwise.
   */
  decideAccess(
    id: string,
    change: Partial<
      Pick<
        ComplianceRequestRecord,
        'state' | 'decidedBy' | 'decidedAt' | 'outcome' | 'ground' | 'note' | 'statement' | 'approvalId'
      >
    >,
    expected: { approvalId: string | null; now: number },
  ): Promise<boolean>;
  /** The access request an export's approval answers, if one does. */
  byApproval(approvalId: string): Promise<ComplianceRequestRecord | undefined>;
  /**
   * Requests about an account (of either kind), newest received first ([receivedAt, id]
   * descending), before `before`, at most `limit`.
   */
  aboutAccounts(limit: number, before?: readonly [number, string]): Promise<ComplianceRequestRecord[]>;
  /** Received requests of a kind: how many, how many past their due date at `now`, and the next due date. */
  openRequests(kind: RequestKind, now: number): Promise<{ open: number; overdue: number; nextDue: number | null }>;

  /** Adds the attestation; false when the operator attested this statement's version already. */
  addAttestation(a: AttestationRecord): Promise<boolean>;
  findAttestation(username: string, statementId: string, version: string): Promise<AttestationRecord | undefined>;
  /** Attestations newest first ([attestedAt, id] descending), attested within the window. */
  attestations(
    filter: { username?: string | undefined; statementId?: string | undefined },
    page: PageWindow<readonly [number, string]>,
  ): Promise<AttestationRecord[]>;
  /** For each statement attested (by statement id, at most `limit`), its newest version published and how many attested it. */
  newestVersions(limit: number): Promise<StatementVersion[]>;
  /** The operators who attested this version of the statement. */
  attestedBy(statementId: string, version: string): Promise<string[]>;

  /** The purposes these types (each named by tenant and type id) are bound to; a type bound to none is absent. */
  purposesOf(types: readonly { tenant: string; typeId: string }[]): Promise<TypePurpose[]>;
  /** Binds the type to a purpose, replacing the purpose it had (the caller checks the type exists). */
  bindPurpose(tenant: string, typeId: string, purposeId: string, now: number, by: string): Promise<void>;
}
