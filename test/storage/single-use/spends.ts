/**
 * Every single-use spend of the service, as its store makes it (one conditional write), with the
 * guards that make it single use: each guard is a way to ask for the spend that only that guard
 * refuses. single-use-spends.test.ts asks for each against the store directly (no service
 * pre-check in front), on both engines, and races each spend from two processes on PostgreSQL;
 * spend-child.ts runs one spend in a process of its own. `npm run mutation -- spends` removes each
 * SQL condition of these writes in turn and expects a test here to fail. "Only one" rules are
 * here too (one purge running, one negative response per subject, one export per access
 * request): each is a conditional write of the same kind (not yet regions of that target).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { SqlAccountSessionStore } from '../../../src/adapters/sql/account/sql-account-session-store.ts';
import { SqlApprovalStore } from '../../../src/adapters/sql/approvals/sql-approval-store.ts';
import { SqlComplianceStore } from '../../../src/adapters/sql/backoffice/sql-compliance-store.ts';
import { SqlRetentionStore } from '../../../src/adapters/sql/backoffice/sql-retention-store.ts';
import type { Db } from '../../../src/adapters/sql/connect.ts';
import { SqlAccessTokenStore } from '../../../src/adapters/sql/issuance/sql-access-token-store.ts';
import { SqlIssuedCredentialStore } from '../../../src/adapters/sql/issuance/sql-issued-credential-store.ts';
import { SqlMembershipStore } from '../../../src/adapters/sql/membership/sql-membership-store.ts';
import { SqlOfferStore } from '../../../src/adapters/sql/offers/sql-offer-store.ts';
import { SqlOnboardingStore } from '../../../src/adapters/sql/onboarding/sql-onboarding-store.ts';
import type { Database } from '../../../src/adapters/sql/schema.ts';
import { SqlTenantStore } from '../../../src/adapters/sql/tenants/sql-tenant-store.ts';
import { SqlPresentationTransactionStore } from '../../../src/adapters/sql/verification/sql-presentation-transaction-store.ts';
import type { CollectionResult, ListRef, StatusAllocation } from '../../../src/ports/issued-credential-store.ts';
import { ProposalNotOpen } from '../../../src/ports/membership-store.ts';
import { tenantRecord } from '../../helpers/databases.ts';

/** The spends' clock (ms): every seeded row is judged at this instant. */
export const NOW = 1_900_000_000_000;
const LATER = NOW + 600_000;
/** The tenants rows are seeded in: `alpha` the row's own, `beta` another. */
export const TENANTS = ['alpha', 'beta'] as const;
const TYPE = 'pass';
const MAX_ATTEMPTS = 5;

type Row = Record<string, unknown>;
const id = () => randomUUID();
const hash = () => randomBytes(32).toString('base64url');

/**
 * One way to ask for a spend that a single guard refuses: the row seeded with `row` changed (a
 * spent code, an expired token), `before` run once it is seeded (a vote already cast, a nonce
 * already spent), and the spend asked for with `call` and what `before` answers changed (another
 * tenant, another browser). A `neighbour` guard seeds a second row like the first (with the
 * columns the function answers taken from the first): the spend of the first must succeed and
 * leave the second as it was (a condition on the row's key, removed, reaches both).
 */
export interface Guard {
  name: string;
  row?: Row;
  call?: Row;
  before?: (db: Db, row: Row) => Promise<Row>;
  neighbour?: true | ((row: Row) => Row);
}

export interface SpendCase {
  /** What is spent, in words. */
  name: string;
  /** The table whose row the spend changes, and the columns that name the row. */
  table: keyof Database;
  key: readonly string[];
  /** Seeds a row spendable once at NOW (`over` changes its columns) and what it needs; returns it. */
  seed(db: Db, over?: Row): Promise<Row>;
  /** The spend of that row, with the arguments `call` changes; true when it was spent now. */
  spend(db: Db, row: Row, call?: Row): Promise<boolean>;
  guards: readonly Guard[];
  /** False for a read that spends nothing itself (it is asked twice alike, and not raced). */
  spends?: false;
  /** What a refused spend must leave as it was: the row by `key` unless given (a spend that inserts says which rows). */
  state?(db: Db, row: Row): Promise<unknown>;
  /**
   * The PostgreSQL race: what a third connection holds, in a transaction, while both spends queue
   * behind it (the row locked `for update` unless given: a spend that inserts queues behind a
   * conflicting insert), and whether that transaction then commits or rolls back.
   */
  hold?(client: pg.Client, row: Row): Promise<void>;
  release?: 'commit' | 'rollback';
}

