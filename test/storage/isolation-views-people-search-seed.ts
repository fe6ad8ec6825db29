/**
 * The rows the isolation cases of isolation-views-people-search.ts read: the same shapes in both
 * tenants (beta twice where a count could reach across), apart from the rest of the suite's by
 * their time, ids and audit seq.
 */
import type { Db } from '../../src/adapters/sql/connect.ts';
import { TENANTS, type Tenant } from './isolation-reads.ts';

/** The time the seeded rows are made at, apart from the rest of the suite's. */
export const AT = 1_785_000_000_000;
/** One holder account known to both tenants, and one listed in each tenant's community. */
export const ACCOUNT = 'psHolderAccount0123456789abcdefghijklmnopqr';
export const listedIn = (t: Tenant) => `psListed${t.padEnd(5, '-')}0123456789abcdefghijklmnop`;
/** The status list the seeded credentials sit in. */
export const LIST = 910;
export const WINDOW = { since: AT, until: AT + 1 };
export const counts = (t: Tenant) => (t === 'alpha' ? [1] : [1, 2]);

/** Ids of the rows seeded for a tenant (and, for beta, a second of each: `n` 2). */
export const ids = (t: Tenant, n = 1) => ({
  offer: `off_ps${t}${n}`,
  credential: `crd_ps${t}${n}`,
  item: `itm_ps${t}${n}`,
  proposal: `prp_ps${t}${n}`,
  coin: `coin_ps${t}${n}`,
  transaction: `vtx_ps${t}`,
  partner: `ps-partner-${t}`,
  operator: `ps-op-${t}`,
});
export const TYPE = 'ps-type';
export const ALPHA_ONLY = 'ps-type-of-alpha';
/** The audit entry of a sign-in, past every other case's. */
export const SEQ = 9_810_000;
export const DEPOSIT = 'ps-deposit';

