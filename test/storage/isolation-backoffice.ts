/**
 * The isolation cases of the back office's read models and of the operator and partner stores,
 * registered into the isolation suite (isolation.test.ts) with its `isolated` so that the suite's
 * last test sees them pass. The read models take a tenant on every read (null: every tenant), so
 * one pattern fits them all: rows of the same shape are seeded in both tenants, each read asked as
 * alpha answers alpha's only (and something), as beta beta's only, and as the platform both.
 */
import assert from 'node:assert/strict';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlOperatorStore } from '../../src/adapters/sql/operators/sql-operator-store.ts';
import { SqlPartnerStore } from '../../src/adapters/sql/partners/sql-partner-store.ts';
import type { ApplicationRecord } from '../../src/ports/partner-store.ts';

const TENANTS = ['alpha', 'beta'] as const;
type Tenant = (typeof TENANTS)[number];
/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_750_000_000_000;
/** One holder account known to both tenants. */
const ACCOUNT = 'vwHolderAccount0123456789abcdefghijklmnopqr';
/** A status entry both tenants have issued a credential at. */
const STATUS = { listSeq: 900, idx: 7 };

/** Ids of the rows seeded for a tenant: same shapes, distinct per tenant, one prefix for both. */
const seeded = (t: Tenant) => ({
  type: 'vw-type',
  offer: `off_vw${t}`,
  credential: `crd_vw${t}`,
  item: `itm_vw${t}`,
  transaction: `vtx_vw${t}`,
  deposit: `vw-deposit-${t}`,
  partner: `vw-partner-${t}`,
  operator: `vw-op-${t}`,
  webhook: `whk_vw${t}`,
  delivery: `dlv_vw${t}`,
  request: `prv_vw${t}`,
});

export const BACKOFFICE_CASES = {
  operators:
    'OperatorStore: a tenant’s operator list holds its operators only, and setting roles moves only the named operator’s scope; operators are found by username or invitation alone, the platform’s, by design',
  partners:
    'PartnerStore: an application is linked to one tenant, the first link standing; applications, teams and sessions are the platform’s (a partner has no tenant until granted), found by id, by design',
} as const;

