import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { JWK } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { OIDC_CLIENT, OIDC_KEY_CLIENT, startTestProvider, type TestProvider } from '../../../test/helpers/oidc.ts';
import { owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { hashToken } from '../../core/secrets.ts';
import { appBearer } from '../../http/auth/enterprise-session.ts';

const CALLBACK = `${PUBLIC_URL}/auth/callback`;
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;

const post = (rail: TestRail, url: string, payload: unknown, headers: Record<string, string> = owner) =>
  rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });

/** The value a Set-Cookie of the answer gives `name`, if it sets one. */
const setCookie = (res: LightMyRequestResponse, name: string) => {
  const all = res.headers['set-cookie'];
  for (const line of Array.isArray(all) ? all : all ? [all] : []) {
    const [pair] = line.split(';');
    if (pair?.startsWith(`${name}=`)) return pair.slice(name.length + 1);
  }
  return undefined;
};

for (const factory of testDatabases()) {
  describe(`operator sign-in through an OpenID provider (${factory.name})`, () => {
    let db: TestDatabase;
    let idp: TestProvider;
    // Two processes on one database: signing out on one ends access on the other.
    let first: TestRail;
    let second: TestRail;

    /** A browser's sign-in from GET /auth/login to the callback's answer, signed in at the provider as `subject`. */
    const signIn = async (subject: string, returnTo = '/admin', tamper?: (callback: URL) => void) => {
      const login = await first.app.inject({ method: 'GET', url: `/auth/login?return=${encodeURIComponent(returnTo)}` });
      assert.equal(login.statusCode, 303, login.body);
      const binder = setCookie(login, 'openrail_oidc');
      assert.ok(binder, 'the sign-in is bound to this browser');
      idp.signInAs(subject);
      const callback = await idp.follow(String(login.headers.location), CALLBACK);
      tamper?.(callback);
      const answer = await first.app.inject({
        method: 'GET',
        url: `${callback.pathname}${callback.search}`,
        headers: { cookie: `openrail_oidc=${binder}` },
      });
      return { answer, callback, binder, session: setCookie(answer, 'session') };
    };
    const whoami = (rail: TestRail, session: string | undefined) =>
      rail.app.inject({ method: 'GET', url: '/auth/whoami', headers: { cookie: `session=${session}` } });
    /** A page's form, posted by this browser: the session cookie, `origin` (ours unless said), the fields. */
    const postForm = (
      rail: TestRail,
      url: string,
      session: string | undefined,
      fields: Record<string, string>,
      origin = PUBLIC_URL,
    ) =>
      rail.app.inject({
        method: 'POST',
        url,
        headers: {
          cookie: `session=${session}`,
          'content-type': 'application/x-www-form-urlencoded',
          ...(origin ? { origin } : { 'sec-fetch-site': 'cross-site' }),
        },
        payload: new URLSearchParams(fields).toString(),
      });
    /** The anti-forgery token a page of this session carries in its forms, read as a browser would. */
    const formTokenOf = async (rail: TestRail, session: string | undefined, page = '/auth/logout') => {
      const res = await rail.app.inject({ method: 'GET', url: page, headers: { cookie: `session=${session}` } });
      const token = res.body.match(/name="_csrf" value="([^"]+)"/)?.[1];
      assert.ok(token, `${page} carries the form token`);
      return token;
    };
    const signOut = async (rail: TestRail, session: string | undefined) =>
      postForm(rail, '/auth/logout', session, { _csrf: await formTokenOf(rail, session) });
    const mint = async (rail: TestRail, session: string | undefined) =>
      postForm(rail, '/auth/api-token', session, { _csrf: await formTokenOf(rail, session) });
    /** GET /auth/api-token as this browser sends it: the session cookie and, if given, Sec-Fetch-Site. */
    const exchange = (rail: TestRail, session: string | undefined, secFetchSite?: string) =>
      rail.app.inject({
        method: 'GET',
        url: '/auth/api-token',
        headers: { cookie: `session=${session}`, ...(secFetchSite ? { 'sec-fetch-site': secFetchSite } : {}) },
      });
    /** The operator bearer a minted-token page shows. */
    const tokenIn = (res: LightMyRequestResponse) => {
      const token = res.body.match(/\bors_[A-Za-z0-9_-]{43}\b/)?.[0];
      assert.ok(token, 'the page shows the token');
      return token;
    };
    /** The bearers a browser session minted that are still live, beside the web apps' own one. */
    const liveTokens = async (session: string | undefined) =>
      (
        await first.db
          .selectFrom('operator_sessions')
          .select('token_hash')
          .where('browser_session', '=', hashToken(session ?? ''))
          .where('token_hash', '<>', hashToken(appBearer(session ?? '')))
          .where('expires_at', '>', Date.now())
          .execute()
      ).length;
    const alive = async (session: string | undefined) => (await whoami(second, session)).statusCode === 200;

    before(async () => {
      db = await factory.create();
      idp = await startTestProvider([CALLBACK], [`${PUBLIC_URL}/auth/login`]);
      const env = {
        OPENRAIL_DEMO: 'off',
        OPENRAIL_OIDC_ISSUER: idp.issuer,
        OPENRAIL_OIDC_CLIENT_ID: OIDC_CLIENT.id,
        OPENRAIL_OIDC_CLIENT_SECRET: OIDC_CLIENT.secret,
        OPENRAIL_OUTBOUND_ALLOW: idp.issuer,
      };
      first = await startRail(db, env, undefined, { runJobs: false });
      second = await startRail(db, env, undefined, { runJobs: false });
      for (const [username, roles] of [
        ['ada', ['auditor']],
        ['bob', ['ops']],
      ] as const) {
        assert.equal((await post(first, '/api/operators', { username, password: PASSWORD, roles })).statusCode, 201);
        const linked = await post(first, `/api/admin/people/operators/${username}/idp`, {
          issuer: idp.issuer,
          subject: `sub-${username}`,
        });
        assert.equal(linked.statusCode, 200, linked.body);
      }
    });
    after(async () => {
      await first.stop();
      await second.stop();
      await idp.close();
      await db.drop();
    });

    test('a linked identity signs in: the session cookie, whoami, an API token; sign-out ends both on every process', async () => {
      const { answer, session } = await signIn('sub-ada', '/admin?tab=audit');
      assert.equal(answer.statusCode, 303, answer.body);
      assert.equal(answer.headers.location, '/admin?tab=audit');
      assert.ok(session);
      const cookieLine = String(answer.headers['set-cookie'])
        .split(',')
        .find((l) => l.trim().startsWith('session='));
      assert.match(cookieLine ?? '', /HttpOnly/);
      assert.match(cookieLine ?? '', /Secure/);
      assert.match(cookieLine ?? '', /SameSite=Lax/);

      for (const rail of [first, second]) {
        const me = await whoami(rail, session);
        assert.equal(me.statusCode, 200, me.body);
        assert.deepEqual(
          { ...(me.json() as Record<string, unknown>), signedInAt: 0, expiresAt: 0 },
          {
            username: 'ada',
            roles: ['auditor'],
            tenant: null,
            via: 'oidc',
            signedInAt: 0,
            expiresAt: 0,
          },
        );
      }
      const minted = await mint(first, session);
      assert.equal(minted.statusCode, 200, minted.body);
      assert.equal(minted.headers['cache-control'], 'no-store');
      const bearer = { authorization: `Bearer ${tokenIn(minted)}` };
      const admin = await second.app.inject({ method: 'GET', url: '/api/admin/me', headers: bearer });
      assert.equal(admin.statusCode, 200, admin.body);

      const out = await signOut(second, session);
      assert.equal(out.statusCode, 200, out.body);
      assert.match(out.body, /You are signed out/);
      // A form's answer may not redirect to another origin (form-action 'self'): the provider's sign-out is a link.
      const provider = out.body.match(/href="([^"]*\/session\/end[^"]*)"/)?.[1] ?? '';
      assert.ok(provider.startsWith(`${idp.issuer}/session/end`), 'and a link on to the provider’s sign-out');
      assert.equal(setCookie(out, 'session'), '', 'the cookie is cleared');
      for (const rail of [first, second]) {
        assert.equal((await whoami(rail, session)).statusCode, 401, 'the session ended on every process');
        assert.equal((await rail.app.inject({ method: 'GET', url: '/api/admin/me', headers: bearer })).statusCode, 401);
      }
    });

    test('sign-out is a form: a GET from any site only asks, a POST without the form token or from elsewhere changes nothing, with it the session ends', async () => {
      const { session } = await signIn('sub-ada');
      // A link or an image on another site (SameSite=Lax sends the cookie on a top-level GET).
      for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { referer: 'https://evil.example/' }, {}]) {
        const asked = await first.app.inject({
          method: 'GET',
          url: '/auth/logout',
          headers: { cookie: `session=${session}`, ...headers },
        });
        assert.equal(await alive(session), true, 'a GET ends nothing');
        assert.equal(asked.statusCode, 200, asked.body);
        assert.match(asked.body, /<form method="post" action="\/auth\/logout">/);
        assert.match(asked.body, /<button[^>]*type="submit"[^>]*>Sign out<\/button>/);
        assert.equal(setCookie(asked, 'session'), undefined, 'the cookie is left as it is');
      }
      const bearer = { authorization: `Bearer ${tokenIn(await mint(first, session))}` };
      const token = await formTokenOf(first, session);
      const refusals = [
        await postForm(first, '/auth/logout', session, {}),
        await postForm(first, '/auth/logout', session, { _csrf: 'x'.repeat(43) }),
        await postForm(first, '/auth/logout', session, { _csrf: await formTokenOf(first, (await signIn('sub-bob')).session) }),
        await postForm(first, '/auth/logout', session, { _csrf: token }, 'https://evil.example'),
        await postForm(first, '/auth/logout', session, { _csrf: token }, ''),
      ];
      for (const refused of refusals) {
        assert.equal(refused.statusCode, 403, refused.body);
        assert.match(refused.body, /cross_origin_form/);
        assert.equal(setCookie(refused, 'session'), undefined);
        assert.equal(await alive(session), true, 'a refused sign-out ends nothing');
      }
      assert.equal((await second.app.inject({ method: 'GET', url: '/api/admin/me', headers: bearer })).statusCode, 200);

      const out = await postForm(second, '/auth/logout', session, { _csrf: token });
      assert.equal(out.statusCode, 200, out.body);
      assert.equal(setCookie(out, 'session'), '', 'the cookie is cleared');
      assert.equal(await alive(session), false);
      assert.equal((await first.app.inject({ method: 'GET', url: '/api/admin/me', headers: bearer })).statusCode, 401);
      // Signed out already: the same page, again changing nothing.
      const again = await postForm(first, '/auth/logout', session, { _csrf: token });
      assert.equal(again.statusCode, 200);
      assert.match(again.body, /You are signed out/);
    });

    test('GET /auth/api-token from another site (Sec-Fetch-Site cross-site or same-site) mints nothing: 403 cross_site_request', async () => {
      const { session } = await signIn('sub-ada');
      for (const site of ['cross-site', 'same-site']) {
        for (const rail of [first, second]) {
          const refused = await exchange(rail, session, site);
          assert.equal(refused.statusCode, 403, refused.body);
          assert.equal((refused.json() as { error: string }).error, 'cross_site_request');
          assert.doesNotMatch(refused.body, /ors_[A-Za-z0-9_-]{20}/);
        }
      }
      assert.equal(await liveTokens(session), 0, 'a GET from another site mints nothing');
      assert.equal(await alive(session), true, 'and the session goes on');
    });

    test('GET /auth/api-token exchanges the sign-in for an operator bearer: same-origin, none (typed) or no Sec-Fetch-Site (a script)', async () => {
      const { session } = await signIn('sub-ada');
      const bearers: string[] = [];
      for (const site of ['same-origin', 'none', undefined]) {
        const minted = await exchange(site === 'none' ? second : first, session, site);
        assert.equal(minted.statusCode, 200, minted.body);
        assert.match(String(minted.headers['content-type']), /application\/json/);
        assert.equal(minted.headers['cache-control'], 'no-store');
        const body = minted.json() as { token: string; tokenType: string; expiresIn: number };
        assert.deepEqual(Object.keys(body).sort(), ['expiresIn', 'token', 'tokenType']);
        assert.match(body.token, /^ors_[A-Za-z0-9_-]{43}$/);
        assert.equal(body.tokenType, 'Bearer');
        assert.ok(body.expiresIn > 3500 && body.expiresIn <= 3600, String(body.expiresIn));
        const me = await second.app.inject({
          method: 'GET',
          url: '/api/admin/me',
          headers: { authorization: `Bearer ${body.token}` },
        });
        assert.equal(me.statusCode, 200, me.body);
        bearers.push(body.token);
      }
      assert.equal(new Set(bearers).size, 3);
      assert.equal(await liveTokens(session), 3);
      // Not signed in: nothing to exchange.
      const none = await first.app.inject({ method: 'GET', url: '/auth/api-token', headers: { 'sec-fetch-site': 'none' } });
      assert.equal(none.statusCode, 401, none.body);
      assert.equal((none.json() as { error: string }).error, 'unauthorized');
      await signOut(first, session);
      assert.equal(await liveTokens(session), 0, 'signing out revokes them');
    });

    test('the cap of 5 live tokens per session holds across GET and POST mixed', async () => {
      const { session } = await signIn('sub-ada');
      const token = await formTokenOf(first, session);
      for (let i = 0; i < 5; i++) {
        const rail = i % 2 ? second : first;
        const minted =
          i % 2
            ? await exchange(rail, session, 'same-origin')
            : await postForm(rail, '/auth/api-token', session, { _csrf: token });
        assert.equal(minted.statusCode, 200, minted.body);
      }
      assert.equal(await liveTokens(session), 5);
      for (const site of ['same-origin', 'none', undefined]) {
        const capped = await exchange(first, session, site);
        assert.equal(capped.statusCode, 409, capped.body);
        assert.equal((capped.json() as { error: string }).error, 'api_token_limit');
        assert.doesNotMatch(capped.body, /ors_[A-Za-z0-9_-]{20}/);
      }
      const form = await postForm(second, '/auth/api-token', session, { _csrf: token });
      assert.equal(form.statusCode, 409, form.body);
      assert.match(form.body, /api_token_limit/);
      assert.equal(await liveTokens(session), 5, 'nothing is minted or revoked at the cap');
    });

    test('POST /auth/api-token mints only same-origin with the form token, and at most 5 live per session', async () => {
      const { session } = await signIn('sub-ada');
      const token = await formTokenOf(first, session);
      for (const refused of [
        await postForm(first, '/auth/api-token', session, { _csrf: token }, 'https://evil.example'),
        await postForm(first, '/auth/api-token', session, { _csrf: token }, 'null'),
        await postForm(first, '/auth/api-token', session, { _csrf: token }, ''),
        await postForm(first, '/auth/api-token', session, {}),
        await postForm(first, '/auth/api-token', session, { _csrf: 'forged' }),
      ]) {
        assert.equal(refused.statusCode, 403, refused.body);
        assert.doesNotMatch(refused.body, /ors_[A-Za-z0-9_-]{20}/);
      }
      assert.equal(await liveTokens(session), 0, 'a POST from elsewhere mints nothing');

      const bearers: string[] = [];
      for (let i = 0; i < 5; i++) {
        const minted = await postForm(i % 2 ? second : first, '/auth/api-token', session, { _csrf: token });
        assert.equal(minted.statusCode, 200, minted.body);
        assert.equal(minted.headers['cache-control'], 'no-store');
        // Its links lead back to the app: a link to GET /auth/api-token would mint another.
        assert.doesNotMatch(minted.body, /href="\/auth\/api-token"/);
        assert.match(minted.body, /<a href="\/admin">Back<\/a>/);
        bearers.push(tokenIn(minted));
      }
      assert.equal(new Set(bearers).size, 5);
      assert.equal(await liveTokens(session), 5);
      const capped = await postForm(first, '/auth/api-token', session, { _csrf: token });
      assert.equal(capped.statusCode, 409, capped.body);
      assert.match(capped.body, /api_token_limit/);
      assert.doesNotMatch(capped.body, /ors_[A-Za-z0-9_-]{20}/);
      assert.equal(await liveTokens(session), 5, 'the sixth is refused and nothing is minted or revoked');
      for (const bearer of bearers) {
        const me = await second.app.inject({
          method: 'GET',
          url: '/api/admin/me',
          headers: { authorization: `Bearer ${bearer}` },
        });
        assert.equal(me.statusCode, 200, 'the five still work');
      }
      // The cap is per session: another sign-in of the same operator mints its own.
      const other = (await signIn('sub-ada')).session;
      assert.equal((await mint(first, other)).statusCode, 200);
      await signOut(first, session);
      assert.equal(await liveTokens(session), 0, 'signing out revokes them');
    });

    test('the cap holds under concurrent requests, GET and POST, on two processes', async () => {
      const { session } = await signIn('sub-ada');
      const token = await formTokenOf(first, session);
      // Each process takes both: the GET exchange and the form.
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => {
          const rail = i % 2 ? second : first;
          return Math.floor(i / 2) % 2
            ? exchange(rail, session, 'same-origin')
            : postForm(rail, '/auth/api-token', session, { _csrf: token });
        }),
      );
      const codes = answers.map((a) => a.statusCode).sort();
      assert.deepEqual(codes, [200, 200, 200, 200, 200, 409, 409, 409, 409, 409, 409, 409], JSON.stringify(codes));
      assert.equal(await liveTokens(session), 5);
    });

    test('refusals are pages and sign no one in: another browser, a used state, a spent code, an unlinked identity, a suspended operator', async () => {
      const refusedWith = (res: LightMyRequestResponse, status: number, text: RegExp) => {
        assert.equal(res.statusCode, status, res.body);
        assert.match(String(res.headers['content-type']), /text\/html/);
        assert.match(res.body, text);
        assert.equal(setCookie(res, 'session'), undefined, 'no session');
      };
      // The answer reaches a browser that did not start the sign-in.
      const login = await first.app.inject({ method: 'GET', url: '/auth/login' });
      idp.signInAs('sub-ada');
      const stolen = await idp.follow(String(login.headers.location), CALLBACK);
      refusedWith(
        await first.app.inject({
          method: 'GET',
          url: `${stolen.pathname}${stolen.search}`,
          headers: { cookie: 'openrail_oidc=x' },
        }),
        400,
        /does not belong to a sign-in this browser started/,
      );
      // That refusal spent nothing: the browser that started the sign-in still finishes it.
      const own = await first.app.inject({
        method: 'GET',
        url: `${stolen.pathname}${stolen.search}`,
        headers: { cookie: `openrail_oidc=${setCookie(login, 'openrail_oidc')}` },
      });
      assert.equal(own.statusCode, 303, own.body);
      // The same answer again, even from the right browser: the state is spent.
      const { answer, callback, binder } = await signIn('sub-ada');
      assert.equal(answer.statusCode, 303);
      refusedWith(
        await first.app.inject({
          method: 'GET',
          url: `${callback.pathname}${callback.search}`,
          headers: { cookie: `openrail_oidc=${binder}` },
        }),
        400,
        /used already/,
      );
      // A fresh sign-in carrying a code the provider already redeemed.
      const used = callback.searchParams.get('code') as string;
      refusedWith((await signIn('sub-ada', '/', (url) => url.searchParams.set('code', used))).answer, 400, /already used/);
      // A state nobody made.
      refusedWith(
        (await signIn('sub-ada', '/', (url) => url.searchParams.set('state', 'forged'))).answer,
        400,
        /does not belong to a sign-in/,
      );
      refusedWith((await signIn('sub-stranger')).answer, 403, /no operator of this service is linked to that identity/);
      assert.equal((await post(first, '/api/operators/suspend', { username: 'bob' })).statusCode, 200);
      refusedWith((await signIn('sub-bob')).answer, 403, /bob is suspended/);
      assert.equal((await post(first, '/api/operators/enable', { username: 'bob' })).statusCode, 200);
    });

    test('the return path stays on this site', async () => {
      for (const evil of ['https://evil.example/x', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/ok\r\nx']) {
        const { answer } = await signIn('sub-ada', evil);
        assert.equal(answer.statusCode, 303);
        assert.equal(answer.headers.location, '/', `${JSON.stringify(evil)} is not followed`);
      }
    });

    test('a session of an operator suspended meanwhile ends at once', async () => {
      const { session } = await signIn('sub-bob');
      assert.equal((await whoami(second, session)).statusCode, 200);
      assert.equal((await post(first, '/api/operators/suspend', { username: 'bob' })).statusCode, 200);
      assert.equal((await whoami(second, session)).statusCode, 401);
      assert.equal((await post(first, '/api/operators/enable', { username: 'bob' })).statusCode, 200);
    });
  });

  describe(`operator sign-in with private_key_jwt at the token endpoint (${factory.name})`, () => {
    let db: TestDatabase;
    let idp: TestProvider;
    let rail: TestRail;
    before(async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      db = await factory.create();
      idp = await startTestProvider([CALLBACK], [], publicKey.export({ format: 'jwk' }) as JWK);
      rail = await startRail(
        db,
        {
          OPENRAIL_DEMO: 'off',
          OPENRAIL_OIDC_ISSUER: idp.issuer,
          OPENRAIL_OIDC_CLIENT_ID: OIDC_KEY_CLIENT.id,
          OPENRAIL_OIDC_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
          OPENRAIL_OIDC_PRIVATE_KEY_ID: OIDC_KEY_CLIENT.kid,
          OPENRAIL_OUTBOUND_ALLOW: idp.issuer,
        },
        undefined,
        { runJobs: false },
      );
      assert.equal(
        (await post(rail, '/api/operators', { username: 'dora', password: PASSWORD, roles: ['analyst'] })).statusCode,
        201,
      );
      const linked = await post(rail, '/api/admin/people/operators/dora/idp', { issuer: idp.issuer, subject: 'sub-dora' });
      assert.equal(linked.statusCode, 200, linked.body);
    });
    after(async () => {
      await rail.stop();
      await idp.close();
      await db.drop();
    });

    test('the code is exchanged with a signed client assertion, and the operator is signed in', async () => {
      const login = await rail.app.inject({ method: 'GET', url: '/auth/login' });
      assert.equal(login.statusCode, 303, login.body);
      idp.signInAs('sub-dora');
      const callback = await idp.follow(String(login.headers.location), CALLBACK);
      const answer = await rail.app.inject({
        method: 'GET',
        url: `${callback.pathname}${callback.search}`,
        headers: { cookie: `openrail_oidc=${setCookie(login, 'openrail_oidc')}` },
      });
      assert.equal(answer.statusCode, 303, answer.body);
      const me = await rail.app.inject({
        method: 'GET',
        url: '/auth/whoami',
        headers: { cookie: `session=${setCookie(answer, 'session')}` },
      });
      assert.equal(me.json().username, 'dora');
    });
  });

  describe(`operator sign-in with a password, no provider configured (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false });
      const made = await rail.app.inject({
        method: 'POST',
        url: '/api/operators',
        headers: owner,
        payload: { username: 'cleo', password: PASSWORD, roles: ['support'] },
      });
      assert.equal(made.statusCode, 201);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    const form = (body: Record<string, string>) =>
      rail.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_URL },
        payload: new URLSearchParams(body).toString(),
      });

    test('the login page explains that no provider is configured and offers the password form; it signs in as POST /api/login does', async () => {
      const page = await rail.app.inject({ method: 'GET', url: '/auth/login?return=/admin' });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /No identity provider is configured/);
      assert.match(page.body, /name="return" value="\/admin"/);
      const wrong = await form({ username: 'cleo', password: 'not it', return: '/admin' });
      assert.equal(wrong.statusCode, 401);
      assert.match(wrong.body, /username or password is wrong/);
      assert.equal(setCookie(wrong, 'session'), undefined);
      const foreign = await rail.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        payload: new URLSearchParams({ username: 'cleo', password: PASSWORD }).toString(),
      });
      assert.equal(foreign.statusCode, 403, 'a form from another site');
      const right = await form({ username: 'cleo', password: PASSWORD, return: '//evil.example' });
      assert.equal(right.statusCode, 303, right.body);
      assert.equal(right.headers.location, '/');
      const session = setCookie(right, 'session');
      const me = await rail.app.inject({ method: 'GET', url: '/auth/whoami', headers: { cookie: `session=${session}` } });
      assert.equal(me.json().username, 'cleo');
      assert.equal(me.json().via, 'password');
      const callback = await rail.app.inject({ method: 'GET', url: '/auth/callback?state=x&code=y' });
      assert.equal(callback.statusCode, 200);
      assert.match(callback.body, /No identity provider is configured/);
      assert.equal(setCookie(callback, 'session'), undefined);
    });
  });
}
