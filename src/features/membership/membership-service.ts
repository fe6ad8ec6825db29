import type { Static } from '@sinclair/typebox';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { normaliseName } from '../../core/display-text.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import { constantTimeEqual, hashToken } from '../../core/secrets.ts';
import type { CoinEntry, MemberPatch, MemberRecord, MemberStatus, MembershipStore } from '../../ports/membership-store.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';
import type { VerificationViews } from '../../ports/verification-views.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import { requireResponseCode } from '../verification/response-code.ts';
import { type ProposalBody, type ProposalChange, Proposals } from './proposals.ts';
import type { Member } from './schemas.ts';

// The back office's people group reads a proposal's view and body from here.
export { type ProposalBody, proposalView } from './proposals.ts';

export const DEFAULT_TIER = 'member';
/** At most this many memberships and open proposals are listed for one holder. */
const ME_LIMIT = 100;

export interface EnrolInput {
  tenant: string;
  accountId: string;
  displayName?: string;
  tier?: string;
}

export interface CoinsInput {
  delta: number;
  reason: string;
  idempotencyKey: string;
}

export interface UpdateInput {
  tenant: string;
  accountId: string;
  displayName?: string | null;
  tier?: string;
  status?: MemberStatus;
  coins?: CoinsInput;
}

export type MemberView = Static<typeof Member>;

const iso = (ms: number) => new Date(ms).toISOString();

export function memberView(m: MemberRecord): MemberView {
  return {
    tenant: m.tenant,
    accountId: m.accountId,
    displayName: m.displayName,
    tier: m.tier,
    status: m.status,
    balance: m.balance,
    joinedAt: iso(m.joinedAt),
  };
}

const entryView = (e: CoinEntry) => ({
  delta: e.delta,
  reason: e.reason,
  idempotencyKey: e.idempotencyKey,
  balanceAfter: e.balanceAfter,
  createdAt: iso(e.createdAt),
});

export interface MembershipDeps {
  store: MembershipStore;
  uow: UnitOfWork;
  tenants: TenantService;
  types: TypeService;
  clock: Clock;
  ids: Ids;
  /** The verification module's views: the transaction an enrolment by presentation is made by. */
  transactions: Pick<VerificationViews, 'enrolment'>;
}

/** Membership and governance of a tenant's programme (docs/membership.md). */
export class MembershipService {
  private readonly proposals: Proposals;

  constructor(private readonly deps: MembershipDeps) {
    this.proposals = new Proposals(deps);
  }

  /** POST /api/proposals: create a draft, open it, close it, or show it. */
  proposal(body: ProposalBody, actor: Actor) {
    return this.proposals.proposal(body, actor);
  }

  /**
   * Creates, opens or closes a proposal, with the sequence of its audit entry (the back office's
   * governance answers it).
   */
  changeProposal(body: ProposalBody & { action: ProposalChange['action'] }, actor: Actor) {
    return this.proposals.changeProposal(body, actor);
  }

  /** POST /member/vote (the holder) and POST /api/proposals/vote (at a desk, `assisted`). */
  vote(input: { tenant?: string; proposalId: string; accountId: string; option: string }, actor: Actor, assisted: boolean) {
    return this.proposals.vote(input, actor, assisted);
  }

  /** POST /api/members/enrolment-types: which of the tenant's own credential types enrol. */
  async setEnrolmentTypes(tenant: string, typeIds: string[], actor: Actor) {
    await this.deps.tenants.get(tenant);
    const unique = [...new Set(typeIds)].sort();
    if (unique.length !== typeIds.length) throw new ServiceError('invalid_request', 'A type id is named twice.');
    for (const typeId of unique) await this.deps.types.get(tenant, typeId);
    await this.deps.uow.run(async ({ audit }) => {
      await this.deps.store.setEnrolmentTypes(tenant, unique, this.deps.clock.now());
      await audit.append({
        actor,
        action: 'membership.enrolment_types',
        tenant,
        target: tenant,
        detail: { typeIds: unique },
      });
    });
    return { tenant, typeIds: unique };
  }

