import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../../../test/helpers/holder.ts';
import { owner, PUBLIC_URL, railOn, stopRail, type TestRail } from '../../../test/helpers/rail.ts';

const APPROVE_AUD = `${PUBLIC_URL}/account/approve`;
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const sameOrigin = { origin: PUBLIC_URL };

/** The cookies an answer sets, by name: value and attributes as sent. */
function setCookies(res: LightMyRequestResponse): Record<string, string> {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return Object.fromEntries(list.map((c) => [c.split('=')[0] as string, c]));
}
const cookieValue = (cookie: string | undefined) => cookie?.split(';')[0]?.split('=')[1] ?? '';

for (const factory of testDatabases()) {
  describe(`the account portal's browser sign-in, row by row of the state table (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let now = Date.now();
    const clock = { now: () => now };

    /**
     * A browser opens the sign-in page: the ticket id the page shows (in the QR code and the
     * approve URL), and the browser's cookie value, which holds a secret the page never shows.
     */
    const openTicket = async () => {
      const res = await rail.app.inject({ method: 'GET', url: '/account/signin', headers: { 'user-agent': FIREFOX } });
      assert.equal(res.statusCode, 200, res.body);
      const cookie = setCookies(res).openrail_signin;
      assert.ok(cookie, 'the ticket cookie is set');
      const browser = cookieValue(cookie);
      const [ticket = '', secret = ''] = browser.split('.');
      assert.ok(res.body.includes(`${APPROVE_AUD}?t=${ticket}`), 'the page links the approve URL');
      assert.ok(!res.body.includes(secret), 'the page never shows the browser secret');
      return { ticket, browser, page: res.body };
    };
    const approve = async (key: HolderKey, t: unknown, aud = APPROVE_AUD) =>
      rail.app.inject({
        method: 'POST',
        url: '/account/approve',
        headers: { authorization: `Holder ${await holderJws({ aud, iat: Math.floor(now / 1000) }, { key })}` },
        payload: { t } as Record<string, unknown>,
      });
    /** The browser continues with its ticket cookie's value (`<ticket>.<secret>`), or none. */
    const continueWith = (browser: string | undefined) =>
      rail.app.inject({
        method: 'POST',
        url: '/account/signin/continue',
        headers: { ...sameOrigin, ...(browser ? { cookie: `openrail_signin=${browser}` } : {}) },
      });

    before(async () => {
      ({ db, rail } = await railOn(factory, {}, clock));
    });
    after(() => stopRail(rail, db));

    test('the sign-in page holds its ticket in an HttpOnly, Secure, SameSite=Lax cookie and shows a QR code', async () => {
      const res = await rail.app.inject({ method: 'GET', url: '/account/signin' });
      const cookie = setCookies(res).openrail_signin ?? '';
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /Secure/);
      assert.match(cookie, /SameSite=Lax/);
      assert.match(cookie, /Path=\/account/);
      assert.match(cookie, /Max-Age=600/);
      assert.match(res.body, /<svg[^>]*>/, 'an inline QR code');
      assert.doesNotMatch(res.body, /type="password"|<input/, 'no password, nothing typed');
      assert.equal(res.headers['cache-control'], 'no-store');
    });

    test('opened → approved by the wallet: {ok:true}, no cookie read or set', async () => {
      const { ticket } = await openTicket();
      const explainer = await rail.app.inject({
        method: 'GET',
        url: `/account/approve?t=${ticket}`,
        headers: { accept: 'application/json' },
      });
      assert.deepEqual(explainer.json(), { askedBy: 'Firefox on Linux', approved: false });
      const page = await rail.app.inject({ method: 'GET', url: `/account/approve?t=${ticket}` });
      assert.match(page.body, /Firefox on Linux asked to sign in/);
      const key = await newHolderKey();
      const res = await approve(key, ticket);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { ok: true });
      assert.equal(res.headers['set-cookie'], undefined);
      const after = await rail.app.inject({
        method: 'GET',
        url: `/account/approve?t=${ticket}`,
        headers: { accept: 'application/json' },
      });
      assert.deepEqual(after.json(), { askedBy: 'Firefox on Linux', approved: true }, 'the waiting page can tell');
    });

    test('malformed, unknown, expired or already approved: 409 with one identical answer, and nothing changes', async () => {
      const key = await newHolderKey();
      const tickets = async () =>
        JSON.stringify(await rail.db.selectFrom('signin_tickets').selectAll().orderBy('id_hash').execute());
      // A `t` that cannot be a ticket is, to the caller, a ticket that is not there (interface
      // spec, Browser sign-in ticket: one identical answer), never a 400 that tells them apart.
      const malformed: unknown[] = [
        '',
        'short',
        'A'.repeat(42),
        'A'.repeat(44),
        `${'A'.repeat(42)}!`,
        'x'.repeat(4096),
        42,
        null,
        true,
        ['A'.repeat(43)],
        { t: 'A'.repeat(43) },
      ];
      const before = await tickets();
      const refusals: Array<[string, LightMyRequestResponse]> = [];
      for (const t of malformed) refusals.push([`malformed ${JSON.stringify(t).slice(0, 20)}`, await approve(key, t)]);
      refusals.push(['unknown', await approve(key, 'A'.repeat(43))]);
      assert.equal(await tickets(), before, 'a refused approval changes no ticket');
      const approvedTicket = (await openTicket()).ticket;
      assert.equal((await approve(key, approvedTicket)).statusCode, 200);
      refusals.push(['approved', await approve(await newHolderKey(), approvedTicket)]);
      const stale = (await openTicket()).ticket;
      now += 11 * 60 * 1000;
      const beforeExpired = await tickets();
      refusals.push(['expired', await approve(key, stale)]);
      assert.equal(await tickets(), beforeExpired, 'an expired ticket stays as it was');
      // No `t` at all, or a body of another shape, is a request that names no ticket: 400.
      for (const payload of [{}, { t: 'A'.repeat(43), x: 1 }]) {
        const res = await rail.app.inject({
          method: 'POST',
          url: '/account/approve',
          headers: { authorization: `Holder ${await holderJws({ aud: APPROVE_AUD, iat: Math.floor(now / 1000) }, { key })}` },
          payload,
        });
        assert.equal(res.statusCode, 400, res.body);
      }
      const [, first] = refusals[0] as [string, LightMyRequestResponse];
      assert.equal(first.statusCode, 409, first.body);
      assert.equal(first.json().error, 'signin_unavailable');
      for (const [what, res] of refusals) {
        assert.equal(res.statusCode, 409, `${what}: ${res.body}`);
        assert.equal(res.headers['content-type'], first.headers['content-type'], what);
        assert.equal(res.rawPayload.equals(first.rawPayload), true, `${what}: byte for byte the same body`);
        assert.equal(res.headers['set-cookie'], undefined, `${what}: no cookie set`);
      }
    });

    test('approved → spent: the browser continues with a session cookie and a 303 to /account', async () => {
      const key = await newHolderKey();
      await rail.app.inject({
        method: 'POST',
        url: '/api/members/enroll',
        headers: owner,
        payload: { tenant: 'demo-transit', accountId: accountOf(key), displayName: 'Ada' },
      });
      const { ticket, browser } = await openTicket();
      assert.equal((await approve(key, ticket)).statusCode, 200);
      const res = await continueWith(browser);
      assert.equal(res.statusCode, 303, res.body);
      assert.equal(res.headers.location, '/account');
      const session = setCookies(res).openrail_account ?? '';
      assert.match(session, /HttpOnly/);
      assert.match(session, /Secure/);
      assert.match(session, /SameSite=Lax/);
      assert.match(session, /Max-Age=28800/);
      assert.match(setCookies(res).openrail_signin ?? '', /Max-Age=0/, 'the ticket cookie is cleared');
      const account = await rail.app.inject({
        method: 'GET',
        url: '/account',
        headers: { cookie: `openrail_account=${cookieValue(session)}` },
      });
      assert.equal(account.statusCode, 200);
      assert.match(account.body, new RegExp(accountOf(key)));
      assert.match(account.body, /Ada/);
      const spentAgain = await continueWith(browser);
      assert.equal(spentAgain.statusCode, 200, 'a spent ticket opens nothing');
      assert.equal(setCookies(spentAgain).openrail_account, undefined);
    });

    test('a QR code is not a key: knowing all the QR code and the approve page show, another client gets no session', async () => {
      const key = await newHolderKey();
      const { ticket, browser, page } = await openTicket();
      // What an onlooker learns: the approve URL (in the QR code and the page), the approve page
      // and its JSON, both before and after the holder approves.
      const shown = [page];
      const peek = async () => {
        for (const accept of ['text/html', 'application/json']) {
          const res = await rail.app.inject({ method: 'GET', url: `/account/approve?t=${ticket}`, headers: { accept } });
          shown.push(res.body, JSON.stringify(res.headers));
        }
      };
      await peek();
      assert.equal((await approve(key, ticket)).statusCode, 200);
      await peek();
      const guesses = [ticket, `${ticket}.${ticket}`, ...shown.flatMap((text) => text.match(/[A-Za-z0-9_-]{43}/g) ?? [])];
      const [, secret = ''] = browser.split('.');
      for (const guess of new Set([...guesses, ...guesses.map((g) => `${ticket}.${g}`)])) {
        assert.ok(!guess.includes(secret), 'nothing shown carries the browser secret');
        const stolen = await continueWith(guess);
        assert.notEqual(stolen.statusCode, 303, `no session for ${guess}`);
        assert.equal(setCookies(stolen).openrail_account, undefined);
      }
      const own = await continueWith(browser);
      assert.equal(own.statusCode, 303, 'the browser that opened it still collects its session');
      const cookies = [own.headers['set-cookie']].flat().filter((c) => String(c).startsWith('openrail_account='));
      assert.equal(cookies.length, 1, 'one session cookie, set once');
    });

    test('opened, not approved: continue answers the sign-in page with a notice, and no session', async () => {
      const { ticket, browser } = await openTicket();
      const res = await continueWith(browser);
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /Not approved yet/);
      assert.equal(setCookies(res).openrail_account, undefined);
      assert.ok(res.body.includes(`?t=${ticket}`), 'the same ticket, still open');
      const noTicket = await continueWith(undefined);
      assert.equal(noTicket.statusCode, 401);
      assert.match(noTicket.body, /no sign-in request to continue/);
      const forged = await rail.app.inject({
        method: 'POST',
        url: '/account/signin/continue',
        headers: { origin: 'https://evil.example', cookie: `openrail_signin=${browser}` },
      });
      assert.equal(forged.statusCode, 403, 'a form from elsewhere is refused');
    });

    test('spent or expired: GET /account/approve is 410 with an explanation', async () => {
      const key = await newHolderKey();
      const opened = await openTicket();
      const spent = opened.ticket;
      await approve(key, spent);
      await continueWith(opened.browser);
      const expired = (await openTicket()).ticket;
      now += 11 * 60 * 1000;
      for (const t of [spent, expired]) {
        const page = await rail.app.inject({ method: 'GET', url: `/account/approve?t=${t}` });
        assert.equal(page.statusCode, 410);
        assert.match(page.body, /This sign-in request has ended/);
        const json = await rail.app.inject({
          method: 'GET',
          url: `/account/approve?t=${t}`,
          headers: { accept: 'application/json' },
        });
        assert.equal(json.statusCode, 410);
        assert.equal(json.json().error, 'signin_ended');
      }
    });

    test('a wallet on this device hands a session over; an approval signature is refused as a handoff', async () => {
      const key = await newHolderKey();
      const handoff = async (aud: string) =>
        rail.app.inject({
          method: 'POST',
          url: '/account/session',
          headers: { authorization: `Holder ${await holderJws({ aud, iat: Math.floor(now / 1000) }, { key })}` },
        });
      const ok = await handoff(PUBLIC_URL);
      assert.equal(ok.statusCode, 303);
      assert.equal(ok.headers.location, '/account');
      assert.ok(setCookies(ok).openrail_account);
      const sessionCookies = [ok.headers['set-cookie']].flat().filter((c) => String(c).startsWith('openrail_account='));
      assert.equal(sessionCookies.length, 1, 'Set-Cookie: openrail_account once, not twice');
      const replayedApproval = await handoff(APPROVE_AUD);
      assert.equal(replayedApproval.statusCode, 401);
      assert.match(String(replayedApproval.headers['content-type']), /text\/html/, 'the sign-in page, not a bare 401');
      assert.match(replayedApproval.body, /could not be accepted/);
      assert.equal(setCookies(replayedApproval).openrail_account, undefined);
      const none = await rail.app.inject({ method: 'POST', url: '/account/session' });
      assert.equal(none.statusCode, 401);
      assert.match(none.body, /Sign in to your account/);
      assert.match(none.body, /href="\/account\/signin"/, 'one step from a sign-in code');
      const tickets = await rail.db.selectFrom('signin_tickets').select('id_hash').execute();
      const again = await rail.app.inject({ method: 'POST', url: '/account/session' });
      assert.equal(again.statusCode, 401);
      assert.equal(
        (await rail.db.selectFrom('signin_tickets').select('id_hash').execute()).length,
        tickets.length,
        'a refusal stores nothing',
      );
      const sessionJws = await holderJws({ aud: PUBLIC_URL, iat: Math.floor(now / 1000) }, { key });
      const asApproval = await rail.app.inject({
        method: 'POST',
        url: '/account/approve',
        headers: { authorization: `Holder ${sessionJws}` },
        payload: { t: (await openTicket()).ticket },
      });
      assert.equal(asApproval.statusCode, 401, 'a session signature cannot approve either');
    });

    test('signing out ends the session; without one /account sends the browser to sign in', async () => {
      const key = await newHolderKey();
      const res = await rail.app.inject({
        method: 'POST',
        url: '/account/session',
        headers: { authorization: `Holder ${await holderJws({ aud: PUBLIC_URL, iat: Math.floor(now / 1000) }, { key })}` },
      });
      const session = cookieValue(setCookies(res).openrail_account);
      const out = await rail.app.inject({
        method: 'POST',
        url: '/account/signout',
        headers: { ...sameOrigin, cookie: `openrail_account=${session}` },
      });
      assert.equal(out.statusCode, 303);
      assert.equal(out.headers.location, '/account/signin');
      assert.match(setCookies(out).openrail_account ?? '', /Max-Age=0/);
      const after = await rail.app.inject({ method: 'GET', url: '/account', headers: { cookie: `openrail_account=${session}` } });
      assert.equal(after.statusCode, 303);
      assert.equal(after.headers.location, '/account/signin');
    });

    test('export downloads the membership rows and the full coin ledger as an attachment', async () => {
      const key = await newHolderKey();
      const accountId = accountOf(key);
      await rail.app.inject({
        method: 'POST',
        url: '/api/members/enroll',
        headers: owner,
        payload: { tenant: 'demo-transit', accountId, displayName: 'Grace' },
      });
      for (const [delta, k] of [
        [50, 'k1'],
        [-20, 'k2'],
      ] as const) {
        const res = await rail.app.inject({
          method: 'POST',
          url: '/api/members/update',
          headers: owner,
          payload: { tenant: 'demo-transit', accountId, coins: { delta, reason: `entry ${k}`, idempotencyKey: `export-${k}` } },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      const handed = await rail.app.inject({
        method: 'POST',
        url: '/account/session',
        headers: { authorization: `Holder ${await holderJws({ aud: PUBLIC_URL, iat: Math.floor(now / 1000) }, { key })}` },
      });
      const cookie = `openrail_account=${cookieValue(setCookies(handed).openrail_account)}`;
      const overview = await rail.app.inject({ method: 'GET', url: '/account', headers: { cookie } });
      assert.match(overview.body, /Grace/);
      assert.match(overview.body, /entry k2/);
      const res = await rail.app.inject({ method: 'POST', url: '/account/export', headers: { ...sameOrigin, cookie } });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(
        String(res.headers['content-disposition']),
        /^attachment; filename="openrail-account-[A-Za-z0-9_-]{8}\.json"$/,
      );
      assert.equal(res.headers['cache-control'], 'no-store');
      const exported = res.json();
      assert.equal(exported.format, 'openrail-account-export/2');
      assert.equal(exported.accountId, accountId);
      const [membership] = exported.memberships;
      assert.equal(membership.tenant, 'demo-transit');
      assert.equal(membership.displayName, 'Grace');
      assert.equal(membership.balance, 30);
      assert.deepEqual(
        membership.coinLedger.map((e: { delta: number; balanceAfter: number }) => [e.delta, e.balanceAfter]),
        [
          [50, 50],
          [-20, 30],
        ],
      );
      const elsewhere = await rail.app.inject({
        method: 'POST',
        url: '/account/export',
        headers: { origin: 'https://evil.example', cookie },
      });
      assert.equal(elsewhere.statusCode, 403);
      const anonymous = await rail.app.inject({ method: 'POST', url: '/account/export', headers: sameOrigin });
      assert.equal(anonymous.statusCode, 303);
      assert.equal(anonymous.headers.location, '/account/signin');
    });
  });
}
