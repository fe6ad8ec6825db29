/**
 * Single-use and one-per-member guarantees of the holder plane under concurrency: one holder
 * JWS is admitted once, a member votes once, a hosted verification enrols once, a small balance
 * takes one debit, and a wallet item racing to be accepted is accepted once (every racer gets the
 * same answer). Each race runs in-process on every test database, and across two real
 * `openrail serve` processes on one PostgreSQL schema when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type DatabaseFactory, testDatabases } from '../helpers/databases.ts';
import {
  assertNo5xx,
  expectStatus,
  type Harness,
  inProcess,
  json,
  operator,
  type Reply,
  type Req,
  race,
  summary,
  twoProcesses,
} from '../helpers/harness.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../helpers/holder.ts';
import { PASS_CLAIMS, PASS_SUBJECT, PRE_AUTH, proofJwt } from '../helpers/issuance.ts';
import { present } from '../helpers/presentation.ts';
import { PUBLIC_URL } from '../helpers/rail.ts';

const RACERS = 24;
const HOUR = 3600 * 1000;

const thumbprint = accountOf;
const signed = async (key: HolderKey) => ({ authorization: `Holder ${await holderJws({ aud: PUBLIC_URL }, { key })}` });
const post = (url: string, body: unknown, headers: Record<string, string> = operator): Req => ({
  method: 'POST',
  url,
  ...json(body, headers),
});

/** Exactly one reply has `won`; every other has `status` and the service error `error`. */
function assertOne(h: Harness, replies: Reply[], won: number, status: number, error: string): Reply {
  assertNo5xx(h, replies);
  const winners = replies.filter((r) => r.status === won);
  assert.equal(winners.length, 1, `expected exactly one ${won}:\n${summary(replies)}`);
  for (const r of replies) {
    if (r.status === won) continue;
    assert.equal(r.status, status, `lane ${r.lane}: ${r.text}`);
    assert.equal(r.json().error, error, r.text);
  }
  return winners[0] as Reply;
}

