import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openTestDb, testDatabases } from '../../../test/helpers/databases.ts';
import { firstBreak } from '../../core/deposit-chain.ts';
import { migrate } from './connect.ts';
import { SqlDepositStore } from './deposits/sql-deposit-store.ts';
import { MIGRATIONS, migrationProvider } from './migrations/index.ts';

describe('the list of migrations', () => {
  test('names every NNNN-what.ts file of the folder, in order, each by its own file', async () => {
    const folder = new URL('./migrations/', import.meta.url);
    const files = readdirSync(folder)
      .filter((file) => /^\d{4}-[a-z0-9-]+\.ts$/.test(file))
      .sort();
    assert.deepEqual(
      MIGRATIONS.map(([name]) => `${name}.ts`),
      files,
    );
    for (const [name, migration] of MIGRATIONS) {
      const exported = Object.values(await import(new URL(`${name}.ts`, folder).href));
      assert.deepEqual(exported, [migration], `${name}.ts exports exactly the migration listed under its name`);
    }
  });
});

for (const factory of testDatabases()) {
  describe(`migrations (${factory.name})`, () => {
    test('apply once, are idempotent, and survive concurrent starts', async () => {
      const target = await factory.create();
      const open = () => openTestDb(target);
      const [a, b] = [open(), open()];
      try {
        // Two processes starting at once on one database: both succeed, the schema is applied once.
        await Promise.all([migrate(a), migrate(b)]);
        await migrate(a);
        const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(a);
        assert.deepEqual(applied.rows.map((r) => r.name).sort(), Object.keys(await migrationProvider.getMigrations()).sort());
        for (const table of [
          'settings',
          'tenants',
          'signing_keys',
          'operators',
          'operator_sessions',
          'holder_jti',
          'access_tokens',
          'credential_types',
          'offers',
          'spent_nonces',
          'status_lists',
          'issued_credentials',
        ]) {
          await sql`select count(*) from ${sql.table(table)}`.execute(a);
        }
      } finally {
        await a.destroy();
        await b.destroy();
        await target.drop();
      }
    });

    test('0015 chains the deposits made before it, per tenant, in the order they were made', async () => {
      const target = await factory.create();
      const db = openTestDb(target);
      try {
        await migrate(db, '0014-integration-tokens');
        const deposit = (tenant: string, id: string, at: number) =>
          sql`insert into deposits (tenant, deposit_id, account_id, product_id, item_id, body, body_hash, created_at)
              values (${tenant}, ${id}, 'acct', 'prd', ${`itm-${id}`}, '{}', 'RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o', ${at})`.execute(
            db,
          );
        await deposit('alpha', 'a-2', 2000);
        await deposit('beta', 'b-1', 1500);
        await deposit('alpha', 'a-1', 1000);
        await migrate(db);
        const store = new SqlDepositStore(db);
        const alpha = await store.chain('alpha', 0, 10);
        assert.deepEqual(
          alpha.map((d) => [d.chainSeq, d.depositId]),
          [
            [1, 'a-1'],
            [2, 'a-2'],
          ],
        );
        assert.equal(firstBreak(alpha.map((d) => ({ ...d, seq: d.chainSeq, hash: d.chainHash }))), undefined);
        assert.equal((await store.chainHead('alpha'))?.hash, alpha[1]?.chainHash);
        assert.deepEqual(
          (await store.chain('beta', 0, 10)).map((d) => d.chainSeq),
          [1],
        );
      } finally {
        await db.destroy();
        await target.drop();
      }
    });

    test('0019 numbers each member’s coin entries made before it, by time', async () => {
      const target = await factory.create();
      const db = openTestDb(target);
      try {
        await migrate(db, '0018-account-signin');
        const coin = (id: string, account: string, at: number) =>
          sql`insert into coin_entries (id, tenant, account_id, idempotency_key, delta, reason, balance_after, created_at)
              values (${id}, 'club', ${account}, ${id}, 1, 'r', 1, ${at})`.execute(db);
        await coin('c-late', 'ada', 2000);
        await coin('c-bob', 'bob', 1500);
        await coin('c-early', 'ada', 1000);
        await migrate(db);
        const rows = await sql<{ id: string; entry_no: number }>`select id, entry_no from coin_entries order by id`.execute(db);
        assert.deepEqual(
          rows.rows.map((r) => [r.id, Number(r.entry_no)]),
          [
            ['c-bob', 1],
            ['c-early', 1],
            ['c-late', 2],
          ],
        );
      } finally {
        await db.destroy();
        await target.drop();
      }
    });

    test('0028 links operators by who created them, or set their password or identity, before these rules', async () => {
      const target = await factory.create();
      const db = openTestDb(target);
      try {
        await migrate(db, '0027-signin-browser-secret');
        let seq = 0;
        const audit = (actor: string, action: string, subject: string, at: number) =>
          sql`insert into audit_log (seq, at, actor, action, tenant, target, detail, prev_hash, hash)
              values (${++seq}, ${at}, ${actor}, ${action}, null, ${subject}, '{}', 'x', ${`h${seq}`})`.execute(db);
        await audit('owner-token', 'operator.created', 'ana', 1000);
        await audit('operator:ana', 'operator.created', 'ben', 2000);
        await audit('operator:ana', 'operator.password_changed', 'cid', 3000);
        await audit('operator:ana', 'operator.password_changed', 'cid', 3500);
        await audit('operator:cid', 'operator.password_changed', 'cid', 3600);
        await audit('operator:ben', 'operator.idp_linked', 'dan', 4000);
        await audit('operator:ana', 'operator.roles_changed', 'dan', 5000);
        await migrate(db);
        const rows = await sql<{ username: string; linked_to: string; kind: string; since: number }>`
          select username, linked_to, kind, since from operator_links order by username, kind`.execute(db);
        assert.deepEqual(
          rows.rows.map((r) => [r.username, r.linked_to, r.kind, Number(r.since)]),
          [
            ['ben', 'ana', 'created', 2000],
            ['cid', 'ana', 'password', 3000],
            ['dan', 'ben', 'identity', 4000],
          ],
          'the owner token links nobody, nor does an operator its own; roles link nobody',
        );
      } finally {
        await db.destroy();
        await target.drop();
      }
    });

    test('0029 moves every provisioning request to the desk as a token.mint approval, the minted token its result', async () => {
      const target = await factory.create();
      const db = openTestDb(target);
      try {
        await migrate(db, '0028-operator-invitations');
        await sql`insert into tenants (slug, name, created_at, updated_at) values ('acme', 'Acme', 1, 1)`.execute(db);
        const request = (id: string, state: string, decided: [string, number, string | null] | null) =>
          sql`insert into provisioning_requests (id, tenant, label, scopes, rate_class, reason, state, requested_by,
                created_at, expires_at, decided_by, decided_at, note, token_id)
              values (${id}, 'acme', ${`key ${id}`}, '["deposits","issuance"]', 'standard', 'a reason', ${state},
                'operator:ana', 1000, 605001000, ${decided?.[0] ?? null}, ${decided?.[1] ?? null}, ${decided?.[2] ?? null},
                ${state === 'approved' ? 'itk_minted' : null})`.execute(db);
        await request('prv_pending', 'pending', null);
        await request('prv_approved', 'approved', ['operator:ben', 2000, null]);
        await request('prv_rejected', 'rejected', ['operator:ben', 3000, 'not now']);
        await migrate(db);
        const rows = await sql<Record<string, unknown>>`
          select id, action, params, tenant, state, reason, requested_by, requested_at, expires_at, decided_by, decided_at,
                 note, result, result_private from approvals order by id`.execute(db);
        assert.deepEqual(
          rows.rows.map((r) => ({
            ...r,
            params: JSON.parse(r.params as string),
            result: r.result === null ? null : JSON.parse(r.result as string),
            requested_at: Number(r.requested_at),
            expires_at: Number(r.expires_at),
            decided_at: r.decided_at === null ? null : Number(r.decided_at),
            result_private: Number(r.result_private),
          })),
          ['prv_approved', 'prv_pending', 'prv_rejected'].map((id) => ({
            id,
            action: 'token.mint',
            params: { tenant: 'acme', label: `key ${id}`, scopes: ['deposits', 'issuance'], rateClass: 'standard' },
            tenant: 'acme',
            state: id.slice(4),
            reason: 'a reason',
            requested_by: 'operator:ana',
            requested_at: 1000,
            expires_at: 605001000,
            decided_by: id === 'prv_pending' ? null : 'operator:ben',
            decided_at: id === 'prv_approved' ? 2000 : id === 'prv_rejected' ? 3000 : null,
            note: id === 'prv_rejected' ? 'not now' : null,
            result: id === 'prv_approved' ? { tokenId: 'itk_minted' } : null,
            result_private: 0,
          })),
        );
        await assert.rejects(sql`select 1 from provisioning_requests`.execute(db), 'the table is gone');
      } finally {
        await db.destroy();
        await target.drop();
      }
    });

    test('0044 gives the purge slot to the oldest running run, marks a negative answer repeated before it, drops a verifications rule', async () => {
      const target = await factory.create();
      const db = openTestDb(target);
      try {
        await migrate(db, '0043-refusal-function');
        const run = (id: string, at: number, state: string) =>
          sql`insert into purge_runs (id, state, requested_by, requested_at, cutoffs, counts, finished, finished_at, audit_seq)
              values (${id}, ${state}, 'operator:ops', ${at}, '{}', '{}', '[]', null, 1)`.execute(db);
        await run('prg_later', 2000, 'running');
        await run('prg_first', 1000, 'running');
        await run('prg_done', 500, 'done');
        const negative = (id: string, at: number, email: string) =>
          sql`insert into compliance_requests (id, kind, state, subject_kind, account_id, identifier, source, received_at,
                due_at, filed_by, filed_at, outcome)
              values (${id}, 'access', 'answered', 'email', null, ${email}, 'E-mail', ${at}, ${at}, 'operator:s', ${at}, 'negative')`.execute(
            db,
          );
        await negative('dsr_again', 2000, 'twice@example.org');
        await negative('dsr_first', 1000, 'twice@example.org');
        await negative('dsr_once', 1500, 'once@example.org');
        await sql`insert into retention_rules (category, keep_days, updated_at, updated_by)
                  values ('verifications', 60, 1, 'operator:ops'), ('approvals', 400, 1, 'operator:ops')`.execute(db);
        await migrate(db);

        const slot = await sql<{ run_id: string | null }>`select run_id from purge_slot`.execute(db);
        assert.deepEqual(slot.rows, [{ run_id: 'prg_first' }]);
        const marked = await sql<{ id: string; repeat_of: string | null }>`
          select id, repeat_of from compliance_requests order by id`.execute(db);
        assert.deepEqual(marked.rows, [
          { id: 'dsr_again', repeat_of: 'dsr_first' },
          { id: 'dsr_first', repeat_of: null },
          { id: 'dsr_once', repeat_of: null },
        ]);
        const rules = await sql<{ category: string }>`select category from retention_rules order by category`.execute(db);
        assert.deepEqual(rules.rows, [{ category: 'approvals' }]);
        // From now on the subject of a standing negative answer takes no second one.
        await assert.rejects(negative('dsr_third', 3000, 'twice@example.org'), (err: Error) => /unique|UNIQUE/.test(err.message));
        await negative('dsr_new', 3000, 'new@example.org');
      } finally {
        await db.destroy();
        await target.drop();
      }
    });
  });
}
