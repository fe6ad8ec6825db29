import { type Actor, actorLabel } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { Ids } from '../../../core/ids.ts';
import { ROOT_SLUG } from '../../../core/slug.ts';
import type { ApprovalDesk, ApprovalView } from '../../../http/admin/approval-desk.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import type { OperatorPrincipal } from '../../../http/auth/operator-bearer.ts';
import { cursorOf, type PageParams, page, windowOf } from '../../../http/list.ts';
import type {
  ComplianceRequestRecord,
  ComplianceStore,
  ListedRequest,
  LookupKey,
  RefusalGround,
  RequestKind,
  StoredRequestState,
} from '../../../ports/compliance-store.ts';
import type { KeyStore } from '../../../ports/key-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import type { ErasureService } from '../../account/erasure-service.ts';
import type { AccessRequestView, ErasureRequestView, LookupView, Subject } from './schemas.ts';

/** A request may say it was received this long before it was filed, at most. */
const RECEIVED_AT_MOST_MS = 366 * 24 * 3_600_000;
/** A clock a little ahead of ours is not a request from the future. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** The `typ` of a signed negative response. */
export const NEGATIVE_RESPONSE_TYP = 'openrail-dsar-negative+jwt';

/** One calendar month after `ms` (UTC), the last day of a shorter month when the day does not exist. */
export function oneMonthAfter(ms: number): number {
  const d = new Date(ms);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  target.setUTCHours(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  return target.getTime();
}

const subjectOf = (s: Subject) =>
  'accountId' in s
    ? { subjectKind: 'account' as const, accountId: s.accountId, identifier: null }
    : 'email' in s
      ? { subjectKind: 'email' as const, accountId: null, identifier: s.email.toLowerCase() }
      : { subjectKind: 'username' as const, accountId: null, identifier: s.username };

const subjectView = (r: ComplianceRequestRecord) => ({
  kind: r.subjectKind,
  value: r.subjectKind === 'account' ? r.accountId : r.identifier,
});

export interface ComplianceScope {
  requests: ComplianceStore;
}

export interface ComplianceDeps {
  store: ComplianceStore;
  uow: UnitOfWork<ComplianceScope>;
  desk: ApprovalDesk;
  erasure: ErasureService;
  keys: KeyStore;
  didOf(slug: string): string;
  clock: Clock;
  ids: Ids;
}

export interface RequestInput {
  source: string;
  receivedAt?: string | undefined;
}

/**
 * Data-subject requests (docs/backoffice/compliance.md): the lookup over the holder-data
 * registry, access requests (a signed negative response, or the four-eyes export) and erasure
 * requests (refused with a ground, or verified through the account portal's erasure).
 */
export class ComplianceService {
  constructor(private readonly deps: ComplianceDeps) {}

  /**
   * Every registered place that holds the subject, with counts: never a row of anyone. Made to
   * answer the access request `answering`, that request's own records are left out.
   */
  async lookup(subject: Subject, answering?: string): Promise<LookupView> {
    const { subjectKind, accountId, identifier } = subjectOf(subject);
    const keys: Partial<Record<LookupKey, readonly string[]>> = {};
    if (accountId !== null) keys.account = [accountId];
    if (subjectKind === 'email' && identifier !== null) {
      keys.email = [identifier];
      keys.member = await this.deps.store.membersOf(identifier);
    }
    if (subjectKind === 'username' && identifier !== null) keys.username = [identifier];
    const places = await this.deps.store.lookup(keys, answering);
    const categories = new Map<string, number>();
    for (const p of places) categories.set(p.category, (categories.get(p.category) ?? 0) + p.count);
    return {
      subject: { kind: subjectKind, value: accountId ?? identifier },
      held: places.length > 0,
      places,
      categories: [...categories].map(([category, count]) => ({ category, count })),
    };
  }

  /** Open data-subject requests of both kinds, with how many are overdue and the next due date. */
  async openRequests() {
    const now = this.deps.clock.now();
    const of = async (kind: RequestKind) => {
      const { open, overdue, nextDue } = await this.deps.store.openRequests(kind, now);
      return { open, overdue, nextDue: isoOrNull(nextDue) };
    };
    return { access: await of('access'), erasure: await of('erasure') };
  }

  /** The data-subject requests about the tenant's members: its own view (GET /api/compliance). */
  async requestsOfMembers(tenant: string, limit: number) {
    const now = this.deps.clock.now();
    return (await this.deps.store.requestsOfMembers(tenant, limit)).map((r) => ({
      requestId: r.id,
      kind: r.kind,
      state: r.kind === 'access' ? this.accessView(r, now).state : this.erasureView(r, now).state,
      accountId: r.accountId,
      receivedAt: iso(r.receivedAt),
      dueAt: iso(r.dueAt),
      overdue: r.state === 'received' && now > r.dueAt,
    }));
  }

  /** The holder-data registry with its row counts (docs/holder-data.md). */
  async inventory() {
    return { checkedAt: iso(this.deps.clock.now()), columns: await this.deps.store.inventory() };
  }

  /** Access requests, newest received first (the list convention). */
  listAccess(state: StoredRequestState | undefined, q: PageParams) {
    return this.list('access', state, q, (r, now) => this.accessView(r, now));
  }

  /** Erasure requests, newest received first (the list convention). */
  listErasure(state: StoredRequestState | undefined, q: PageParams) {
    return this.list('erasure', state, q, (r, now) => this.erasureView(r, now));
  }

  private async list<V>(
    kind: RequestKind,
    state: StoredRequestState | undefined,
    q: PageParams,
    view: (r: ListedRequest, now: number) => V,
  ) {
    const after = cursorOf(q.after, ['number', 'string'] as const);
    const rows = await this.deps.store.list({ kind, state }, { ...windowOf(q), limit: q.limit + 1, after });
    const now = this.deps.clock.now();
    const shown = page(
      rows,
      q.limit,
      (r) => [r.receivedAt, r.id],
      (r) => view(r, now),
    );
    return { requests: shown.rows, nextCursor: shown.nextCursor };
  }

  async erasureRequest(id: string): Promise<ErasureRequestView> {
    const found = await this.deps.store.get('erasure', id);
    if (!found) throw new ServiceError('unknown_request');
    return this.erasureView(found, this.deps.clock.now());
  }

  /**
   * Records that nothing is held on the subject and answers it as a statement signed with the
   * platform's key: refused (`subject_held`) when the lookup finds anything, or when another
   * negative response for the subject stands (signed meanwhile: one conditional write). The
   * request `requestId` names, and the exports filed for it, are the request being answered: the
   * lookup does not count them as data held.
   */
  async negativeResponse(subject: Subject, input: RequestInput & { requestId?: string | undefined }, actor: Actor) {
    const now = this.deps.clock.now();
    // The key is opened before the transaction; the statement is signed inside it.
    const signer = await this.deps.keys.signer(ROOT_SLUG, 'issuer');
    return this.deps.uow.run(async ({ requests, audit }) => {
      const named = input.requestId === undefined ? undefined : await this.receivedAccess(requests, subject, input.requestId);
      // Looked up in the transaction that records the answer, so the statement is true when signed.
      const found = await this.lookup(subject, named?.id);
      if (found.held) {
        throw new ServiceError('subject_held', `The service holds data on this subject in ${found.places.length} places.`);
      }
      const request: ListedRequest = named ?? {
        ...this.blank('access', now, this.receivedAt(input.receivedAt, now), actor, input.source),
        ...subjectOf(subject),
        approvalState: null,
        receiptDisk: null,
      };
      const did = this.deps.didOf(ROOT_SLUG);
      const statement = signer.sign(
        { typ: NEGATIVE_RESPONSE_TYP, kid: `${did}#${signer.kid}` },
        {
          iss: did,
          iat: Math.floor(now / 1000),
          jti: request.id,
          subject: subjectView(request),
          received_at: iso(request.receivedAt),
          held: false,
          statement: 'The service holds no personal data on this subject at the time of signing.',
        },
      );
      const answered = {
        state: 'answered' as const,
        outcome: 'negative' as const,
        decidedBy: actorLabel(actor),
        decidedAt: now,
        statement,
      };
      if (named) {
        if (!(await requests.decideAccess(named.id, answered, { approvalId: named.approvalId, now }))) throw stateRefusal();
      } else if (!(await requests.addNegative({ ...request, ...answered }))) {
        throw new ServiceError('subject_held', 'A negative response for this subject was signed meanwhile.');
      }
      const auditSeq = await audit.append({
        actor,
        action: 'dsar.answered',
        tenant: null,
        target: request.id,
        detail: { outcome: 'negative', subjectKind: request.subjectKind },
      });
      return { ok: true as const, auditSeq, request: this.accessView({ ...request, ...answered }, now), statement };
    });
  }

  /**
   * Files the four-eyes `subject.export` of an account the lookup finds (the action's check), and
   * the access request it answers: one export per request, so a request whose export is pending
   * or answered is refused (`request_state`), and one whose export was rejected or expired files
   * a new one.
   */
  async requestExport(
    accountId: string,
    input: RequestInput & { requestId?: string | undefined; reason?: string | undefined },
    by: OperatorPrincipal,
    actor: Actor,
  ): Promise<{ ok: true; auditSeq: number; request: AccessRequestView; approval: ApprovalView }> {
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ requests, audit }) => {
      const subject = { accountId };
      const named = input.requestId === undefined ? undefined : await this.receivedAccess(requests, subject, input.requestId);
      // Filed before a new request is recorded: the action's lookup must not find the request itself.
      const { approval } = await this.deps.desk.request('subject.export', subject, by, input.reason);
      const request = named ?? (await this.addAccess(requests, subject, input, actor, now));
      const filed = { approvalId: approval.approvalId };
      if (!(await requests.decideAccess(request.id, filed, { approvalId: request.approvalId, now }))) throw stateRefusal();
      const auditSeq = await audit.append({
        actor,
        action: 'dsar.export_requested',
        tenant: null,
        target: request.id,
        detail: { approvalId: approval.approvalId },
      });
      const listed = { ...request, approvalId: approval.approvalId, approvalState: approval.state, receiptDisk: null };
      return { ok: true as const, auditSeq, request: this.accessView(listed, now), approval };
    });
  }

  /**
   * Refuses an access request on a ground (a new one, or the received one `requestId` names,
   * while no export of it is pending), as an erasure request is refused: nothing is answered.
   */
  async refuseAccess(
    subject: Subject,
    input: RequestInput & { requestId?: string | undefined; ground: RefusalGround; note?: string | undefined },
    actor: Actor,
  ) {
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ requests, audit }) => {
      const request = await this.openAccess(requests, subject, input, actor, now, input.requestId);
      const change = {
        state: 'refused' as const,
        ground: input.ground,
        note: input.note ?? null,
        decidedBy: actorLabel(actor),
        decidedAt: now,
      };
      if (!(await requests.decideAccess(request.id, change, { approvalId: request.approvalId, now }))) throw stateRefusal();
      const auditSeq = await audit.append({
        actor,
        action: 'dsar.refused',
        tenant: null,
        target: request.id,
        detail: { ground: input.ground, subjectKind: request.subjectKind },
      });
      return { ok: true as const, auditSeq, request: this.accessView({ ...request, ...change }, now) };
    });
  }

  /** Inside the export's approval: the access request it answers is answered. */
  async exported(approvalId: string, by: Actor, now: number): Promise<void> {
    const request = await this.deps.store.byApproval(approvalId);
    if (!request) return;
    await this.deps.store.decide('access', request.id, {
      state: 'answered',
      outcome: 'exported',
      decidedBy: actorLabel(by),
      decidedAt: now,
    });
  }

  async fileErasure(accountId: string, input: RequestInput & { identityCheck?: string | undefined }, actor: Actor) {
    const now = this.deps.clock.now();
    const receivedAt = this.receivedAt(input.receivedAt, now);
    const request: ComplianceRequestRecord = {
      ...this.blank('erasure', now, receivedAt, actor, input.source),
      subjectKind: 'account',
      accountId,
      identifier: null,
      identityCheck: input.identityCheck ?? null,
    };
    return this.deps.uow.run(async ({ requests, audit }) => {
      await requests.add(request);
      const auditSeq = await audit.append({ actor, action: 'erasure.requested', tenant: null, target: request.id, detail: {} });
      return {
        ok: true as const,
        auditSeq,
        request: this.erasureView({ ...request, approvalState: null, receiptDisk: null }, now),
      };
    });
  }

  async refuseErasure(id: string, ground: RefusalGround, note: string | undefined, actor: Actor) {
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ requests, audit }) => {
      const found = await this.received(requests, id);
      const change = { state: 'refused' as const, ground, note: note ?? null, decidedBy: actorLabel(actor), decidedAt: now };
      if (!(await requests.decide('erasure', id, change))) throw stateRefusal();
      const auditSeq = await audit.append({ actor, action: 'erasure.refused', tenant: null, target: id, detail: { ground } });
      return { ok: true as const, auditSeq, request: this.erasureView({ ...found, ...change }, now) };
    });
  }

  /**
   * Runs the account portal's verified erasure for the request's account; the request completes
   * in the erasure's transaction, so either both happen or neither does.
   */
  async verifyErasure(id: string, identityCheck: string | undefined, actor: Actor) {
    const found = await this.received(this.deps.store, id);
    if (found.accountId === null) throw stateRefusal();
    let auditSeq = 0;
    const receipt = await this.deps.erasure.erase(found.accountId, {
      by: actor,
      alongside: async (receipt) => {
        await this.deps.uow.run(async ({ requests, audit }) => {
          const change = {
            state: 'completed' as const,
            outcome: 'erased' as const,
            receiptId: receipt.id,
            decidedBy: actorLabel(actor),
            decidedAt: receipt.completedAt,
            ...(identityCheck === undefined ? {} : { identityCheck }),
          };
          if (!(await requests.decide('erasure', id, change))) throw stateRefusal();
          auditSeq = await audit.append({
            actor,
            action: 'erasure.verified',
            tenant: null,
            target: id,
            detail: { receiptId: receipt.id },
          });
        });
      },
    });
    return {
      ok: true as const,
      auditSeq,
      request: await this.erasureRequest(id),
      receipt: { receiptId: receipt.id, disk: receipt.disk },
    };
  }

  private async received(store: ComplianceStore, id: string): Promise<ListedRequest> {
    const found = await store.get('erasure', id);
    if (!found) throw new ServiceError('unknown_request');
    if (found.state !== 'received') throw stateRefusal();
    return found;
  }

  /** The access request named (still received, about the same subject), or a new one. */
  private async openAccess(
    requests: ComplianceStore,
    subject: Subject,
    input: RequestInput,
    actor: Actor,
    now: number,
    requestId: string | undefined,
  ): Promise<ListedRequest> {
    if (requestId !== undefined) return this.receivedAccess(requests, subject, requestId);
    return this.addAccess(requests, subject, input, actor, now);
  }

  /** A new access request, received. */
  private async addAccess(
    requests: ComplianceStore,
    subject: Subject,
    input: RequestInput,
    actor: Actor,
    now: number,
  ): Promise<ListedRequest> {
    const request: ComplianceRequestRecord = {
      ...this.blank('access', now, this.receivedAt(input.receivedAt, now), actor, input.source),
      ...subjectOf(subject),
    };
    await requests.add(request);
    return { ...request, approvalState: null, receiptDisk: null };
  }

  /** The received access request `requestId` names, about the same subject. */
  private async receivedAccess(requests: ComplianceStore, subject: Subject, requestId: string): Promise<ListedRequest> {
    const named = subjectOf(subject);
    const found = await requests.get('access', requestId);
    if (!found) throw new ServiceError('unknown_request');
    if (found.state !== 'received') throw stateRefusal();
    if (found.subjectKind !== named.subjectKind || found.accountId !== named.accountId || found.identifier !== named.identifier) {
      throw new ServiceError('invalid_request', 'The access request names another subject.');
    }
    return found;
  }

  private blank(kind: RequestKind, now: number, receivedAt: number, actor: Actor, source: string): ComplianceRequestRecord {
    return {
      id: this.deps.ids.mint(kind === 'access' ? 'accessRequest' : 'erasureRequest'),
      kind,
      state: 'received',
      subjectKind: 'account',
      accountId: null,
      identifier: null,
      source,
      identityCheck: null,
      receivedAt,
      dueAt: oneMonthAfter(receivedAt),
      filedBy: actorLabel(actor),
      filedAt: now,
      decidedBy: null,
      decidedAt: null,
      outcome: null,
      ground: null,
      note: null,
      approvalId: null,
      receiptId: null,
      statement: null,
    };
  }

  private receivedAt(given: string | undefined, now: number): number {
    if (given === undefined) return now;
    const at = Date.parse(given);
    if (!Number.isFinite(at) || at > now + CLOCK_SKEW_MS || at < now - RECEIVED_AT_MOST_MS) {
      throw new ServiceError('invalid_request', 'receivedAt is in the future or more than a year ago.');
    }
    return at;
  }

  private accessView(r: ListedRequest, now: number): AccessRequestView {
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

  private erasureView(r: ListedRequest, now: number): ErasureRequestView {
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
}

const stateRefusal = () =>
  new ServiceError('request_state', 'The request was answered or refused already, or an export of it is pending.');
