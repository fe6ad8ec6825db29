import type { Static } from '@sinclair/typebox';
import { constantTimeEqual, hashToken } from '../../adapters/crypto/secrets.ts';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { normaliseName } from '../../core/display-text.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import {
  type CoinEntry,
  type MemberPatch,
  type MemberRecord,
  type MemberStatus,
  type MembershipStore,
  ProposalNotOpen,
  type ProposalRecord,
  type TallyRow,
} from '../../ports/membership-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { VerificationViews } from '../../ports/verification-views.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import { requireResponseCode } from '../verification/response-code.ts';
import type { Member } from './schemas.ts';

export const DEFAULT_TIER = 'member';
/** A proposal's window may span at most this long. */
export const MAX_WINDOW_MS = 366 * 24 * 3600 * 1000;
/** At most this many memberships and open proposals are listed for one holder. */
const ME_LIMIT = 100;

type Scope = { membership: MembershipStore };

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

export type ProposalAction =
  | {
      tenant: string;
      action: 'create';
      title: string;
      options: string[];
      tiers?: string[];
      opensAt: string;
      closesAt: string;
    }
  | { tenant: string; action: 'open' | 'close' | 'show'; proposalId: string };

/** A proposal action that changes something, and is audited. */
type ProposalChange = Exclude<ProposalAction, { action: 'show' }>;

/** The body of POST /api/proposals as the schema admits it; `proposal` checks it per action. */
export interface ProposalBody {
  tenant: string;
  action: 'create' | 'open' | 'close' | 'show';
  proposalId?: string;
  title?: string;
  options?: string[];
  tiers?: string[];
  opensAt?: string;
  closesAt?: string;
}

const CREATE_FIELDS = ['title', 'options', 'opensAt', 'closesAt'] as const;

/** The body's fields for its action: every one it needs, none of another action's. */
function actionOf(body: ProposalBody): ProposalAction {
  const given = (['proposalId', 'title', 'options', 'tiers', 'opensAt', 'closesAt'] as const).filter(
    (k) => body[k] !== undefined,
  );
  if (body.action === 'create') {
    const missing = CREATE_FIELDS.filter((k) => body[k] === undefined);
    if (missing.length > 0) throw new ServiceError('invalid_request', `create needs ${missing.join(', ')}.`);
    if (body.proposalId !== undefined) throw new ServiceError('invalid_request', 'create takes no proposalId.');
    const { title, options, opensAt, closesAt } = body as Required<ProposalBody>;
    return {
      tenant: body.tenant,
      action: 'create',
      title,
      options,
      opensAt,
      closesAt,
      ...(body.tiers ? { tiers: body.tiers } : {}),
    };
  }
  if (body.proposalId === undefined) throw new ServiceError('invalid_request', `${body.action} needs proposalId.`);
  const extra = given.filter((k) => k !== 'proposalId');
  if (extra.length > 0) throw new ServiceError('invalid_request', `${body.action} takes no ${extra.join(', ')}.`);
  return { tenant: body.tenant, action: body.action, proposalId: body.proposalId };
}

export type MemberView = Static<typeof Member>;

export interface TallyView {
  total: number;
  assisted: number;
  options: Array<{ option: string; votes: number; assisted: number }>;
}

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

function tallyView(p: ProposalRecord, rows: TallyRow[]): TallyView {
  const options = p.options.map((option) => {
    const mine = rows.filter((r) => r.option === option);
    return {
      option,
      votes: mine.reduce((n, r) => n + r.votes, 0),
      assisted: mine.filter((r) => r.assisted).reduce((n, r) => n + r.votes, 0),
    };
  });
  return {
    total: options.reduce((n, o) => n + o.votes, 0),
    assisted: options.reduce((n, o) => n + o.assisted, 0),
    options,
  };
}