/** Tenants and a credential type, once per database. */
export async function seedTenants(db: Db): Promise<void> {
  for (const slug of TENANTS) {
    await new SqlTenantStore(db).create(tenantRecord(slug), []);
    await db
      .insertInto('credential_types')
      .values({ tenant: slug, type_id: TYPE, name: 'Pass', claims: '[]', created_at: 1 })
      .execute();
  }
}

async function insert(db: Db, table: keyof Database, row: Row): Promise<Row> {
  await db
    .insertInto(table)
    .values(row as never)
    .execute();
  return row;
}

const offerRow = (over: Row = {}): Row => ({
  id: id(),
  tenant: 'alpha',
  type_id: TYPE,
  code_hash: hash(),
  ref_hash: null,
  tx_code: null,
  tx_code_hash: null,
  tx_attempts: 0,
  subject: '{"name":"Ada"}',
  created_at: NOW - 60_000,
  expires_at: LATER,
  erase_after: LATER,
  redeemed_at: null,
  collected_at: null,
  ...over,
});

const offers = (db: Db) => new SqlOfferStore(db);

const approvalRow = (over: Row = {}): Row => ({
  id: id(),
  action: 'credentials.revoke-bulk',
  params: '{}',
  tenant: 'alpha',
  account_id: null,
  state: 'pending',
  reason: 'test',
  requested_by: 'operator:alice',
  requested_at: NOW - 1_000,
  expires_at: LATER,
  decided_by: null,
  decided_at: null,
  note: null,
  result: null,
  result_private: 0,
  result_expires_at: null,
  ...over,
});

