import { type Actor, actorLabel } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { Ids } from '../../../core/ids.ts';
import type { PageWindow } from '../../../core/page.ts';
import { ROOT_SLUG } from '../../../core/slug.ts';
import type { ApprovalDesk, ApprovalView } from '../../../http/admin/approval-desk.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import type { OperatorPrincipal } from '../../../http/auth/operator-bearer.ts';
import type {
  ComplianceRequestRecord,
  ComplianceStore,
  InventoryRow,
  ListedRequest,
  RefusalGround,
  RequestKind,
  StoredRequestState,
} from '../../../ports/compliance-store.ts';
import type { KeyStore } from '../../../ports/key-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import { blankRequest, type RequestInput, receivedAtOf, stateRefusal } from './request-records.ts';
import { accessView, erasureView, listed, type RequestStates, subjectView } from './request-views.ts';
import type { AccessRequestView, LookupView, Subject } from './schemas.ts';
import { type Answering, type SubjectLookup, subjectOf } from './subject-lookup.ts';

export { oneMonthAfter } from './request-records.ts';

/** Requests about accounts read at once to find those about a tenant's members. */
const MEMBER_BATCH = 500;
/** The `typ` of a signed negative response. */
export const NEGATIVE_RESPONSE_TYP = 'openrail-dsar-negative+jwt';

export interface ComplianceDeps {
  store: ComplianceStore;
  uow: UnitOfWork;
  desk: ApprovalDesk;
  lookup: SubjectLookup;
  /** The states of requests' exports and erasures, from their owners' views. */
  states: RequestStates;
  /** The holder-data registry's inventory, each column counted by its table's owner. */
  inventory(): Promise<InventoryRow[]>;
  /** Which of these accounts are members of the tenant (the membership module's view). */
  membersAmong(tenant: string, accountIds: readonly string[]): Promise<ReadonlySet<string>>;
  keys: KeyStore;
  didOf(slug: string): string;
  clock: Clock;
  ids: Ids;
}

/**
 * Data-subject requests (docs/backoffice/compliance.md): the lookup over the holder-data
 * registry, access requests (a signed negative response, or the four-eyes export), and what the
 * overview reads of both kinds; erasure requests are erasure-requests.ts.
 */
export class ComplianceService {
  constructor(private readonly deps: ComplianceDeps) {}

  /**
   * Every registered place that holds the subject, with counts: never a row of anyone. Made to
   * answer the access request `answering`, that request's own records are left out.
   */
  lookup(subject: Subject, answering?: Answering): Promise<LookupView> {
    return this.deps.lookup.lookup(subject, answering);
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
    const found: ComplianceRequestRecord[] = [];
    // The requests about accounts, newest first, a batch at a time: the membership module says
    // which of a batch's accounts are the tenant's members.
    let before: readonly [number, string] | undefined;
    for (;;) {
      const batch = await this.deps.store.aboutAccounts(MEMBER_BATCH, before);
      const members = await this.deps.membersAmong(tenant, [...new Set(batch.map((r) => r.accountId as string))]);
      found.push(...batch.filter((r) => members.has(r.accountId as string)));
      const last = batch.at(-1);
      if (found.length >= limit || batch.length < MEMBER_BATCH || last === undefined) break;
      before = [last.receivedAt, last.id];
    }
    return (await listed(this.deps.states, found.slice(0, limit))).map((r) => ({
      requestId: r.id,
      kind: r.kind,
      state: r.kind === 'access' ? accessView(r, now).state : erasureView(r, now).state,
      accountId: r.accountId,
      receivedAt: iso(r.receivedAt),
      dueAt: iso(r.dueAt),
      overdue: r.state === 'received' && now > r.dueAt,
    }));
  }

  /** The holder-data registry with its row counts (docs/holder-data.md). */
  async inventory() {
    return { checkedAt: iso(this.deps.clock.now()), columns: await this.deps.inventory() };
  }