  /** POST /api/members/enroll: an operator enrols an account. */
  async enrolByOperator(input: EnrolInput, actor: Actor): Promise<MemberView> {
    await this.deps.tenants.get(input.tenant);
    const now = this.deps.clock.now();
    const member: MemberRecord = {
      tenant: input.tenant,
      accountId: input.accountId,
      displayName: input.displayName === undefined ? null : normaliseName(input.displayName),
      tier: input.tier ?? DEFAULT_TIER,
      status: 'active',
      balance: 0,
      joinedAt: now,
      updatedAt: now,
    };
    await this.deps.uow.run(async (recorders) => {
      if (!(await this.deps.store.enrol(member))) throw alreadyMember();
      await this.recordEnrolment(member, 'operator', actor, recorders);
    });
    return memberView(member);
  }

  /**
   * POST /member/enroll: the holder who presented a credential of an enrolling type is enrolled.
   * A same-device answer enrols only with the response code its browser brought back.
   */
  async enrolByPresentation(transactionId: string, resultToken: string, responseCode?: string): Promise<MemberView> {
    const now = this.deps.clock.now();
    return this.deps.uow.run(async (recorders) => {
      const tx = await this.deps.transactions.enrolment(transactionId);
      if (!tx || tx.expiresAt <= now || !constantTimeEqual(hashToken(resultToken), tx.resultTokenHash)) {
        throw new ServiceError('unknown_transaction', 'No live presentation transaction has this id and result token.');
      }
      if (tx.completedAt === null) throw new ServiceError('verification_pending', 'The presentation has not been made yet.');
      requireResponseCode(tx.responseCodeHash, responseCode);
      if (!tx.accepted || !tx.holder) {
        throw new ServiceError('verification_failed', 'The presentation was not accepted, so it enrols no one.');
      }
      if (tx.enrolledAt !== null) throw transactionUsed();
      const accepted = await this.deps.store.enrolmentTypes(tx.typeTenant);
      if (!accepted.includes(tx.typeId)) {
        throw new ServiceError('type_not_enrolling', `The tenant ${tx.typeTenant} does not enrol with this credential type.`);
      }
      if (!(await this.deps.store.spendTransaction(tx.id, now))) throw transactionUsed();
      const member: MemberRecord = {
        tenant: tx.typeTenant,
        accountId: tx.holder,
        displayName: null,
        tier: DEFAULT_TIER,
        status: 'active',
        balance: 0,
        joinedAt: now,
        updatedAt: now,
      };
      if (!(await this.deps.store.enrol(member))) throw alreadyMember();
      await this.recordEnrolment(member, 'presentation', { kind: 'holder', accountId: member.accountId }, recorders, tx.id);
      return memberView(member);
    });
  }

  private async recordEnrolment(
    member: MemberRecord,
    via: 'operator' | 'presentation',
    actor: Actor,
    { audit }: Recorders,
    transactionId?: string,
  ) {
    const detail = { via, tier: member.tier, ...(transactionId ? { transactionId } : {}) };
    await audit.append({ actor, action: 'member.enrolled', tenant: member.tenant, target: member.accountId, detail }, [
      { type: 'member.enrolled', tenant: member.tenant, data: { accountId: member.accountId, via, tier: member.tier } },
    ]);
  }

