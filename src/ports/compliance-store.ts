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

/** A role change as the audit chain recorded it. */
export interface RoleChange {
  seq: number;
  at: number;
  actor: string;
  action: string;
  username: string;
  tenant: string | null;
  detail: Record<string, unknown>;
}

/** Two actors each of whom approved the other's requests: how often, each way. */
export interface ReciprocalApprovals {
  first: string;
  second: string;
  firstApprovedSecond: number;
  secondApprovedFirst: number;
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

/** A recipient of personal data: a webhook endpoint (its origin) or a tenant's live channels. */
export interface Recipients {
  webhooks: { tenant: string; origin: string; events: string[]; active: boolean }[];
  channels: { tenant: string; active: number }[];
}

/**
 * The compliance group's own records: the platform's, with the reads that narrow to one tenant
 * (the requests about its members, its types and their purposes).
 * @tenantOwned
 */
export interface ComplianceStore {
  add(request: ComplianceRequestRecord): Promise<void>;
  get(kind: RequestKind, id: string): Promise<ListedRequest | undefined>;
  /** Requests of a kind, newest received first ([receivedAt, id] descending), received within the window. */
  list(filter: RequestFilter, page: PageWindow<readonly [number, string]>): Promise<ListedRequest[]>;
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
   * Every registered place (holder-data.ts) that holds one of these identifiers, with its row
   * count: counts only, never a row. Made to answer the access request `answering`, it leaves out
   * that request's own records: the request, the exports filed for it, and the audit entries about
   * them (they are the request being answered, not data held on its subject).
   */
  lookup(keys: Partial<Record<LookupKey, readonly string[]>>, answering?: string): Promise<SubjectPlace[]>;
  /** The partner team member ids an e-mail address is. */
  membersOf(email: string): Promise<string[]>;

  /** Adds the attestation; false when the operator attested this statement's version already. */
  addAttestation(a: AttestationRecord): Promise<boolean>;
  findAttestation(username: string, statementId: string, version: string): Promise<AttestationRecord | undefined>;
  /** Attestations newest first ([attestedAt, id] descending), attested within the window. */
  attestations(
    filter: { username?: string | undefined; statementId?: string | undefined },
    page: PageWindow<readonly [number, string]>,
  ): Promise<AttestationRecord[]>;
  /** Role changes from the audit chain, newest first (by seq, before `after`), within the window of `at`. */
  roleHistory(filter: { username?: string | undefined }, page: PageWindow<readonly [number]>): Promise<RoleChange[]>;
  /** Every registered column (holder-data.ts, in its order), with how many rows hold a value in it. */
  inventory(): Promise<InventoryRow[]>;
  /** Received requests of a kind: how many, how many past their due date at `now`, and the next due date. */
  openRequests(kind: RequestKind, now: number): Promise<{ open: number; overdue: number; nextDue: number | null }>;
  /**
   * For each statement, its newest version published (the version first attested last) and the
   * active operators holding one of `roles` (those who may attest) who have not attested that
   * version, at most `limit` statements.
   */
  attestationsDue(
    limit: number,
    roles: readonly string[],
  ): Promise<{ statementId: string; version: string; attested: number; missing: string[] }[]>;
  /** Every credential type (by tenant and type id), or one tenant's, with its purpose, at most `limit`. */
  typesWithPurposes(limit: number, tenant?: string): Promise<TypeWithPurpose[]>;
  /** Binds the type to a purpose (replacing its purpose); false when the type does not exist. */
  bindPurpose(tenant: string, typeId: string, purposeId: string, now: number, by: string): Promise<boolean>;
  /** The deployment's recipients of personal data, at most `limit` webhooks. */
  recipients(limit: number): Promise<Recipients>;
  /** The data-subject requests about accounts that are members of the tenant, newest received first, at most `limit`. */
  requestsOfMembers(tenant: string, limit: number): Promise<ListedRequest[]>;
  /** Pairs of actors who approved each other's requests at the desk, at most `limit`. */
  reciprocalApprovals(limit: number): Promise<ReciprocalApprovals[]>;
}
