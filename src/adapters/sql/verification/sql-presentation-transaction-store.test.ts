import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { migratedDatabase, tenantRecord, testDatabases } from '../../../../test/helpers/databases.ts';
import type { PresentationTransactionRecord } from '../../../ports/presentation-transaction-store.ts';
import { SqlTenantStore } from '../tenants/sql-tenant-store.ts';
import { SqlPresentationTransactionStore } from './sql-presentation-transaction-store.ts';
import { spendForEnrolment } from './verification-statements.ts';

const T0 = 1_700_000_000_000;
const TTL = 600_000;

function transaction(id: string, over: Partial<PresentationTransactionRecord> = {}): PresentationTransactionRecord {
  return {
    id,
    state: `state-${id}`,
    nonce: `nonce-${id}-0123456789`,
    resultTokenHash: `hash-${id}`,
    callerAud: 'https://shop.example',
    typeTenant: 'alpha',
    typeId: 'pass',
    vct: 'https://rail.example.test/t/alpha/types/pass',
    claims: ['holder_name', 'student'],
    requestedBy: null,
    createdAt: T0,
    expiresAt: T0 + TTL,
    completedAt: null,
    outcome: null,
    holder: null,
    enrolledAt: null,
    issuerDid: null,
    profile: 'openid4vp',
    responseKey: null,
    dcOrigin: null,
    verifierChain: null,
    redirectUri: null,
    responseCodeHash: null,
    ...over,
  };
}

for (const factory of testDatabases()) {
  describe(`presentation transactions (${factory.name})`, () => {
    const on = migratedDatabase(factory);
    let store: SqlPresentationTransactionStore;

    before(async () => {
      await new SqlTenantStore(on.db).create(tenantRecord('alpha'), []);
      store = new SqlPresentationTransactionStore(on.db);
    });

    test('a transaction round-trips, and is found by id and by state', async () => {
      const record = transaction('t1', { requestedBy: 'ana' });
      assert.equal(await store.create(record), true);
      assert.deepEqual(await store.get('t1'), record);
      assert.deepEqual(await store.findByState('state-t1'), record);
      assert.equal(await store.get('nope'), undefined);
      assert.equal(await store.findByState('nope'), undefined);
    });

    test('completion keeps the holder thumbprint; a completed transaction enrols once, a pending or expired one never', async () => {
      await store.create(transaction('e1'));
      assert.equal(await spendForEnrolment(on.db, 'e1', T0 + 5), false, 'pending: nothing to enrol with');
      assert.equal(await store.complete('e1', { ok: true }, T0 + 10, T0 + 10 + TTL, { holder: 'thumb-e1' }), true);
      assert.equal((await store.get('e1'))?.holder, 'thumb-e1');
      const spent = await Promise.all(Array.from({ length: 5 }, () => spendForEnrolment(on.db, 'e1', T0 + 20)));
      assert.equal(spent.filter(Boolean).length, 1, 'exactly one enrolment spends it');
      assert.equal((await store.get('e1'))?.enrolledAt, T0 + 20);
      await store.create(transaction('e2'));
      await store.complete('e2', { ok: true }, T0 + 10, T0 + 100, { holder: 'thumb-e2' });
      assert.equal(await spendForEnrolment(on.db, 'e2', T0 + 100), false, 'expired');
      assert.equal((await store.get('e2'))?.enrolledAt, null);
    });

    test('a nonce opens one transaction; a refused create writes nothing', async () => {
      assert.equal(await store.create(transaction('t2', { nonce: 'shared-nonce-0123456789' })), true);
      assert.equal(await store.create(transaction('t3', { nonce: 'shared-nonce-0123456789' })), false);
      assert.equal(await store.get('t3'), undefined);
    });

    test('of racing completions exactly one wins, and the outcome stays the first', async () => {
      await store.create(transaction('t4'));
      const outcomes = Array.from({ length: 10 }, (_, i) => ({ ok: false, error: `e${i}` }));
      const results = await Promise.all(outcomes.map((o) => store.complete('t4', o, T0 + 10, T0 + 10 + TTL)));
      assert.equal(results.filter(Boolean).length, 1);
      const stored = await store.get('t4');
      const winner = outcomes[results.indexOf(true)];
      assert.deepEqual(stored?.outcome, winner);
      assert.equal(stored?.completedAt, T0 + 10);
      assert.equal(stored?.expiresAt, T0 + 10 + TTL, 'kept for its poller');
    });

    test('an expired transaction cannot be completed', async () => {
      await store.create(transaction('t5'));
      assert.equal(await store.complete('t5', { ok: true }, T0 + TTL, T0 + 2 * TTL), false);
      assert.equal((await store.get('t5'))?.outcome, null);
    });

    test('the sweep deletes expired transactions only, freeing their nonces', async () => {
      await store.create(transaction('t6', { expiresAt: T0 + 5 * TTL, nonce: 'kept-nonce-0123456789' }));
      await store.sweep(T0 + 2 * TTL);
      assert.equal(await store.get('t5'), undefined);
      assert.equal(await store.get('t1'), undefined);
      assert.ok(await store.get('t6'));
      assert.equal(await store.create(transaction('t7', { nonce: 'nonce-t5-0123456789' })), true, 'the swept nonce is free');
    });
  });
}