export function proposalView(p: ProposalRecord, tally?: TallyView) {
  return {
    proposalId: p.id,
    tenant: p.tenant,
    title: p.title,
    options: p.options,
    tiers: p.tiers,
    opensAt: iso(p.opensAt),
    closesAt: iso(p.closesAt),
    state: p.state,
    votesCast: p.votesCast,
    createdAt: iso(p.createdAt),
    openedAt: p.openedAt === null ? null : iso(p.openedAt),
    closedAt: p.closedAt === null ? null : iso(p.closedAt),
    ...(tally ? { tally } : {}),
  };
}

/** Membership and governance of a tenant's programme (docs/membership.md). */
export class MembershipService {
  constructor(
    private readonly store: MembershipStore,
    private readonly uow: UnitOfWork<Scope>,
    private readonly tenants: TenantService,
    private readonly types: TypeService,
    private readonly clock: Clock,
    private readonly ids: Ids,
    /** The verification module's views: the transaction an enrolment by presentation is made by. */
    private readonly transactions: Pick<VerificationViews, 'enrolment'>,
  ) {}

  /** POST /api/members/enrolment-types: which of the tenant's own credential types enrol. */
  async setEnrolmentTypes(tenant: string, typeIds: string[], actor: Actor) {
    await this.tenants.get(tenant);
    const unique = [...new Set(typeIds)].sort();
    if (unique.length !== typeIds.length) throw new ServiceError('invalid_request', 'A type id is named twice.');
    for (const typeId of unique) await this.types.get(tenant, typeId);
    await this.uow.run(async ({ membership, audit }) => {
      await membership.setEnrolmentTypes(tenant, unique, this.clock.now());
      await audit.append({ actor, action: 'membership.enrolment_types', tenant, target: tenant, detail: { typeIds: unique } });
    });
    return { tenant, typeIds: unique };
  }

  /** POST /api/members/enroll: an operator enrols an account. */
  async enrolByOperator(input: EnrolInput, actor: Actor): Promise<MemberView> {
    await this.tenants.get(input.tenant);
    const now = this.clock.now();
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
    await this.uow.run(async ({ membership, audit, events }) => {
      if (!(await membership.enrol(member))) throw alreadyMember();
      await this.recordEnrolment(member, 'operator', actor, audit, events);
    });
    return memberView(member);
  }

  /**
   * POST /member/enroll: the holder who presented a credential of an enrolling type is enrolled.
   * A same-device answer enrols only with the response code its browser brought back.
   */
  async enrolByPresentation(transactionId: string, resultToken: string, responseCode?: string): Promise<MemberView> {
    const now = this.clock.now();
    return this.uow.run(async ({ membership, audit, events }) => {
      const tx = await this.transactions.enrolment(transactionId);
      if (!tx || tx.expiresAt <= now || !constantTimeEqual(hashToken(resultToken), tx.resultTokenHash)) {
        throw new ServiceError('unknown_transaction', 'No live presentation transaction has this id and result token.');
      }
      if (tx.completedAt === null) throw new ServiceError('verification_pending', 'The presentation has not been made yet.');
      requireResponseCode(tx.responseCodeHash, responseCode);
      if (!tx.accepted || !tx.holder) {
        throw new ServiceError('verification_failed', 'The presentation was not accepted, so it enrols no one.');
      }
      if (tx.enrolledAt !== null) throw transactionUsed();
      const accepted = await membership.enrolmentTypes(tx.typeTenant);
      if (!accepted.includes(tx.typeId)) {
        throw new ServiceError('type_not_enrolling', `The tenant ${tx.typeTenant} does not enrol with this credential type.`);
      }
      if (!(await membership.spendTransaction(tx.id, now))) throw transactionUsed();
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
      if (!(await membership.enrol(member))) throw alreadyMember();
      await this.recordEnrolment(member, 'presentation', { kind: 'holder', accountId: member.accountId }, audit, events, tx.id);
      return memberView(member);
    });
  }

