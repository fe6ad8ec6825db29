/**
 * The isolation cases of the views the compliance and organisations groups read other modules'
 * tables through (docs/backoffice/compliance.md, docs/backoffice/orgs.md; docs/architecture.md,
 * "Tables, owners and views"), registered into the isolation suite (isolation.test.ts) with its
 * `isolated`. A read given tenants answers those tenants' rows only, each apart; offboarding
 * narrows to one tenant, or shows every tenant to the platform. The reads the data-subject
 * requests, accountability and the record of processing make are the platform's, by design: each
 * still answers every tenant's rows apart.
 */
import assert from 'node:assert/strict';
import { SqlApprovalsViews } from '../../src/adapters/sql/approvals/sql-approvals-views.ts';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlCredentialTypesViews } from '../../src/adapters/sql/credential-types/sql-credential-types-views.ts';
import { SqlIssuanceViews } from '../../src/adapters/sql/issuance/sql-issuance-views.ts';
import { SqlKernelViews } from '../../src/adapters/sql/kernel/sql-kernel-views.ts';
import { SqlMembershipViews } from '../../src/adapters/sql/membership/sql-membership-views.ts';
import { SqlOperatorsViews } from '../../src/adapters/sql/operators/sql-operators-views.ts';
import { SqlPartnersViews } from '../../src/adapters/sql/partners/sql-partners-views.ts';
import { SqlTenantStore } from '../../src/adapters/sql/tenants/sql-tenant-store.ts';
import { SqlTenantsViews } from '../../src/adapters/sql/tenants/sql-tenants-views.ts';
import { SqlWalletViews } from '../../src/adapters/sql/wallet/sql-wallet-views.ts';
import { SqlWebhooksViews } from '../../src/adapters/sql/webhooks/sql-webhooks-views.ts';
import type { OperatorStatus } from '../../src/ports/operator-store.ts';

const TENANTS = ['alpha', 'beta'] as const;
type Tenant = (typeof TENANTS)[number];
/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_820_000_000_000;
const SEQ = 9_820_000;
/** Alpha's rows come once, beta's twice: a count that reached across would show. */
const times = (t: Tenant) => (t === 'alpha' ? [1] : [1, 2]);
const accountOf = (t: Tenant, k: number) => `cvAccount${t}${k}`.padEnd(43, 'x');

export const COMPLIANCE_VIEW_CASES = {
  orgs: 'Views the organisations read: types, credentials and members per tenant and the tenant-admins answer the tenants named only, each apart; suspended tenants and offboarded operators narrow to one tenant, or show every tenant to the platform, by design',
  compliance:
    'Views the compliance group reads: approval states, reciprocal approvals, the audit entries of actions, active operators by role, webhook endpoints, live channels per tenant and partner members by e-mail are the platform’s, by design; each answers every tenant’s rows apart',
} as const;

const operator = (username: string, tenant: string | null, roles: string[], status: OperatorStatus) => ({
  username,
  password_hash: '!',
  roles: JSON.stringify(roles),
  tenant,
  status,
  failed_attempts: 0,
  locked_until: null,
  created_at: AT,
  updated_at: AT,
  email: null,
  invitation_hash: null,
  invitation_expires_at: null,
});

const approval = (id: string, tenant: string | null, requestedBy: string, decidedBy: string | null, state: string) => ({
  id,
  action: 'cv.probe',
  params: '{}',
  tenant,
  account_id: null,
  state,
  reason: 'cv',
  requested_by: requestedBy,
  requested_at: AT,
  expires_at: AT + 1,
  decided_by: decidedBy,
  decided_at: decidedBy === null ? null : AT,
  note: null,
  result: null,
  result_private: 0,
  result_expires_at: null,
});

/** Per tenant: counts as the views answer them, before and after `seedCounted` adds alpha one and beta two of each. */
async function perTenant(db: Db) {
  const types = new SqlCredentialTypesViews(db);
  const issued = new SqlIssuanceViews(db);
  const members = new SqlMembershipViews(db);
  const of = async (read: (tenants: readonly string[]) => Promise<Array<{ tenant: string; count: number }>>) => {
    const both = await read([...TENANTS]);
    const alone = await Promise.all(TENANTS.map(async (t) => await read([t])));
    for (const [i, rows] of alone.entries()) {
      assert.ok(
        rows.every((r) => r.tenant === TENANTS[i]),
        `${TENANTS[i]} alone is answered for itself only`,
      );
    }
    for (const [i, t] of TENANTS.entries()) {
      assert.equal(both.find((r) => r.tenant === t)?.count ?? 0, alone[i]?.[0]?.count ?? 0, `${t} counted apart from the other`);
    }
    return Object.fromEntries(TENANTS.map((t) => [t, both.find((r) => r.tenant === t)?.count ?? 0]));
  };
  return {
    types: await of((t) => types.typesPerTenant(t)),
    credentials: await of((t) => issued.issuedPerTenant(t)),
    members: await of((t) => members.membersPerTenant(t)),
  };
}

