import { type Actor, actorLabel } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { Ids } from '../../../core/ids.ts';
import type { PageWindow } from '../../../core/page.ts';
import type {
  ComplianceRequestRecord,
  ComplianceStore,
  ListedRequest,
  RefusalGround,
  StoredRequestState,
} from '../../../ports/compliance-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import type { ErasureService } from '../../account/erasure-service.ts';
import { blankRequest, type RequestInput, receivedAtOf, stateRefusal } from './request-records.ts';
import { erasureView, listed, type RequestStates } from './request-views.ts';

export interface ErasureRequestDeps {
  store: ComplianceStore;
  uow: UnitOfWork;
  erasure: ErasureService;
  /** The states of requests' exports and erasures, from their owners' views. */
  states: RequestStates;
  clock: Clock;
  ids: Ids;
}

/**
 * Erasure requests (docs/backoffice/compliance.md): filed, refused with a ground, or verified
 * through the account portal's erasure, whose transaction completes the request.
 */
export class ErasureRequests {
  constructor(private readonly deps: ErasureRequestDeps) {}

  /** Erasure requests, newest received first (the list convention), each with its erasure's disk check. */
  async requests(state: StoredRequestState | undefined, window: PageWindow<readonly [number, string]>) {
    return listed(this.deps.states, await this.deps.store.list({ kind: 'erasure', state }, window));
  }

  async get(id: string) {
    const found = await this.deps.store.get('erasure', id);
    if (!found) throw new ServiceError('unknown_request');
    const [request] = await listed(this.deps.states, [found]);
    return erasureView(request as ListedRequest, this.deps.clock.now());
  }

  async file(accountId: string, input: RequestInput & { identityCheck?: string | undefined }, actor: Actor) {
    const now = this.deps.clock.now();
    const receivedAt = receivedAtOf(input.receivedAt, now);
    const request: ComplianceRequestRecord = {
      ...blankRequest(this.deps.ids, 'erasure', now, receivedAt, actor, input.source),
      subjectKind: 'account',
      accountId,
      identifier: null,
      identityCheck: input.identityCheck ?? null,
    };
    return this.deps.uow.run(async ({ audit }) => {
      await this.deps.store.add(request);
      const auditSeq = await audit.append({ actor, action: 'erasure.requested', tenant: null, target: request.id, detail: {} });
      return {
        ok: true as const,
        auditSeq,
        request: erasureView({ ...request, approvalState: null, receiptDisk: null }, now),
      };
    });
  }

  async refuse(id: string, ground: RefusalGround, note: string | undefined, actor: Actor) {
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ audit }) => {
      const found = await this.received(id);
      const change = { state: 'refused' as const, ground, note: note ?? null, decidedBy: actorLabel(actor), decidedAt: now };
      if (!(await this.deps.store.decide('erasure', id, change))) throw stateRefusal();
      const auditSeq = await audit.append({ actor, action: 'erasure.refused', tenant: null, target: id, detail: { ground } });
      return { ok: true as const, auditSeq, request: erasureView({ ...found, ...change }, now) };
    });
  }

  /**
   * Runs the account portal's verified erasure for the request's account; the request completes
   * in the erasure's transaction, so either both happen or neither does.
   */
  async verify(id: string, identityCheck: string | undefined, actor: Actor) {
    const found = await this.received(id);
    if (found.accountId === null) throw stateRefusal();
    let auditSeq = 0;
    const receipt = await this.deps.erasure.erase(found.accountId, {
      by: actor,
      alongside: async (receipt) => {
        await this.deps.uow.run(async ({ audit }) => {
          const change = {
            state: 'completed' as const,
            outcome: 'erased' as const,
            receiptId: receipt.id,
            decidedBy: actorLabel(actor),
            decidedAt: receipt.completedAt,
            ...(identityCheck === undefined ? {} : { identityCheck }),
          };
          if (!(await this.deps.store.decide('erasure', id, change))) throw stateRefusal();
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
      request: await this.get(id),
      receipt: { receiptId: receipt.id, disk: receipt.disk },
    };
  }

  private async received(id: string): Promise<ListedRequest> {
    const found = await this.deps.store.get('erasure', id);
    if (!found) throw new ServiceError('unknown_request');
    if (found.state !== 'received') throw stateRefusal();
    return (await listed(this.deps.states, [found]))[0] as ListedRequest;
  }
}