async function seed(db: Db): Promise<void> {
  for (const [n, t] of TENANTS.entries()) {
    const s = seeded(t);
    await db
      .insertInto('credential_types')
      .values({ tenant: t, type_id: s.type, name: `vw pass of ${t}`, claims: '["name"]', created_at: AT })
      .execute();
    // Beta offers twice, so a count that reached across would show.
    for (const id of n === 0 ? [s.offer] : [s.offer, `${s.offer}2`]) {
      await db
        .insertInto('offers')
        .values({
          id,
          tenant: t,
          type_id: s.type,
          code_hash: `vw-code-${id}`,
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
    }
    await db
      .insertInto('issued_credentials')
      .values({
        id: s.credential,
        tenant: t,
        type_id: s.type,
        offer_id: s.offer,
        list_seq: STATUS.listSeq,
        idx: STATUS.idx,
        holder_thumbprint: ACCOUNT,
        issued_at: AT + 1,
        revoked_at: null,
      })
      .execute();
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
      .insertInto('wallet_items')
      .values({
        id: s.item,
        tenant: t,
        account_id: ACCOUNT,
        kind: 'offer',
        ref: `vw-ref-${t}`,
        title: 'vw',
        state: 'pending',
        demo: 0,
        created_at: AT,
        updated_at: AT,
        expires_at: null,
      })
      .execute();
    await db
      .insertInto('channels')
      .values({
        tenant: t,
        account_id: ACCOUNT,
        state: 'active',
        elements: '["name"]',
        requested_by: 'vw',
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    await db
      .insertInto('deposits')
      .values({
        tenant: t,
        deposit_id: s.deposit,
        account_id: ACCOUNT,
        product_id: 'vw-product',
        item_id: s.item,
        body: '{}',
        body_hash: 'vw',
        created_at: AT,
        chain_seq: null,
        prev_hash: null,
        chain_hash: null,
        erased_at: null,
      })
      .execute();
    await db
      .insertInto('presentation_transactions')
      .values({
        id: s.transaction,
        state: `vw-state-${t}`,
        nonce: `vw-nonce-${t}`,
        result_token_hash: `vw-result-${t}`,
        caller_aud: 'https://rp.example',
        type_tenant: t,
        type_id: s.type,
        vct: `https://${t}.example/vw`,
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
        id: s.partner,
        kind: 'issuer',
        organisation: `vw organisation of ${t}`,
        contact_name: 'vw',
        contact_email: `vw-${t}@example.test`,
        country: null,
        website: null,
        use_case: 'vw',
        stage: 'screening',
        stage_at: AT,
        status_token_hash: `vw-status-${t}`,
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
        username: s.operator,
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
    await db
      .insertInto('webhooks')
      .values({
        id: s.webhook,
        tenant: t,
        url: 'https://hooks.example/vw',
        events: '["*"]',
        active: 1,
        inactive_reason: null,
        sealed_secret: 'vw',
        created_by: 'vw',
        created_at: AT,
        updated_at: AT,
        last_success_at: null,
        lane_holder: null,
      })
      .execute();
    await db
      .insertInto('webhook_deliveries')
      .values({
        id: s.delivery,
        webhook_id: s.webhook,
        tenant: t,
        event_id: `vw-event-${t}`,
        event_type: 'offer.created',
        payload: '{}',
        state: 'dead',
        attempts: 8,
        failures: 8,
        next_attempt_at: AT,
        last_status: 500,
        last_error: null,
        created_at: AT,
        finished_at: AT + 1,
      })
      .execute();
    await db
      .insertInto('approvals')
      .values({
        id: s.request,
        action: 'token.mint',
        params: JSON.stringify({ tenant: t, label: 'vw', scopes: ['issuance'], rateClass: 'standard' }),
        tenant: t,
        account_id: null,
        state: 'pending',
        reason: 'vw',
        requested_by: 'operator:vw',
        requested_at: AT,
        expires_at: AT + 600_000,
        decided_by: null,
        decided_at: null,
        note: null,
        result: null,
        result_private: 0,
        result_expires_at: null,
      })
      .execute();
  }
}

/**
 * Asks `read` as alpha, as beta and as the platform: each tenant's answer is non-empty and wholly
 * its own (by `tenantsOf`, every tenant a row names), and the platform's names both.
 */
async function narrowed<R>(
  what: string,
  read: (tenant: Tenant | null) => Promise<R[]>,
  tenantsOf: (row: R) => readonly (string | null)[],
): Promise<void> {
  for (const t of TENANTS) {
    const rows = await read(t);
    assert.ok(rows.length > 0, `${what} as ${t} found its own rows`);
    for (const row of rows) assert.deepEqual([...new Set(tenantsOf(row))], [t], `${what} as ${t}: ${JSON.stringify(row)}`);
  }
  const all = new Set((await read(null)).flatMap(tenantsOf));
  for (const t of TENANTS) assert.ok(all.has(t), `${what} for the platform names ${t}`);
}

const tenantOf = (row: { tenant: string | null }) => [row.tenant];

/** Registers the cases; `db` answers the suite's database once its `before` has run. */
export function backofficeIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  let seededOnce: Promise<void> | undefined;
  const ready = () => {
    seededOnce ??= seed(db());
    return seededOnce;
  };

  isolated(BACKOFFICE_CASES.operators, async () => {
    await ready();
    const operators = new SqlOperatorStore(db());
    await narrowed(
      'list',
      async (t) => (t === null ? operators.list({ prefix: 'vw-op-' }, 50) : operators.list({ tenant: t, prefix: 'vw-op-' }, 50)),
      tenantOf,
    );
    assert.equal(await operators.setRoles('vw-op-alpha', ['support', 'auditor'], undefined, AT + 1), true);
    assert.equal((await operators.get('vw-op-alpha'))?.tenant, 'alpha', 'roles alone keep the scope');
    assert.equal(await operators.setRoles('vw-op-alpha', ['support'], 'beta', AT + 2), true);
    assert.equal((await operators.get('vw-op-alpha'))?.tenant, 'beta', 'the named operator moved');
    assert.deepEqual((await operators.list({ tenant: 'alpha', prefix: 'vw-op-' }, 50)).length, 0, 'alpha has none left');
    assert.equal((await operators.get('vw-op-beta'))?.tenant, 'beta', 'another operator’s scope is untouched');
    assert.deepEqual((await operators.get('vw-op-beta'))?.roles, ['support'], 'and its roles');
    assert.equal(await operators.setRoles('vw-op-alpha', ['support'], 'alpha', AT + 3), true);
    assert.equal((await operators.get('vw-op-alpha'))?.tenant, 'alpha');
    // A tenant's owner is not a platform owner: the last-owner rule counts platform-wide ones only.
    assert.equal(await operators.setRoles('vw-op-beta', ['owner'], undefined, AT + 4), true);
    assert.ok(!(await operators.platformOwners()).includes('vw-op-beta'));
    assert.ok(!(await operators.holdPlatformOwners()).includes('vw-op-beta'));
    assert.equal((await operators.lock('vw-op-beta'))?.tenant, 'beta', 'lock reads the named operator');
    assert.equal(await operators.lock('vw-op-nobody'), undefined);
  });

  isolated(BACKOFFICE_CASES.partners, async () => {
    await ready();
    const partners = new SqlPartnerStore(db());
    const application = (id: string): ApplicationRecord => ({
      id,
      kind: 'issuer',
      organisation: 'vw applicant',
      contactName: 'vw',
      contactEmail: `${id}@example.test`,
      country: null,
      website: null,
      useCase: 'vw',
      stage: 'approved',
      stageAt: AT,
      statusTokenHash: `status-${id}`,
      tenant: null,
      grant: null,
      createdBy: 'public',
      createdAt: AT,
      updatedAt: AT,
    });
    await partners.createApplication(application('vw-applicant-1'));
    await partners.createApplication(application('vw-applicant-2'));
    const grant = { scopes: ['issuance' as const], rateClass: 'standard' as const };
    assert.equal(await partners.setGrant('vw-applicant-1', 'alpha', grant, AT + 1), true);
    assert.equal(await partners.setGrant('vw-applicant-1', 'beta', grant, AT + 2), false, 'the first link stands');
    assert.equal((await partners.application('vw-applicant-1'))?.tenant, 'alpha');
    assert.equal((await partners.application('vw-applicant-2'))?.tenant, null, 'another application is not linked');
    assert.equal(await partners.setGrant('vw-applicant-2', 'beta', grant, AT + 3), true);
    assert.equal((await partners.application('vw-applicant-2'))?.tenant, 'beta');
    assert.equal((await partners.application('vw-applicant-1'))?.tenant, 'alpha');
  });
}