async function seedCounted(db: Db): Promise<void> {
  for (const t of TENANTS) {
    for (const k of times(t)) {
      const typeId = `cv-type-${t}-${k}`;
      await db
        .insertInto('credential_types')
        .values({ tenant: t, type_id: typeId, name: typeId, claims: '["name"]', created_at: AT })
        .execute();
      await db
        .insertInto('issued_credentials')
        .values({
          id: `crd_cv${t}${k}`,
          tenant: t,
          type_id: typeId,
          offer_id: `off_cv${t}${k}`,
          list_seq: 982,
          idx: k,
          holder_thumbprint: accountOf(t, k),
          issued_at: AT,
          revoked_at: null,
        })
        .execute();
      await db
        .insertInto('members')
        .values({
          tenant: t,
          account_id: accountOf(t, k),
          display_name: null,
          tier: 'basic',
          status: 'active',
          balance: 0,
          joined_at: AT,
          updated_at: AT,
        })
        .execute();
    }
  }
  // An erased member is no member the counts show.
  await db
    .insertInto('members')
    .values({
      tenant: 'alpha',
      account_id: accountOf('alpha', 9),
      display_name: null,
      tier: 'basic',
      status: 'erased',
      balance: 0,
      joined_at: AT,
      updated_at: AT,
    })
    .execute();
}

