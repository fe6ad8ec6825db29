/**
 * Use cases own their transaction (docs/architecture.md): the change, its audit entry and its
 * events commit together or not at all. Failures are injected for real, by database triggers that
 * refuse an insert into the audit log or the outbox, so each use case fails after it has written.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openTestDb, type TestDatabase, tenantRecord, testDatabases } from '../../test/helpers/databases.ts';
import { newHolderKey } from '../../test/helpers/holder.ts';
import {
  accessToken,
  createOffer,
  freshNonce,
  issuerId,
  proofJwt,
  registerType,
  requestCredential,
} from '../../test/helpers/issuance.ts';
import { present } from '../../test/helpers/presentation.ts';
import { bearer, owner, startRail, type TestRail } from '../../test/helpers/rail.ts';
import { type Db, migrate } from '../adapters/sql/connect.ts';
import { readAuditLog } from '../adapters/sql/kernel/sql-audit-trail.ts';
import { readOutbox } from '../adapters/sql/kernel/sql-event-outbox.ts';
import { SqlUnitOfWork } from '../adapters/sql/sql-unit-of-work.ts';
import { SqlTenantStore } from '../adapters/sql/tenants/sql-tenant-store.ts';
import { type AuditEntry, firstBrokenEntry, GENESIS_HASH } from '../core/audit-chain.ts';
import { systemClock } from '../core/clock.ts';
import type { EventPayloads, EventType } from '../core/events.ts';

const CLAIMS = ['holder_name', 'level:enum(gold|silver)'];
const SUBJECT = { holder_name: 'Ada Lovelace', level: 'gold' };

/** Row counts of every table a use case may write: the state a failed one must leave as it found. */
async function counts(db: Db): Promise<Record<string, number>> {
  const tables = ['tenants', 'credential_types', 'offers', 'issued_credentials', 'spent_nonces', 'audit_log', 'outbox'] as const;
  const out: Record<string, number> = {};
  for (const table of tables) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  const head = await db.selectFrom('audit_head').selectAll().executeTakeFirstOrThrow();
  out.auditHead = Number(head.seq);
  return out;
}