export const SPENDS: readonly SpendCase[] = [
  {
    name: 'pre-authorized code (offer redeemed for an access token)',
    table: 'offers',
    key: ['id'],
    seed: (db, over) => insert(db, 'offers', offerRow(over)),
    async spend(db, row, call = {}) {
      const offer = await offers(db).get(row.tenant as string, row.id as string);
      if (!offer) throw new Error('the seeded offer is not there');
      return new SqlAccessTokenStore(db).redeem({
        offer: { ...offer, tenant: (call.tenant as string | undefined) ?? offer.tenant },
        now: NOW,
        eraseAfter: LATER,
        token: { tokenHash: hash(), tenant: offer.tenant, grantId: offer.id, createdAt: NOW, expiresAt: LATER },
      });
    },
    guards: [
      { name: 'already redeemed', row: { redeemed_at: NOW - 1 } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'subject erased', row: { subject: null } },
      { name: "another tenant's", call: { tenant: 'beta' } },
      { name: 'one offer, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'transaction-code attempt (claimed before the code is compared)',
    table: 'offers',
    key: ['id'],
    seed: (db, over) => insert(db, 'offers', offerRow({ tx_attempts: MAX_ATTEMPTS - 1, ...over })),
    spend: (db, row, call = {}) =>
      offers(db).claimTxAttempt((call.tenant as string | undefined) ?? (row.tenant as string), row.id as string, MAX_ATTEMPTS),
    guards: [
      { name: 'no attempt left', row: { tx_attempts: MAX_ATTEMPTS } },
      { name: 'already redeemed', row: { redeemed_at: NOW - 1 } },
      { name: "another tenant's", call: { tenant: 'beta' } },
      { name: 'one offer, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'access token (found usable)',
    table: 'access_tokens',
    key: ['token_hash'],
    seed: grantedToken,
    async spend(db, row, call = {}) {
      const wanted = (call.token_hash as string | undefined) ?? (row.token_hash as string);
      const found = await new SqlAccessTokenStore(db).findUsable(wanted, NOW);
      return found?.tokenHash === wanted;
    },
    guards: [
      { name: 'already spent', row: { spent_at: NOW - 1 } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'an unknown token', call: { token_hash: 'unknown' } },
    ],
    spends: false,
  },
  {
    name: 'access token and offer (spent at collection)',
    table: 'access_tokens',
    key: ['token_hash'],
    seed: grantedToken,
    async spend(db, row, call = {}) {
      return (await collectFor(db, row, call)).ok;
    },
    guards: [
      { name: 'token already spent', row: { spent_at: NOW - 1 } },
      { name: 'token expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'an unknown token', call: { token_hash: 'unknown' } },
      {
        name: 'offer already collected',
        before: async (db, row) => {
          await db
            .updateTable('offers')
            .set({ collected_at: NOW - 1 })
            .where('id', '=', row.grant_id as string)
            .execute();
          return {};
        },
      },
      {
        name: 'offer subject erased',
        before: async (db, row) => {
          await db
            .updateTable('offers')
            .set({ subject: null })
            .where('id', '=', row.grant_id as string)
            .execute();
          return {};
        },
      },
      {
        name: 'a c_nonce already spent',
        before: async (db) => {
          const spent = await insert(db, 'spent_nonces', {
            nonce_hash: hash(),
            tenant: 'alpha',
            expires_at: LATER,
            spent_at: NOW - 1,
          });
          return { nonce: spent.nonce_hash };
        },
      },
      {
        name: 'another offer of the same tenant (a token collects the offer it was granted for)',
        before: async (db) => ({ offerId: (await insert(db, 'offers', offerRow({ redeemed_at: NOW - 1_000 }))).id }),
      },
      {
        name: "an offer of another tenant than the token's",
        before: async (db, row) => {
          // The other tenant's token names this offer as its grant: only the offer's tenant condition refuses it.
          await db
            .updateTable('access_tokens')
            .set({ tenant: 'beta' })
            .where('token_hash', '=', row.token_hash as string)
            .execute();
          return { tenant: 'beta' };
        },
      },
      {
        name: "a token of one tenant at another tenant's offer",
        before: async (db, row) => {
          // The token names the other tenant's offer as its grant: only the tenant condition refuses it.
          const theirs = await insert(db, 'offers', offerRow({ tenant: 'beta', redeemed_at: NOW - 1_000 }));
          await db
            .updateTable('access_tokens')
            .set({ grant_id: theirs.id as string })
            .where('token_hash', '=', row.token_hash as string)
            .execute();
          return { tenant: 'beta', offerId: theirs.id };
        },
      },
    ],
  },
  {
    name: 'sign-in ticket (approved by the phone)',
    table: 'signin_tickets',
    key: ['id_hash'],
    seed: (db, over) => insert(db, 'signin_tickets', ticketRow(over)),
    spend: (db, row) => new SqlAccountSessionStore(db).approve(row.id_hash as string, 'account-1', NOW),
    guards: [
      { name: 'already approved', row: { approved_account: 'account-0', approved_at: NOW - 1 } },
      { name: 'already spent', row: { spent_at: NOW - 1 } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'one ticket, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'sign-in ticket (collected by its browser)',
    table: 'signin_tickets',
    key: ['id_hash'],
    seed: (db, over) =>
      insert(db, 'signin_tickets', ticketRow({ approved_account: 'account-1', approved_at: NOW - 500, ...over })),
    async spend(db, row, call = {}) {
      const browser = (call.browser_hash as string | undefined) ?? (row.browser_hash as string);
      return (await new SqlAccountSessionStore(db).spend(row.id_hash as string, browser, NOW)) === 'account-1';
    },
    guards: [
      { name: 'not approved yet', row: { approved_account: null, approved_at: null } },
      { name: 'already spent', row: { spent_at: NOW - 1 } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: "another browser's secret", call: { browser_hash: 'another-browser' } },
      { name: 'one ticket, not its neighbour', neighbour: true },
      {
        name: 'one ticket, not a neighbour with the same browser secret',
        neighbour: (row) => ({ browser_hash: row.browser_hash }),
      },
    ],
  },
  {
    name: 'mailed code (spent)',
    table: 'onboarding_challenges',
    key: ['id'],
    seed: (db, over) => insert(db, 'onboarding_challenges', challengeRow(over)),
    spend: (db, row) => new SqlOnboardingStore(db).spend(row.id as string, NOW),
    guards: [
      { name: 'already spent', row: { spent_at: NOW - 1 } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'one code, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'mailed code (an attempt counted)',
    table: 'onboarding_challenges',
    key: ['id'],
    seed: (db, over) => insert(db, 'onboarding_challenges', challengeRow({ attempts: MAX_ATTEMPTS - 1, ...over })),
    spend: (db, row) => new SqlOnboardingStore(db).countAttempt(row.id as string, NOW, MAX_ATTEMPTS),
    guards: [
      { name: 'no attempt left', row: { attempts: MAX_ATTEMPTS } },
      { name: 'already spent', row: { spent_at: NOW - 1 } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'one code, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'approval (decided once)',
    table: 'approvals',
    key: ['id'],
    seed: (db, over) => insert(db, 'approvals', approvalRow(over)),
    spend: (db, row) =>
      new SqlApprovalStore(db).decide(row.id as string, { state: 'approved', by: 'operator:bob', note: null, now: NOW }),
    guards: [
      { name: 'already decided', row: { state: 'rejected', decided_by: 'operator:carol', decided_at: NOW - 1 } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'one approval, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'vote (one per member and proposal, while the proposal is open)',
    table: 'proposals',
    key: ['id'],
    seed: (db, over) =>
      insert(db, 'proposals', {
        id: id(),
        tenant: 'alpha',
        title: 'Opening hours',
        options: '["yes","no"]',
        tiers: null,
        opens_at: NOW - 1_000,
        closes_at: LATER,
        state: 'open',
        created_at: NOW - 2_000,
        opened_at: NOW - 1_000,
        closed_at: null,
        ...over,
      }),
    async spend(db, row, call = {}) {
      const vote = {
        tenant: (call.tenant as string | undefined) ?? (row.tenant as string),
        proposalId: row.id as string,
        accountId: (call.accountId as string | undefined) ?? 'member-1',
        option: 'yes',
        assisted: false,
        castAt: NOW,
      };
      try {
        return await new SqlMembershipStore(db).castVote(vote);
      } catch (err) {
        if (err instanceof ProposalNotOpen) return false;
        throw err;
      }
    },
    guards: [
      {
        name: 'already voted',
        before: async (db, row) => {
          const vote = {
            tenant: 'alpha',
            proposal_id: row.id,
            account_id: 'member-1',
            option: 'no',
            assisted: 0,
            cast_at: NOW - 1,
          };
          await insert(db, 'votes', vote);
          return {};
        },
      },
      { name: 'closed', row: { state: 'closed', closed_at: NOW - 1 } },
      { name: 'not open yet (opens_at just after now)', row: { opens_at: NOW + 1 } },
      { name: 'past its close (closes_at = now)', row: { closes_at: NOW } },
      { name: "another tenant's", call: { tenant: 'beta' } },
      { name: 'one proposal counted, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'presentation transaction (completed once)',
    table: 'presentation_transactions',
    key: ['id'],
    seed: (db, over) => insert(db, 'presentation_transactions', transactionRow(over)),
    spend: (db, row) =>
      new SqlPresentationTransactionStore(db).complete(row.id as string, { verdict: 'accept' }, NOW, LATER, {
        holder: 'holder-1',
      }),
    guards: [
      { name: 'already completed', row: { completed_at: NOW - 1, outcome: '{"verdict":"reject"}' } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'one transaction, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'enrolment (one member per completed transaction)',
    table: 'presentation_transactions',
    key: ['id'],
    seed: (db, over) =>
      insert(
        db,
        'presentation_transactions',
        transactionRow({ completed_at: NOW - 500, outcome: '{"verdict":"accept"}', ...over }),
      ),
    spend: (db, row) => new SqlMembershipStore(db).spendTransaction(row.id as string, NOW),
    guards: [
      { name: 'already enrolled', row: { enrolled_at: NOW - 1 } },
      { name: 'not completed', row: { completed_at: null, outcome: null } },
      { name: 'expired (expires_at = now)', row: { expires_at: NOW } },
      { name: 'one transaction, not its neighbour', neighbour: true },
    ],
  },
  {
    name: 'purge run (one running at a time)',
    table: 'purge_slot',
    key: ['id'],
    async seed(db, over = {}) {
      const slot = { id: PURGE_SLOT, run_id: null, ...over };
      await db
        .updateTable('purge_slot')
        .set({ run_id: slot.run_id as string | null })
        .where('id', '=', PURGE_SLOT)
        .execute();
      return slot;
    },
    spend: (db) => new SqlRetentionStore(db).addRun(purgeRun()),
    state: async (db) => ({
      slot: await db.selectFrom('purge_slot').selectAll().executeTakeFirst(),
      runs: await db.selectFrom('purge_runs').select('id').orderBy('id').execute(),
    }),
    guards: [{ name: 'a run holds the slot', row: { run_id: 'prg_AAAAAAAAAAAAAAAAAAAAAA' } }],
  },
  {
    name: 'negative response (one standing per subject)',
    table: 'compliance_requests',
    key: ['id'],
    seed: async (_db, over = {}) => ({ subject_kind: 'email', account_id: null, identifier: `${id()}@example.test`, ...over }),
    spend: (db, row) => new SqlComplianceStore(db).addNegative(negativeAnswer(row)),
    state: (db, row) =>
      db
        .selectFrom('compliance_requests')
        .selectAll()
        .where('subject_kind', '=', row.subject_kind as string)
        .where((eb) =>
          row.account_id === null
            ? eb('identifier', '=', row.identifier as string)
            : eb('account_id', '=', row.account_id as string),
        )
        .orderBy('id')
        .execute(),
    guards: [
      {
        name: 'the e-mail address was answered negative already',
        before: answeredNegative,
      },
      {
        name: 'the account was answered negative already',
        row: { subject_kind: 'account', account_id: randomBytes(32).toString('base64url'), identifier: null },
        before: answeredNegative,
      },
    ],
    // Both spends queue behind an uncommitted negative answer of the subject, which then rolls back.
    async hold(client, row) {
      const r = negativeAnswer(row);
      await client.query(
        `insert into compliance_requests (id, kind, state, subject_kind, account_id, identifier, source, received_at,
           due_at, filed_by, filed_at, outcome) values ($1, 'access', 'answered', $2, $3, $4, 'E-mail', $5, $6, $7, $5, 'negative')`,
        [r.id, r.subjectKind, r.accountId, r.identifier, NOW, LATER, r.filedBy],
      );
    },
    release: 'rollback',
  },
  {
    name: 'access request (one export at a time)',
    table: 'compliance_requests',
    key: ['id'],
    async seed(db, over) {
      // Its export was rejected (so a new one may be filed), while another request's is live:
      // only the request's own export refuses it.
      const rejected = approvalRow({ action: 'subject.export', tenant: null, state: 'rejected', decided_at: NOW - 1 });
      await insert(db, 'approvals', { ...rejected, decided_by: 'operator:bob' });
      await insert(db, 'approvals', approvalRow({ action: 'subject.export', tenant: null }));
      return insert(db, 'compliance_requests', accessRequestRow({ approval_id: rejected.id, ...over }));
    },
    spend: (db, row, call = {}) =>
      new SqlComplianceStore(db).decideAccess(
        row.id as string,
        { approvalId: `apr_${randomBytes(16).toString('base64url')}` },
        { approvalId: ('expected' in call ? call.expected : row.approval_id) as string | null, now: NOW },
      ),
    guards: [
      { name: 'answered', row: { state: 'answered', outcome: 'negative', decided_at: NOW - 1 } },
      { name: 'an erasure request', row: { kind: 'erasure' } },
      {
        name: 'its export pending',
        before: async (db, row) => {
          await exportOf(db, row, { state: 'pending' });
          return { expected: row.approval_id };
        },
      },
      {
        name: 'its export approved',
        before: async (db, row) => {
          await exportOf(db, row, { state: 'approved', decided_by: 'operator:bob', decided_at: NOW - 1, expires_at: NOW - 1 });
          return { expected: row.approval_id };
        },
      },
      { name: 'another export filed since it was read', call: { expected: 'apr_BBBBBBBBBBBBBBBBBBBBBB' } },
      { name: 'an export filed since none was read', call: { expected: null } },
      { name: 'one request, not its neighbour', neighbour: true },
    ],
  },
];

/** A guard's `before`: the subject of `row` answered negative already. */
async function answeredNegative(db: Db, row: Row): Promise<Row> {
  await new SqlComplianceStore(db).addNegative(negativeAnswer(row));
  return {};
}

/** The one row of purge_slot (migration 0044). */
const PURGE_SLOT = 1;

function purgeRun() {
  return {
    id: `prg_${randomBytes(16).toString('base64url')}`,
    state: 'running' as const,
    requestedBy: 'operator:ops',
    requestedAt: NOW,
    cutoffs: {},
    counts: {},
    finished: [],
    finishedAt: null,
    auditSeq: 1,
  };
}

/** An access request answered `negative` about the subject of `row`, under a fresh id. */
function negativeAnswer(row: Row) {
  return {
    id: `dsr_${randomBytes(16).toString('base64url')}`,
    kind: 'access' as const,
    state: 'answered' as const,
    subjectKind: row.subject_kind as 'account' | 'email',
    accountId: row.account_id as string | null,
    identifier: row.identifier as string | null,
    source: 'E-mail',
    identityCheck: null,
    receivedAt: NOW - 1_000,
    dueAt: LATER,
    filedBy: 'operator:support',
    filedAt: NOW,
    decidedBy: 'operator:support',
    decidedAt: NOW,
    outcome: 'negative' as const,
    ground: null,
    note: null,
    approvalId: null,
    receiptId: null,
    statement: 'statement',
  };
}

/** A received access request about an account. */
function accessRequestRow(over: Row = {}): Row {
  return {
    id: `dsr_${randomBytes(16).toString('base64url')}`,
    kind: 'access',
    state: 'received',
    subject_kind: 'account',
    account_id: randomBytes(32).toString('base64url'),
    identifier: null,
    source: 'Letter',
    identity_check: null,
    received_at: NOW - 1_000,
    due_at: LATER,
    filed_by: 'operator:owner',
    filed_at: NOW - 1_000,
    decided_by: null,
    decided_at: null,
    outcome: null,
    ground: null,
    note: null,
    approval_id: null,
    receipt_id: null,
    statement: null,
    ...over,
  };
}

/** The export approval of the request `row`, as `over` has it; the request names it. */
async function exportOf(db: Db, row: Row, over: Row): Promise<void> {
  const approval = await insert(
    db,
    'approvals',
    approvalRow({ action: 'subject.export', tenant: null, account_id: row.account_id, ...over }),
  );
  await db
    .updateTable('compliance_requests')
    .set({ approval_id: approval.id as string })
    .where('id', '=', row.id as string)
    .execute();
  row.approval_id = approval.id;
}

/**
 * The collection of the offer `row` (an access token) was granted for, with `call` changing what
 * is asked (tenant, offerId, token_hash, nonce, holders, lists) and `finish` what is done with
 * the slots; a fresh c_nonce unless `call.nonce` names one.
 */
export function collectFor<T = boolean>(
  db: Db,
  row: Row,
  call: Row = {},
  finish: (slots: StatusAllocation[]) => Promise<T> = async () => true as T,
): Promise<CollectionResult<T>> {
  return new SqlIssuedCredentialStore(db).collect(
    {
      tenant: (call.tenant as string | undefined) ?? (row.tenant as string),
      typeId: TYPE,
      offerId: (call.offerId as string | undefined) ?? (row.grant_id as string),
      tokenHash: (call.token_hash as string | undefined) ?? (row.token_hash as string),
      nonces: [{ hash: (call.nonce as string | undefined) ?? hash(), expiresAt: LATER }],
      holderThumbprints: (call.holderThumbprints as string[] | undefined) ?? [],
      expiresAt: null,
      lists: (call.lists as ListRef[] | undefined) ?? [],
      now: NOW,
      randomIndex: () => 0,
      newCredentialId: id,
    },
    finish,
  );
}

/** An access token granted for a fresh redeemed offer of `alpha`. */
export async function grantedToken(db: Db, over: Row = {}): Promise<Row> {
  const offer = await insert(db, 'offers', offerRow({ redeemed_at: NOW - 1_000 }));
  return insert(db, 'access_tokens', {
    token_hash: hash(),
    tenant: 'alpha',
    grant_id: offer.id,
    created_at: NOW - 1_000,
    expires_at: LATER,
    spent_at: null,
    ...over,
  });
}

/** A sign-in ticket opened by a browser, not approved yet. */
function ticketRow(over: Row = {}): Row {
  return {
    id_hash: hash(),
    browser_hash: hash(),
    browser: 'Firefox on Linux',
    created_at: NOW - 1_000,
    expires_at: LATER,
    approved_account: null,
    approved_at: null,
    spent_at: null,
    ...over,
  };
}

function challengeRow(over: Row = {}): Row {
  return {
    id: id(),
    identifier_key: `email:${id()}@example.test`,
    code_hash: hash(),
    created_at: NOW - 1_000,
    expires_at: LATER,
    attempts: 0,
    spent_at: null,
    ...over,
  };
}

function transactionRow(over: Row = {}): Row {
  return {
    id: id(),
    state: hash(),
    nonce: hash(),
    result_token_hash: hash(),
    caller_aud: 'https://rp.example.test',
    type_tenant: 'alpha',
    type_id: TYPE,
    vct: 'https://rail.example.test/types/pass',
    claims: '[]',
    requested_by: null,
    created_at: NOW - 1_000,
    expires_at: LATER,
    completed_at: null,
    outcome: null,
    holder_thumbprint: null,
    enrolled_at: null,
    ...over,
  };
}

export const spendNamed = (name: string): SpendCase => {
  const found = SPENDS.find((s) => s.name === name);
  if (!found) throw new Error(`no spend named ${name}`);
  return found;
};