export function complianceViewsIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  isolated(COMPLIANCE_VIEW_CASES.orgs, async () => {
    const before = await perTenant(db());
    await seedCounted(db());
    const after = await perTenant(db());
    for (const what of ['types', 'credentials', 'members'] as const) {
      assert.deepEqual(
        TENANTS.map((t) => (after[what][t] ?? 0) - (before[what][t] ?? 0)),
        [1, 2],
        `${what}: alpha counts its one, beta its two`,
      );
    }

    await db()
      .insertInto('operators')
      .values(operator('cv-alpha-admin', 'alpha', ['tenant-admin'], 'active'))
      .execute();
    await db()
      .insertInto('operators')
      .values(operator('cv-beta-admin', 'beta', ['tenant-admin', 'support'], 'active'))
      .execute();
    await db()
      .insertInto('operators')
      .values(operator('cv-beta-gone', 'beta', ['tenant-admin'], 'removed'))
      .execute();
    await db()
      .insertInto('operators')
      .values(operator('cv-alpha-off', 'alpha', ['support'], 'suspended'))
      .execute();
    const operators = new SqlOperatorsViews(db());
    const admins = async (tenants: string[]) =>
      (await operators.tenantAdmins(tenants)).filter((a) => a.username.startsWith('cv-')).map((a) => [a.tenant, a.username]);
    assert.deepEqual(await admins(['alpha']), [['alpha', 'cv-alpha-admin']]);
    assert.deepEqual(await admins(['beta']), [['beta', 'cv-beta-admin']], 'a removed admin is left out');
    assert.deepEqual(await admins(['alpha', 'beta']), [
      ['alpha', 'cv-alpha-admin'],
      ['beta', 'cv-beta-admin'],
    ]);

    const tenants = new SqlTenantStore(db());
    assert.equal(await tenants.setStatus('beta', 'active', 'suspended', 'cv', AT + 5), true);
    try {
      const views = new SqlTenantsViews(db());
      const suspended = async (tenant: string | null) => (await views.suspended({ tenant, limit: 100 })).map((r) => r.slug);
      assert.deepEqual(await suspended('alpha'), [], 'alpha’s view shows no beta row');
      assert.ok((await suspended('beta')).includes('beta'));
      assert.ok((await suspended(null)).includes('beta'), 'the platform sees every tenant');
      const offboarded = async (tenant: string | null) =>
        (await operators.offboarded({ tenant, limit: 1000 })).filter((o) => o.username.startsWith('cv-'));
      assert.deepEqual(
        (await offboarded('alpha')).map((o) => [o.username, o.tenant, o.status]),
        [['cv-alpha-off', 'alpha', 'suspended']],
      );
      assert.deepEqual(
        (await offboarded('beta')).map((o) => [o.username, o.tenant, o.status]),
        [['cv-beta-gone', 'beta', 'removed']],
      );
      assert.deepEqual((await offboarded(null)).map((o) => o.username).sort(), ['cv-alpha-off', 'cv-beta-gone']);
      // A page after a cursor keeps to its tenant too.
      const page = await operators.offboarded({ tenant: 'alpha', before: { op: 'tie', at: AT, id: 'cv-alpha-zz' }, limit: 10 });
      assert.ok(page.every((o) => o.tenant === 'alpha'));
    } finally {
      assert.equal(await tenants.setStatus('beta', 'suspended', 'active', 'cv', AT + 6), true);
    }
  });

  isolated(COMPLIANCE_VIEW_CASES.compliance, async () => {
    // Approvals of two tenants, two operators of which approved each other's.
    await db()
      .insertInto('approvals')
      .values(approval('apr_cvalpha', 'alpha', 'operator:cv-a', 'operator:cv-b', 'approved'))
      .execute();
    await db()
      .insertInto('approvals')
      .values(approval('apr_cvbeta', 'beta', 'operator:cv-b', 'operator:cv-a', 'approved'))
      .execute();
    await db()
      .insertInto('approvals')
      .values(approval('apr_cvbeta2', 'beta', 'operator:cv-b', null, 'pending'))
      .execute();
    const approvals = new SqlApprovalsViews(db());
    assert.deepEqual((await approvals.states(['apr_cvalpha', 'apr_cvbeta2', 'apr_none'])).map((a) => [a.id, a.state]).sort(), [
      ['apr_cvalpha', 'approved'],
      ['apr_cvbeta2', 'pending'],
    ]);
    const pair = (await approvals.reciprocal(1000)).find((p) => p.first === 'operator:cv-a');
    assert.deepEqual(pair, { first: 'operator:cv-a', second: 'operator:cv-b', firstApprovedSecond: 1, secondApprovedFirst: 1 });

    for (const [k, t] of TENANTS.entries()) {
      await db()
        .insertInto('audit_log')
        .values({
          seq: SEQ + k,
          at: AT,
          actor: 'operator:cv',
          action: 'operator.roles_changed',
          tenant: t,
          target: `cv-${t}-op`,
          detail: JSON.stringify({ roles: ['support'] }),
          prev_hash: 'x',
          hash: `cv-${k}`,
        })
        .execute();
    }
    const kernel = new SqlKernelViews(db());
    const window = { since: AT, until: AT + 1, limit: 10 };
    assert.deepEqual(
      (await kernel.auditOfActions(['operator.roles_changed'], undefined, window)).map((e) => [e.tenant, e.target]),
      [
        ['beta', 'cv-beta-op'],
        ['alpha', 'cv-alpha-op'],
      ],
    );
    assert.deepEqual(
      (await kernel.auditOfActions(['operator.roles_changed'], 'cv-alpha-op', window)).map((e) => e.tenant),
      ['alpha'],
    );

    await db()
      .insertInto('operators')
      .values(operator('cv-attester-alpha', 'alpha', ['auditor'], 'active'))
      .execute();
    await db()
      .insertInto('operators')
      .values(operator('cv-attester-beta', null, ['auditor'], 'suspended'))
      .execute();
    const holding = (await new SqlOperatorsViews(db()).activeHolding(['auditor'])).filter((u) => u.startsWith('cv-'));
    assert.deepEqual(holding, ['cv-attester-alpha'], 'active operators only, whatever their tenant');

    for (const t of TENANTS) {
      for (const k of times(t)) {
        await db()
          .insertInto('webhooks')
          .values({
            id: `whk_cv${t}${k}`,
            tenant: t,
            url: `https://cv-${t}.example/hook`,
            events: '["*"]',
            active: 1,
            inactive_reason: null,
            sealed_secret: 'x',
            created_by: 'operator:cv',
            created_at: AT,
            updated_at: AT,
            last_success_at: null,
            lane_holder: null,
          })
          .execute();
        await db()
          .insertInto('channels')
          .values({
            tenant: t,
            account_id: accountOf(t, 20 + k),
            state: 'active',
            elements: '["name"]',
            requested_by: 'cv',
            created_at: AT,
            updated_at: AT,
          })
          .execute();
      }
    }
    const endpoints = (await new SqlWebhooksViews(db()).endpoints(10_000)).filter((h) => h.url.includes('cv-'));
    assert.deepEqual(
      endpoints.map((h) => [h.tenant, h.url]),
      [
        ['alpha', 'https://cv-alpha.example/hook'],
        ['beta', 'https://cv-beta.example/hook'],
        ['beta', 'https://cv-beta.example/hook'],
      ],
    );
    const channels = await new SqlWalletViews(db()).activeChannels();
    assert.deepEqual(
      channels.map((c) => c.tenant),
      [...new Set(channels.map((c) => c.tenant))],
      'one line per tenant',
    );
    assert.ok((channels.find((c) => c.tenant === 'beta')?.active ?? 0) >= 2);

    for (const [k, t] of TENANTS.entries()) {
      await db()
        .insertInto('partner_team')
        .values({
          id: `ptm_cv${t}`,
          application_id: `pap_cv${t}`,
          email: k === 0 ? 'CV.Contact@example.test' : 'other@example.test',
          role: 'owner',
          added_by: 'operator:cv',
          added_at: AT,
        })
        .execute();
    }
    assert.deepEqual(await new SqlPartnersViews(db()).memberIdsByEmail('cv.contact@EXAMPLE.test'), ['ptm_cvalpha']);
  });
}
