import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { billBody } from '../../../test/helpers/deposits.ts';
import { ownerCalls, railOn, stopRail, type TestRail } from '../../../test/helpers/rail.ts';
import { rowCounts } from '../../../test/helpers/refusals.ts';

const BASE = '/api/admin/integration';
const ACCOUNT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
const bill = (over: Record<string, unknown> = {}) => billBody(ACCOUNT, over);

for (const factory of testDatabases()) {
  describe(`integration contracts and deposits (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    const { post, get } = ownerCalls(() => rail);
    /** A tenant with an approved bill product and `count` deposits; answers its slug and the deposit ids in order. */
    const depositor = async (name: string, count: number) => {
      const tenant = (await post('/api/tenants', { name })).json().slug as string;
      const made = await post('/api/products', { tenant, kind: 'bill', name: `${name} bills` });
      assert.equal(made.statusCode, 201, made.body);
      assert.equal((await post(`/api/products/${made.json().productId}/approve`)).statusCode, 200);
      assert.equal((await post('/api/members/enroll', { tenant, accountId: ACCOUNT })).statusCode, 201);
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const body = bill();
        const res = await post(`/api/tenants/${tenant}/bills`, body);
        assert.equal(res.statusCode, 201, res.body);
        ids.push(body.depositId);
      }
      return { tenant, ids };
    };
    const integrity = async (tenant?: string) => {
      const res = await get(`${BASE}/deposits/integrity${tenant ? `?tenant=${tenant}` : ''}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };

    before(async () => {
      ({ db, rail } = await railOn(factory));
    });
    after(() => stopRail(rail, db));

    test('contracts lists the deposit contract 0.3.0 and the event envelope with their schemas', async () => {
      const res = await get(`${BASE}/contracts`);
      assert.equal(res.statusCode, 200);
      const byName = Object.fromEntries(res.json().contracts.map((c: { name: string }) => [c.name, c]));
      assert.deepEqual(
        byName.deposit.versions.map((v: { version: string }) => v.version),
        ['0.3.0'],
      );
      assert.equal(byName.deposit.versions[0].schema.additionalProperties, false);
      assert.ok(byName.deposit.versions[0].schema.required.includes('depositId'));
      assert.deepEqual(byName['event-envelope'].versions[0].schema.required, ['id', 'type', 'createdAt', 'tenant', 'data']);
    });

    test('a handshake answers what is accepted and every reason for a refusal, and changes nothing', async () => {
      const tables = ['deposits', 'wallet_items', 'audit_log', 'outbox'];
      const before = await rowCounts(rail.db, tables);
      const check = async (contract: string, version: string, payload: unknown) => {
        const res = await post(`${BASE}/contracts/handshake`, { contract, version, payload });
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      assert.deepEqual(await check('deposit', '0.3.0', bill()), {
        contract: 'deposit',
        version: '0.3.0',
        accepted: true,
        supportedVersions: ['0.3.0'],
        errors: [],
      });
      const extra = await check('deposit', '0.3.0', bill({ tenant: 'someone-else' }));
      assert.equal(extra.accepted, false);
      assert.deepEqual(extra.errors, [{ path: '/', message: 'unknown field tenant' }]);
      const typed = await check('deposit', '0.3.0', bill({ amount: { value: '42.15', currency: 'EUR' }, kind: 'invoice' }));
      assert.deepEqual(typed.errors.map((e: { path: string }) => e.path).sort(), ['/amount/value', '/kind']);
      const money = await check('deposit', '0.3.0', bill({ amount: { value: 1, currency: 'XXQ' } }));
      assert.match(money.errors[0].message, /^invalid_currency: /);
      const future = await check('deposit', '0.4.0', bill({ contractVersion: '0.4.0' }));
      assert.equal(future.accepted, false);
      assert.deepEqual(future.supportedVersions, ['0.3.0']);
      const envelope = {
        id: 'dlv_3Vb1m6q0o8nIY1yTZk2sRw',
        type: 'credential.issued',
        createdAt: '2026-11-24T08:00:00.000Z',
        tenant: 'ghent-transit',
        data: { credentialId: 'crd_x' },
      };
      assert.equal((await check('event-envelope', '1', envelope)).accepted, true);
      assert.equal((await check('event-envelope', '1', { ...envelope, type: 'credential.exploded' })).accepted, false);
      const unknown = await post(`${BASE}/contracts/handshake`, { contract: 'mystery', version: '1', payload: {} });
      assert.equal(unknown.statusCode, 400);
      assert.deepEqual(await rowCounts(rail.db, tables), before);
    });

    test('deposits are listed per tenant, newest first, and read one by one with their chain link', async () => {
      const { tenant, ids } = await depositor('Chain Water', 3);
      const list = await get(`${BASE}/deposits?tenant=${tenant}&limit=2`);
      assert.equal(list.statusCode, 200);
      assert.deepEqual(
        list.json().deposits.map((d: { depositId: string }) => d.depositId),
        [ids[2], ids[1]],
      );
      const rest = await get(`${BASE}/deposits?tenant=${tenant}&limit=2&cursor=${list.json().nextCursor}`);
      assert.deepEqual(
        rest.json().deposits.map((d: { depositId: string }) => d.depositId),
        [ids[0]],
      );
      assert.equal(rest.json().nextCursor, null);
      const one = await get(`${BASE}/deposits/${ids[1]}?tenant=${tenant}`);
      assert.equal(one.statusCode, 200);
      assert.equal(one.json().chainSeq, 2);
      assert.equal(one.json().body.title, 'Water, October');
      const first = await get(`${BASE}/deposits/${ids[0]}?tenant=${tenant}`);
      assert.equal(one.json().prevHash, first.json().chainHash);
      const missing = await get(`${BASE}/deposits/nope?tenant=${tenant}`);
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().error, 'unknown_deposit');
    });

    test('integrity recomputes each tenant’s chain and names the first break', async () => {
      const edited = await depositor('Edited Water', 4);
      const removed = await depositor('Removed Water', 3);
      const truncated = await depositor('Truncated Water', 3);
      const relinked = await depositor('Relinked Water', 3);
      for (const t of [edited, removed, truncated, relinked]) {
        const report = await integrity(t.tenant);
        assert.equal(report.intact, true);
        assert.equal(report.tenants[0].deposits, t.ids.length);
      }

      // Someone with database access changes an amount, deletes a deposit, deletes the last one, or re-links one.
      const body = (
        await rail.db
          .selectFrom('deposits')
          .select('body')
          .where('deposit_id', '=', edited.ids[1] as string)
          .executeTakeFirstOrThrow()
      ).body;
      await rail.db
        .updateTable('deposits')
        .set({ body: body.replace('4215', '1') })
        .where('deposit_id', '=', edited.ids[1] as string)
        .execute();
      await rail.db
        .deleteFrom('deposits')
        .where('deposit_id', '=', removed.ids[1] as string)
        .execute();
      await rail.db
        .deleteFrom('deposits')
        .where('deposit_id', '=', truncated.ids[2] as string)
        .execute();
      await rail.db
        .updateTable('deposits')
        .set({ prev_hash: 'f'.repeat(64) })
        .where('deposit_id', '=', relinked.ids[2] as string)
        .execute();

      assert.deepEqual((await integrity(edited.tenant)).tenants[0].firstBreak, {
        seq: 2,
        depositId: edited.ids[1],
        reason: 'body',
      });
      assert.deepEqual((await integrity(removed.tenant)).tenants[0].firstBreak, {
        seq: 3,
        depositId: removed.ids[2],
        reason: 'sequence',
      });
      assert.deepEqual((await integrity(truncated.tenant)).tenants[0].firstBreak, { seq: 3, depositId: null, reason: 'head' });
      assert.deepEqual((await integrity(relinked.tenant)).tenants[0].firstBreak, {
        seq: 3,
        depositId: relinked.ids[2],
        reason: 'link',
      });
      const all = await integrity();
      assert.equal(all.intact, false);
      const broken = all.tenants.filter((t: { intact: boolean }) => !t.intact).map((t: { tenant: string }) => t.tenant);
      assert.deepEqual(broken.sort(), [edited.tenant, removed.tenant, truncated.tenant, relinked.tenant].sort());
    });
  });
}
