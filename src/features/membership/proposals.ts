import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { normaliseName } from '../../core/display-text.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import { type MembershipStore, ProposalNotOpen, type ProposalRecord, type TallyRow } from '../../ports/membership-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { TenantService } from '../tenants/tenant-service.ts';

/** A proposal's window may span at most this long. */
export const MAX_WINDOW_MS = 366 * 24 * 3600 * 1000;

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
export type ProposalChange = Exclude<ProposalAction, { action: 'show' }>;

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

export interface TallyView {
  total: number;
  assisted: number;
  options: Array<{ option: string; votes: number; assisted: number }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

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

export interface ProposalsDeps {
  store: MembershipStore;
  uow: UnitOfWork;
  tenants: TenantService;
  clock: Clock;
  ids: Ids;
}

/** A programme's governance (docs/membership.md, "Proposals"): proposals, their windows, and the votes members cast. */
export class Proposals {
  constructor(private readonly deps: ProposalsDeps) {}

  /** POST /api/proposals: create a draft, open it, close it, or show it. */
  async proposal(body: ProposalBody, actor: Actor) {
    const input = actionOf(body);
    if (input.action !== 'show') return (await this.change(input, actor)).proposal;
    const p = await this.deps.store.getProposal(input.tenant, input.proposalId);
    if (!p) throw new ServiceError('unknown_proposal', 'The tenant has no proposal with this id.');
    return proposalView(p, p.state === 'closed' ? tallyView(p, await this.deps.store.tally(p.tenant, p.id)) : undefined);
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
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ audit }) => {
      const p = await this.deps.store.getProposal(input.tenant, input.proposalId);
      if (!p) throw new ServiceError('unknown_proposal', 'The tenant has no proposal with this id.');
      if (input.action === 'open') {
        if (p.state !== 'draft') throw new ServiceError('proposal_state', `The proposal is ${p.state}; only a draft opens.`);
        if (p.closesAt <= now) throw new ServiceError('proposal_state', 'The proposal’s window has already ended.');
        if (!(await this.deps.store.moveProposal(p.tenant, p.id, 'draft', 'open', now))) {
          throw new ServiceError('proposal_state', 'The proposal is no longer a draft.');
        }
        const opened: ProposalRecord = { ...p, state: 'open', openedAt: now };
        const data = { proposalId: p.id, opensAt: iso(p.opensAt), closesAt: iso(p.closesAt) };
        const auditSeq = await audit.append({ actor, action: 'proposal.opened', tenant: p.tenant, target: p.id, detail: data }, [
          { type: 'proposal.opened', tenant: p.tenant, data },
        ]);
        return { proposal: proposalView(opened), auditSeq };
      }
      if (p.state !== 'open') throw new ServiceError('proposal_state', `The proposal is ${p.state}; only an open one closes.`);
      // The close takes the proposal's row lock: a vote either counted before it or is refused.
      if (!(await this.deps.store.moveProposal(p.tenant, p.id, 'open', 'closed', now))) {
        throw new ServiceError('proposal_state', 'The proposal is no longer open.');
      }
      const fresh = (await this.deps.store.getProposal(p.tenant, p.id)) ?? { ...p, state: 'closed' as const, closedAt: now };
      const tally = tallyView(fresh, await this.deps.store.tally(p.tenant, p.id));
      const auditSeq = await audit.append(
        { actor, action: 'proposal.closed', tenant: p.tenant, target: p.id, detail: { tally } },
        [{ type: 'proposal.closed', tenant: p.tenant, data: { proposalId: p.id, tally } }],
      );
      return { proposal: proposalView(fresh, tally), auditSeq };
    });
  }

  private async createProposal(input: Extract<ProposalAction, { action: 'create' }>, actor: Actor) {
    await this.deps.tenants.get(input.tenant);
    const now = this.deps.clock.now();
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
      id: this.deps.ids.mint('proposal'),
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
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      await this.deps.store.createProposal(p);
      const data = {
        proposalId: p.id,
        optionCount: p.options.length,
        tiers: p.tiers,
        opensAt: iso(opensAt),
        closesAt: iso(closesAt),
      };
      return audit.append({ actor, action: 'proposal.created', tenant: p.tenant, target: p.id, detail: data }, [
        { type: 'proposal.created', tenant: p.tenant, data },
      ]);
    });
    return { proposal: proposalView(p), auditSeq };
  }

  /** POST /member/vote (the holder) and POST /api/proposals/vote (at a desk, `assisted`). */
  async vote(input: { tenant?: string; proposalId: string; accountId: string; option: string }, actor: Actor, assisted: boolean) {
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ audit }) => {
      const p =
        input.tenant === undefined
          ? await this.deps.store.findProposal(input.proposalId)
          : await this.deps.store.getProposal(input.tenant, input.proposalId);
      if (!p) throw new ServiceError('unknown_proposal', 'No proposal has this id.');
      const member = await this.deps.store.getMember(p.tenant, input.accountId);
      if (!member) throw new ServiceError('not_a_member', 'The account is not a member of this proposal’s programme.');
      if (member.status !== 'active') throw new ServiceError('member_inactive', `The member is ${member.status}.`);
      if (p.state !== 'open' || now < p.opensAt || now >= p.closesAt) throw proposalNotOpen(p, now);
      if (p.tiers && !p.tiers.includes(member.tier)) {
        throw new ServiceError('not_eligible', `Members of tier ${member.tier} do not vote on this proposal.`);
      }
      if (!p.options.includes(input.option)) throw new ServiceError('unknown_option', 'The option is not one of the proposal’s.');
      let cast: boolean;
      try {
        cast = await this.deps.store.castVote({
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
      await audit.append({ actor, action: 'vote.cast', tenant: p.tenant, target: member.accountId, detail: data }, [
        { type: 'vote.cast', tenant: p.tenant, data },
      ]);
      return { proposalId: p.id, tenant: p.tenant, option: input.option, assisted, castAt: iso(now) };
    });
  }
}

function proposalNotOpen(p: ProposalRecord, now: number) {
  if (p.state !== 'open') return new ServiceError('proposal_not_open', `The proposal is ${p.state}.`);
  if (now < p.opensAt) return new ServiceError('proposal_not_open', 'The proposal’s window has not begun.');
  return new ServiceError('proposal_not_open', 'The proposal’s window has ended.');
}
