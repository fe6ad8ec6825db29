/**
 * POST /account/erase: the verified erasure pipeline (docs/account.md, "Erasure"), on a holder
 * who has something in every part — memberships in two programmes with coins, a vote, a deposit
 * accepted and shared over a channel, an offer made out to it, a credential, a directory listing,
 * two signed-in browsers — and what the service keeps afterwards.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { FULL_HOLDER_PEPPER, fullHolders, rowsNaming } from '../../../test/helpers/full-holder.ts';
import { type HolderKey, holderJws } from '../../../test/helpers/holder.ts';
import { owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { ok, rowCounts } from '../../../test/helpers/refusals.ts';
import { systemIds } from '../../adapters/crypto/ids.ts';
import { SqlAccountErasureStore } from '../../adapters/sql/account/sql-account-erasure-store.ts';
import type { Db } from '../../adapters/sql/connect.ts';
import { coverRegistry, SqlHolderRecords } from '../../adapters/sql/holder-records.ts';
import { SqlRateBudget } from '../../adapters/sql/kernel/sql-rate-budget.ts';
import { SqlOfferErasure } from '../../adapters/sql/offers/sql-offer-erasure.ts';
import { TABLE_OWNERS } from '../../adapters/sql/owners.ts';
import { SqlUnitOfWork } from '../../adapters/sql/sql-unit-of-work.ts';
import { SqlWalletViews } from '../../adapters/sql/wallet/sql-wallet-views.ts';
import { ErasurePipeline } from './erasure-pipeline.ts';
import { ErasureService } from './erasure-service.ts';
import { HolderData } from './holder-data.ts';

/**
 * The real pipeline (every owner's part), with a row for the account arriving while it runs (as a
 * deposit or a sharing from another process could): what the verification pass exists to catch.
 */
function raceyPipeline(db: Db) {
  const owners = Object.keys(TABLE_OWNERS) as Array<keyof typeof TABLE_OWNERS>;
  const parts = owners.map((owner) => new SqlHolderRecords(db, owner)).filter((p) => p.positions.length > 0);
  const wallet = new SqlWalletViews(db);
  const real = new ErasurePipeline({
    holderData: new HolderData(coverRegistry(parts)),
    offersAddressedTo: (accountId) => wallet.offersAddressedTo(accountId, null),
    offers: new SqlOfferErasure(db),
    rates: new SqlRateBudget(db),
  });
  return {
    async erase(accountId: string, now: number, rateKeys: readonly string[]) {
      const outcome = await real.erase(accountId, now, rateKeys);
      await db
        .insertInto('sharing_log')
        .values({
          id: `log_${randomBytes(8).toString('hex')}`,
          account_id: accountId,
          item_id: 'itm_late',
          tenant: 'alpha',
          elements: '[]',
          at: now,
        })
        .execute();
      return outcome;
    },
    remaining: real.remaining.bind(real),
  };
}

const sameOrigin = { origin: PUBLIC_URL };
const _HOUR = 60 * 60 * 1000;
/** Every table the erasure deletes from, for "a refused erasure changes nothing". */
const TABLES = [
  'members',
  'coin_entries',
  'wallet_items',
  'channels',
  'share_settings',
  'sharing_log',
  'directory_listings',
  'directory_contacts',
  'account_sessions',
  'erasure_receipts',
  'audit_log',
  'outbox',
] as const;

const _unique = (what: string) => `${what}-${randomBytes(6).toString('hex')}`;