  /** POST /api/members/update: tier, display name, status; or one coin entry. */
  async update(input: UpdateInput, actor: Actor) {
    const changes = (['displayName', 'tier', 'status'] as const).filter((k) => input[k] !== undefined);
    if (input.coins && changes.length > 0) {
      throw new ServiceError('invalid_request', 'A coin entry travels alone: send tier, display name or status separately.');
    }
    if (!input.coins && changes.length === 0) throw new ServiceError('invalid_request', 'Nothing to change.');
    return this.deps.uow.run(async ({ audit }) => {
      const member = await this.deps.store.getMember(input.tenant, input.accountId);
      if (!member) throw new ServiceError('unknown_member', 'The tenant has no member with this account id.');
      if (member.status === 'erased') throw memberErased();
      const now = this.deps.clock.now();
      if (input.coins) {
        const c = input.coins;
        const result = await this.deps.store.applyCoins({
          id: this.deps.ids.mint('coinEntry'),
          tenant: input.tenant,
          accountId: input.accountId,
          idempotencyKey: c.idempotencyKey,
          delta: c.delta,
          reason: c.reason,
          createdAt: now,
        });
        if (result.kind === 'insufficient') {
          throw new ServiceError(
            'insufficient_balance',
            `The balance is ${member.balance}; this debit would take it below zero.`,
          );
        }
        const e = result.entry;
        if (result.kind === 'replayed') {
          if (e.accountId !== input.accountId || e.delta !== c.delta || e.reason !== c.reason) {
            throw new ServiceError('idempotency_conflict', 'This idempotency key was used with a different body.');
          }
          const current = (await this.deps.store.getMember(input.tenant, input.accountId)) ?? member;
          return { member: memberView(current), coinEntry: entryView(e) };
        }
        const detail = { delta: e.delta, reason: e.reason, idempotencyKey: e.idempotencyKey, balanceAfter: e.balanceAfter };
        await audit.append({ actor, action: 'member.coins', tenant: input.tenant, target: input.accountId, detail }, [
          {
            type: 'member.updated',
            tenant: input.tenant,
            data: { accountId: input.accountId, changed: ['balance'], balance: e.balanceAfter },
          },
        ]);
        return { member: memberView({ ...member, balance: e.balanceAfter, updatedAt: now }), coinEntry: entryView(e) };
      }
      const patch: MemberPatch = {};
      if (input.tier !== undefined) patch.tier = input.tier;
      if (input.status !== undefined) patch.status = input.status;
      if (input.displayName !== undefined)
        patch.displayName = input.displayName === null ? null : normaliseName(input.displayName);
      // An erased record keeps only what the programme needs: no display name.
      if (patch.status === 'erased') patch.displayName = null;
      if (!(await this.deps.store.updateMember(input.tenant, input.accountId, patch, now))) throw memberErased();
      const updated: MemberRecord = { ...member, ...patch, updatedAt: now };
      const changed = changes.map((k) => k);
      const detail = { changed, tier: updated.tier, status: updated.status };
      await audit.append({ actor, action: 'member.updated', tenant: input.tenant, target: input.accountId, detail }, [
        { type: 'member.updated', tenant: input.tenant, data: { accountId: input.accountId, ...detail } },
      ]);
      return { member: memberView(updated) };
    });
  }

  /** Every programme the account belongs to, of any tenant (the account portal, the directory). */
  membershipsOf(accountId: string): Promise<MemberRecord[]> {
    return this.deps.store.membershipsOf(accountId);
  }

  /** The account's coin entries in one tenant's programme, oldest first (at most `limit`). */
  coinLedger(tenant: string, accountId: string, limit: number): Promise<CoinEntry[]> {
    return this.deps.store.coinLedger(tenant, accountId, limit);
  }

  /** GET /member/me: the holder's memberships and the open proposals it may vote on. */
  async me(accountId: string) {
    const now = this.deps.clock.now();
    const members = (await this.deps.store.membershipsOf(accountId)).slice(0, ME_LIMIT);
    const memberships = [];
    const proposals = [];
    for (const m of members) {
      const tenant = await this.deps.tenants.find(m.tenant);
      memberships.push({ ...memberView(m), tenantName: tenant?.displayName ?? tenant?.name ?? m.tenant });
      if (m.status !== 'active') continue;
      const open = (await this.deps.store.openProposals(m.tenant, now)).filter((p) => !p.tiers || p.tiers.includes(m.tier));
      const voted = new Set(
        await this.deps.store.votedOn(
          m.tenant,
          accountId,
          open.map((p) => p.id),
        ),
      );
      for (const p of open) {
        if (proposals.length >= ME_LIMIT) break;
        proposals.push({
          proposalId: p.id,
          tenant: p.tenant,
          title: p.title,
          options: p.options,
          opensAt: iso(p.opensAt),
          closesAt: iso(p.closesAt),
          voted: voted.has(p.id),
        });
      }
    }
    return { accountId, memberships, proposals };
  }
}

const alreadyMember = () => new ServiceError('already_member', 'The account is already a member of this programme.');
const memberErased = () => new ServiceError('member_erased', 'The member record is erased and does not change.');
const transactionUsed = () =>
  new ServiceError('transaction_used', 'This presentation transaction has already enrolled a member.');
