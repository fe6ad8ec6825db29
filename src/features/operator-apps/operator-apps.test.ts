/**
 * /admin and /console over HTTP on each engine (docs/admin-app.md): a page needs a browser
 * session; the navigation shows what the operator's roles admit; a form runs exactly the operation
 * it names as the signed-in operator and shows the auditSeq, or refuses and changes nothing; a
 * tenant operator never reaches another tenant; signing out ends the pages and their bearer at once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { appBearer, formToken } from '../../http/auth/enterprise-session.ts';
import { CONSOLE_VIEWS } from './console-routes.ts';

const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_URL };

/** The text of a page's <main>, tags dropped, whitespace folded. */
const text = (page: string) =>
  (page.slice(page.indexOf('<main'), page.indexOf('</main>')) || page)
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
/** Every link of a page's app navigation. */
const navLinks = (page: string) => {
  const nav = page.slice(page.indexOf('<nav class="app-nav"'), page.indexOf('</nav>', page.indexOf('<nav class="app-nav"')));
  return [...nav.matchAll(/href="([^"]+)"/g)].map((m) => (m[1] ?? '').replace(/&amp;/g, '&'));
};

for (const factory of testDatabases()) {
  describe(`the operators' web apps over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let acme: string;
    let other: string;
    const cookies = new Map<string, string>();

    const api = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      rail.app.inject({ method, url, headers: owner, ...(payload === undefined ? {} : { payload: payload as object }) });
    const get = (who: string, url: string) =>
      rail.app.inject({ method: 'GET', url, headers: { cookie: `session=${cookies.get(who)}` } });
    /** Posts a page's form as the operator's browser would: its session, our origin, its token. */
    const submit = (who: string, url: string, fields: Record<string, string>, headers: Record<string, string> = FORM) => {
      const session = cookies.get(who) as string;
      return rail.app.inject({
        method: 'POST',
        url,
        headers: { ...headers, cookie: `session=${session}` },
        payload: new URLSearchParams({ _csrf: formToken(session), ...fields }).toString(),
      });
    };
    const signIn = async (username: string) => {
      const res = await rail.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: FORM,
        payload: new URLSearchParams({ username, password: PASSWORD, return: '/admin' }).toString(),
      });
      assert.equal(res.statusCode, 303, res.body);
      const set = String(res.headers['set-cookie']);
      cookies.set(username, /session=([^;]+)/.exec(set)?.[1] as string);
    };
    const orgCount = async () => ((await api('GET', '/api/admin/orgs?limit=200')).json().orgs as unknown[]).length;

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false });
      acme = (await api('POST', '/api/tenants', { name: 'Acme Rowing' })).json().slug;
      other = (await api('POST', '/api/tenants', { name: 'Other Rowing' })).json().slug;
      const people: Array<[string, string[], string | null]> = [
        ['ann', ['owner'], null],
        ['ben', ['owner'], null],
        ['aud', ['auditor'], null],
        ['tia', ['tenant-admin', 'issuer'], acme],
      ];
      for (const [username, roles, tenant] of people) {
        const made = await api('POST', '/api/operators', { username, password: PASSWORD, roles, tenant });
        assert.equal(made.statusCode, 201, made.body);
        await signIn(username);
      }
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('without a session a page sends the browser to sign in and back, and a form changes nothing', async () => {
      for (const url of ['/admin', '/admin/', '/admin/orgs?status=active', '/console', '/console/types']) {
        const res = await rail.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 303, url);
        assert.equal(res.headers.location, `/auth/login?return=${encodeURIComponent(url)}`);
      }
      const before = await orgCount();
      const res = await rail.app.inject({
        method: 'POST',
        url: '/admin/orgs',
        headers: FORM,
        payload: new URLSearchParams({ _op: '/orgs', f_name: 'Sneaky' }).toString(),
      });
      assert.equal(res.statusCode, 401);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.equal(await orgCount(), before);
    });

    test('the navigation shows each operator what its roles admit, and the pages carry a strict CSP', async () => {
      const ownerHome = await get('ann', '/admin');
      assert.equal(ownerHome.statusCode, 200, ownerHome.body);
      assert.match(String(ownerHome.headers['content-security-policy']), /default-src 'none'/);
      assert.equal(ownerHome.headers['cache-control'], 'no-store');
      const ownerNav = navLinks(ownerHome.body);
      for (const href of [
        '/admin/approvals',
        '/admin/orgs',
        '/admin/people/operators',
        '/admin/audit',
        '/admin/ops/health',
        '/admin/ops/demo-hygiene',
        '/admin/integration/webhooks',
        '/admin/partners',
      ]) {
        assert.ok(ownerNav.includes(href), `an owner sees ${href}`);
      }
      // Each subject once: a look-up or a form with no page of its own is on its list's page, posting to its own address.
      assert.equal(new Set(ownerNav).size, ownerNav.length, 'no page linked twice');
      for (const href of ['/admin/today', '/admin/search', '/admin/holder', '/admin/ops/backup', '/admin/ops/fixtures'])
        assert.ok(!ownerNav.includes(href), `${href} is shown on another page`);
      assert.match((await get('ann', '/admin/ops/demo-hygiene')).body, /<form method="post" action="\/admin\/ops\/fixtures">/);
      assert.match((await get('ann', '/admin/holders')).body, /<form method="get" action="\/admin\/holder">/);
      const auditorNav = navLinks((await get('aud', '/admin')).body);
      assert.ok(auditorNav.includes('/admin/ops/audit'), 'an auditor verifies the chain');
      for (const href of ['/admin/ops/fixtures', '/admin/ops/backup', '/admin/approvals/nothing'])
        assert.ok(!auditorNav.includes(href), `an auditor does not see ${href}`);
      // A form-only page of an operation the auditor may not use is the refusal, not an empty form.
      const backup = await get('aud', '/admin/ops/backup');
      assert.equal(backup.statusCode, 403);
      assert.match(backup.body, /<code>forbidden<\/code>/);
      // An auditor reads organisations but may not create one: the page has no form for it.
      const orgs = await get('aud', '/admin/orgs');
      assert.equal(orgs.statusCode, 200);
      assert.doesNotMatch(orgs.body, /name="_op" value="\/orgs"/);
      assert.match((await get('ann', '/admin/orgs')).body, /name="_op" value="\/orgs"/);
      const tenantNav = navLinks((await get('tia', '/admin')).body);
      for (const href of ['/admin/ops/health', '/admin/partners', '/admin/people/operators'])
        assert.ok(!tenantNav.includes(href), `a tenant operator does not see ${href}`);
    });

    test('a form runs its operation as the operator and shows the auditSeq; refusals change nothing', async () => {
      const before = await orgCount();
      const done = await submit('ann', '/admin/orgs', { _op: '/orgs', f_name: 'Harbour Club' });
      assert.equal(done.statusCode, 200, done.body);
      const seq = Number(/audit log as entry <a href="\/admin\/audit\/(\d+)">/.exec(done.body)?.[1]);
      assert.ok(seq > 0, 'the page shows the auditSeq, linked to its entry');
      assert.equal(await orgCount(), before + 1);
      const entry = (await api('GET', `/api/admin/audit/${seq}`)).json();
      assert.equal(entry.action, 'tenant.created');
      assert.match(JSON.stringify(entry.actor), /ann/, 'the operator, not a token, is the actor');

      const refusals: Array<[string, ReturnType<typeof submit>, number, RegExp]> = [
        [
          'no token',
          rail.app.inject({
            method: 'POST',
            url: '/admin/orgs',
            headers: { ...FORM, cookie: `session=${cookies.get('ann')}` },
            payload: '_op=%2Forgs&f_name=No+Token',
          }),
          403,
          /cross_origin_form/,
        ],
        [
          'another session’s token',
          submit('ann', '/admin/orgs', { _op: '/orgs', f_name: 'Stolen', _csrf: formToken(cookies.get('ben') as string) }),
          403,
          /cross_origin_form/,
        ],
        [
          'another origin',
          submit('ann', '/admin/orgs', { _op: '/orgs', f_name: 'Elsewhere' }, { ...FORM, origin: 'https://evil.example' }),
          403,
          /cross_origin_form/,
        ],
        [
          'an operation of another page',
          submit('ann', '/admin/orgs', { _op: '/ops/backup' }),
          400,
          /names no operation of this page/,
        ],
        ['an unknown operation', submit('ann', '/admin/orgs', { _op: '/orgs/../ops/backup' }), 400, /names no operation/],
        [
          'a field that is not JSON',
          submit('tia', '/console/offers', { _op: '/api/offers', f_typeId: 'card', f_subject: '{' }),
          400,
          /Subject is not valid JSON/,
        ],
        ['a refusal of the operation', submit('ann', '/admin/orgs', { _op: '/orgs', f_name: '' }), 400, /Nothing was changed/],
        [
          'a dot segment for a path parameter',
          submit('ann', '/admin/integration/tokens', { _op: '/integration/tokens/{tokenId}/revoke', p_tokenId: '..' }),
          400,
          /not a value a path can carry/,
        ],
      ];
      for (const [why, pending, status, body] of refusals) {
        const res = await pending;
        assert.equal(res.statusCode, status, `${why}: ${res.body.slice(0, 300)}`);
        assert.match(res.body, body, why);
      }
      assert.equal(await orgCount(), before + 1, 'no refused form made an organisation');
    });

    test('four eyes in the browser: one owner files a suspension, the same owner cannot approve it, another can', async () => {
      const filed = await submit('ann', `/admin/orgs/${other}`, { _op: '/orgs/{slug}/suspend', f_reason: 'Unpaid invoices' });
      assert.equal(filed.statusCode, 200, filed.body);
      assert.match(text(filed.body), /Filed for approval/);
      const approvalId = /href="\/admin\/approvals\/([^"]+)"/.exec(filed.body)?.[1];
      assert.ok(approvalId, 'the answer links to the approval');
      const page = await get('ben', `/admin/approvals/${approvalId}`);
      assert.equal(page.statusCode, 200);
      assert.match(text(page.body), /Four eyes/);
      assert.match(page.body, /value="\/approvals\/\{approvalId\}\/approve"/);

      const self = await submit('ann', `/admin/approvals/${approvalId}`, { _op: '/approvals/{approvalId}/approve' });
      assert.equal(self.statusCode, 403);
      assert.match(self.body, /same_operator/);
      assert.equal((await api('GET', `/api/admin/orgs/${other}/lifecycle`)).json().status, 'active');

      const approved = await submit('ben', `/admin/approvals/${approvalId}`, {
        _op: '/approvals/{approvalId}/approve',
        f_note: 'Checked with finance',
      });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.match(text(approved.body), /Recorded in the audit log as entry \d+/);
      assert.equal((await api('GET', `/api/admin/orgs/${other}/lifecycle`)).json().status, 'suspended');
      await api('POST', `/api/admin/orgs/${other}/reactivate`, { reason: 'Paid' });
    });

    test('a tenant operator works in its own organisation only', async () => {
      const mine = await get('tia', '/console');
      assert.equal(mine.statusCode, 200);
      assert.match(text(mine.body), new RegExp(`Organisation ${acme}`));
      // A tenant named in the address is not the operator's: the console stays on its own.
      const asked = await get('tia', `/console/types?tenant=${other}`);
      assert.doesNotMatch(asked.body, new RegExp(other));
      const theirs = await get('tia', `/admin/orgs/${other}`);
      assert.equal(theirs.statusCode, 403, theirs.body.slice(0, 200));
      assert.doesNotMatch(text(theirs.body), /Other Rowing/);

      // One claim rule per line, as the form's hint says.
      const claims = 'member_name\nsince:date';
      const made = await submit('tia', '/console/types', {
        _op: '/api/types',
        f_name: 'Member Card',
        f_claims: claims,
        tenant: other,
      });
      assert.equal(made.statusCode, 200, text(made.body).slice(0, 600));
      const typeId = /Type ID<\/dt><dd><span class="value">([^<]+)</.exec(made.body)?.[1];
      assert.ok(typeId, 'the answer shows the new type');
      const types = (await api('GET', `/api/admin/credential-types?tenant=${acme}`)).json();
      assert.ok(JSON.stringify(types).includes(typeId), 'the type is the operator’s own tenant’s');
      assert.ok(!JSON.stringify((await api('GET', `/api/admin/credential-types?tenant=${other}`)).json()).includes(typeId));

      const offered = await submit('tia', '/console/offers', {
        _op: '/api/offers',
        f_typeId: typeId,
        f_subject: JSON.stringify({ member_name: 'Grace', since: '2024-05-01' }),
      });
      assert.equal(offered.statusCode, 200, text(offered.body).slice(0, 600));
      assert.match(offered.body, /<div class="qr" role="img" aria-label="QR code of the credential offer"><svg/);
      assert.match(offered.body, /href="openid-credential-offer:\/\//);

      const platform = await get('ann', '/console');
      assert.match(text(platform.body), /Choose an organisation/);
      assert.match(platform.body, new RegExp(`href="/console\\?tenant=${acme}"`));
      assert.match(text((await get('ann', `/console/types?tenant=${acme}`)).body), /Member Card/);
    });

    test('every page of an owner’s navigation answers, with one heading', async () => {
      const seen = new Set<string>();
      for (const href of navLinks((await get('ann', '/admin')).body)) {
        if (seen.has(href)) continue;
        seen.add(href);
        const res = await get('ann', href);
        assert.ok(res.statusCode < 500, `${href}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        assert.equal(res.body.match(/<h1[\s>]/g)?.length, 1, `${href}: one h1`);
      }
      assert.ok(seen.size > 40, `the owner's navigation has ${seen.size} pages`);
      const missing = await get('ann', '/admin/no-such-page');
      assert.equal(missing.statusCode, 404);
    });

    test('an address no page has (a dot segment, a value no path carries) is a clear answer, never a 500', async () => {
      // Over a real socket: inject() would resolve the dot segments before the route saw them.
      await rail.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = rail.app.server.address() as AddressInfo;
      const raw = (path: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port, path, headers: { cookie: `session=${cookies.get('ann')}` } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end();
        });
      for (const path of ['/admin/orgs/%2e%2e', '/admin/orgs/..', '/admin/approvals/%2E', '/admin/audit/%2e%2e/x']) {
        assert.equal(await raw(path), 404, path);
      }
      for (const value of ['..', '.']) {
        const res = await get('tia', `/console/credentials?statusIndex=${value}`);
        assert.equal(res.statusCode, 400, res.body.slice(0, 200));
        assert.match(text(res.body), /Status index is not a value to look up/);
      }
    });

    test('the console offers every action it lists, and a platform operator pages through it with one tenant in the address', async () => {
      const pages = await Promise.all(CONSOLE_VIEWS.map((v) => get('ann', `/console/${v.slug}?tenant=${acme}`)));
      for (const [i, view] of CONSOLE_VIEWS.entries()) {
        for (const path of view.actions)
          assert.match(
            pages[i]?.body ?? '',
            new RegExp(`name="_op" value="${path.replace(/[{}]/g, '\\$&')}"`),
            `${view.slug}: ${path}`,
          );
      }
      await submit('tia', '/console/types', { _op: '/api/types', f_name: 'Second Card', f_claims: 'member_name' });
      const first = await get('ann', `/console/types?tenant=${acme}&limit=1`);
      const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
      assert.ok(next, 'a next page');
      assert.equal(new URL(next, PUBLIC_URL).searchParams.getAll('tenant').length, 1, next);
      const second = await get('ann', next);
      assert.equal(second.statusCode, 200);
    });

    test('a long address signed out returns to its page without the query; a password change ends the browser session', async () => {
      const long = `/admin/orgs?q=${'x'.repeat(600)}`;
      const res = await rail.app.inject({ method: 'GET', url: long });
      assert.equal(res.headers.location, `/auth/login?return=${encodeURIComponent('/admin/orgs')}`);
      const login = await rail.app.inject({ method: 'GET', url: String(res.headers.location) });
      assert.equal(login.statusCode, 200);

      await signIn('ben');
      const changed = await submit('ben', '/admin/people/operators/ben', {
        _op: '/people/operators/{username}/password',
        f_password: `${PASSWORD}-new`,
        f_currentPassword: PASSWORD,
      });
      assert.equal(changed.statusCode, 200, text(changed.body).slice(0, 400));
      assert.equal((await get('ben', '/admin')).statusCode, 303, 'signed out by the change');
      assert.equal(
        (
          await rail.app.inject({
            method: 'GET',
            url: '/api/admin/me',
            headers: { authorization: `Bearer ${appBearer(cookies.get('ben') as string)}` },
          })
        ).statusCode,
        401,
      );
    });

    test('signing out ends the pages and the bearer they act with, on the next request', async () => {
      await signIn('aud');
      const session = cookies.get('aud') as string;
      const bearer = { authorization: `Bearer ${appBearer(session)}` };
      assert.equal((await rail.app.inject({ method: 'GET', url: '/api/admin/me', headers: bearer })).statusCode, 200);
      // The app bar's sign-out is a form posting this session's anti-forgery token, not a link.
      for (const page of ['/admin', '/console']) {
        const shown = (await get('aud', page)).body;
        const bar = shown.slice(shown.indexOf('<div class="app-bar">'), shown.indexOf('<div class="app-layout">'));
        assert.doesNotMatch(bar, /href="\/auth\/logout"/, `${page}: no sign-out link a GET would follow`);
        assert.match(
          bar,
          new RegExp(
            `<form method="post" action="/auth/logout"[^>]*>\\s*<input type="hidden" name="_csrf" value="${formToken(session)}">`,
          ),
          page,
        );
      }
      assert.equal((await get('aud', '/auth/logout')).statusCode, 200);
      assert.equal((await get('aud', '/admin')).statusCode, 200, 'a GET only asks');
      assert.equal((await submit('aud', '/auth/logout', {})).statusCode, 200);
      assert.equal((await get('aud', '/admin')).statusCode, 303);
      assert.equal((await rail.app.inject({ method: 'GET', url: '/api/admin/me', headers: bearer })).statusCode, 401);
    });
  });
}