for (const factory of testDatabases()) {
  describe(`the account's verified erasure (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let _typeId: string;
    // The service's clock stands still at the suite's start (not at the file's load: the suites run
    // one after another, and the wallet's proofs carry the real time).
    let now = Date.now();
    const clock = { now: () => now };

    const post = (url: string, payload?: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const asHolder = async (key: HolderKey, aud = PUBLIC_URL) => ({
      authorization: `Holder ${await holderJws({ aud, iat: Math.floor(now / 1000) }, { key })}`,
    });
    /** A session cookie for the holder, from a wallet's handoff. */
    const signIn = async (key: HolderKey) => {
      const res = await post('/account/session', undefined, await asHolder(key));
      assert.equal(res.statusCode, 303, res.body);
      const raw = res.headers['set-cookie'];
      const cookie = (Array.isArray(raw) ? raw : [String(raw)]).find((c) => c.startsWith('openrail_account='));
      return `openrail_account=${cookie?.split(';')[0]?.split('=')[1]}`;
    };
    const page = (url: string, cookie: string) => rail.app.inject({ method: 'GET', url, headers: { cookie } });
    const erase = (cookie: string, form = 'confirm=erase', headers: Record<string, string> = sameOrigin) =>
      rail.app.inject({
        method: 'POST',
        url: '/account/erase',
        headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: form,
      });

    const holders = fullHolders(
      () => rail,
      () => now,
    );
    const fullHolder = () => holders.make();

    before(async () => {
      now = Date.now();
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DIRECTORY_PEPPER: FULL_HOLDER_PEPPER }, clock, { runJobs: false });
      await holders.prepare();
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('the data page lists what is held; erasing without the box ticked changes nothing', async () => {
      const holder = await fullHolder();
      const cookie = await signIn(holder.key);
      const data = await page('/account/data', cookie);
      assert.equal(data.statusCode, 200, data.body);
      assert.equal(data.headers['cache-control'], 'no-store');
      assert.match(data.body, /<td>Memberships of programmes<\/td><td class="num">2<\/td>/);
      assert.match(data.body, /<td>Coin ledger entries<\/td><td class="num">2<\/td>/);
      assert.match(data.body, /<td>Directory listing<\/td><td class="num">1<\/td>/);
      assert.match(data.body, /action="\/account\/erase"/);
      assert.match(data.body, /action="\/account\/export"/);

      const before = await rowCounts(rail.db, TABLES);
      const unticked = await erase(cookie, '');
      assert.equal(unticked.statusCode, 400);
      assert.match(unticked.body, /Nothing was erased/);
      const foreign = await erase(cookie, 'confirm=erase', { origin: 'https://evil.example' });
      assert.equal(foreign.statusCode, 403);
      assert.deepEqual(await rowCounts(rail.db, TABLES), before, 'a refused erasure changes nothing');
      assert.equal((await page('/account', cookie)).statusCode, 200, 'the session lives on');

      const signedOut = await erase('openrail_account=nobody');
      assert.equal(signedOut.statusCode, 303);
      assert.equal(signedOut.headers.location, '/account/signin');
    });

    test('erase: every part goes in one step, verified; a receipt without personal data, events, audit; every session ends', async () => {
      const holder = await fullHolder();
      const { accountId } = holder;
      const cookie = await signIn(holder.key);
      const otherBrowser = await signIn(holder.key);
      const votesBefore = await rail.db
        .selectFrom('proposals')
        .select('votes_cast')
        .where('id', '=', holder.proposalId)
        .executeTakeFirstOrThrow();

      const res = await erase(cookie);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /<h1>Your data is erased<\/h1>/);
      const receiptId = /Receipt <code>(era_[A-Za-z0-9_-]+)<\/code>/.exec(res.body)?.[1];
      assert.ok(receiptId, 'the page shows the receipt');
      const cleared = [res.headers['set-cookie']].flat().find((c) => String(c).startsWith('openrail_account='));
      assert.match(String(cleared), /Max-Age=0/);

      // No row names the account in any part; every session of the account ended.
      const left = await rowsNaming(rail, accountId);
      assert.deepEqual(
        Object.entries(left).filter(([, n]) => n !== 0),
        [],
      );
      for (const c of [cookie, otherBrowser]) {
        const after = await page('/account', c);
        assert.equal(after.statusCode, 303);
        assert.equal(after.headers.location, '/account/signin');
      }

      // The receipt: counts and states, nothing that names or describes the holder.
      const receipt = await rail.db
        .selectFrom('erasure_receipts')
        .selectAll()
        .where('id', '=', receiptId)
        .executeTakeFirstOrThrow();
      const counts = JSON.parse(receipt.counts);
      assert.equal(counts.members, 2);
      assert.equal(counts.coinEntries, 2);
      assert.equal(counts.votes, 1);
      assert.equal(counts.deposits, 1);
      assert.equal(counts.channels, 1);
      assert.equal(counts.directoryListings, 1);
      assert.equal(counts.directoryContacts, 1);
      assert.equal(counts.credentials, 1);
      assert.equal(counts.offers, 1);
      assert.equal(counts.sessions, 2);
      assert.equal(Number(receipt.tenants), 2);
      assert.equal(receipt.disk, factory.name === 'sqlite' ? 'zeroed' : 'not-checked');
      const kept = JSON.stringify(receipt);
      for (const secret of [accountId, ...Object.values(holder.marks)]) assert.equal(kept.includes(secret), false);

      // Each tenant that held something is told, and the platform too; the audit log records it.
      const told = await rail.db
        .selectFrom('outbox')
        .select(['tenant', 'data'])
        .where('type', '=', 'erasure.completed')
        .execute();
      assert.deepEqual(
        told
          .filter((e) => JSON.parse(e.data).receiptId === receiptId)
          .map((e) => [e.tenant, JSON.parse(e.data)])
          .sort(),
        ['alpha', 'demo-transit', 'root'].map((t) => [t, { receiptId, accountId }]),
      );
      const audit = await rail.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'account.erased')
        .where('target', '=', receiptId)
        .execute();
      assert.equal(audit.length, 1);
      assert.equal(audit[0]?.actor, `holder:${accountId}`);

      // The vote still counts, linked to nobody; the proposal's count did not move.
      const votes = await rail.db.selectFrom('votes').selectAll().where('proposal_id', '=', holder.proposalId).execute();
      assert.equal(votes.length, 1);
      assert.match(votes[0]?.account_id ?? '', /^erased:/);
      const votesAfter = await rail.db
        .selectFrom('proposals')
        .select('votes_cast')
        .where('id', '=', holder.proposalId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(votesAfter.votes_cast), Number(votesBefore.votes_cast));

      // The offer made out to the account ended now, its subject erased, once reported.
      const offer = await rail.db
        .selectFrom('offers')
        .select(['subject', 'expires_at'])
        .where('id', '=', holder.offerId)
        .executeTakeFirstOrThrow();
      assert.equal(offer.subject, null);
      assert.ok(Number(offer.expires_at) <= now);
      const expired = await rail.db.selectFrom('outbox').select('data').where('type', '=', 'offer.expired').execute();
      assert.equal(expired.filter((e) => JSON.parse(e.data).offerId === holder.offerId).length, 1);

      // The deposit's link stays in its tenant's chain, which still verifies; its id is not reusable.
      const deposit = await rail.db
        .selectFrom('deposits')
        .selectAll()
        .where('deposit_id', '=', holder.bill.depositId)
        .executeTakeFirstOrThrow();
      assert.equal(deposit.body, '');
      assert.equal(deposit.account_id, '');
      assert.ok(deposit.erased_at !== null);
      const integrity = ok(
        await rail.app.inject({ method: 'GET', url: '/api/admin/integration/deposits/integrity?tenant=alpha', headers: owner }),
      );
      assert.equal(integrity.intact, true, JSON.stringify(integrity));
      const viewed = ok(
        await rail.app.inject({
          method: 'GET',
          url: `/api/admin/integration/deposits/${holder.bill.depositId}?tenant=alpha`,
          headers: owner,
        }),
      );
      assert.equal(viewed.body, null);
      assert.equal(viewed.accountId, '');
      assert.ok(viewed.erasedAt);
      const again = await post('/api/tenants/alpha/bills', holder.bill);
      assert.equal(again.statusCode, 409, again.body);
      assert.equal(again.json().error, 'deposit_conflict');

      // The credential stays revocable by its status entry.
      const payload = JSON.parse(Buffer.from(holder.credential.split('~')[0]?.split('.')[1] ?? '', 'base64url').toString());
      const revoked = ok(await post('/api/revoke', { tenant: 'alpha', status: payload.status.status_list }));
      assert.equal(revoked.revoked.length, 1);
      assert.ok(revoked.revoked[0].revokedAt);

      // Signing in again finds an empty account.
      const fresh = await signIn(holder.key);
      const overview = await page('/account', fresh);
      assert.equal(overview.statusCode, 200);
      assert.match(overview.body, /You are not a member of any programme yet\./);
    });

    test('a row for the account left after the pipeline ran undoes the whole erasure: nothing erased, no receipt, no event', async () => {
      const holder = await fullHolder();
      const service = new ErasureService({
        uow: new SqlUnitOfWork(rail.db, clock),
        store: new SqlAccountErasureStore(rail.db),
        pipeline: raceyPipeline(rail.db),
        dropFreedBytes: async () => 'zeroed',
        clock,
        ids: systemIds,
      });
      const before = await rowsNaming(rail, holder.accountId);
      const tables = await rowCounts(rail.db, TABLES);
      await assert.rejects(service.erase(holder.accountId), /erasure left rows naming the account in: sharingLog/);
      assert.deepEqual(await rowsNaming(rail, holder.accountId), before);
      assert.deepEqual(await rowCounts(rail.db, TABLES), tables);
    });

    test('a reader holding the SQLite file leaves the disk check pending; the erasure job finishes it', {
      skip: factory.name !== 'sqlite',
    }, async () => {
      const holder = await fullHolder();
      const cookie = await signIn(holder.key);
      const file = db.location.kind === 'sqlite' ? db.location.file : '';
      // Another process reading the file: its snapshot keeps the checkpoint from finishing.
      const reader = new SqliteDatabase(file, { readonly: true });
      reader.exec('begin');
      reader.prepare('select count(*) from members').get();
      let receiptId: string | undefined;
      try {
        const res = await erase(cookie);
        assert.equal(res.statusCode, 200, res.body);
        assert.match(res.body, /being rewritten/);
        receiptId = /Receipt <code>(era_[A-Za-z0-9_-]+)<\/code>/.exec(res.body)?.[1];
        const pending = await rail.db
          .selectFrom('erasure_receipts')
          .select('disk')
          .where('id', '=', receiptId ?? '')
          .executeTakeFirstOrThrow();
        assert.equal(pending.disk, 'pending');
      } finally {
        reader.exec('commit');
        reader.close();
      }
      await rail.jobs.tick();
      const done = await rail.db
        .selectFrom('erasure_receipts')
        .select(['disk', 'disk_checked_at'])
        .where('id', '=', receiptId ?? '')
        .executeTakeFirstOrThrow();
      assert.equal(done.disk, 'zeroed');
      assert.ok(done.disk_checked_at !== null);
      assert.equal(readFileSync(`${file}-wal`, 'latin1').includes(holder.marks.title), false);
    });

    test('the erased bytes are gone from the SQLite file and its write-ahead log', {
      skip: factory.name !== 'sqlite',
    }, async () => {
      const holder = await fullHolder();
      const cookie = await signIn(holder.key);
      const file = db.location.kind === 'sqlite' ? db.location.file : '';
      const onDisk = () => `${readFileSync(file, 'latin1')}${readFileSync(`${file}-wal`, 'latin1')}`;
      // A coin entry's reason is operator text, which the audit entry of the coin entry keeps
      // (docs/account.md, "What stays"); everything the holder or a deposit put in is erased.
      const personal = [holder.marks.name, holder.marks.title, holder.marks.listed, holder.marks.offered];
      const before = onDisk();
      for (const value of personal) assert.ok(before.includes(value), `${value} is on disk before the erasure`);
      assert.equal((await erase(cookie)).statusCode, 200);
      const after = onDisk();
      for (const value of personal) assert.equal(after.includes(value), false, `${value} is gone from disk`);
    });
  });
}
