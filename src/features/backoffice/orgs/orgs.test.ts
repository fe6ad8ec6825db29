import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { issueOne, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { bearer, owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { refusedUnchanged, rowCounts } from '../../../../test/helpers/refusals.ts';

const ORGS = '/api/admin/orgs';
const TABLES = ['tenants', 'operators', 'org_lifecycle', 'org_domains', 'audit_log', 'outbox', 'signing_keys'] as const;
const PASSWORD = 'a-long-enough-password';
const OFFBOARDING = '/api/admin/offboarding';

type Headers = Record<string, string>;

for (const factory of testDatabases()) {
  describe(`organisations in the back office (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ops: Headers;
    let analyst: Headers;
    let auditor: Headers;
    let issuer: Headers;
    /** tenant-admins of alpha-org and beta-org. */
    let alphaAdmin: Headers;
    let betaAdmin: Headers;

    const post = (url: string, payload: unknown, headers: Headers = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const get = (url: string, headers: Headers = owner) => rail.app.inject({ method: 'GET', url, headers });
    const counts = () => rowCounts(rail.db, TABLES);
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(counts, send, status, code);
    const auditAt = (seq: number) => rail.db.selectFrom('audit_log').selectAll().where('seq', '=', seq).executeTakeFirstOrThrow();

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' });
      for (const name of ['Alpha Org', 'Beta Org']) assert.equal((await post(ORGS, { name })).statusCode, 201);
      ops = await signedInOperator(rail.app, 'ops-olga', ['ops']);
      analyst = await signedInOperator(rail.app, 'ana', ['analyst']);
      auditor = await signedInOperator(rail.app, 'audrey', ['auditor']);
      issuer = await signedInOperator(rail.app, 'legacy-issuer', ['issuer']);
      alphaAdmin = await signedInOperator(rail.app, 'alpha-admin', ['tenant-admin'], 'alpha-org');
      betaAdmin = await signedInOperator(rail.app, 'beta-admin', ['tenant-admin'], 'beta-org');
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('POST /orgs creates a tenant as POST /api/tenants does, with its profile, and answers its audit entry', async () => {
      const res = await post(ORGS, { name: 'Ghent  Library', displayName: 'Stad Gent', primaryColor: '#0055A4' }, ops);
      assert.equal(res.statusCode, 201, res.body);
      const { ok, auditSeq, org } = res.json();
      assert.equal(ok, true);
      assert.equal(org.slug, 'ghent-library');
      assert.equal(org.name, 'Ghent Library');
      assert.equal(org.did, 'did:web:rail.example.test:t:ghent-library');
      assert.equal(org.status, 'active');
      assert.equal(org.profile.displayName, 'Stad Gent');
      assert.equal(org.profile.primaryColor, '#0055A4');
      assert.equal(org.profile.logoUri, null);
      assert.deepEqual(org.counts, { types: 0, credentials: 0, members: 0 });
      assert.deepEqual(org.domain, { state: 'none', domain: null });
      assert.deepEqual(org.admins, []);
      const entry = await auditAt(auditSeq);
      assert.equal(entry.action, 'tenant.created');
      assert.equal(entry.actor, 'operator:ops-olga');
      assert.deepEqual(JSON.parse(entry.detail).fields, ['displayName', 'primaryColor']);
      assert.equal((await rail.db.selectFrom('outbox').select('type').where('tenant', '=', 'ghent-library').execute()).length, 1);
      // The tenant is a real one: it has a key and publishes its DID document.
      assert.equal((await get('/t/ghent-library/did.json', {})).statusCode, 200);

      await refuses(() => post(ORGS, { name: 'Fake (Demo)' }, ops), 400, 'reserved_name');
      await refuses(() => post(ORGS, { name: 'Real', displayName: 'Fake (Demo)' }, ops), 400, 'reserved_name');
      await refuses(() => post(ORGS, { name: 'x', slug: 'chosen' }, ops), 400, 'invalid_request');
      await refuses(() => post(ORGS, { name: 'x'.repeat(101) }, ops), 400, 'invalid_request');
      await refuses(() => post(ORGS, { name: 'Mine' }, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(ORGS, { name: 'Mine' }, analyst), 403, 'forbidden');
      await refuses(() => post(ORGS, { name: 'Mine' }, issuer), 403, 'forbidden');
    });

    test('GET /orgs lists oldest first, filters by status and name, pages, and shows a tenant-admin its own only', async () => {
      const all = await get(`${ORGS}?limit=200`, analyst);
      assert.equal(all.statusCode, 200, all.body);
      const slugs = all.json().orgs.map((o: { slug: string }) => o.slug);
      assert.deepEqual(slugs.slice(0, 3), ['root', 'alpha-org', 'beta-org']);
      assert.equal(all.json().nextCursor, null);

      const first = (await get(`${ORGS}?limit=1`, analyst)).json();
      assert.deepEqual(
        first.orgs.map((o: { slug: string }) => o.slug),
        ['root'],
      );
      const second = (await get(`${ORGS}?limit=1&cursor=${first.nextCursor}`, analyst)).json();
      assert.deepEqual(
        second.orgs.map((o: { slug: string }) => o.slug),
        ['alpha-org'],
      );

      const byName = (await get(`${ORGS}?q=ALPHA`, analyst)).json().orgs.map((o: { slug: string }) => o.slug);
      assert.deepEqual(byName, ['alpha-org']);
      const bySlug = (await get(`${ORGS}?q=beta-o`, analyst)).json().orgs.map((o: { slug: string }) => o.slug);
      assert.deepEqual(bySlug, ['beta-org']);
      assert.deepEqual((await get(`${ORGS}?q=%25`, analyst)).json().orgs, [], 'a % is matched literally');
      assert.deepEqual((await get(`${ORGS}?status=suspended`, analyst)).json().orgs, []);
      assert.equal((await get(`${ORGS}?tenant=beta-org`, auditor)).json().orgs[0].slug, 'beta-org');

      const own = (await get(ORGS, alphaAdmin)).json();
      assert.deepEqual(
        own.orgs.map((o: { slug: string }) => o.slug),
        ['alpha-org'],
      );
      assert.equal((await get(`${ORGS}?tenant=alpha-org`, alphaAdmin)).statusCode, 200);
      assert.equal((await get(`${ORGS}?tenant=beta-org`, alphaAdmin)).statusCode, 403);
      assert.equal((await get(`${ORGS}?q=${'a'.repeat(65)}`, analyst)).statusCode, 400);
      assert.equal((await get(`${ORGS}?limit=201`, analyst)).json().error, 'invalid_request');
      assert.equal((await get(`${ORGS}?cursor=bm90LWEtY3Vyc29y`, analyst)).json().error, 'invalid_request');
      assert.equal((await get(ORGS, issuer)).statusCode, 403);
    });

    test('GET /orgs/{slug} answers counts, and a tenant-admin reads its own organisation only', async () => {
      const { typeId } = await registerType(rail.app, 'alpha-org', 'Card', ['holder_name']);
      await issueOne(rail.app, 'alpha-org', typeId, { holder_name: 'Ada' });
      const own = await get(`${ORGS}/alpha-org`, alphaAdmin);
      assert.equal(own.statusCode, 200, own.body);
      assert.deepEqual(own.json().counts, { types: 1, credentials: 1, members: 0 });
      assert.deepEqual(own.json().admins, [{ username: 'alpha-admin', status: 'active' }]);
      for (const path of ['', '/admins', '/domain', '/domain/document', '/lifecycle']) {
        const res = await get(`${ORGS}/beta-org${path}`, alphaAdmin);
        assert.equal(res.statusCode, 403, `${path}: ${res.body}`);
        assert.equal(res.json().error, 'forbidden');
      }
      for (const path of ['', '/admins', '/domain', '/lifecycle']) {
        assert.equal((await get(`${ORGS}/alpha-org${path}`, alphaAdmin)).statusCode, 200, path);
        assert.equal((await get(`${ORGS}/no-such-org${path}`, analyst)).json().error, 'unknown_tenant', path);
      }
      const lifecycle = (await get(`${ORGS}/alpha-org/lifecycle`, auditor)).json();
      assert.deepEqual(lifecycle, { slug: 'alpha-org', status: 'active', since: null, reason: null, changes: [] });
    });

    test('admins: an operator of the organisation given the role, never a new person made here; and removed', async () => {
      // A second admin is invited by those who may write operators; here it is the owner token's.
      const invited = await post('/api/operators', {
        username: 'alpha-second',
        password: PASSWORD,
        roles: ['tenant-admin'],
        tenant: 'alpha-org',
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const login = await post('/api/login', { username: 'alpha-second', password: PASSWORD }, {});
      assert.equal(login.statusCode, 200);
      const second = bearer(login.json().token);
      assert.equal((await get(`${ORGS}/alpha-org`, second)).statusCode, 200, 'the new admin manages its organisation');
      assert.equal((await get(`${ORGS}/beta-org`, second)).statusCode, 403, 'and no other');

      // Nobody makes an operator with a password here: not a tenant-admin, not ops, not an owner.
      for (const by of [alphaAdmin, ops]) {
        await refuses(
          () => post(`${ORGS}/alpha-org/admins`, { username: 'alpha-puppet', password: PASSWORD }, by),
          400,
          'invalid_request',
        );
      }
      const unknown = await refuses(
        () => post(`${ORGS}/alpha-org/admins`, { username: 'alpha-puppet' }, alphaAdmin),
        404,
        'unknown_operator',
      );
      assert.match(unknown.json().message, /invited: POST \/api\/admin\/people\/operators/);

      // An operator of the organisation with another role is given tenant-admin besides.
      const clerk = await post('/api/operators', {
        username: 'alpha-clerk',
        password: PASSWORD,
        roles: ['support'],
        tenant: 'alpha-org',
      });
      assert.equal(clerk.statusCode, 201, clerk.body);
      const promoted = await post(`${ORGS}/alpha-org/admins`, { username: 'alpha-clerk' }, ops);
      assert.equal(promoted.statusCode, 200, promoted.body);
      const promotedEntry = await auditAt(promoted.json().auditSeq);
      assert.equal(promotedEntry.action, 'operator.roles_changed');
      assert.deepEqual(JSON.parse(promotedEntry.detail), { roles: ['support', 'tenant-admin'] });
      const listed = (await get(`${ORGS}/alpha-org/admins`, analyst)).json();
      assert.deepEqual(
        listed.admins.map((a: { username: string }) => a.username),
        ['alpha-admin', 'alpha-clerk', 'alpha-second'],
      );

      await refuses(() => post(`${ORGS}/alpha-org/admins`, { username: 'beta-admin' }, ops), 409, 'operator_scope');
      await refuses(() => post(`${ORGS}/alpha-org/admins`, { username: 'ana' }, ops), 409, 'operator_scope');
      await refuses(() => post(`${ORGS}/alpha-org/admins`, { username: 'nobody-here' }, ops), 404, 'unknown_operator');
      await refuses(() => post(`${ORGS}/no-such-org/admins`, { username: 'alpha-clerk' }, ops), 404, 'unknown_tenant');
      await refuses(() => post(`${ORGS}/beta-org/admins`, { username: 'x-y' }, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(`${ORGS}/alpha-org/admins`, { username: 'x-y' }, analyst), 403, 'forbidden');

      const removed = await post(`${ORGS}/alpha-org/admins/remove`, { username: 'alpha-clerk' }, alphaAdmin);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal(removed.json().ok, true);
      const removedEntry = await auditAt(removed.json().auditSeq);
      assert.equal(removedEntry.action, 'operator.roles_changed');
      assert.deepEqual(JSON.parse(removedEntry.detail), { roles: ['support'] });
      await refuses(() => post(`${ORGS}/alpha-org/admins/remove`, { username: 'alpha-clerk' }, ops), 404, 'unknown_operator');
      await refuses(() => post(`${ORGS}/alpha-org/admins/remove`, { username: 'beta-admin' }, ops), 404, 'unknown_operator');
      await refuses(() => post(`${ORGS}/beta-org/admins/remove`, { username: 'beta-admin' }, alphaAdmin), 403, 'forbidden');
      // The removed role is gone on the next request (roles are re-read every time).
      const clerkLogin = await post('/api/login', { username: 'alpha-clerk', password: PASSWORD }, {});
      assert.equal((await get(`${ORGS}/alpha-org`, bearer(clerkLogin.json().token))).statusCode, 200, 'support still reads');
      assert.equal(
        (await post(`${ORGS}/alpha-org/domain/revoke`, {}, bearer(clerkLogin.json().token))).statusCode,
        403,
        'but no longer manages',
      );
      // The last admin may go: the platform's operators still manage the organisation.
      assert.equal((await post(`${ORGS}/alpha-org/admins/remove`, { username: 'alpha-second' }, second)).statusCode, 200);
    });

    test('a custom domain: pending with a token, its document, revoked; the refusals change nothing', async () => {
      for (const domain of ['1.2.3.4', 'localhost', 'rail.example.test', 'id.rail.example.test', '-bad.example', 'a..b']) {
        await refuses(() => post(`${ORGS}/alpha-org/domain`, { domain }, alphaAdmin), 400, 'invalid_domain');
      }
      await refuses(() => post(`${ORGS}/alpha-org/domain`, { domain: 'a/b.example' }, alphaAdmin), 400, 'invalid_request');
      await refuses(() => post(`${ORGS}/alpha-org/domain/document`, {}, alphaAdmin), 405, 'method_not_allowed');
      assert.equal((await get(`${ORGS}/alpha-org/domain/document`, alphaAdmin)).json().error, 'domain_state');
      await refuses(() => post(`${ORGS}/alpha-org/domain/verify`, {}, alphaAdmin), 409, 'domain_state');
      await refuses(() => post(`${ORGS}/alpha-org/domain/revoke`, {}, alphaAdmin), 409, 'domain_state');

      const asked = await post(`${ORGS}/alpha-org/domain`, { domain: 'ID.Alpha.Example' }, alphaAdmin);
      assert.equal(asked.statusCode, 200, asked.body);
      assert.equal(asked.json().domain.state, 'pending');
      assert.equal(asked.json().domain.domain, 'id.alpha.example');
      assert.equal(asked.json().domain.documentUrl, 'https://id.alpha.example/.well-known/openrail-domain.json');
      const entry = await auditAt(asked.json().auditSeq);
      assert.equal(entry.action, 'org.domain_requested');
      assert.deepEqual(JSON.parse(entry.detail), { domain: 'id.alpha.example' });

      const state = (await get(`${ORGS}/alpha-org/domain`, analyst)).json();
      assert.equal(state.state, 'pending');
      assert.equal(typeof state.requestedAt, 'string');
      assert.equal(state.verifiedAt, null);
      const document = (await get(`${ORGS}/alpha-org/domain/document`, alphaAdmin)).json();
      assert.equal(document.url, 'https://id.alpha.example/.well-known/openrail-domain.json');
      assert.equal(document.document.tenant, 'alpha-org');
      assert.equal(document.document.did, 'did:web:rail.example.test:t:alpha-org');
      assert.match(document.document.token, /^[A-Za-z0-9_-]{32}$/);
      assert.equal((await get(`${ORGS}/alpha-org`, analyst)).json().domain.state, 'pending');

      // Another organisation cannot take a live domain; a new request gets a new token.
      await refuses(() => post(`${ORGS}/beta-org/domain`, { domain: 'id.alpha.example' }, betaAdmin), 409, 'domain_taken');
      await refuses(() => post(`${ORGS}/alpha-org/domain/activate`, {}, ops), 409, 'domain_state');
      await refuses(() => post(`${ORGS}/alpha-org/domain/activate`, {}, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(`${ORGS}/beta-org/domain/revoke`, {}, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(`${ORGS}/beta-org/domain/verify`, {}, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(`${ORGS}/beta-org/domain`, { domain: 'x.example' }, alphaAdmin), 403, 'forbidden');
      const renewed = await post(`${ORGS}/alpha-org/domain`, { domain: 'id.alpha.example' }, alphaAdmin);
      assert.equal(renewed.statusCode, 200);
      const newToken = (await get(`${ORGS}/alpha-org/domain/document`, alphaAdmin)).json().document.token;
      assert.notEqual(newToken, document.document.token);

      // Verifying fetches the document: a name that does not resolve changes nothing.
      await post(`${ORGS}/alpha-org/domain`, { domain: 'nowhere.invalid' }, alphaAdmin);
      await refuses(() => post(`${ORGS}/alpha-org/domain/verify`, {}, alphaAdmin), 502, 'domain_unreachable');
      assert.equal((await get(`${ORGS}/alpha-org/domain`, alphaAdmin)).json().state, 'pending');

      const revoked = await post(`${ORGS}/alpha-org/domain/revoke`, {}, alphaAdmin);
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal(revoked.json().domain.state, 'revoked');
      assert.equal(typeof revoked.json().domain.revokedAt, 'string');
      assert.equal((await auditAt(revoked.json().auditSeq)).action, 'org.domain_revoked');
      await refuses(() => post(`${ORGS}/alpha-org/domain/revoke`, {}, alphaAdmin), 409, 'domain_state');
      // A revoked name is free again, for anyone.
      assert.equal((await post(`${ORGS}/beta-org/domain`, { domain: 'nowhere.invalid' }, betaAdmin)).statusCode, 200);
    });

    test('preview-branding answers the metadata display and the manifest with the settings, and writes nothing', async () => {
      const before = await counts();
      const res = await post(
        `${ORGS}/preview-branding`,
        {
          tenant: 'alpha-org',
          name: 'Alpha Org',
          displayName: 'Alpha Cards',
          logoUri: 'https://alpha.example/logo.png',
          textColor: '#111111',
        },
        alphaAdmin,
      );
      assert.equal(res.statusCode, 200, res.body);
      const preview = res.json();
      assert.equal(preview.slug, 'alpha-org');
      assert.deepEqual(preview.display, [
        { name: 'Alpha Cards', locale: 'en', logo: { uri: 'https://alpha.example/logo.png' }, text_color: '#111111' },
      ]);
      assert.deepEqual(preview.configurations.card, [
        { name: 'Card', locale: 'en', logo: { uri: 'https://alpha.example/logo.png' }, text_color: '#111111' },
      ]);
      assert.equal(preview.manifest.name, 'Alpha Cards');
      assert.equal(preview.manifest.did, 'did:web:rail.example.test:t:alpha-org');
      assert.deepEqual(
        preview.manifest.types.map((t: { typeId: string }) => t.typeId),
        ['card'],
      );
      assert.deepEqual(await counts(), before, 'nothing written');
      const metadata = await get('/.well-known/openid-credential-issuer/t/alpha-org', {});
      assert.equal(metadata.json().display[0].name, 'Alpha Org', 'the published metadata is unchanged');

      const prospective = (await post(`${ORGS}/preview-branding`, { name: 'Zürich Museum', description: 'Art' }, ops)).json();
      assert.equal(prospective.slug, 'zurich-museum');
      assert.deepEqual(prospective.display, [{ name: 'Zürich Museum', locale: 'en', description: 'Art' }]);
      assert.deepEqual(prospective.manifest, {
        name: 'Zürich Museum',
        did: 'did:web:rail.example.test:t:zurich-museum',
        types: [],
      });

      await refuses(() => post(`${ORGS}/preview-branding`, { tenant: 'beta-org', name: 'B' }, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(`${ORGS}/preview-branding`, { name: 'B' }, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(`${ORGS}/preview-branding`, { tenant: 'nope', name: 'B' }, ops), 404, 'unknown_tenant');
      await refuses(() => post(`${ORGS}/preview-branding`, { name: 'Fake (Demo)' }, ops), 400, 'reserved_name');
      await refuses(() => post(`${ORGS}/preview-branding`, { name: 'B', primaryColor: 'red' }, ops), 400, 'invalid_request');
      await refuses(() => post(`${ORGS}/preview-branding`, { name: 'B' }, analyst), 403, 'forbidden');
    });

    test('offboarding lists suspended tenants and suspended or removed operators, newest first, in pages', async () => {
      assert.equal((await get(OFFBOARDING, alphaAdmin)).statusCode, 403);
      assert.equal((await get(OFFBOARDING, analyst)).statusCode, 403);
      for (const name of ['leaver-one', 'leaver-two']) {
        assert.equal((await post('/api/operators', { username: name, password: PASSWORD, roles: ['support'] })).statusCode, 201);
      }
      assert.equal((await post('/api/operators/suspend', { username: 'leaver-one' })).statusCode, 200);
      assert.equal((await post('/api/operators/remove', { username: 'leaver-two' })).statusCode, 200);
      // Suspension takes two operators; the suspension test covers it, so the row is set here directly.
      await rail.db
        .updateTable('tenants')
        .set({ status: 'suspended', status_since: Date.now() + 60_000, status_reason: 'Unpaid' })
        .where('slug', '=', 'beta-org')
        .execute();

      const all = await get(`${OFFBOARDING}?limit=200`, auditor);
      assert.equal(all.statusCode, 200, all.body);
      const entries = all.json().entries as { kind: string; id: string; status: string; reason: string | null }[];
      assert.deepEqual(entries[0], { ...entries[0], kind: 'tenant', id: 'beta-org', status: 'suspended', reason: 'Unpaid' });
      assert.deepEqual(
        entries.slice(1).map((e) => [e.kind, e.id, e.status]),
        [
          ['operator', 'leaver-two', 'removed'],
          ['operator', 'leaver-one', 'suspended'],
        ],
      );
      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(`${OFFBOARDING}?limit=1${cursor ? `&cursor=${cursor}` : ''}`, ops);
        assert.equal(res.statusCode, 200, res.body);
        pages.push(...res.json().entries.map((e: { id: string }) => e.id));
        cursor = res.json().nextCursor;
      } while (cursor !== null);
      assert.deepEqual(pages, ['beta-org', 'leaver-two', 'leaver-one']);
      const operatorsOnly = (await get(`${OFFBOARDING}?kind=operator`, ops)).json().entries;
      assert.deepEqual(
        operatorsOnly.map((e: { id: string }) => e.id),
        ['leaver-two', 'leaver-one'],
      );
      const forBeta = (await get(`${OFFBOARDING}?tenant=beta-org`, ops)).json().entries;
      assert.deepEqual(
        forBeta.map((e: { id: string }) => e.id),
        ['beta-org'],
      );
      assert.equal((await get(`${OFFBOARDING}?kind=partner`, ops)).statusCode, 400);
      assert.equal((await get(`${OFFBOARDING}?cursor=WyJ4Il0`, ops)).json().error, 'invalid_request');
    });
  });
}
