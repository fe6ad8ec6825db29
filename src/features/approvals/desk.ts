import type { ValidateFunction } from 'ajv';
import { type Actor, actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { Forbidden, ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { ApprovalAction, ApprovalDesk, ApprovalView, Approved } from '../../http/admin/approval-desk.ts';
import { cursorOf, iso, isoOrNull, type ListParams, page, windowOf } from '../../http/admin/kit.ts';
import { holdsAny, ROLE_MATRIX } from '../../http/admin/role-matrix.ts';
import { type OperatorPrincipal, operatorActor } from '../../http/auth/operator-bearer.ts';
import { validationRefusal } from '../../http/error-handler.ts';
import { requestAjv } from '../../http/schemas/request-ajv.ts';
import type { ApprovalRecord, ApprovalState, ApprovalStore } from '../../ports/approval-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';

/** A pending approval not decided within this time expires (docs/backoffice/approvals.md). */
export const APPROVAL_TTL_MS = 72 * 3_600_000;
export const REASON_MAX = 500;
export const NOTE_MAX = 500;
const PENDING_MAX = 200;

export interface ListFilters {
  state?: ApprovalState;
  action?: string;
  requestedBy?: string;
}

const ajv = requestAjv(false);

const unknownApproval = () => new ServiceError('unknown_approval', 'No approval you may see has this id.');

interface Registered {
  action: ApprovalAction;
  validate: ValidateFunction;
}

/**
 * The approval desk (docs/backoffice/approvals.md): four eyes over the service's weightiest
 * actions, whichever module registers them. An operator files an approval of a registered action;
 * another operator, holding the action's (approving) roles within its tenant, approves it, and the action runs in the transaction that
 * marks the approval approved. The requester withdraws; the others reject.
 */
export class ApprovalService implements ApprovalDesk {
  private readonly actions = new Map<string, Registered>();

  constructor(
    private readonly store: ApprovalStore,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: Ids,
    /** The labels of every actor that may be the same person as this one (OperatorService.samePersonAs). */
    private readonly samePersonAs: (label: string) => Promise<ReadonlySet<string>>,
  ) {}

  register<P, R = unknown>(action: ApprovalAction<P, R>): void {
    if (this.actions.has(action.name)) throw new Error(`approval action ${action.name} is registered twice`);
    if (!/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/.test(action.name) || action.name.length > 64) {
      throw new Error(`approval action name ${action.name} is not <object>.<verb>`);
    }
    this.actions.set(action.name, { action: action as unknown as ApprovalAction, validate: ajv.compile(action.params) });
  }

  /** The registered actions, by name (GET /approvals' filter, the docs). */
  actionNames(): string[] {
    return [...this.actions.keys()].sort();
  }

  async request(
    actionName: string,
    params: Record<string, unknown>,
    by: OperatorPrincipal,
    reason?: string,
  ): Promise<{ auditSeq: number; approval: ApprovalView }> {
    const registered = this.actions.get(actionName);
    if (!registered) throw new ServiceError('unknown_action', `No four-eyes action is named "${actionName}".`);
    const { action } = registered;
    this.assertMayAct(action, by);
    if (!registered.validate(params)) throw validationRefusal('params', registered.validate.errors);
    if (reason !== undefined && (reason.length === 0 || reason.length > REASON_MAX)) {
      throw new ServiceError('invalid_request', `reason is 1 to ${REASON_MAX} characters.`);
    }
    const tenant = action.tenantOf(params);
    // Before `check`, which reads the target: a scoped operator learns nothing of another tenant.
    if (by.tenant !== null && tenant !== by.tenant) {
      throw new Forbidden(
        tenant === null
          ? `This credential is scoped to tenant ${by.tenant}; ${action.name} is a platform action.`
          : `This credential is scoped to tenant ${by.tenant}, not ${tenant}.`,
      );
    }
    await action.check?.(params);
    const actor = operatorActor(by);
    const now = this.clock.now();
    const accountId = typeof params.accountId === 'string' ? params.accountId : null;
    const record: ApprovalRecord = {
      id: this.ids.mint(action.idKind ?? 'approval'),
      action: action.name,
      params,
      tenant,
      accountId,
      state: 'pending',
      reason: reason ?? null,
      requestedBy: actorLabel(actor),
      requestedAt: now,
      expiresAt: now + (action.ttlMs ?? APPROVAL_TTL_MS),
      decidedBy: null,
      decidedAt: null,
      note: null,
      result: null,
      resultPrivate: false,
      resultExpiresAt: null,
    };
    const auditSeq = await this.uow.run(async ({ audit }) => {
      await this.store.create(record);
      return audit.append({
        actor,
        action: 'approval.requested',
        tenant,
        target: record.id,
        detail: { action: action.name, expiresAt: iso(record.expiresAt) },
      });
    });
    return { auditSeq, approval: this.view(record, record.requestedBy, now) };
  }

  async pendingFor(by: OperatorPrincipal, limit: number): Promise<ApprovalView[]> {
    if (by.key || by.partner || !holdsAny(by, ROLE_MATRIX.approvalsWrite)) return [];
    const actions = [...this.actions.values()]
      .filter(({ action }) => this.mayApprove(action, by))
      .map(({ action }) => action.name);
    const label = actorLabel(operatorActor(by));
    const now = this.clock.now();
    const rows = await this.store.pending({
      tenant: by.tenant,
      actions,
      // Nor those of an operator linked to the caller: it could not approve them either.
      notRequestedBy: [...(await this.samePersonAs(label))],
      now,
      limit: Number.isFinite(limit) ? Math.max(1, Math.min(PENDING_MAX, Math.floor(limit))) : PENDING_MAX,
    });
    return rows.map((r) => this.view(r, label, now));
  }

  async list(by: OperatorPrincipal, p: ListParams, filters: ListFilters) {
    const after = cursorOf(p.after, ['number', 'string']);
    const now = this.clock.now();
    const rows = await this.store.list({
      tenant: p.tenant,
      ...filters,
      ...windowOf(p),
      ...(after === undefined ? {} : { after }),
      limit: p.limit + 1,
      now,
    });
    const label = actorLabel(operatorActor(by));
    const shown = page(
      rows,
      p.limit,
      (r) => [r.requestedAt, r.id],
      (r) => this.view(r, label, now),
    );
    return { approvals: shown.rows, nextCursor: shown.nextCursor };
  }

  async get(by: OperatorPrincipal, id: string): Promise<ApprovalView> {
    const found = await this.store.get(id, by.tenant);
    if (!found) throw unknownApproval();
    return this.view(found, actorLabel(operatorActor(by)), this.clock.now());
  }

  /**
   * Four eyes: another operator than the requester, holding the action's roles within its tenant,
   * approves; the conditional write that marks the approval approved, the action and its audit
   * entries commit together, or (the action refusing) nothing does and the approval stays pending.
   */
  async approve(by: OperatorPrincipal, id: string, note: string | null): Promise<Approved> {
    const found = await this.visible(by, id);
    const actor = operatorActor(by);
    const label = actorLabel(actor);
    await this.assertOtherPerson(label, found, 'approve it; another operator must');
    const action = this.actionOf(found);
    this.assertMayAct(action, by);
    if (!this.mayApprove(action, by)) {
      const { roles, platformOnly } = action.approvedBy ?? { roles: action.roles };
      throw new Forbidden(
        `${action.name} is approved by ${platformOnly ? 'a platform operator holding' : 'an operator holding'} one of the roles: ${roles.join(', ')}.`,
      );
    }
    const now = this.clock.now();
    this.assertPending(found, now);
    let revealed: Record<string, unknown> | undefined;
    const prepared = await action.prepare?.(found.params);
    const approved = this.uow.run(async ({ audit, events }) => {
      if (!(await this.store.decide(id, { state: 'approved', by: label, note, now }))) throw this.notPending();
      const result = await action.execute({ audit, events }, found.params, {
        approvalId: id,
        prepared,
        actor,
        requestedBy: found.requestedBy,
        now,
        reveal: (secret) => {
          revealed = secret;
        },
      });
      const priv = action.privateResult;
      await this.store.saveResult(id, result, priv !== undefined, priv === undefined ? null : now + priv.ttlMs);
      return audit.append({
        actor,
        action: 'approval.approved',
        tenant: found.tenant,
        target: id,
        detail: { action: found.action, requestedBy: found.requestedBy },
      });
    });
    // What prepare made is the action's to undo when the approval did not commit (a key never stored).
    const auditSeq = await approved.catch(async (err: unknown) => {
      if (prepared !== undefined) await action.discard?.(prepared).catch(() => undefined);
      throw err;
    });
    return { ok: true, auditSeq, approval: await this.get(by, id), ...(revealed === undefined ? {} : { revealed }) };
  }

  /** Anyone who could approve it, except the requester (who withdraws instead). */
  async reject(by: OperatorPrincipal, id: string, note: string | null) {
    const found = await this.visible(by, id);
    const actor = operatorActor(by);
    const label = actorLabel(actor);
    if (label === found.requestedBy) {
      throw new ServiceError('same_operator', 'The operator who asked for this withdraws it; another operator rejects.');
    }
    // A linked operator may reject: stopping an action is what four eyes is for, not a way around it.
    this.assertMayAct(this.actionOf(found), by);
    return this.close(by, found, actor, 'rejected', note);
  }

  /** The requester only. */
  async withdraw(by: OperatorPrincipal, id: string, note: string | null) {
    const found = await this.visible(by, id);
    const actor = operatorActor(by);
    if (actorLabel(actor) !== found.requestedBy) {
      throw new Forbidden('Only the operator who asked for this approval withdraws it; another operator rejects it.');
    }
    return this.close(by, found, actor, 'withdrawn', note);
  }

  /** The expiry job: pending approvals past their time are marked expired (reads already say so). */
  expire(now: number): Promise<number> {
    return this.store.markExpired(now);
  }

  /** The result job: private results (data-subject exports) past their time are cleared. */
  clearResults(now: number): Promise<number> {
    return this.store.clearResults(now);
  }

  private async close(
    by: OperatorPrincipal,
    found: ApprovalRecord,
    actor: Actor,
    state: 'rejected' | 'withdrawn',
    note: string | null,
  ) {
    const now = this.clock.now();
    this.assertPending(found, now);
    const auditSeq = await this.uow.run(async ({ audit }) => {
      if (!(await this.store.decide(found.id, { state, by: actorLabel(actor), note, now }))) throw this.notPending();
      return audit.append({
        actor,
        action: `approval.${state}`,
        tenant: found.tenant,
        target: found.id,
        detail: { action: found.action, requestedBy: found.requestedBy },
      });
    });
    return { ok: true as const, auditSeq, approval: await this.get(by, found.id) };
  }

  private async visible(by: OperatorPrincipal, id: string): Promise<ApprovalRecord> {
    const found = await this.store.get(id, by.tenant);
    if (!found) throw unknownApproval();
    return found;
  }

  private actionOf(r: ApprovalRecord): ApprovalAction {
    const registered = this.actions.get(r.action);
    if (!registered) throw new ServiceError('unknown_action', `No four-eyes action is named "${r.action}" on this deployment.`);
    return registered.action;
  }

  /**
   * Four eyes means two people (docs/security.md, "Four eyes"): the approver is neither the
   * requester nor an operator linked to it by anything the service knows (one created or invited
   * the other, or they shared an enterprise identity).
   */
  private async assertOtherPerson(label: string, found: ApprovalRecord, what: string): Promise<void> {
    if (!(await this.samePersonAs(label)).has(found.requestedBy)) return;
    throw new ServiceError(
      'same_operator',
      label === found.requestedBy
        ? `The operator who asked for this cannot ${what}.`
        : `${label} is linked to ${found.requestedBy}, who asked for this (one created or invited the other, or they shared an enterprise identity), so cannot ${what}.`,
    );
  }

  /** The action's roles, and the approvals-write row of the matrix; keys and partners never act here. */
  private assertMayAct(action: ApprovalAction, by: OperatorPrincipal): void {
    if (by.key || by.partner) throw new Forbidden('Only an operator files or decides approvals.');
    if (!holdsAny(by, ROLE_MATRIX.approvalsWrite) || !holdsAny(by, action.roles)) {
      throw new Forbidden(`${action.name} needs one of the roles: ${action.roles.join(', ')}.`);
    }
  }

  /** The approver's roles (and, for a platform-only action, no tenant scope) over `assertMayAct`'s. */
  private mayApprove(action: ApprovalAction, by: OperatorPrincipal): boolean {
    const rule = action.approvedBy;
    if (!holdsAny(by, ROLE_MATRIX.approvalsWrite) || !holdsAny(by, rule?.roles ?? action.roles)) return false;
    return !(rule?.platformOnly && by.tenant !== null);
  }

  private assertPending(r: ApprovalRecord, now: number): void {
    const state = stateOf(r, now);
    if (state !== 'pending') throw new ServiceError('approval_state', `The approval is ${state}; only a pending one is decided.`);
  }

  private notPending(): ServiceError {
    return new ServiceError('approval_state', 'The approval is no longer pending: it was decided, or it expired, meanwhile.');
  }

  private view(r: ApprovalRecord, viewer: string, now: number): ApprovalView {
    const resultShown = r.result !== null && (!r.resultPrivate || (viewer === r.requestedBy && (r.resultExpiresAt ?? 0) > now));
    return {
      approvalId: r.id,
      action: r.action,
      params: r.params,
      tenant: r.tenant,
      state: stateOf(r, now),
      reason: r.reason,
      requestedBy: r.requestedBy,
      requestedAt: iso(r.requestedAt),
      expiresAt: iso(r.expiresAt),
      decidedBy: r.decidedBy,
      decidedAt: isoOrNull(r.decidedAt),
      note: r.note,
      result: resultShown ? r.result : null,
    };
  }
}

/** Expiry is judged on read: a pending approval past its time is expired before the job marks it. */
export const stateOf = (r: ApprovalRecord, now: number): ApprovalState =>
  r.state === 'pending' && r.expiresAt <= now ? 'expired' : r.state;
