/**
 * The rows the isolation cases of isolation-views-audit.ts read: the same shapes in both tenants
 * (beta twice where a count could reach across), apart from the rest of the suite's by their time,
 * ids and audit seqs.
 */
import type { Db } from '../../src/adapters/sql/connect.ts';
import { TENANTS, type Tenant } from './isolation-reads.ts';

/** The time the seeded rows are made at, apart from the rest of the suite's. */
export const AT = 1_790_000_000_000;
export const DAY = Math.floor(AT / 86_400_000);
/** One holder account known to both tenants. */
export const ACCOUNT = 'auHolderAccount0123456789abcdefghijklmnopqr';
/** Audit entries seeded here, past every other case's. */
export const SEQ = 9_700_000;
export const PAGE = { limit: 100 };
export const WINDOW = { since: AT, until: AT + 86_400_000 };

/** Ids of the rows seeded for a tenant (and, for beta, a second of each: `n` 2). */
export const ids = (t: Tenant, n = 1) => ({
  type: `au-type-${t}`,
  offer: `off_au${t}${n}`,
  credential: `crd_au${t}${n}`,
  item: `itm_au${t}${n}`,
  deposit: `au-deposit-${t}${n}`,
  event: `evt-au-${t}${n}`,
});
export const counts = (t: Tenant) => (t === 'alpha' ? [1] : [1, 2]);

export async function seed(db: Db): Promise<void> {
  let seq = SEQ;
  for (const t of TENANTS) {
    for (const n of counts(t)) {
      const s = ids(t, n);
      await db
        .insertInto('offers')
        .values({
          id: s.offer,
          tenant: t,
          type_id: s.type,
          code_hash: `au-code-${s.offer}`,
          ref_hash: null,
          tx_code: null,
          tx_code_hash: null,
          tx_attempts: 0,
          subject: '{}',
          created_at: AT,
          expires_at: AT + 60_000,
          erase_after: AT + 120_000,
          redeemed_at: AT + 1,
          collected_at: null,
        })
        .execute();
      await db
        .insertInto('issued_credentials')
        .values({
          id: s.credential,
          tenant: t,
          type_id: s.type,
          offer_id: s.offer,
          list_seq: 970,
          idx: n,
          holder_thumbprint: ACCOUNT,
          issued_at: AT + 1,
          revoked_at: AT + 2,
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
          title: 'au',
          state: 'pending',
          demo: 0,
          created_at: AT,
          updated_at: AT,
          expires_at: null,
        })
        .execute();
      await db
        .insertInto('deposits')
        .values({
          tenant: t,
          deposit_id: s.deposit,
          account_id: ACCOUNT,
          product_id: 'au-product',
          item_id: s.item,
          body: '{}',
          body_hash: 'au',
          created_at: AT,
          chain_seq: null,
          prev_hash: null,
          chain_hash: null,
          erased_at: null,
        })
        .execute();
      await db
        .insertInto('audit_log')
        .values({
          seq: ++seq,
          at: AT,
          actor: `operator:au-${t}`,
          action: 'au.marked',
          tenant: t,
          target: s.credential,
          detail: JSON.stringify({ accountId: ACCOUNT }),
          prev_hash: 'au',
          hash: `au-${seq}`,
        })
        .execute();
      await db
        .insertInto('outbox')
        .values({
          id: s.event,
          type: 'credential.issued',
          tenant: t,
          created_at: AT,
          data: JSON.stringify({ credentialId: s.credential, accountId: ACCOUNT }),
          routed_to: 0,
        })
        .execute();
      // A verification of the tenant's type: written to root, its tenant in the vct.
      await db
        .insertInto('outbox')
        .values({
          id: `${s.event}-vp`,
          type: 'presentation.completed',
          tenant: 'root',
          created_at: AT,
          data: JSON.stringify({ vct: `https://au.example/${t}/types/${s.type}`, transactionId: `vtx_au${t}${n}` }),
          routed_to: 0,
        })
        .execute();
    }
    await db
      .insertInto('members')
      .values({
        tenant: t,
        account_id: ACCOUNT,
        display_name: null,
        tier: 'member',
        status: 'active',
        balance: 0,
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
        requested_by: 'au',
        created_at: AT,
        updated_at: AT,
      })
      .execute();
  }
}
