/**
 * `openrail wallet approve` as a holder runs it against the account portal's browser sign-in
 * (docs/account.md): a real process per command and a rail on a real socket whose PUBLIC_URL is
 * its own http://127.0.0.1 origin, on each engine. The browser is played by fetch with a cookie.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { newWallet, runWallet } from '../../test/helpers/process.ts';
import { startRailOnSocket, type TestRail } from '../../test/helpers/rail.ts';

const CHROME_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

for (const factory of testDatabases()) {
  describe(`openrail wallet approve against a running rail (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let home: string;
    let account: string;

    const wallet = (...args: string[]) => runWallet(home, ...args);

    /** A browser opens the sign-in page: the approve URL it shows, and its ticket cookie. */
    async function openSignin(): Promise<{ approveUrl: string; cookie: string }> {
      const res = await fetch(`${origin}/account/signin`, { headers: { 'user-agent': CHROME_ON_LINUX } });
      assert.equal(res.status, 200);
      const cookie = res.headers
        .getSetCookie()
        .find((c) => c.startsWith('openrail_signin='))
        ?.split(';')[0];
      assert.ok(cookie, 'the ticket cookie is set');
      const approveUrl = /href="([^"]*\/account\/approve\?t=[^"]+)"/.exec(await res.text())?.[1];
      assert.ok(approveUrl, 'the page links the approve URL');
      const [ticket] = cookie.slice('openrail_signin='.length).split('.');
      assert.equal(approveUrl, `${origin}/account/approve?t=${ticket}`);
      return { approveUrl, cookie };
    }

    const continueWith = (cookie: string) =>
      fetch(`${origin}/account/signin/continue`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });

    before(async () => {
      db = await factory.create();
      ({ rail, origin } = await startRailOnSocket(db));
      ({ home, account } = await newWallet());
      assert.equal(account.length, 43);
    });

    after(async () => {
      await rail?.stop();
      await db?.drop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    test('approve names the browser that asked, and that browser then signs in to the wallet’s account', async () => {
      const { approveUrl, cookie } = await openSignin();
      const waiting = await continueWith(cookie);
      assert.equal(waiting.status, 200, 'not approved yet');
      const refused = await wallet('approve', approveUrl);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /plain http: add --allow-http/);

      const run = await wallet('approve', approveUrl, '--allow-http');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'approved the sign-in asked by Chrome on Linux\n');

      const signedIn = await continueWith(cookie);
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.headers.get('location'), '/account');
      const session = signedIn.headers
        .getSetCookie()
        .find((c) => c.startsWith('openrail_account='))
        ?.split(';')[0];
      assert.ok(session, 'a session cookie');
      const overview = await fetch(`${origin}/account`, { headers: { cookie: session }, redirect: 'manual' });
      assert.equal(overview.status, 200);
      assert.ok((await overview.text()).includes(`<code>${account}</code>`), 'the session is the wallet’s account');
    });

    test('a ticket approved once cannot be approved again: signin_unavailable, and nothing changes', async () => {
      const { approveUrl, cookie } = await openSignin();
      assert.equal((await wallet('approve', approveUrl, '--allow-http')).code, 0);
      const again = await wallet('approve', approveUrl, '--allow-http');
      assert.equal(again.code, 1);
      assert.equal(again.stdout, '');
      assert.match(again.stderr, /^openrail wallet: the service refused: signin_unavailable \(/);
      assert.equal((await continueWith(cookie)).status, 303, 'the first approval still stands');
    });

    test('an ended ticket (spent, or unknown) is refused as signin_ended before anything is signed', async () => {
      const { approveUrl, cookie } = await openSignin();
      assert.equal((await wallet('approve', approveUrl, '--allow-http')).code, 0);
      assert.equal((await continueWith(cookie)).status, 303);
      const spent = await wallet('approve', approveUrl, '--allow-http');
      assert.equal(spent.code, 1);
      assert.match(spent.stderr, /the service refused: signin_ended \(.*start a new sign-in in the browser/);
      const unknown = await wallet('approve', `${origin}/account/approve?t=${'A'.repeat(43)}`, '--allow-http');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /signin_ended/);
      const replays = await rail.db.selectFrom('holder_jti').select('jti').execute();
      const before = replays.length;
      await wallet('approve', approveUrl, '--allow-http');
      const after = await rail.db.selectFrom('holder_jti').select('jti').execute();
      assert.equal(after.length, before, 'no approval was signed and sent');
    });

    test('what is not an approve URL is a mistaken command line (exit 2); http elsewhere is refused (exit 1)', async () => {
      const ticket = 'B'.repeat(43);
      for (const mistaken of [`${origin}/account/signin?t=${ticket}`, `${origin}/account/approve?t=${ticket}&t=${ticket}`]) {
        const run = await wallet('approve', mistaken, '--allow-http');
        assert.equal(run.code, 2, `${mistaken}: ${run.stderr}`);
        assert.match(run.stderr, /usage: openrail wallet/);
      }
      const none = await wallet('approve');
      assert.equal(none.code, 2);
      assert.match(none.stderr, /wallet approve takes one operand/);
      const remote = await wallet('approve', `http://rail.example.org/account/approve?t=${ticket}`, '--allow-http');
      assert.equal(remote.code, 1, 'plain http to another machine is refused, never sent');
      assert.match(remote.stderr, /https services only/);
    });
  });
}