  /** Access requests, newest received first (the list convention), each with its export's state. */
  async accessRequests(state: StoredRequestState | undefined, window: PageWindow<readonly [number, string]>) {
    return listed(this.deps.states, await this.deps.store.list({ kind: 'access', state }, window));
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
    return this.deps.uow.run(async ({ audit }) => {
      const named = input.requestId === undefined ? undefined : await this.receivedAccess(subject, input.requestId);
      // Looked up in the transaction that records the answer, so the statement is true when signed.
      const found = await this.lookup(subject, named);
      if (found.held) {
        throw new ServiceError('subject_held', `The service holds data on this subject in ${found.places.length} places.`);
      }
      const request: ListedRequest = named ?? {
        ...blankRequest(this.deps.ids, 'access', now, receivedAtOf(input.receivedAt, now), actor, input.source),
        ...subjectOf(subject),
        approvalState: null,
        receiptDisk: null,
      };
      const did = this.deps.didOf(ROOT_SLUG);
      const statement = await signer.sign(
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
        if (!(await this.deps.store.decideAccess(named.id, answered, { approvalId: named.approvalId, now })))
          throw stateRefusal();
      } else if (!(await this.deps.store.addNegative({ ...request, ...answered }))) {
        throw new ServiceError('subject_held', 'A negative response for this subject was signed meanwhile.');
      }
      const auditSeq = await audit.append({
        actor,
        action: 'dsar.answered',
        tenant: null,
        target: request.id,
        detail: { outcome: 'negative', subjectKind: request.subjectKind },
      });
      return { ok: true as const, auditSeq, request: accessView({ ...request, ...answered }, now), statement };
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
    return this.deps.uow.run(async ({ audit }) => {
      const subject = { accountId };
      const named = input.requestId === undefined ? undefined : await this.receivedAccess(subject, input.requestId);
      // Filed before a new request is recorded: the action's lookup must not find the request itself.
      const { approval } = await this.deps.desk.request('subject.export', subject, by, input.reason);
      const request = named ?? (await this.addAccess(subject, input, actor, now));
      const filed = { approvalId: approval.approvalId };
      if (!(await this.deps.store.decideAccess(request.id, filed, { approvalId: request.approvalId, now }))) throw stateRefusal();
      const auditSeq = await audit.append({
        actor,
        action: 'dsar.export_requested',
        tenant: null,
        target: request.id,
        detail: { approvalId: approval.approvalId },
      });
      const listed = { ...request, approvalId: approval.approvalId, approvalState: approval.state, receiptDisk: null };
      return { ok: true as const, auditSeq, request: accessView(listed, now), approval };
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
    return this.deps.uow.run(async ({ audit }) => {
      const request = await this.openAccess(subject, input, actor, now, input.requestId);
      const change = {
        state: 'refused' as const,
        ground: input.ground,
        note: input.note ?? null,
        decidedBy: actorLabel(actor),
        decidedAt: now,
      };
      if (!(await this.deps.store.decideAccess(request.id, change, { approvalId: request.approvalId, now })))
        throw stateRefusal();
      const auditSeq = await audit.append({
        actor,
        action: 'dsar.refused',
        tenant: null,
        target: request.id,
        detail: { ground: input.ground, subjectKind: request.subjectKind },
      });
      return { ok: true as const, auditSeq, request: accessView({ ...request, ...change }, now) };
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

  /** The access request named (still received, about the same subject), or a new one. */
  private async openAccess(
    subject: Subject,
    input: RequestInput,
    actor: Actor,
    now: number,
    requestId: string | undefined,
  ): Promise<ListedRequest> {
    if (requestId !== undefined) return this.receivedAccess(subject, requestId);
    return this.addAccess(subject, input, actor, now);
  }

  /** A new access request, received. */
  private async addAccess(subject: Subject, input: RequestInput, actor: Actor, now: number): Promise<ListedRequest> {
    const request: ComplianceRequestRecord = {
      ...blankRequest(this.deps.ids, 'access', now, receivedAtOf(input.receivedAt, now), actor, input.source),
      ...subjectOf(subject),
    };
    await this.deps.store.add(request);
    return { ...request, approvalState: null, receiptDisk: null };
  }

  /** The received access request `requestId` names, about the same subject. */
  private async receivedAccess(subject: Subject, requestId: string): Promise<ListedRequest> {
    const named = subjectOf(subject);
    const found = await this.deps.store.get('access', requestId);
    if (!found) throw new ServiceError('unknown_request');
    if (found.state !== 'received') throw stateRefusal();
    if (found.subjectKind !== named.subjectKind || found.accountId !== named.accountId || found.identifier !== named.identifier) {
      throw new ServiceError('invalid_request', 'The access request names another subject.');
    }
    return (await listed(this.deps.states, [found]))[0] as ListedRequest;
  }
}