/** A trigger that makes every insert into `table` fail, on either engine. */
async function failInserts(db: Db, table: 'audit_log' | 'outbox', postgres: boolean): Promise<() => Promise<void>> {
  const name = `fail_${table}`;
  if (postgres) {
    await sql`create or replace function ${sql.id(name)}() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(
      db,
    );
    await sql`create trigger ${sql.id(name)} before insert on ${sql.table(table)} for each row execute function ${sql.id(name)}()`.execute(
      db,
    );
    return async () => {
      await sql`drop trigger ${sql.id(name)} on ${sql.table(table)}`.execute(db);
      await sql`drop function ${sql.id(name)}()`.execute(db);
    };
  }
  await sql`create trigger ${sql.id(name)} before insert on ${sql.table(table)} begin select raise(abort, 'injected failure'); end`.execute(
    db,
  );
  return async () => void (await sql`drop trigger ${sql.id(name)}`.execute(db));
}

for (const factory of testDatabases()) {
  describe(`audit entries and events commit with their change (${factory.name})`, () => {
    let target: TestDatabase;
    let rail: TestRail;
    const postgres = factory.name === 'postgres';

    before(async () => {
      target = await factory.create();
      rail = await startRail(target);
    });
    after(async () => {
      await rail.stop();
      await target.drop();
    });

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });

    test('each change an integrator acts on has its event, each operator change its audit entry, and the chain holds', async () => {
      const before = await counts(rail.db);
      const tenant = await post('/api/tenants', { name: 'Audit Works' });
      assert.equal(tenant.statusCode, 201, tenant.body);
      const slug = tenant.json().slug as string;
      const { typeId, vct } = await registerType(rail.app, slug, 'Club Card', CLAIMS);
      const offer = await createOffer(rail.app, { tenant: slug, typeId, subject: SUBJECT });
      const { access_token } = await accessToken(rail.app, slug, offer.code);
      const key = await newHolderKey();
      const issued = await requestCredential(rail.app, slug, access_token, {
        credential_configuration_id: typeId,
        proofs: { jwt: [await proofJwt(key, { aud: issuerId(slug), nonce: await freshNonce(rail.app, slug) })] },
      });
      assert.equal(issued.statusCode, 200, issued.body);
      const credential = issued.json().credentials[0].credential as string;

      // Hosted verification: one presentation that passes, one that fails.
      const outcomes: string[] = [];
      for (const good of [true, false]) {
        const opened = await post('/verify/request', {
          vct,
          claims: ['holder_name'],
          nonce: randomBytes(18).toString('base64url'),
          aud: 'https://shop.example',
        });
        assert.equal(opened.statusCode, 201, opened.body);
        const { transactionId } = opened.json();
        const request = await rail.app.inject({ method: 'GET', url: `/oid4vp/request/${transactionId}` });
        const claims = JSON.parse(Buffer.from(request.body.split('.')[1] ?? '', 'base64url').toString());
        const vpToken = await present(credential, key, ['holder_name'], {
          nonce: good ? claims.nonce : 'another-nonce-0123456789',
        });
        const answer = await rail.app.inject({
          method: 'POST',
          url: '/oid4vp/response',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ vp_token: vpToken, state: claims.state }).toString(),
        });
        outcomes.push(`${answer.statusCode}`);
      }
      assert.deepEqual(outcomes, ['200', '400']);
      const revoked = await post('/api/revoke', { tenant: slug, offerId: offer.offerId });
      assert.equal(revoked.statusCode, 200, revoked.body);
      // Repeating a revocation changes nothing, so it is neither audited nor announced again.
      assert.equal((await post('/api/revoke', { tenant: slug, offerId: offer.offerId })).statusCode, 200);

      const events = (await readOutbox(rail.db)).slice(before.outbox);
      assert.deepEqual(
        events.map((e) => [e.type, e.tenant]),
        [
          ['org.created', slug],
          ['offer.created', slug],
          ['credential.issued', slug],
          ['presentation.completed', 'root'],
          ['presentation.failed', 'root'],
          ['credential.revoked', slug],
        ],
      );
      /** The payload of the event at `i`, read as its type's (the order is asserted above). */
      const data = <T extends EventType>(i: number, type: T) => {
        const event = events[i];
        assert.equal(event?.type, type);
        return event?.data as EventPayloads[T];
      };
      assert.deepEqual(data(0, 'org.created'), { slug, did: tenant.json().did, demo: false });
      assert.equal(data(1, 'offer.created').offerId, offer.offerId);
      assert.equal(data(2, 'credential.issued').offerId, offer.offerId);
      assert.equal(data(2, 'credential.issued').typeId, typeId);
      assert.equal(data(3, 'presentation.completed').vct, vct);
      assert.equal(data(4, 'presentation.failed').error, 'nonce_mismatch');
      assert.equal(data(5, 'credential.revoked').credentialId, data(2, 'credential.issued').credentialId);
      for (const e of events) {
        assert.match(e.id, /^evt_[A-Za-z0-9_-]{22}$/);
        assert.ok(!JSON.stringify(e.data).includes('Ada Lovelace'), `${e.type} carries no claim value`);
      }

      const entries = await readAuditLog(rail.db);
      assert.equal(firstBrokenEntry(entries), undefined, 'every entry links to the one before, from the genesis');
      assert.equal(entries[0]?.prevHash, GENESIS_HASH);
      assert.deepEqual(
        entries.slice(before.audit_log).map((e) => [e.action, e.actor, e.tenant]),
        [
          ['tenant.created', 'owner-token', slug],
          ['type.registered', 'owner-token', slug],
          ['offer.created', 'owner-token', slug],
          ['credential.revoked', 'owner-token', slug],
        ],
      );
      // The seeded tenants and types were audited as the system's own doing.
      assert.ok(entries.some((e) => e.action === 'tenant.created' && e.tenant === 'root' && e.actor === 'system:seed'));
    });

    test('an edited, removed or reordered entry breaks the chain at that entry', async () => {
      const entries = await readAuditLog(rail.db);
      assert.ok(entries.length >= 4);
      const [, second, third] = entries;
      assert.ok(second && third);
      const edited = entries.map((e) => (e.seq === second.seq ? { ...e, detail: { ...e.detail, forged: true } } : e));
      assert.equal(firstBrokenEntry(edited), second.seq);
      assert.equal(firstBrokenEntry(entries.filter((e) => e.seq !== second.seq)), third.seq);
      const swapped = entries.map((e) => (e.seq === second.seq ? { ...third, seq: second.seq } : e));
      assert.equal(firstBrokenEntry(swapped), second.seq);
    });

    test('a use case that fails after writing leaves no row, no audit entry and no event', async () => {
      const slug = (await post('/api/tenants', { name: 'Failing Works' })).json().slug as string;
      const { typeId } = await registerType(rail.app, slug, 'Club Card', CLAIMS);
      const revocable = await createOffer(rail.app, { tenant: slug, typeId, subject: SUBJECT });
      const revocableToken = await accessToken(rail.app, slug, revocable.code);
      const revocableKey = await newHolderKey();
      const issued = await requestCredential(rail.app, slug, revocableToken.access_token, {
        credential_configuration_id: typeId,
        proofs: { jwt: [await proofJwt(revocableKey, { aud: issuerId(slug), nonce: await freshNonce(rail.app, slug) })] },
      });
      assert.equal(issued.statusCode, 200, issued.body);
      const collectable = await createOffer(rail.app, { tenant: slug, typeId, subject: SUBJECT });
      const token = await accessToken(rail.app, slug, collectable.code);
      const key = await newHolderKey();
      const nonce = await freshNonce(rail.app, slug);
      const collect = async () =>
        requestCredential(rail.app, slug, token.access_token, {
          credential_configuration_id: typeId,
          proofs: { jwt: [await proofJwt(key, { aud: issuerId(slug), nonce })] },
        });
      const cases: Array<[string, 'audit_log' | 'outbox', () => Promise<{ statusCode: number; body: string }>]> = [
        ['tenant creation, failing at its event', 'outbox', () => post('/api/tenants', { name: 'Never Works' })],
        ['tenant creation, failing at its audit entry', 'audit_log', () => post('/api/tenants', { name: 'Never Works' })],
        [
          'type registration, failing at its audit entry',
          'audit_log',
          () => post('/api/types', { tenant: slug, name: 'Never', claims: ['x'] }),
        ],
        ['offer creation, failing at its event', 'outbox', () => post('/api/offers', { tenant: slug, typeId, subject: SUBJECT })],
        [
          'revocation, failing at its audit entry',
          'audit_log',
          () => post('/api/revoke', { tenant: slug, offerId: revocable.offerId }),
        ],
        ['credential collection, failing at its event', 'outbox', collect],
        [
          'operator creation, failing at its audit entry',
          'audit_log',
          () => post('/api/operators', { username: 'never', password: 'a long enough password', roles: ['issuer'] }),
        ],
      ];
      for (const [what, table, act] of cases) {
        const before = await counts(rail.db);
        const restore = await failInserts(rail.db, table, postgres);
        let res: { statusCode: number; body: string };
        try {
          res = await act();
        } finally {
          await restore();
        }
        assert.equal(res.statusCode, 500, `${what}: ${res.body}`);
        assert.deepEqual(await counts(rail.db), before, `${what}: nothing was written`);
      }
      // The code, token and nonce the failed collection used are still good: nothing was spent.
      const res = await collect();
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await readAuditLog(rail.db)).length, (await counts(rail.db)).auditHead);
    });

    test('a refused use case leaves no row, no audit entry and no event', async () => {
      const before = await counts(rail.db);
      const refusals = [
        await post('/api/types', { tenant: 'demo-transit', name: 'Bad', claims: ['age:integer'] }),
        await post('/api/offers', { tenant: 'demo-transit', typeId: 'transit-pass', subject: { given_name: 1 } }),
        await post('/api/revoke', { tenant: 'demo-transit', credentialId: 'crd_unknown' }),
        await post('/api/tenants', { name: 'Sneaky (Demo)' }),
        await post('/api/tenants', { name: 'Nobody' }, bearer('not-a-token')),
      ];
      assert.deepEqual(
        refusals.map((r) => r.statusCode),
        [400, 400, 404, 400, 401],
      );
      assert.deepEqual(await counts(rail.db), before);
    });
  });

  describe(`audit appends from several processes take consecutive numbers and one chain (${factory.name})`, () => {
    let target: TestDatabase;
    let handles: Db[];

    before(async () => {
      target = await factory.create();
      handles = [openTestDb(target), openTestDb(target)];
      await migrate(handles[0] as Db);
    });
    after(async () => {
      for (const h of handles) await h.destroy();
      await target.drop();
    });

    // PostgreSQL: twenty appends at once, ten from each of two pools. SQLite's driver is synchronous, so two
    // connections of one process cannot wait on each other without blocking the only thread: there
    // they alternate, which still checks that each connection continues the chain of the other.
    test('50 appends from each of two connections', async () => {
      // Each connection's store and unit of work, built once: the store joins its handle's transaction.
      const stores = handles.map((h) => new SqlTenantStore(h));
      const units = handles.map((h) => new SqlUnitOfWork(h, systemClock));
      const append = (p: number, i: number) =>
        (units[p] as SqlUnitOfWork).run(async ({ audit }) => {
          await (stores[p] as SqlTenantStore).create(tenantRecord(`p${p}-t${i}`), []);
          return audit.append({ actor: { kind: 'system', what: `p${p}` }, action: 'tenant.created', tenant: `p${p}-t${i}` });
        });
      const pairs = Array.from({ length: 50 }, (_, i) => [0, 1].map((p) => () => append(p, i))).flat();
      const seqs: number[] = [];
      // In waves of one pool's size per connection: all of a wave contend for the head at once,
      // and none waits for a free connection, which is bounded (CONNECT_TIMEOUT_MS) and under a
      // loaded machine's CI could run out while a hundred transactions queue on one row.
      if (factory.name === 'postgres') {
        for (let wave = 0; wave < pairs.length; wave += 20) {
          seqs.push(...(await Promise.all(pairs.slice(wave, wave + 20).map((run) => run()))));
        }
      } else for (const run of pairs) seqs.push(await run());
      seqs.sort((a, b) => a - b);
      assert.deepEqual(
        seqs,
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      const entries = await readAuditLog(handles[0] as Db);
      assert.equal(entries.length, 100);
      assert.equal(firstBrokenEntry(entries), undefined);
    });

    // An entry's events are outbox rows of the append's one statement on PostgreSQL (one multi-row
    // insert of the first eight, the rest emitted after it): delivery follows the outbox's seq, so
    // they must take it in the order given, between the events emitted before and after (an
    // erasure gives one to each tenant, root's last). Twelve crosses both.
    // Each event given with the entry is dated at the entry's `at`, the first eight and the rest
    // alike, though the clock moves on between their writes (a clock that ticks on every reading).
    test('the events given with an entry keep their order in the outbox, and its time', async () => {
      let tick = Date.parse('2026-11-29T12:00:00.000Z');
      const uow = new SqlUnitOfWork(handles[0] as Db, { now: () => (tick += 7) });
      const event = (tenant: string) => ({
        type: 'erasure.completed' as const,
        tenant,
        data: { receiptId: 'era_order', accountId: tenant },
      });
      const given = Array.from({ length: 12 }, (_, i) => `given-${i}`);
      await uow.run(async ({ audit, events }) => {
        await events.emit(event('before'));
        await audit.append(
          { actor: { kind: 'system', what: 'order' }, action: 'account.erased', tenant: null },
          given.map(event),
        );
        await events.emit(event('after'));
      });
      const written = (await readOutbox(handles[0] as Db)).filter(
        (e) => e.type === 'erasure.completed' && e.data.receiptId === 'era_order',
      );
      assert.deepEqual(
        written.map((e) => e.tenant),
        ['before', ...given, 'after'],
      );
      const entry = (await readAuditLog(handles[0] as Db)).find((e) => e.actor === 'system:order');
      assert.ok(entry, 'the entry was appended');
      const at = new Date(entry.at).toISOString();
      const dated = written.slice(1, -1).map((e) => e.createdAt);
      assert.deepEqual(dated, Array(given.length).fill(at));
      assert.ok(
        (written[0]?.createdAt ?? '') < at && at < (written.at(-1)?.createdAt ?? ''),
        'the events around it keep their own times',
      );
    });

    // The append's one statement started before the other transaction committed, so its snapshot
    // does not hold that transaction's entry: the head it locked, moved and linked to must be the
    // one committed while it waited (docs/audit.md, "Sequence numbers").
    test('an append that waited for the head links to the entry committed meanwhile', {
      skip: factory.name === 'postgres' ? false : 'PostgreSQL only: on SQLite one transaction writes at a time',
    }, async () => {
      const [first, second] = handles.map((h) => new SqlUnitOfWork(h, systemClock)) as [SqlUnitOfWork, SqlUnitOfWork];
      const entry = (what: string) => ({ actor: { kind: 'system', what } as const, action: 'tenant.updated', tenant: what });
      let appended!: () => void;
      let release!: () => void;
      const headHeld = new Promise<void>((resolve) => (appended = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      const holding = first.run(async ({ audit }) => {
        const seq = await audit.append(entry('holder'));
        appended();
        await released;
        return seq;
      });
      await headHeld;
      let settled: unknown;
      const waiting = second.run(({ audit }) => audit.append(entry('waiter'))).then((seq) => (settled = seq));
      for (let i = 0; ; i++) {
        assert.equal(settled, undefined, 'the second append waits for the head');
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(handles[0] as Db);
        if ((rows[0]?.n ?? 0) > 0) break;
        assert.ok(i < 600, 'the second append never waited on the head');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      release();
      const [held, waited] = await Promise.all([holding, waiting]);
      assert.equal(waited, held + 1);
      const [before, after] = await readAuditLog(handles[0] as Db, held, 2);
      assert.equal(after?.prevHash, before?.hash);
      assert.equal(firstBrokenEntry([before, after] as AuditEntry[], before?.prevHash), undefined);
    });
  });
}