export async function seed(db: Db): Promise<void> {
  await db
    .insertInto('credential_types')
    .values({ tenant: 'alpha', type_id: ALPHA_ONLY, name: 'ps alpha only', claims: '["name"]', created_at: AT })
    .execute();
  await db
    .insertInto('audit_log')
    .values({
      seq: SEQ,
      at: AT,
      actor: 'operator:ps-op-alpha',
      action: 'operator.signed_in',
      tenant: null,
      target: 'ps-op-alpha',
      detail: '{}',
      prev_hash: 'ps',
      hash: `ps-${SEQ}`,
    })
    .execute();
  for (const t of TENANTS) {
    await db
      .insertInto('credential_types')
      .values({ tenant: t, type_id: TYPE, name: `ps pass of ${t}`, claims: '["name"]', created_at: AT })
      .execute();
    await db
      .insertInto('members')
      .values({
        tenant: t,
        account_id: ACCOUNT,
        display_name: null,
        tier: 'member',
        status: 'active',
        balance: 5,
        joined_at: AT,
        updated_at: AT,
      })
      .execute();
    await db
      .insertInto('channels')
      .values({
        tenant: t,
        account_id: ACCOUNT,
        state: 'active',
        elements: '["name"]',
        requested_by: 'ps',
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    await db
      .insertInto('deposits')
      .values({
        tenant: t,
        deposit_id: DEPOSIT,
        account_id: ACCOUNT,
        product_id: 'ps-product',
        item_id: ids(t).item,
        body: '{}',
        body_hash: 'ps',
        created_at: AT,
        chain_seq: null,
        prev_hash: null,
        chain_hash: null,
        erased_at: null,
      })
      .execute();
    await db
      .insertInto('directory_listings')
      .values({ account_id: listedIn(t), community: t, display_name: 'ps', name_key: `ps ${t}`, created_at: AT, updated_at: AT })
      .execute();
    await db
      .insertInto('presentation_transactions')
      .values({
        id: ids(t).transaction,
        state: `ps-state-${t}`,
        nonce: `ps-nonce-${t}`,
        result_token_hash: `ps-result-${t}`,
        caller_aud: 'https://rp.example',
        type_tenant: t,
        type_id: TYPE,
        vct: `https://${t}.example/ps`,
        claims: '[]',
        requested_by: null,
        created_at: AT,
        expires_at: AT + 600_000,
        completed_at: null,
        outcome: null,
        holder_thumbprint: ACCOUNT,
        enrolled_at: null,
      })
      .execute();
    await db
      .insertInto('partner_applications')
      .values({
        id: ids(t).partner,
        kind: 'issuer',
        organisation: `ps organisation of ${t}`,
        contact_name: 'ps',
        contact_email: `ps-${t}@example.test`,
        country: null,
        website: null,
        use_case: 'ps',
        stage: 'ps-stage',
        stage_at: AT,
        status_token_hash: `ps-status-${t}`,
        tenant: t,
        grant_scopes: null,
        grant_rate_class: null,
        created_by: 'public',
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    await db
      .insertInto('operators')
      .values({
        username: ids(t).operator,
        password_hash: '!',
        roles: '["support"]',
        tenant: t,
        status: 'active',
        failed_attempts: 0,
        locked_until: null,
        created_at: AT,
        updated_at: AT,
        email: null,
        invitation_hash: null,
        invitation_expires_at: null,
      })
      .execute();
    for (const n of counts(t)) {
      const s = ids(t, n);
      await db
        .insertInto('offers')
        .values({
          id: s.offer,
          tenant: t,
          type_id: TYPE,
          code_hash: `ps-code-${s.offer}`,
          ref_hash: null,
          tx_code: null,
          tx_code_hash: null,
          tx_attempts: 0,
          subject: '{}',
          created_at: AT,
          expires_at: AT + 60_000,
          erase_after: AT + 120_000,
          redeemed_at: null,
          collected_at: null,
        })
        .execute();
      await db
        .insertInto('issued_credentials')
        .values({
          id: s.credential,
          tenant: t,
          type_id: TYPE,
          offer_id: s.offer,
          list_seq: LIST,
          idx: n,
          holder_thumbprint: ACCOUNT,
          issued_at: AT,
          revoked_at: n === 2 ? AT + 1 : null,
          expires_at: null,
        })
        .execute();
      await db
        .insertInto('wallet_items')
        .values({
          id: s.item,
          tenant: t,
          account_id: ACCOUNT,
          kind: 'offer',
          ref: s.offer,
          title: 'ps',
          state: 'pending',
          demo: 0,
          created_at: AT,
          updated_at: AT,
          expires_at: AT + 1,
        })
        .execute();
      await db
        .insertInto('share_settings')
        .values({ item_id: s.item, tenant: t, account_id: ACCOUNT, elements: '["name"]' })
        .execute();
      await db
        .insertInto('sharing_log')
        .values({ id: `ps-log-${t}${n}`, account_id: ACCOUNT, item_id: s.item, tenant: t, elements: '["name"]', at: AT })
        .execute();
      await db
        .insertInto('coin_entries')
        .values({
          id: s.coin,
          tenant: t,
          account_id: ACCOUNT,
          idempotency_key: `ps-${t}${n}`,
          delta: n === 1 ? 5 : -2,
          reason: 'ps',
          balance_after: 5,
          created_at: AT,
          entry_no: n,
        })
        .execute();
      await db
        .insertInto('proposals')
        .values({
          id: s.proposal,
          tenant: t,
          title: 'ps',
          options: '["yes","no"]',
          tiers: null,
          opens_at: AT,
          closes_at: AT + 1,
          state: 'closed',
          created_at: AT,
          opened_at: AT,
          closed_at: AT + 1,
        })
        .execute();
      await db
        .insertInto('votes')
        .values({ tenant: t, proposal_id: s.proposal, account_id: ACCOUNT, option: 'yes', assisted: 0, cast_at: AT })
        .execute();
    }
  }
}
