/**
 * Every anonymous write has a budget (docs/security.md, "Anonymous budgets" and "Password
 * sign-in"; issue 24, points 4 and 5), on each engine: one address flooding each budgeted
 * operation is refused with 429 and Retry-After once its own budget is spent, stores nothing more,
 * and leaves every other address served (a verification opened before the flood completes after
 * it); the deployment's ceiling holds against many addresses and is logged once; sign-ins are
 * counted per address and per username alike for names that exist and names that do not; and the
 * slow password hash runs two at a time, whatever the number of sign-ins in flight.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { passwordChecks } from '../../src/adapters/crypto/password.ts';
import { createLogger } from '../../src/app/logger.ts';
import { ANONYMOUS_BUDGETS, addressKey } from '../../src/core/anonymous-budgets.ts';
import { RATE_CLASSES, RATE_WINDOW_MAX_SECONDS } from '../../src/core/integration-scopes.ts';
import { ORACLE_POLICY } from '../../src/features/directory/directory-service.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { holderJws, newHolderKey } from '../helpers/holder.ts';
import { issueOne, registerType } from '../helpers/issuance.ts';
import { present } from '../helpers/presentation.ts';
import { bearer, owner, PUBLIC_URL, startRail, type TestRail } from '../helpers/rail.ts';
import { rowCounts } from '../helpers/refusals.ts';

const FLOODER = '203.0.113.66';
const GENUINE = '192.0.2.10';
const count = (rail: TestRail, table: string) => rowCounts(rail.db, [table]).then((c) => c[table] ?? 0);

/**
 * Waits, if need be, for a fresh window of `windowSeconds` (windows start at whole multiples of
 * their length): a flood then falls in one window and meets its quota there, not across two.
 */