  private async recordEnrolment(
    member: MemberRecord,
    via: 'operator' | 'presentation',
    actor: Actor,
    audit: Parameters<Parameters<UnitOfWork<Scope>['run']>[0]>[0]['audit'],
    events: Parameters<Parameters<UnitOfWork<Scope>['run']>[0]>[0]['events'],
    transactionId?: string,
  ) {
    const detail = { via, tier: member.tier, ...(transactionId ? { transactionId } : {}) };
    await audit.append({ actor, action: 'member.enrolled', tenant: member.tenant, target: member.accountId, detail });
    await events.emit({
      type: 'member.enrolled',
      tenant: member.tenant,
      data: { accountId: member.accountId, via, tier: member.tier },
    });
  }

  /** POST /api/members/update: tier, display name, status; or one coin entry. */
  async update(input: UpdateInput, actor: Actor) {
    const changes = (['displayName', 'tier', 'status'] as const).filter((k) => input[k] !== undefined);
    if (input.coins && changes.length > 0) {
      throw new ServiceError('invalid_request', 'A coin entry travels alone: send tier, display name or status separately.');
    }
    if (!input.coins && changes.length === 0) throw new ServiceError('invalid_request', 'Nothing to change.');
    return this.uow.run(async ({ membership, audit, events }) => {
      const member = await membership.getMember(input.tenant, input.accountId);
      if (!member) throw new ServiceError('unknown_member', 'The tenant has no member with this account id.');
      if (member.status === 'erased') throw memberErased();
      const now = this.clock.now();
      if (input.coins) {
        const c = input.coins;
        const result = await membership.applyCoins({
          id: this.ids.mint('coinEntry'),
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
          const current = (await membership.getMember(input.tenant, input.accountId)) ?? member;
          return { member: memberView(current), coinEntry: entryView(e) };
        }
        const detail = { delta: e.delta, reason: e.reason, idempotencyKey: e.idempotencyKey, balanceAfter: e.balanceAfter };
        await audit.append({ actor, action: 'member.coins', tenant: input.tenant, target: input.accountId, detail });
        await events.emit({
          type: 'member.updated',
          tenant: input.tenant,
          data: { accountId: input.accountId, changed: ['balance'], balance: e.balanceAfter },
        });
        return { member: memberView({ ...member, balance: e.balanceAfter, updatedAt: now }), coinEntry: entryView(e) };
      }
      const patch: MemberPatch = {};
      if (input.tier !== undefined) patch.tier = input.tier;
      if (input.status !== undefined) patch.status = input.status;
      if (input.displayName !== undefined)
        patch.displayName = input.displayName === null ? null : normaliseName(input.displayName);
      // An erased record keeps only what the programme needs: no display name.
      if (patch.status === 'erased') patch.displayName = null;
      if (!(await membership.updateMember(input.tenant, input.accountId, patch, now))) throw memberErased();
      const updated: MemberRecord = { ...member, ...patch, updatedAt: now };
      const changed = changes.map((k) => k);
      const detail = { changed, tier: updated.tier, status: updated.status };
      await audit.append({ actor, action: 'member.updated', tenant: input.tenant, target: input.accountId, detail });
      await events.emit({ type: 'member.updated', tenant: input.tenant, data: { accountId: input.accountId, ...detail } });
      return { member: memberView(updated) };
    });
  }

  /** POST /api/proposals: create a draft, open it, close it, or show it. */
  async proposal(body: ProposalBody, actor: Actor) {
    const input = actionOf(body);
    if (input.action !== 'show') return (await this.change(input, actor)).proposal;
    const p = await this.store.getProposal(input.tenant, input.proposalId);
    if (!p) throw new ServiceError('unknown_proposal', 'The tenant has no proposal with this id.');
    return proposalView(p, p.state === 'closed' ? tallyView(p, await this.store.tally(p.tenant, p.id)) : undefined);
  }

  /**
   * Creates, opens or closes a proposal, with the sequence of its audit entry (the back office's
   * governance answers it).
   */
  changeProposal(body: ProposalBody & { action: ProposalChange['action'] }, actor: Actor) {
    // actionOf keeps the body's action, so this one is a change.
    return this.change(actionOf(body) as ProposalChange, actor);
  }

  private async change(input: ProposalChange, actor: Actor) {
    if (input.action === 'create') return this.createProposal(input, actor);
    const now = this.clock.now();
    return this.uow.run(async ({ membership, audit, events }) => {
      const p = await membership.getProposal(input.tenant, input.proposalId);
      if (!p) throw new ServiceError('unknown_proposal', 'The tenant has no proposal with this id.');
      if (input.action === 'open') {
        if (p.state !== 'draft') throw new ServiceError('proposal_state', `The proposal is ${p.state}; only a draft opens.`);
        if (p.closesAt <= now) throw new ServiceError('proposal_state', 'The proposal’s window has already ended.');
        if (!(await membership.moveProposal(p.tenant, p.id, 'draft', 'open', now))) {
          throw new ServiceError('proposal_state', 'The proposal is no longer a draft.');
        }
        const opened: ProposalRecord = { ...p, state: 'open', openedAt: now };
        const data = { proposalId: p.id, opensAt: iso(p.opensAt), closesAt: iso(p.closesAt) };
        const auditSeq = await audit.append({ actor, action: 'proposal.opened', tenant: p.tenant, target: p.id, detail: data });
        await events.emit({ type: 'proposal.opened', tenant: p.tenant, data });
        return { proposal: proposalView(opened), auditSeq };
      }
      if (p.state !== 'open') throw new ServiceError('proposal_state', `The proposal is ${p.state}; only an open one closes.`);
      // The close takes the proposal's row lock: a vote either counted before it or is refused.
      if (!(await membership.moveProposal(p.tenant, p.id, 'open', 'closed', now))) {
        throw new ServiceError('proposal_state', 'The proposal is no longer open.');
      }
      const fresh = (await membership.getProposal(p.tenant, p.id)) ?? { ...p, state: 'closed' as const, closedAt: now };
      const tally = tallyView(fresh, await membership.tally(p.tenant, p.id));
      const auditSeq = await audit.append({
        actor,
        action: 'proposal.closed',
        tenant: p.tenant,
        target: p.id,
        detail: { tally },
      });
      await events.emit({ type: 'proposal.closed', tenant: p.tenant, data: { proposalId: p.id, tally } });
      return { proposal: proposalView(fresh, tally), auditSeq };
    });
  }

  private async createProposal(input: Extract<ProposalAction, { action: 'create' }>, actor: Actor) {
    await this.tenants.get(input.tenant);
    const now = this.clock.now();
    const opensAt = Date.parse(input.opensAt);
    const closesAt = Date.parse(input.closesAt);
    if (!Number.isFinite(opensAt) || !Number.isFinite(closesAt))
      throw new ServiceError('invalid_request', 'opensAt and closesAt must be date-times.');
    if (closesAt <= opensAt) throw new ServiceError('invalid_request', 'closesAt must be after opensAt.');
    if (closesAt <= now) throw new ServiceError('invalid_request', 'closesAt must be in the future.');
    if (closesAt - opensAt > MAX_WINDOW_MS) throw new ServiceError('invalid_request', 'The window may span at most 366 days.');
    const options = input.options.map(normaliseName);
    if (new Set(options).size !== options.length) throw new ServiceError('invalid_request', 'An option is named twice.');
    const tiers = input.tiers ? [...new Set(input.tiers)] : null;
    if (tiers && input.tiers && tiers.length !== input.tiers.length)
      throw new ServiceError('invalid_request', 'A tier is named twice.');
    const p: ProposalRecord = {
      id: this.ids.mint('proposal'),
      tenant: input.tenant,
      title: normaliseName(input.title),
      options,
      tiers,
      opensAt,
      closesAt,
      state: 'draft',
      votesCast: 0,
      createdAt: now,
      openedAt: null,
      closedAt: null,
    };
    const auditSeq = await this.uow.run(async ({ membership, audit, events }) => {
      await membership.createProposal(p);
      const data = {
        proposalId: p.id,
        optionCount: p.options.length,
        tiers: p.tiers,
        opensAt: iso(opensAt),
        closesAt: iso(closesAt),
      };
      const seq = await audit.append({ actor, action: 'proposal.created', tenant: p.tenant, target: p.id, detail: data });
      await events.emit({ type: 'proposal.created', tenant: p.tenant, data });
      return seq;
    });
    return { proposal: proposalView(p), auditSeq };
  }

  /** POST /member/vote (the holder) and POST /api/proposals/vote (at a desk, `assisted`). */
  async vote(input: { tenant?: string; proposalId: string; accountId: string; option: string }, actor: Actor, assisted: boolean) {
    const now = this.clock.now();
    return this.uow.run(async ({ membership, audit, events }) => {
      const p =
        input.tenant === undefined
          ? await membership.findProposal(input.proposalId)
          : await membership.getProposal(input.tenant, input.proposalId);
      if (!p) throw new ServiceError('unknown_proposal', 'No proposal has this id.');
      const member = await membership.getMember(p.tenant, input.accountId);
      if (!member) throw new ServiceError('not_a_member', 'The account is not a member of this proposal’s programme.');
      if (member.status !== 'active') throw new ServiceError('member_inactive', `The member is ${member.status}.`);
      if (p.state !== 'open' || now < p.opensAt || now >= p.closesAt) throw proposalNotOpen(p, now);
      if (p.tiers && !p.tiers.includes(member.tier)) {
        throw new ServiceError('not_eligible', `Members of tier ${member.tier} do not vote on this proposal.`);
      }
      if (!p.options.includes(input.option)) throw new ServiceError('unknown_option', 'The option is not one of the proposal’s.');
      let cast: boolean;
      try {
        cast = await membership.castVote({
          tenant: p.tenant,
          proposalId: p.id,
          accountId: member.accountId,
          option: input.option,
          assisted,
          castAt: now,
        });
      } catch (err) {
        if (err instanceof ProposalNotOpen) throw proposalNotOpen({ ...p, state: 'closed' }, now);
        throw err;
      }
      if (!cast) throw new ServiceError('already_voted', 'The member has already voted on this proposal.');
      // The ballot's option is kept with the vote only; the audit and the event say that a vote was cast.
      const data = { proposalId: p.id, assisted };
      await audit.append({ actor, action: 'vote.cast', tenant: p.tenant, target: member.accountId, detail: data });
      await events.emit({ type: 'vote.cast', tenant: p.tenant, data });
      return { proposalId: p.id, tenant: p.tenant, option: input.option, assisted, castAt: iso(now) };
    });
  }

  /** Every programme the account belongs to, of any tenant (the account portal, the directory). */
  membershipsOf(accountId: string): Promise<MemberRecord[]> {
    return this.store.membershipsOf(accountId);
  }

  /** The account's coin entries in one tenant's programme, oldest first (at most `limit`). */
  coinLedger(tenant: string, accountId: string, limit: number): Promise<CoinEntry[]> {
    return this.store.coinLedger(tenant, accountId, limit);
  }

  /** GET /member/me: the holder's memberships and the open proposals it may vote on. */
  async me(accountId: string) {
    const now = this.clock.now();
    const members = (await this.store.membershipsOf(accountId)).slice(0, ME_LIMIT);
    const memberships = [];
    const proposals = [];
    for (const m of members) {
      const tenant = await this.tenants.find(m.tenant);
      memberships.push({ ...memberView(m), tenantName: tenant?.displayName ?? tenant?.name ?? m.tenant });
      if (m.status !== 'active') continue;
      const open = (await this.store.openProposals(m.tenant, now)).filter((p) => !p.tiers || p.tiers.includes(m.tier));
      const voted = new Set(
        await this.store.votedOn(
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

function proposalNotOpen(p: ProposalRecord, now: number) {
  if (p.state !== 'open') return new ServiceError('proposal_not_open', `The proposal is ${p.state}.`);
  if (now < p.opensAt) return new ServiceError('proposal_not_open', 'The proposal’s window has not begun.');
  return new ServiceError('proposal_not_open', 'The proposal’s window has ended.');
}
