import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { Actor } from '../../core/actor.ts';
import type { IdKind } from '../../core/ids.ts';
import type { ApprovalState } from '../../ports/approval-store.ts';
import type { OperatorRole } from '../../ports/operator-store.ts';
import type { Recorders } from '../../ports/unit-of-work.ts';
import type { OperatorPrincipal } from '../auth/operator-bearer.ts';
import { AdminMutation, DateTimeView, Narrowed, Nullable } from '../schemas/common.ts';

/**
 * Four eyes (docs/backoffice.md, "Approvals"): the contract between the desk (the approvals
 * module) and the modules whose actions need a second operator. A group registers each such action once, at build;
 * its own route files an approval instead of acting, so the rule holds in the action whatever
 * console calls it. The action runs when a second operator approves, inside the transaction that
 * marks the approval approved: both commit, or neither does.
 */
export interface ApprovalAction<P = Record<string, unknown>, R = unknown> {
  /** `<object>.<verb>`: `org.suspend`. */
  readonly name: string;
  readonly summary: string;
  /** The parameters, validated when the approval is filed. */
  readonly params: TSchema;
  /** Who may ask for it and who may approve it (also needs the approvals-write row of the matrix). */
  readonly roles: readonly OperatorRole[];
  /**
   * Optional: who may approve it, when that is narrower than who may ask (`roles` otherwise);
   * `platformOnly`: an operator scoped to a tenant never approves it, its own tenant's included.
   */
  readonly approvedBy?: { readonly roles: readonly OperatorRole[]; readonly platformOnly?: boolean };
  /** Optional: the kind of identifier its approvals are minted with (`approval` otherwise). */
  readonly idKind?: IdKind;
  /** Optional: how long it waits for a decision (the desk's APPROVAL_TTL_MS otherwise). */
  readonly ttlMs?: number;
  /** The tenant it acts on (a tenant-scoped operator may ask for and approve only its own); null: a platform action. */
  tenantOf(params: P): string | null;
  /** Refuses, when the approval is filed, an action that could not run (an unknown target). Reads only. */
  check?(params: P): Promise<void>;
  /**
   * Optional: work the action needs that is not the database's (a key generated), done before the
   * approval's transaction opens, so that the transaction never waits for it; `execute` gets it as
   * `context.prepared`. Handed to `discard` when the approval's transaction then fails.
   */
  prepare?(params: P): Promise<R>;
  /** Optional: undoes what `prepare` made when the approval's transaction did not commit. */
  discard?(prepared: R): Promise<void>;
  /**
   * Does the action inside the approval's transaction and answers what it
   * did, for the approval's record: identifiers and counts, never a secret or a claim value. A
   * throw rolls the approval back to pending.
   */
  execute(tx: TransactionScope, params: P, context: ApprovalContext<R>): Promise<Record<string, unknown>>;
  /**
   * Optional: the result carries personal data (a data-subject export). Only the operator who
   * asked reads it (others see `result: null`), and it is cleared `ttlMs` after the approval.
   */
  readonly privateResult?: { ttlMs: number };
}

/**
 * What an action is handed inside the approval's transaction: its audit trail and outbox. The
 * services and stores it calls join that transaction by themselves (decision 0020).
 */
export type TransactionScope = Recorders;

export interface ApprovalContext<R = unknown> {
  approvalId: string;
  /** What `prepare` answered; undefined for an action without one. */
  prepared: R | undefined;
  /** The operator who approved: the actor of the action's own audit entries. */
  actor: Actor;
  requestedBy: string;
  now: number;
  /**
   * Hands a secret the action made (a minted token) to the approver, in the approval's answer
   * (`revealed`) this once: never stored, never in the result or an audit entry.
   */
  reveal(secret: Record<string, unknown>): void;
}

/** An object of any members (an action's parameters, its result), typed as the record it is. */
const AnyObject = (options: { description?: string } = {}) =>
  Narrowed<Record<string, unknown>>(Type.Object({}, { additionalProperties: true, ...options }));

/** An approval as every back-office operation answers it. */
export const ApprovalSchema = Type.Object({
  approvalId: Type.String(),
  action: Type.String(),
  params: AnyObject(),
  tenant: Nullable(Type.String()),
  state: Narrowed<ApprovalState>(Type.String({ description: 'pending, approved, rejected, withdrawn or expired' })),
  reason: Nullable(Type.String()),
  requestedBy: Type.String(),
  requestedAt: DateTimeView,
  expiresAt: DateTimeView,
  decidedBy: Nullable(Type.String()),
  decidedAt: Nullable(DateTimeView),
  note: Nullable(Type.String()),
  result: Nullable(AnyObject()),
});

export type ApprovalView = Static<typeof ApprovalSchema>;

export interface ApprovalDesk {
  /** Registers an action (at build time); a name registered twice is a programming error. */
  register<P>(action: ApprovalAction<P>): void;
  /**
   * Files a pending approval of a registered action for the caller: checks the caller's roles and
   * tenant against the action's, validates the parameters, runs `check`, and appends
   * `approval.requested` to the audit log. Answers the entry's sequence and the approval.
   */
  request(
    action: string,
    params: Record<string, unknown>,
    by: OperatorPrincipal,
    reason?: string,
  ): Promise<{ auditSeq: number; approval: ApprovalView }>;
  /**
   * Pending approvals the caller could decide: not its own, of an action whose roles it holds, in
   * its tenant when it is scoped; oldest first, at most `limit`.
   */
  pendingFor(by: OperatorPrincipal, limit: number): Promise<ApprovalView[]>;
}

/** An approval decided by POST …/approve: with what the action revealed to the approver, if anything. */
export const ApprovedSchema = AdminMutation({
  approval: ApprovalSchema,
  revealed: Type.Optional(
    AnyObject({ description: 'A secret the action made, shown to the approver this once and kept nowhere (a minted token).' }),
  ),
});

export type Approved = Static<typeof ApprovedSchema>;