async function inOneWindow(windowSeconds: number, needMs = 20_000): Promise<void> {
  const length = windowSeconds * 1000;
  const left = length - (Date.now() % length);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

test('docs/security.md lists every anonymous budget with the catalogue’s numbers', () => {
  const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z-]+)` \|[^|]+\|([^|]+)\|([^|]*)\|([^|]+)\|$/gm)];
  const unit = (seconds: number) => (seconds === 60 ? 'min' : seconds === 3600 ? 'hour' : `${seconds / 60} min`);
  const quota = (q: { quota: number; windowSeconds: number }) => `${q.quota.toLocaleString('en')} / ${unit(q.windowSeconds)}`;
  const documented = Object.fromEntries(rows.map((m) => [m[1], [m[2]?.trim(), m[3]?.trim(), m[4]?.trim()]]));
  const catalogue = Object.fromEntries(
    Object.entries(ANONYMOUS_BUDGETS).map(([name, b]) => [
      name,
      [quota(b.perAddress), 'perSubject' in b ? `${b.perSubject.subject}: ${quota(b.perSubject)}` : '', quota(b.global)],
    ]),
  );
  assert.deepEqual(documented, catalogue);
});

test('no rate window is longer than the kernel keeps counts for', () => {
  const windows = [
    ...Object.values(ANONYMOUS_BUDGETS).flatMap((b) => [b.perAddress, b.global, ...('perSubject' in b ? [b.perSubject] : [])]),
    ...Object.values(RATE_CLASSES),
    ORACLE_POLICY,
  ].map((q) => q.windowSeconds);
  assert.ok(Math.max(...windows) <= RATE_WINDOW_MAX_SECONDS, `${Math.max(...windows)} > ${RATE_WINDOW_MAX_SECONDS}`);
});

test('an address is counted as itself, an IPv6 address by its /64', () => {
  assert.equal(addressKey('203.0.113.5'), '203.0.113.5');
  assert.equal(addressKey('::ffff:203.0.113.5'), '203.0.113.5');
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.notEqual(addressKey('2001:db8:1:3::1'), addressKey('2001:db8:1:2::1'));
});

for (const factory of testDatabases()) {
  describe(`anonymous budgets (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let vct: string;
    let typeId: string;
    const from = (remoteAddress: string, options: InjectOptions) => rail.app.inject({ ...options, remoteAddress });
    /** The holder answers the transaction (from its own address) and the relying party polls its outcome. */
    const complete = async (opened: { transactionId: string; resultToken: string }) => {
      const issued = await issueOne(rail.app, 'demo-transit', typeId, { holder: 'Ada' });
      const object = await from('192.0.2.77', { method: 'GET', url: `/oid4vp/request/${opened.transactionId}` });
      const payload = JSON.parse(Buffer.from(object.body.split('.')[1] ?? '', 'base64url').toString());
      const vp = await present(issued.credential, issued.key, ['holder'], { nonce: payload.nonce });
      const answered = await from('192.0.2.77', {
        method: 'POST',
        url: '/oid4vp/response',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ vp_token: JSON.stringify({ credential: [vp] }), state: payload.state }).toString(),
      });
      assert.equal(answered.statusCode, 200, answered.body);
      const polled = await from(GENUINE, {
        method: 'GET',
        url: `/verify/result/${opened.transactionId}`,
        headers: bearer(opened.resultToken),
      });
      return polled.json().outcome as { ok: boolean };
    };
    const verifyRequest = (address: string) =>
      from(address, {
        method: 'POST',
        url: '/verify/request',
        payload: { vct, claims: ['holder'], nonce: randomBytes(18).toString('base64url'), aud: 'https://rp.example' },
      });

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      ({ vct, typeId } = await registerType(rail.app, 'demo-transit', 'Budget Pass', ['holder']));
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('every budget is spent by some operation, and the contract names them all', async () => {
      const doc = (await rail.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, { 'x-svc-anonymous-budgets'?: string[]; responses: Record<string, unknown> }>>;
      };
      const named = new Set<string>();
      for (const item of Object.values(doc.paths)) {
        for (const op of Object.values(item)) {
          for (const budget of op['x-svc-anonymous-budgets'] ?? []) {
            named.add(budget);
            assert.ok(op.responses['429'], `an operation spending ${budget} lists 429`);
          }
        }
      }
      assert.deepEqual([...named].sort(), Object.keys(ANONYMOUS_BUDGETS).sort());
    });

    test('a verification flood from one address: refused past its budget, and a genuine one from elsewhere completes', async () => {
      const { quota, windowSeconds } = ANONYMOUS_BUDGETS['verify-request'].perAddress;
      await inOneWindow(windowSeconds);
      const genuine = await verifyRequest(GENUINE);
      assert.equal(genuine.statusCode, 201, genuine.body);
      for (let i = 0; i < quota; i++) assert.equal((await verifyRequest(FLOODER)).statusCode, 201);
      const before = await count(rail, 'presentation_transactions');
      const deployment = async () =>
        (
          await rail.db
            .selectFrom('rate_windows')
            .select('used')
            .where('key', '=', 'anon:verify-request:g')
            .executeTakeFirstOrThrow()
        ).used;
      const counted = await deployment();
      const refused = await verifyRequest(FLOODER);
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(await deployment(), counted, "a request its address's budget refuses is not counted against the deployment");
      assert.equal(refused.json().error, 'rate_limited');
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.equal(await count(rail, 'presentation_transactions'), before, 'a refused request stores nothing');
      // Another address is served, and the genuine verification opened before the flood completes.
      assert.equal((await verifyRequest('192.0.2.11')).statusCode, 201);
      const outcome = await complete(genuine.json());
      assert.equal(outcome?.ok, true, JSON.stringify(outcome));
    });

    test('account sessions from one address: ten, then 429, and no more rows', async () => {
      const session = async () =>
        from(FLOODER, {
          method: 'POST',
          url: '/account/session',
          headers: { authorization: `Holder ${await holderJws({ aud: PUBLIC_URL }, { key: await newHolderKey() })}` },
        });
      const { quota, windowSeconds } = ANONYMOUS_BUDGETS['account-session'].perAddress;
      await inOneWindow(windowSeconds);
      for (let i = 0; i < quota; i++) assert.equal((await session()).statusCode, 303);
      const [sessions, marks] = [await count(rail, 'account_sessions'), await count(rail, 'holder_jti')];
      const refused = await session();
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(await count(rail, 'account_sessions'), sessions);
      assert.equal(await count(rail, 'holder_jti'), marks, 'nor is the refused JWS burned');
      const elsewhere = await rail.app.inject({
        method: 'POST',
        url: '/account/session',
        remoteAddress: GENUINE,
        headers: { authorization: `Holder ${await holderJws({ aud: PUBLIC_URL })}` },
      });
      assert.equal(elsewhere.statusCode, 303, 'a holder elsewhere signs in');
    });

    test('holder-plane requests from one address: their replay marks are budgeted, and a refused JWS stays unspent', async () => {
      const key = await newHolderKey();
      const me = async (address: string, jws?: string) =>
        from(address, {
          method: 'GET',
          url: '/member/me',
          headers: { authorization: `Holder ${jws ?? (await holderJws({ aud: PUBLIC_URL }, { key }))}` },
        });
      const { quota, windowSeconds } = ANONYMOUS_BUDGETS['holder-request'].perAddress;
      await inOneWindow(windowSeconds);
      for (let i = 0; i < quota; i++) assert.equal((await me('203.0.113.67')).statusCode, 200);
      const marks = await count(rail, 'holder_jti');
      const jws = await holderJws({ aud: PUBLIC_URL }, { key });
      const refused = await me('203.0.113.67', jws);
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(await count(rail, 'holder_jti'), marks);
      assert.equal((await me(GENUINE, jws)).statusCode, 200, 'the same JWS, sent again from elsewhere, was never spent');
    });

    test('sign-in pages from one address: thirty tickets, then 429', async () => {
      const { quota, windowSeconds } = ANONYMOUS_BUDGETS['account-signin'].perAddress;
      await inOneWindow(windowSeconds);
      for (let i = 0; i < quota; i++)
        assert.equal((await from('203.0.113.68', { method: 'GET', url: '/account/signin' })).statusCode, 200);
      const tickets = await count(rail, 'signin_tickets');
      assert.equal((await from('203.0.113.68', { method: 'GET', url: '/account/signin' })).statusCode, 429);
      assert.equal(await count(rail, 'signin_tickets'), tickets);
    });

    test('sign-ins: per address, then per username, the same for a name that exists and one that does not', async () => {
      const made = await rail.app.inject({
        method: 'POST',
        url: '/api/operators',
        headers: owner,
        payload: { username: 'ana', password: 'a-long-enough-password', roles: ['ops'] },
      });
      assert.equal(made.statusCode, 201, made.body);
      const login = (address: string, username: string) =>
        from(address, { method: 'POST', url: '/api/login', payload: { username, password: 'not-the-password' } });
      // The 15-minute windows start with 5-minute ones: room in one is room in both.
      await inOneWindow(ANONYMOUS_BUDGETS['operator-login'].perAddress.windowSeconds, 30_000);
      const perUser = ANONYMOUS_BUDGETS['operator-login'].perSubject.quota;
      // Each attempt from an address of its own: only the username's budget counts them.
      const answers: Record<string, Array<[number, string]>> = { ana: [], ghost: [] };
      for (const username of ['ana', 'ghost']) {
        for (let i = 0; i <= perUser; i++) {
          const res = await login(`198.18.${username === 'ana' ? 1 : 2}.${i}`, username);
          answers[username]?.push([res.statusCode, res.json().error]);
        }
      }
      assert.deepEqual(answers.ana, answers.ghost, 'a lock, a budget, an unknown name: one answer');
      assert.deepEqual(answers.ana?.at(-1), [429, 'rate_limited']);
      assert.deepEqual(answers.ana?.at(-2), [401, 'invalid_credentials']);
      // Per address, whatever the names.
      const perAddress = ANONYMOUS_BUDGETS['operator-login'].perAddress.quota;
      for (let i = 0; i < perAddress; i++) assert.equal((await login('198.18.3.1', `name-${i}`)).statusCode, 401);
      assert.equal((await login('198.18.3.1', 'name-last')).statusCode, 429);
    });

    test('sixteen sign-ins at once: two password checks run at a time, the rest wait their turn', async () => {
      let most = 0;
      const watching = setInterval(() => {
        most = Math.max(most, passwordChecks().running);
      }, 1);
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          from(`198.18.4.${i}`, { method: 'POST', url: '/api/login', payload: { username: `crowd-${i}`, password: 'x' } }),
        ),
      );
      clearInterval(watching);
      assert.deepEqual(new Set(answers.map((a) => a.statusCode)), new Set([401]));
      assert.ok(most >= 1 && most <= 2, `at most two at once (saw ${most})`);
      assert.equal(passwordChecks().running, 0);
    });
  });

  describe(`the deployment's ceiling (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let vct: string;
    const lines: Record<string, unknown>[] = [];

    before(async () => {
      db = await factory.create();
      const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
      // A twentieth of every quota: the verification ceiling is then 150 a minute, 6 per address.
      rail = await startRail(db, { OPENRAIL_ANONYMOUS_BUDGET_SCALE: '0.05' }, undefined, { runJobs: false, logger });
      ({ vct } = await registerType(rail.app, 'demo-transit', 'Ceiling Pass', ['holder']));
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('many addresses reach the ceiling: new requests from anyone are refused, and it is logged once', async () => {
      const budget = ANONYMOUS_BUDGETS['verify-request'];
      const [perAddress, ceiling] = [budget.perAddress.quota * 0.05, budget.global.quota * 0.05];
      const open = (address: string) =>
        rail.app.inject({
          method: 'POST',
          url: '/verify/request',
          remoteAddress: address,
          payload: { vct, claims: ['holder'], nonce: randomBytes(18).toString('base64url'), aud: 'https://rp.example' },
        });
      await inOneWindow(budget.global.windowSeconds);
      let served = 0;
      for (let a = 0; served < ceiling; a++) {
        for (let i = 0; i < perAddress && served < ceiling; i++, served++) {
          assert.equal((await open(`10.9.${a}.1`)).statusCode, 201);
        }
      }
      const before = await count(rail, 'presentation_transactions');
      const windows = await count(rail, 'rate_windows');
      for (const address of ['10.250.0.1', '10.250.0.2', '10.250.0.3']) {
        const refused = await open(address);
        assert.equal(refused.statusCode, 429, refused.body);
        assert.match(refused.json().message, /from anyone/);
      }
      assert.equal(await count(rail, 'presentation_transactions'), before);
      assert.equal(await count(rail, 'rate_windows'), windows, 'a ceiling reached counts no new address');
      await new Promise((r) => setTimeout(r, 50));
      const warnings = lines.filter((l) => String(l.msg).startsWith('anonymous budget ceiling reached'));
      assert.equal(warnings.length, 1, 'one line per window, however many are refused');
      assert.equal(warnings[0]?.budget, 'verify-request');
    });
  });
}
