/** Membership and governance (docs/membership.md). Every row belongs to one tenant's programme. */

export type MemberStatus = 'active' | 'suspended' | 'erased';
export const MEMBER_STATUSES = ['active', 'suspended', 'erased'] as const;

export interface MemberRecord {
  tenant: string;
  /** RFC 7638 thumbprint of the holder's device key. */
  accountId: string;
  displayName: string | null;
  tier: string;
  status: MemberStatus;
  balance: number;
  joinedAt: number;
  updatedAt: number;
}

export interface MemberPatch {
  displayName?: string | null;
  tier?: string;
  status?: MemberStatus;
}

export interface CoinEntry {
  id: string;
  tenant: string;
  accountId: string;
  idempotencyKey: string;
  delta: number;
  reason: string;
  /** The member's balance once this entry applied. */
  balanceAfter: number;
  createdAt: number;
}

/**
 * What applying a coin entry came to: `applied` (new), `replayed` (the key was used before; the
 * stored entry, whatever body it had), or `insufficient` (the balance would go below zero;
 * nothing was written).
 */
export type CoinResult =
  | { kind: 'applied'; entry: CoinEntry }
  | { kind: 'replayed'; entry: CoinEntry }
  | { kind: 'insufficient' };

export type ProposalState = 'draft' | 'open' | 'closed';

export interface ProposalRecord {
  id: string;
  tenant: string;
  title: string;
  options: string[];
  /** Tiers whose members may vote; null: every tier. */
  tiers: string[] | null;
  opensAt: number;
  closesAt: number;
  state: ProposalState;
  votesCast: number;
  createdAt: number;
  openedAt: number | null;
  closedAt: number | null;
}

export interface VoteRecord {
  tenant: string;
  proposalId: string;
  accountId: string;
  option: string;
  /** Recorded at a desk by an operator on the member's behalf. */
  assisted: boolean;
  castAt: number;
}

export interface TallyRow {
  option: string;
  assisted: boolean;
  votes: number;
}

/** @tenantOwned */
export interface MembershipStore {
  /** Replaces the tenant's credential types that enrol (type ids of its own types). */
  setEnrolmentTypes(tenant: string, typeIds: string[], now: number): Promise<void>;
  enrolmentTypes(tenant: string): Promise<string[]>;

  /** False when the account is already a member of the tenant (nothing is written then). */
  enrol(member: MemberRecord): Promise<boolean>;
  /**
   * Spends the hosted-verification transaction an enrolment is made by (the verification module's
   * statement, in the enrolment's transaction): once, and only while it is live and completed.
   * False when it is gone, pending or already spent. Transactions are found by id alone, by design.
   */
  spendTransaction(transactionId: string, now: number): Promise<boolean>;
  getMember(tenant: string, accountId: string): Promise<MemberRecord | undefined>;
  /** Every programme the account belongs to, of any tenant: the holder's own view, by design. */
  membershipsOf(accountId: string): Promise<MemberRecord[]>;
  /** The account's coin entries in one tenant's programme, oldest first (at most `limit`). */
  coinLedger(tenant: string, accountId: string, limit: number): Promise<CoinEntry[]>;
  /** Applies the patch to a member that is not erased; false when there is none. */
  updateMember(tenant: string, accountId: string, patch: MemberPatch, now: number): Promise<boolean>;
  /**
   * Appends a coin entry, idempotent by the tenant's key, and moves the balance with one
   * conditional update that refuses to go below zero. All or nothing.
   */
  applyCoins(entry: Omit<CoinEntry, 'balanceAfter'>): Promise<CoinResult>;

  createProposal(proposal: ProposalRecord): Promise<void>;
  getProposal(tenant: string, id: string): Promise<ProposalRecord | undefined>;
  /** A proposal by its id alone, whichever tenant owns it: a holder's vote names no tenant. */
  findProposal(id: string): Promise<ProposalRecord | undefined>;
  /** Moves a proposal from one state to the next with one conditional write; false if it was not in `from`. */
  moveProposal(tenant: string, id: string, from: ProposalState, to: ProposalState, now: number): Promise<boolean>;
  /** The tenant's open proposals whose window holds `now`. */
  openProposals(tenant: string, now: number): Promise<ProposalRecord[]>;

  /**
   * Records one vote: false when the member already voted on the proposal. Counts it on the
   * proposal only while the proposal is open and `now` is in its window (under the proposal's row
   * lock, so a close is ordered before or after it); throws `ProposalNotOpen` otherwise, writing nothing.
   */
  castVote(vote: VoteRecord): Promise<boolean>;
  /** The proposals of `proposalIds` (of this tenant) the account has voted on. */
  votedOn(tenant: string, accountId: string, proposalIds: string[]): Promise<string[]>;
  tally(tenant: string, proposalId: string): Promise<TallyRow[]>;
}

/** Thrown by `castVote` when the proposal is not open for votes at that moment. */
export class ProposalNotOpen extends Error {
  constructor() {
    super('proposal not open');
  }
}
