/**
 * Partner onboarding over HTTP (docs/partners.md), on each engine, with a real SMTP server: the
 * intake and every field it must refuse, its CORS refusal and per-address limit; reading one's
 * own application; the pipeline and every move its table refuses; linking a tenant with a grant;
 * the mailed-code session; keys minted inside the grant and used on the participation plane.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { registerType } from '../../../test/helpers/issuance.ts';
import { bearer, owner, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../test/helpers/refusals.ts';
import { codeIn, type Mailbox, mailTo, startSmtp } from '../../../test/helpers/smtp.ts';
import { PARTNER_STAGES, type PartnerStage, TRANSITIONS } from '../../core/partner-pipeline.ts';

const TABLES = [
  'partner_applications',
  'partner_stage_history',
  'partner_team',
  'partner_sessions',
  'integration_tokens',
  'audit_log',
  'outbox',
] as const;
const PATH_TO_APPROVED: PartnerStage[] = ['screening', 'due-diligence', 'approved'];

const application = (over: Record<string, unknown> = {}) => ({
  kind: 'issuer',
  organisation: 'Harbour Water Company',
  contactName: 'Ines Duarte',
  contactEmail: `ines-${randomBytes(4).toString('hex')}@harbour-water.example`,
  country: 'PT',
  website: 'https://harbour-water.example',
  useCase: 'We issue proof-of-address credentials to our customers and deposit their water bills.',
  ...over,
});

for (const factory of testDatabases()) {
  describe(`partner onboarding over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let mail: Mailbox;
    let address = 0;
    /** Each test files from its own address, so the intake's per-address limit is a test of its own. */
    const from = () => `198.51.100.${++address}`;

    const post = (url: string, payload?: unknown, headers: Record<string, string> = owner, remoteAddress = '203.0.113.9') =>
      rail.app.inject({
        method: 'POST',
        url,
        headers,
        remoteAddress,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const get = (url: string, headers: Record<string, string> = owner) => rail.app.inject({ method: 'GET', url, headers });
    const snapshot = () => rowCounts(rail.db, TABLES);
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(snapshot, send, status, code);
    const apply = async (over: Record<string, unknown> = {}) => {
      const body = application(over);
      const filed = ok(await post('/api/partners/applications', body, {}, from()), 201);
      return { ...filed, body } as { applicationId: string; statusToken: string; body: ReturnType<typeof application> };
    };
    const move = (id: string, stage: string, note?: string) =>
      post(`/api/admin/partners/${id}/stage`, { stage, ...(note ? { note } : {}) });
    const approved = async (over: Record<string, unknown> = {}) => {
      const filed = await apply(over);
      for (const stage of PATH_TO_APPROVED) ok(await move(filed.applicationId, stage, `checked for ${stage}`));
      return filed;
    };
    /** A partner session for the application's contact, through the mailed code. */
    const signIn = async (email: string) => {
      const before = mail.messages.filter((m) => m.to.includes(email)).length;
      assert.equal((await post('/api/partners/session/start', { contactEmail: email }, {}, from())).statusCode, 202);
      const code = codeIn(await mailTo(mail, email, before));
      return ok(await post('/api/partners/session/verify', { contactEmail: email, code }, {}, from())) as {
        token: string;
        tenant: string | null;
      };
    };

    before(async () => {
      db = await factory.create();
      mail = await startSmtp();
      rail = await startRail(db, { OPENRAIL_SMTP_URL: mail.url, OPENRAIL_MAIL_FROM: 'Rail <rail@example.test>' }, undefined, {
        runJobs: false,
      });
    });
    after(async () => {
      await rail.stop();
      await mail.close();
      await db.drop();
    });

    test('the intake files an application at stage applied, answers its id and status token, and mails an acknowledgement', async () => {
      const filed = await apply();
      assert.match(filed.applicationId, /^pap_[A-Za-z0-9_-]{22}$/);
      assert.match(filed.statusToken, /^[A-Za-z0-9_-]{43}$/);
      const row = await rail.db
        .selectFrom('partner_applications')
        .selectAll()
        .where('id', '=', filed.applicationId)
        .executeTakeFirstOrThrow();
      assert.equal(row.stage, 'applied');
      assert.equal(row.tenant, null);
      assert.notEqual(row.status_token_hash, filed.statusToken, 'only the hash is kept');
      const ack = await mailTo(mail, filed.body.contactEmail);
      assert.match(ack, new RegExp(filed.applicationId));
      assert.doesNotMatch(ack, new RegExp(filed.statusToken), 'the status token is never mailed');
      const events = await rail.db
        .selectFrom('outbox')
        .select(['tenant', 'data'])
        .where('type', '=', 'partner.stage_changed')
        .execute();
      assert.ok(
        events.some(
          (e) =>
            e.tenant === 'root' &&
            JSON.parse(e.data).applicationId === filed.applicationId &&
            JSON.parse(e.data).to === 'applied',
        ),
      );
    });

    test('the intake refuses, naming it, every field it does not take, and every bad value; nothing is stored', async () => {
      for (const field of ['stage', 'tenant', 'scope', 'scopes', 'token', 'statusToken', 'grant', 'rateClass', 'applicationId']) {
        const res = await refuses(
          () => post('/api/partners/applications', { ...application(), [field]: 'live' }, {}, from()),
          400,
          'invalid_request',
        );
        assert.match(res.json().message, new RegExp(`"${field}"`), field);
      }
      const bad: Array<[string, unknown]> = [
        ['kind', 'bank'],
        ['contactEmail', 'not-an-address'],
        ['contactEmail', `${'a'.repeat(250)}@x.example`],
        ['organisation', ''],
        ['organisation', 'x'.repeat(201)],
        ['useCase', 'x'.repeat(4001)],
        ['country', 'Portugal'],
        ['website', 'http://plain.example'],
      ];
      for (const [field, value] of bad) {
        const res = await refuses(
          () => post('/api/partners/applications', { ...application(), [field]: value }, {}, from()),
          400,
          'invalid_request',
        );
        assert.match(res.json().message, new RegExp(field), `${field}=${String(value).slice(0, 20)}`);
      }
      const { useCase: _, ...missing } = application();
      await refuses(() => post('/api/partners/applications', missing, {}, from()), 400, 'invalid_request');
    });

    test('the intake is not CORS-open: no Access-Control-Allow-Origin, and a preflight is refused', async () => {
      const res = await rail.app.inject({
        method: 'POST',
        url: '/api/partners/applications',
        headers: { origin: 'https://elsewhere.example', 'content-type': 'application/json' },
        remoteAddress: from(),
        payload: application(),
      });
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      const preflight = await rail.app.inject({
        method: 'OPTIONS',
        url: '/api/partners/applications',
        headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
      });
      assert.ok(preflight.statusCode >= 400, `preflight answered ${preflight.statusCode}`);
      assert.equal(preflight.headers['access-control-allow-origin'], undefined);
      assert.equal(preflight.headers['access-control-allow-methods'], undefined);
    });

    test('an address files five applications an hour; the sixth is 429 with Retry-After, and stores nothing', async () => {
      const caller = '192.0.2.77';
      for (let i = 0; i < 5; i++) ok(await post('/api/partners/applications', application(), {}, caller), 201);
      const res = await refuses(() => post('/api/partners/applications', application(), {}, caller), 429, 'rate_limited');
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.match(String(res.headers['ratelimit-policy']), /"partner-intake";q=5;w=3600/);
      ok(await post('/api/partners/applications', application(), {}, '192.0.2.78'), 201);
    });

    test('the applicant reads its own application without internal notes; a wrong token and a wrong id are one refusal', async () => {
      const filed = await apply();
      ok(await move(filed.applicationId, 'screening', 'INTERNAL: sanctions list clean'));
      const status = ok(
        await post(
          '/api/partners/applications/status',
          { applicationId: filed.applicationId, statusToken: filed.statusToken },
          {},
          from(),
        ),
      );
      assert.equal(status.stage, 'screening');
      assert.deepEqual(
        status.history.map((h: { stage: string }) => h.stage),
        ['applied', 'screening'],
      );
      assert.doesNotMatch(JSON.stringify(status), /INTERNAL|operator|owner/);
      const wrongToken = await post(
        '/api/partners/applications/status',
        { applicationId: filed.applicationId, statusToken: 'A'.repeat(43) },
        {},
        from(),
      );
      const wrongId = await post(
        '/api/partners/applications/status',
        { applicationId: `pap_${'A'.repeat(22)}`, statusToken: filed.statusToken },
        {},
        from(),
      );
      assert.equal(wrongToken.statusCode, 404);
      assert.equal(wrongToken.body, wrongId.body);
      assert.equal(wrongToken.json().error, 'unknown_application');
    });

    test('every move the transition table does not allow is 409 illegal_transition and changes nothing', async () => {
      // One application parked at each stage, then every other stage tried from there.
      const at: Partial<Record<PartnerStage, string>> = {};
      const path: PartnerStage[] = ['applied', 'screening', 'due-diligence', 'approved', 'onboarding', 'live'];
      for (let i = 0; i < path.length; i++) {
        const filed = await apply();
        for (const stage of path.slice(1, i + 1)) ok(await move(filed.applicationId, stage));
        at[path[i] as PartnerStage] = filed.applicationId;
      }
      for (const end of ['rejected', 'withdrawn'] as const) {
        const filed = await apply();
        ok(await move(filed.applicationId, end));
        at[end] = filed.applicationId;
      }
      let refused = 0;
      for (const from of PARTNER_STAGES) {
        for (const to of PARTNER_STAGES) {
          if (TRANSITIONS[from].includes(to)) continue;
          const id = at[from] as string;
          const res = await refuses(() => move(id, to), 409, 'illegal_transition');
          assert.match(res.json().message, new RegExp(`stage ${from} cannot move to ${to}`));
          refused++;
        }
      }
      assert.equal(refused, 64 - Object.values(TRANSITIONS).reduce((n, t) => n + t.length, 0));
      const detail = ok(await get(`/api/admin/partners/${at.live}`));
      assert.deepEqual(detail.allowedStages, ['withdrawn']);
      assert.deepEqual(
        detail.history.map((h: { to: string }) => h.to),
        path,
      );
      assert.ok(detail.history.every((h: { actor: string }) => h.actor === 'owner-token' || h.actor === 'public'));
    });

    test('an approved partner is linked to a new tenant with a grant; linking before approval, or to another tenant, is refused', async () => {
      const early = await apply();
      await refuses(
        () =>
          post(`/api/admin/partners/${early.applicationId}/link-tenant`, {
            tenantName: 'Too Early Water',
            scopes: ['issuance'],
            rateClass: 'sandbox',
          }),
        409,
        'partner_not_approved',
      );
      const filed = await approved();
      const linked = ok(
        await post(`/api/admin/partners/${filed.applicationId}/link-tenant`, {
          tenantName: `Harbour Water ${randomBytes(3).toString('hex')}`,
          scopes: ['issuance', 'deposits'],
          rateClass: 'sandbox',
        }),
      );
      assert.equal(linked.ok, true);
      assert.ok(linked.partner.tenant);
      assert.deepEqual(linked.partner.grant, { scopes: ['deposits', 'issuance'], rateClass: 'sandbox' });
      await refuses(
        () =>
          post(`/api/admin/partners/${filed.applicationId}/link-tenant`, {
            tenant: 'demo-transit',
            scopes: ['issuance'],
            rateClass: 'sandbox',
          }),
        409,
        'partner_linked',
      );
      const portfolio = ok(await get('/api/admin/partners/portfolio'));
      assert.ok(
        portfolio.cells.some(
          (c: { kind: string; stage: string; count: number }) => c.kind === 'issuer' && c.stage === 'approved' && c.count >= 1,
        ),
      );
    });

    test('sessions: 202 either way; a code only to an approved partner’s team; wrong codes exhaust; the right one opens a session', async () => {
      const pending = await apply();
      const unknown = `nobody-${randomBytes(3).toString('hex')}@nowhere.example`;
      for (const email of [pending.body.contactEmail, unknown]) {
        const res = await post('/api/partners/session/start', { contactEmail: email }, {}, from());
        assert.equal(res.statusCode, 202);
        assert.deepEqual(res.json(), { sent: true });
      }
      const filed = await approved();
      const email = filed.body.contactEmail;
      assert.equal((await post('/api/partners/session/start', { contactEmail: email }, {}, from())).statusCode, 202);
      const code = codeIn(await mailTo(mail, email, 1));
      // Give the other two a chance to be mailed, then see they were not.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(mail.messages.filter((m) => m.to.includes(unknown)).length, 0);
      assert.equal(mail.messages.filter((m) => m.to.includes(pending.body.contactEmail)).length, 1, 'the acknowledgement only');

      const wrong = code === '000000' ? '000001' : '000000';
      for (let i = 0; i < 5; i++) {
        await refuses(
          () => post('/api/partners/session/verify', { contactEmail: email, code: wrong }, {}, from()),
          400,
          'invalid_code',
        );
      }
      await refuses(() => post('/api/partners/session/verify', { contactEmail: email, code }, {}, from()), 400, 'invalid_code');
      const session = await signIn(email);
      assert.match(session.token, /^psn_/);
      assert.equal(session.tenant, null, 'not linked yet');
      ok(await get('/api/partners/keys', bearer(session.token)));
      await refuses(
        () => post('/api/partners/keys', { label: 'ci', scopes: ['issuance'] }, bearer(session.token)),
        409,
        'no_grant',
      );
    });

    test('keys: minted inside the grant, for the grant’s tenant only, metered; revoked and rotated-away keys are 401 at once', async () => {
      const filed = await approved();
      const tenantName = `Bay Water ${randomBytes(3).toString('hex')}`;
      const linked = ok(
        await post(`/api/admin/partners/${filed.applicationId}/link-tenant`, {
          tenantName,
          scopes: ['issuance'],
          rateClass: 'sandbox',
        }),
      );
      const tenant = linked.partner.tenant as string;
      const { typeId } = await registerType(rail.app, tenant, 'Proof of address', ['holder_name']);
      const session = bearer((await signIn(filed.body.contactEmail)).token);

      await refuses(() => post('/api/partners/keys', { label: 'x', scopes: ['revocation'] }, session), 403, 'outside_grant');
      const named = await refuses(
        () => post('/api/partners/keys', { label: 'x', scopes: ['issuance'], tenant: 'demo-transit' }, session),
        400,
        'invalid_request',
      );
      assert.match(named.json().message, /"tenant"/);
      const minted = ok(await post('/api/partners/keys', { label: 'Billing system', scopes: ['issuance'] }, session), 201);
      assert.equal(minted.key.tenant, tenant);
      assert.equal(minted.key.rateClass, 'sandbox');
      const key = bearer(minted.key.secret);

      const offer = await post('/api/offers', { tenant, typeId, subject: { holder_name: 'Ada' } }, key);
      assert.equal(offer.statusCode, 201, offer.body);
      assert.match(String(offer.headers.ratelimit), /^"sandbox";r=59;t=\d+$/);
      await refuses(
        () => post('/api/offers', { tenant: 'demo-transit', typeId, subject: { holder_name: 'Ada' } }, key),
        403,
        'forbidden',
      );
      await refuses(() => post('/api/revoke', { tenant, credentialId: `crd_${'A'.repeat(22)}` }, key), 403, 'forbidden');
      await refuses(() => get('/api/partners/keys', key), 403, 'forbidden');

      const overview = ok(await get('/api/partners/keys', session));
      assert.equal(overview.keys.length, 1);
      assert.equal(overview.keys[0].secret, undefined, 'a secret is shown once');

      const rotated = ok(await post(`/api/partners/keys/${minted.key.id}/rotate`, undefined, session));
      assert.equal((await post('/api/offers', { tenant, typeId, subject: { holder_name: 'Ada' } }, key)).statusCode, 401);
      const fresh = bearer(rotated.key.secret);
      assert.equal((await post('/api/offers', { tenant, typeId, subject: { holder_name: 'Ada' } }, fresh)).statusCode, 201);
      ok(await post(`/api/partners/keys/${minted.key.id}/revoke`, undefined, session));
      assert.equal((await post('/api/offers', { tenant, typeId, subject: { holder_name: 'Ada' } }, fresh)).statusCode, 401);
      await refuses(() => post(`/api/partners/keys/${minted.key.id}/revoke`, undefined, session), 409, 'token_revoked');
    });

    test('a partner that withdraws loses its keys and its sessions in the same move', async () => {
      const filed = await approved();
      ok(
        await post(`/api/admin/partners/${filed.applicationId}/link-tenant`, {
          tenantName: `Leaving Co ${randomBytes(3).toString('hex')}`,
          scopes: ['issuance'],
          rateClass: 'sandbox',
        }),
      );
      const session = bearer((await signIn(filed.body.contactEmail)).token);
      const minted = ok(await post('/api/partners/keys', { label: 'k', scopes: ['issuance'] }, session), 201);
      ok(await move(filed.applicationId, 'withdrawn', 'the partner asked to leave'));
      assert.equal((await get('/api/partners/keys', session)).statusCode, 401);
      const row = await rail.db
        .selectFrom('integration_tokens')
        .select('state')
        .where('id', '=', minted.key.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.state, 'revoked');
    });

    test('the team keeps an admin: the last one cannot leave, and two admins removing each other at once leave one', async () => {
      const filed = await approved();
      const admin = (await signIn(filed.body.contactEmail)).token;
      const form = (token: string, path: string, body: Record<string, string>) =>
        rail.app.inject({
          method: 'POST',
          url: path,
          headers: {
            origin: 'https://rail.example.test',
            cookie: `openrail_portal=${token}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: new URLSearchParams(body).toString(),
        });
      const team = async () =>
        rail.db
          .selectFrom('partner_team')
          .select(['id', 'email', 'role'])
          .where('application_id', '=', filed.applicationId)
          .execute();
      const [first] = await team();
      const alone = await form(admin, '/portal/team/remove', { memberId: first?.id ?? '' });
      assert.equal(alone.statusCode, 409);
      assert.match(alone.body, /needs an admin/);
      const demoted = await form(admin, '/portal/team/role', { memberId: first?.id ?? '', role: 'viewer' });
      assert.equal(demoted.statusCode, 409);

      const second = `second-${randomBytes(3).toString('hex')}@harbour-water.example`;
      assert.equal((await form(admin, '/portal/team/add', { email: second, role: 'admin' })).statusCode, 303);
      const other = (await signIn(second)).token;
      const members = await team();
      const mine = members.find((m) => m.email === filed.body.contactEmail)?.id ?? '';
      const theirs = members.find((m) => m.email === second)?.id ?? '';
      const [a, b] = await Promise.all([
        form(admin, '/portal/team/remove', { memberId: theirs }),
        form(other, '/portal/team/remove', { memberId: mine }),
      ]);
      // One removal wins; the other is refused (the last admin), or finds its session ended with
      // its member (a redirect to sign in).
      const won = [a, b].filter((r) => r.statusCode === 303 && r.headers.location === '/portal/team');
      assert.equal(won.length, 1, `${a.statusCode} ${a.headers.location ?? ''} / ${b.statusCode} ${b.headers.location ?? ''}`);
      const left = await team();
      assert.equal(left.filter((m) => m.role === 'admin').length, 1, JSON.stringify(left));
    });

    test('roles: the pipeline is the platform’s; a tenant admin, the legacy issuer role and a partner session are refused', async () => {
      const filed = await apply();
      const login = async (roles: string[], tenant?: string) => {
        const username = `op-${randomBytes(4).toString('hex')}`;
        const password = `pw-${randomBytes(12).toString('hex')}`;
        ok(await post('/api/operators', { username, password, roles, ...(tenant ? { tenant } : {}) }), 201);
        return bearer(ok(await post('/api/login', { username, password }, {})).token);
      };
      const tenantAdmin = await login(['tenant-admin'], 'demo-transit');
      const issuer = await login(['issuer']);
      const analyst = await login(['analyst']);
      for (const who of [tenantAdmin, issuer]) {
        await refuses(() => get('/api/admin/partners', who), 403, 'forbidden');
        await refuses(
          () => post(`/api/admin/partners/${filed.applicationId}/stage`, { stage: 'screening' }, who),
          403,
          'forbidden',
        );
      }
      ok(await get('/api/admin/partners', analyst));
      await refuses(
        () => post(`/api/admin/partners/${filed.applicationId}/stage`, { stage: 'rejected' }, analyst),
        403,
        'forbidden',
      );
      const partnerSession = bearer((await signIn((await approved()).body.contactEmail)).token);
      await refuses(() => get('/api/admin/partners', partnerSession), 403, 'forbidden');
    });
  });
}
