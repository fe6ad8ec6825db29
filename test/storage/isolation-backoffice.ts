/**
 * The isolation cases of the operator and partner stores, registered into the isolation suite
 * (isolation.test.ts) with its `isolated` so that the suite's last test sees them pass: operators
 * of the same shape are seeded in both tenants, and a list asked as alpha answers alpha's only (and
 * something), as beta beta's only, and as the platform both.
 */
import assert from 'node:assert/strict';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlOperatorStore } from '../../src/adapters/sql/operators/sql-operator-store.ts';
import { SqlPartnerStore } from '../../src/adapters/sql/partners/sql-partner-store.ts';
import type { ApplicationRecord } from '../../src/ports/partner-store.ts';
import { narrowed, TENANTS, tenantOf } from './isolation-reads.ts';

/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_750_000_000_000;

export const BACKOFFICE_CASES = {
  operators:
    'OperatorStore: a tenant’s operator list holds its operators only, and setting roles moves only the named operator’s scope; operators are found by username or invitation alone, the platform’s, by design',
  partners:
    'PartnerStore: an application is linked to one tenant, the first link standing; applications, teams and sessions are the platform’s (a partner has no tenant until granted), found by id, by design',
} as const;

/** One operator scoped to each tenant, of the same shape. */
async function seed(db: Db): Promise<void> {
  for (const t of TENANTS) {
    await db
      .insertInto('operators')
      .values({
        username: `vw-op-${t}`,
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
  }
}

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