/** A credential of the type, collected over OID4VCI by a fresh holder key. */
async function collect(h: Harness, tenant: string, typeId: string) {
  const offer = await expectStatus(h.send(0, post('/api/offers', { tenant, typeId, subject: PASS_SUBJECT })), 201);
  const code = JSON.parse(new URL(String(offer.offerUri)).searchParams.get('credential_offer') ?? '{}').grants[PRE_AUTH][
    'pre-authorized_code'
  ];
  const token = await expectStatus(
    h.send(0, {
      method: 'POST',
      url: `/t/${tenant}/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString(),
    }),
    200,
  );
  const key = await newHolderKey();
  const proof = await proofJwt(key, { aud: `${PUBLIC_URL}/t/${tenant}`, nonce: String(token.c_nonce) });
  const issued = await expectStatus(
    h.send(
      0,
      post(
        `/t/${tenant}/credential`,
        { credential_configuration_id: typeId, proofs: { jwt: [proof] } },
        { authorization: `Bearer ${token.access_token}` },
      ),
    ),
    200,
  );
  return { key, credential: (issued.credentials as { credential: string }[])[0]?.credential ?? '' };
}

/** A hosted verification of the type, answered by the holder of `credential`. */
async function verified(h: Harness, vct: string, key: HolderKey, credential: string) {
  const nonce = randomBytes(18).toString('base64url');
  const opened = await expectStatus(
    h.send(0, post('/verify/request', { vct, claims: [], nonce, aud: 'https://club.example' }, {})),
    201,
  );
  const object = await h.send(0, { method: 'GET', url: `/oid4vp/request/${opened.transactionId}` });
  const payload = JSON.parse(Buffer.from(object.text.split('.')[1] ?? '', 'base64url').toString());
  const vp = await present(credential, key, [], { nonce: payload.nonce });
  const answer = await h.send(0, {
    method: 'POST',
    url: '/oid4vp/response',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ vp_token: JSON.stringify({ credential: [vp] }), state: payload.state }).toString(),
  });
  assert.equal(answer.status, 200, answer.text);
  return { transactionId: String(opened.transactionId), resultToken: String(opened.resultToken) };
}

const count = async (h: Harness, table: 'members' | 'votes' | 'coin_entries', tenant: string) =>
  Number(
    (
      await h.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant', '=', tenant)
        .executeTakeFirst()
    )?.n ?? 0,
  );

function raceSuite(name: string, skip: string | false, open: () => Promise<Harness>): void {
  describe(name, { skip }, () => {
    let h: Harness;
    let tenant: string;
    let typeId: string;
    let vct: string;
    let holder: { key: HolderKey; credential: string };
    let account: string;

    before(async () => {
      h = await open();
      const made = await expectStatus(
        h.send(0, post('/api/tenants', { name: `Holder Club ${randomBytes(3).toString('hex')}` })),
        201,
      );
      tenant = String(made.slug);
      const type = await expectStatus(h.send(0, post('/api/types', { tenant, name: 'Club Pass', claims: PASS_CLAIMS })), 201);
      typeId = String(type.typeId);
      vct = String(type.vct);
      await expectStatus(h.send(0, post('/api/members/enrolment-types', { tenant, typeIds: [typeId] })), 200);
      holder = await collect(h, tenant, typeId);
      account = thumbprint(holder.key);
    });
    after(async () => {
      await h?.close();
    });

    test('one completed verification enrols its presenter once', async () => {
      const { transactionId, resultToken } = await verified(h, vct, holder.key, holder.credential);
      const replies = await race(
        h,
        Array.from({ length: RACERS }, () => post('/member/enroll', { transactionId, resultToken }, {})),
      );
      const winner = assertOne(h, replies, 201, 409, 'transaction_used');
      assert.equal(winner.json().accountId, account);
      assert.equal(await count(h, 'members', tenant), 1);
    });

    test('a sign-in ticket is approved once and spent once, whichever process each racer reaches', async () => {
      const opened = await h.send(0, { method: 'GET', url: '/account/signin' });
      assert.equal(opened.status, 200, opened.text);
      const [, browser = '', ticket = ''] =
        /openrail_signin=(([A-Za-z0-9_-]{43})\.[A-Za-z0-9_-]{43})/.exec(opened.header('set-cookie') ?? '') ?? [];
      assert.ok(ticket, 'the ticket cookie');
      const approvals: Req[] = [];
      for (let i = 0; i < RACERS; i++) {
        const key = await newHolderKey();
        const jws = await holderJws({ aud: `${PUBLIC_URL}/account/approve` }, { key });
        approvals.push(post('/account/approve', { t: ticket }, { authorization: `Holder ${jws}` }));
      }
      assertOne(h, await race(h, approvals), 200, 409, 'signin_unavailable');

      const continues: Req[] = Array.from({ length: RACERS }, () => ({
        method: 'POST',
        url: '/account/signin/continue',
        headers: { origin: PUBLIC_URL, cookie: `openrail_signin=${browser}` },
      }));
      const replies = await race(h, continues);
      assertNo5xx(h, replies);
      const sessions = replies.filter((r) => r.status === 303);
      assert.equal(sessions.length, 1, `one racer collects the session:\n${summary(replies)}`);
      assert.match(sessions[0]?.header('set-cookie') ?? '', /openrail_account=/);
      for (const r of replies.filter((x) => x.status !== 303)) {
        assert.equal(r.status, 200, r.text);
        assert.match(r.text, /That sign-in request has ended/);
      }
    });

    test('one holder JWS is admitted once, on whichever process it reaches first', async () => {
      const headers = await signed(holder.key);
      const replies = await race(
        h,
        Array.from({ length: RACERS }, () => ({ method: 'GET' as const, url: '/member/me', headers })),
      );
      const winner = assertOne(h, replies, 200, 401, 'unauthorized');
      assert.equal(winner.json().accountId, account);
    });

    test('a member votes once, however many ballots race', async () => {
      const created = await expectStatus(
        h.send(
          0,
          post('/api/proposals', {
            tenant,
            action: 'create',
            title: 'Clubhouse colour',
            options: ['Green', 'Blue'],
            opensAt: new Date(Date.now() - HOUR).toISOString(),
            closesAt: new Date(Date.now() + HOUR).toISOString(),
          }),
        ),
        201,
      );
      const proposalId = String(created.proposalId);
      await expectStatus(h.send(0, post('/api/proposals', { tenant, action: 'open', proposalId })), 200);
      const ballots = await Promise.all(
        Array.from({ length: RACERS }, async (_, i) =>
          post('/member/vote', { proposalId, option: i % 2 ? 'Green' : 'Blue' }, await signed(holder.key)),
        ),
      );
      assertOne(h, await race(h, ballots), 201, 409, 'already_voted');
      assert.equal(await count(h, 'votes', tenant), 1);
    });

    test('a balance of one coin takes one debit', async () => {
      const coins = (delta: number, idempotencyKey: string) =>
        post('/api/members/update', { tenant, accountId: account, coins: { delta, reason: 'race', idempotencyKey } });
      await expectStatus(h.send(0, coins(1, 'grant-1')), 200);
      const replies = await race(
        h,
        Array.from({ length: RACERS }, (_, i) => coins(-1, `debit-${i}`)),
      );
      assertOne(h, replies, 200, 409, 'insufficient_balance');
      assert.equal(await count(h, 'coin_entries', tenant), 2);
      const member = await h.db
        .selectFrom('members')
        .select('balance')
        .where('tenant', '=', tenant)
        .where('account_id', '=', account)
        .executeTakeFirstOrThrow();
      assert.equal(Number(member.balance), 0);
    });

    test('an item racing to be accepted is accepted once, and every racer gets the same answer', async () => {
      const offer = await expectStatus(
        h.send(0, post('/api/offers', { tenant, typeId, subject: PASS_SUBJECT, accountId: account })),
        201,
      );
      const url = `/api/wallet/${account}/items/${offer.itemId}/accept`;
      const accepts = await Promise.all(Array.from({ length: RACERS }, async () => post(url, {}, await signed(holder.key))));
      const replies = await race(h, accepts);
      assertNo5xx(h, replies);
      assert.deepEqual(new Set(replies.map((r) => r.status)), new Set([200]), summary(replies));
      assert.equal(new Set(replies.map((r) => r.text)).size, 1, 'the same answer to every racer');
      assert.equal(replies[0]?.json().offerUri, offer.offerUri);
      const audited = await h.db
        .selectFrom('audit_log')
        .select('seq')
        .where('action', '=', 'item.accepted')
        .where('target', '=', String(offer.itemId))
        .execute();
      assert.equal(audited.length, 1);
    });
  });
}

for (const factory of testDatabases()) {
  raceSuite(`holder-plane races in-process on ${factory.name} (one rail, concurrent inject)`, false, () => inProcess(factory));
}

const postgres = testDatabases().find((f) => f.name === 'postgres');
raceSuite(
  'holder-plane races across two openrail serve processes on one PostgreSQL database (real HTTP)',
  postgres ? false : 'TEST_DATABASE_URL is not set: two processes sharing one database need PostgreSQL',
  () => twoProcesses(postgres as DatabaseFactory),
);
