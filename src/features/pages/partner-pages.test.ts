/**
 * The public partner pages over HTTP (docs/partner-pages.md), on each engine: every page under
 * its policy with its key content; the application form's action (filed once with the token shown
 * once, each bad field shown again with its error and nothing stored, a form from elsewhere
 * refused, one per-address budget with the JSON intake); the status form's action (the stage, its
 * meaning and the history; one answer for a wrong id and a wrong token).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { owner, PUBLIC_URL, railOn, stopRail, type TestRail } from '../../../test/helpers/rail.ts';
import { rowCounts } from '../../../test/helpers/refusals.ts';
import { INTEGRATION_SCOPES, RATE_CLASSES } from '../../core/integration-scopes.ts';
import { PARTNER_KINDS } from '../../core/partner-pipeline.ts';
import { escapeHtml } from '../../web/html.ts';
import { KIND_CONTENT } from './partner-content.ts';
import { NO_SUCH_APPLICATION } from './partner-status-page.ts';

const NO_SCRIPT_CSP =
  "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const TABLES = ['partner_applications', 'partner_stage_history', 'partner_team', 'audit_log', 'outbox'] as const;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const SAME_ORIGIN = { ...FORM, origin: PUBLIC_URL };

const application = (over: Record<string, string> = {}) => ({
  kind: 'data-partner',
  organisation: 'Harbour Water Company',
  contactName: 'Ines Duarte',
  contactEmail: `ines-${randomBytes(4).toString('hex')}@harbour-water.example`,
  country: 'pt',
  website: 'https://harbour-water.example',
  useCase: 'We deposit water bills into our customers’ wallets.',
  ...over,
});

/** A clock in the middle of the current hour, so the hourly budget's window never turns during the suite. */
function midHourClock() {
  const hour = 3_600_000;
  const offset = Math.floor(Date.now() / hour) * hour + hour / 2 - Date.now();
  return { now: () => Date.now() + offset };
}

/** The text content of the element with this id (no nested elements expected). */
const byId = (body: string, id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(body)?.[1];

for (const factory of testDatabases()) {
  describe(`the partner pages over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let address = 0;
    /** Each test posts from its own address, so the per-address budgets are tests of their own. */
    const from = () => `198.51.100.${++address}`;

    const get = (url: string) => rail.app.inject({ method: 'GET', url });
    const postForm = (
      url: string,
      fields: Record<string, string>,
      remoteAddress: string,
      headers: Record<string, string> = SAME_ORIGIN,
    ) => rail.app.inject({ method: 'POST', url, headers, remoteAddress, payload: new URLSearchParams(fields).toString() });
    const postJson = (url: string, body: unknown, remoteAddress: string) =>
      rail.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        remoteAddress,
        payload: body as object,
      });
    const snapshot = () => rowCounts(rail.db, TABLES);
    const isPage = (res: LightMyRequestResponse, status: number) => {
      assert.equal(res.statusCode, status, res.body.slice(0, 2000));
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['content-security-policy'], NO_SCRIPT_CSP);
      assert.doesNotMatch(res.body, /<script|\sstyle=|<style/i);
    };
    /** Files through the form; answers the id and token read from the page. */
    const fileByForm = async (fields: Record<string, string>, remoteAddress = from()) => {
      const res = await postForm('/partners/apply', fields, remoteAddress);
      isPage(res, 200);
      const applicationId = byId(res.body, 'application-id');
      const statusToken = byId(res.body, 'status-token');
      assert.ok(applicationId && statusToken, 'the page shows the id and the token');
      return { res, applicationId, statusToken };
    };

    before(async () => {
      ({ db, rail } = await railOn(factory, {}, midHourClock(), { runJobs: false }));
    });
    after(() => stopRail(rail, db));

    test('GET /partners: the programme, its four kinds, the eight stages, every scope and rate class, under a no-script policy', async () => {
      const res = await get('/partners');
      isPage(res, 200);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.match(res.body, /<h1>Partner programme<\/h1>/);
      assert.match(res.body, /<a href="\/partners" aria-current="page">Partners<\/a>/);
      for (const kind of PARTNER_KINDS) assert.ok(res.body.includes(`<a href="/partners/${kind}">`), kind);
      for (const stage of ['Applied', 'Screening', 'Due diligence', 'Approved', 'Onboarding', 'Live', 'Rejected', 'Withdrawn']) {
        assert.ok(res.body.includes(`<strong>${stage}</strong>`), stage);
      }
      for (const [scope, what] of Object.entries(INTEGRATION_SCOPES)) {
        assert.ok(res.body.includes(`<td><code>${scope}</code></td><td>${escapeHtml(what)}</td>`), scope);
      }
      for (const rateClass of Object.keys(RATE_CLASSES)) assert.ok(res.body.includes(`<code>${rateClass}</code>`), rateClass);
      assert.ok(res.body.includes('6,000 per minute'));
      assert.ok(res.body.includes('<a href="/portal/signin">/portal/signin</a>'));
      assert.ok(res.body.includes('An address may file\n5 per hour'));
      assert.ok(res.body.includes('href="/partners/apply"') && res.body.includes('href="/partners/status"'));
    });

    test('GET /partners/<kind>: what each kind gets and needs, its scopes, and a link to apply as it', async () => {
      const expected: Record<string, string[]> = {
        issuer: ['OpenID4VCI 1.0', 'did:web', 'Token status lists and revocation', 'Credential types', '<code>issuance</code>'],
        'relying-party': ['OpenID4VP 1.0', 'DCQL', 'The conformance set', 'Never metered', 'reference verifier'],
        'data-partner': ['contract 0.3.0', 'Channels and sharing consent', 'hash chain', '<code>deposits</code>'],
        wallet: ['Admission as a wallet provider', 'holder JWS', 'OpenWallet Foundation', 'needs no scope'],
      };
      for (const kind of PARTNER_KINDS) {
        const res = await get(`/partners/${kind}`);
        isPage(res, 200);
        const c = KIND_CONTENT[kind];
        assert.ok(res.body.includes(`<h1>${c.title}</h1>`), kind);
        assert.ok(res.body.includes('<h2 id="gets">What you get</h2>') && res.body.includes('<h2 id="needs">What you need</h2>'));
        assert.ok(res.body.includes(`<a class="button primary" href="/partners/apply?kind=${kind}">Apply as ${c.one}</a>`), kind);
        for (const words of expected[kind] ?? []) assert.ok(res.body.replace(/\s+/g, ' ').includes(words), `${kind}: ${words}`);
        for (const other of PARTNER_KINDS.filter((k) => k !== kind)) assert.ok(res.body.includes(`href="/partners/${other}"`));
      }
    });

    test('GET /partners/apply: every field of the intake, labelled, with its constraints; ?kind= preselects', async () => {
      const res = await get('/partners/apply');
      isPage(res, 200);
      assert.match(res.body, /<form class="partner-form" method="post" action="\/partners\/apply">/);
      for (const [field, label] of [
        ['kind', 'Kind of partner'],
        ['organisation', 'Organisation'],
        ['contactName', 'Contact name'],
        ['contactEmail', 'Contact e-mail'],
        ['country', 'Country'],
        ['website', 'Website'],
        ['useCase', 'What do you want to do with the service?'],
      ]) {
        assert.ok(res.body.includes(`<label for="${field}">${label}`), field);
        assert.match(res.body, new RegExp(`<(input|select|textarea) id="${field}" name="${field}"`), field);
      }
      assert.match(res.body, /<select id="kind" name="kind" required/);
      assert.match(res.body, /<input id="organisation" name="organisation" value="" required maxlength="200"/);
      assert.match(res.body, /<input id="contactEmail" name="contactEmail" value="" type="email" required maxlength="254"/);
      assert.match(res.body, /<input id="country" name="country" value="" maxlength="2" pattern="\[A-Za-z\]\{2\}"/);
      assert.match(res.body, /<input id="website" name="website" value="" type="url" maxlength="300" pattern="https:\/\/\.\+"/);
      assert.match(res.body, /<textarea id="useCase" name="useCase" required maxlength="4000"/);
      assert.doesNotMatch(res.body, /<input id="(country|website)"[^>]* required/, 'country and website are optional');
      assert.doesNotMatch(res.body, /role="alert"|aria-invalid/);
      assert.match(res.body, /<option value="" selected>Choose a kind…<\/option>/);

      const preselected = await get('/partners/apply?kind=wallet');
      isPage(preselected, 200);
      assert.match(preselected.body, /<option value="wallet" selected>/);
      assert.match((await get('/partners/apply?kind=bank')).body, /<option value="" selected>/);
    });

    test('GET /partners/status: a form that posts the id and the token', async () => {
      const res = await get('/partners/status');
      isPage(res, 200);
      assert.match(res.body, /<form class="partner-form" method="post" action="\/partners\/status">/);
      assert.match(res.body, /<label for="applicationId">Application id<\/label>/);
      assert.match(res.body, /<label for="statusToken">Status token<\/label>/);
    });

    test('POST /partners/apply files one application at stage applied and shows its id and status token once', async () => {
      const fields = application({ useCase: 'We deposit water bills.\r\n\r\nAnd receipts, later.' });
      const { res, applicationId, statusToken } = await fileByForm(fields);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(String(res.headers['ratelimit-policy']), /"partner-intake";q=5;w=3600/);
      assert.match(applicationId, /^pap_[A-Za-z0-9_-]{22}$/);
      assert.match(statusToken, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(res.body.split(statusToken).length - 1, 1, 'the token appears once in the page');
      assert.match(res.body, /shown on this page only, this once/);
      assert.ok(res.body.includes('<a class="button primary" href="/partners/status">Follow your application</a>'));

      const row = await rail.db
        .selectFrom('partner_applications')
        .selectAll()
        .where('id', '=', applicationId)
        .executeTakeFirstOrThrow();
      assert.equal(row.stage, 'applied');
      assert.equal(row.kind, 'data-partner');
      assert.equal(row.country, 'PT');
      assert.equal(row.created_by, 'public');
      assert.equal(row.use_case, 'We deposit water bills. And receipts, later.', 'lines joined into one paragraph');
      assert.notEqual(row.status_token_hash, statusToken);
      // The token the page showed is the one the JSON status read takes.
      const status = await postJson('/api/partners/applications/status', { applicationId, statusToken }, from());
      assert.equal(status.statusCode, 200, status.body);
      assert.equal(status.json().stage, 'applied');
    });

    test('POST /partners/apply with a bad field shows the form again, values kept, its error beside it and in an alert; nothing is stored', async () => {
      const cases: Array<[string, string, RegExp]> = [
        ['kind', '', /Choose the kind of partner/],
        ['kind', 'bank', /Choose one of the four kinds/],
        ['organisation', '   ', /Enter the name of your organisation/],
        ['organisation', 'x'.repeat(201), /at most 200 characters/],
        ['organisation', 'Harbour\u202EWater', /invisible formatting characters/],
        ['contactName', '', /Enter the name of the person/],
        ['contactEmail', 'not-an-address', /such as name@example\.org/],
        ['contactEmail', '', /Enter the contact’s e-mail address/],
        ['country', 'Portugal', /two-letter country code/],
        ['website', 'http://plain.example', /starts with https:\/\//],
        ['useCase', '', /Tell us what you want to do/],
        ['useCase', 'x'.repeat(4001), /at most 4000 characters/],
      ];
      for (const [field, value, message] of cases) {
        const fields = application({ [field]: value });
        const before = await snapshot();
        const res = await postForm('/partners/apply', fields, from());
        const what = `${field}=${JSON.stringify(value.slice(0, 20))}`;
        isPage(res, 400);
        assert.equal(res.headers['cache-control'], 'no-store', what);
        assert.match(byId(res.body, `${field}-error`) ?? '', message, what);
        assert.match(
          res.body,
          new RegExp(`id="${field}" name="${field}"[^>]*aria-describedby="[^"]*${field}-error" aria-invalid="true"`),
          what,
        );
        assert.equal((res.body.match(/aria-invalid="true"/g) ?? []).length, 1, `${what}: only this field is marked`);
        assert.match(res.body, /<div class="error-summary" role="alert"[^>]*>[\s\S]*<a href="#[a-zA-Z]+">/, what);
        assert.match(res.body, /<title>Error: apply to the partner programme · openrail<\/title>/);
        // Everything typed is shown again (escaped), so nothing has to be typed twice.
        if (field !== 'organisation') assert.ok(res.body.includes(`value="${escapeHtml(fields.organisation)}"`), what);
        if (field !== 'useCase') assert.ok(res.body.includes(`>${escapeHtml(fields.useCase)}</textarea>`), what);
        if (field !== 'kind') assert.match(res.body, new RegExp(`<option value="${fields.kind}" selected>`), what);
        assert.deepEqual(await snapshot(), before, `${what} stored nothing`);
      }
    });

    test('POST /partners/apply with an empty form names every required field at once', async () => {
      const before = await snapshot();
      const res = await postForm('/partners/apply', {}, from());
      isPage(res, 400);
      for (const field of ['kind', 'organisation', 'contactName', 'contactEmail', 'useCase']) {
        assert.ok(byId(res.body, `${field}-error`), field);
      }
      assert.equal(byId(res.body, 'country-error'), undefined);
      assert.equal(byId(res.body, 'website-error'), undefined);
      assert.match(res.body, /There are problems with 5 fields/);
      assert.deepEqual(await snapshot(), before);
    });

    test('POST /partners/apply refuses a form from another origin (403), and a field the intake does not take (400); nothing is stored', async () => {
      const before = await snapshot();
      for (const headers of [
        { ...FORM, origin: 'https://elsewhere.example' },
        { ...FORM, origin: 'null' },
        { ...FORM, 'sec-fetch-site': 'cross-site' },
        FORM,
      ]) {
        const res = await postForm('/partners/apply', application(), from(), headers);
        isPage(res, 403);
        assert.match(res.body, /cross_origin_form/);
      }
      const sameSite = await postForm('/partners/apply', application(), from(), { ...FORM, 'sec-fetch-site': 'same-site' });
      isPage(sameSite, 403);
      for (const field of ['stage', 'tenant', 'statusToken']) {
        const res = await postForm('/partners/apply', { ...application(), [field]: 'live' }, from());
        isPage(res, 400);
        assert.match(res.body, /invalid_request/);
      }
      assert.deepEqual(await snapshot(), before);
      // Without Origin, a browser's own Sec-Fetch-Site: same-origin is accepted.
      const res = await postForm('/partners/apply', application(), from(), { ...FORM, 'sec-fetch-site': 'same-origin' });
      isPage(res, 200);
    });

    test('the form and the JSON intake spend one budget per address: five together, then 429 on both; another address files', async () => {
      const caller = '192.0.2.177';
      assert.equal((await postJson('/api/partners/applications', application(), caller)).statusCode, 201);
      await fileByForm(application(), caller);
      assert.equal((await postJson('/api/partners/applications', application(), caller)).statusCode, 201);
      await fileByForm(application(), caller);
      await fileByForm(application(), caller);
      const before = await snapshot();
      const page = await postForm('/partners/apply', application(), caller);
      isPage(page, 429);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.ok(Number(page.headers['retry-after']) > 0);
      assert.match(String(page.headers['ratelimit-policy']), /"partner-intake";q=5;w=3600/);
      assert.match(page.body, /<h1>Too many requests<\/h1>/);
      assert.match(page.body, /filed the 5 applications it may file in an hour/);
      const api = await postJson('/api/partners/applications', application(), caller);
      assert.equal(api.statusCode, 429);
      assert.equal(api.json().error, 'rate_limited');
      assert.deepEqual(await snapshot(), before, 'over the limit, nothing is stored');
      // A form with errors is answered before the budget is looked at, as the JSON schema is.
      isPage(await postForm('/partners/apply', application({ kind: '' }), caller), 400);
      await fileByForm(application(), '192.0.2.178');
    });

    test('POST /partners/status shows the stage, what it means, what comes next and the history', async () => {
      const { applicationId, statusToken } = await fileByForm(application({ kind: 'issuer' }));
      const read = await postForm('/partners/status', { applicationId, statusToken }, from());
      isPage(read, 200);
      assert.equal(read.headers['cache-control'], 'no-store');
      assert.match(read.body, /<h2 id="stage-title">Stage: Applied<\/h2>/);
      assert.match(read.body, /Nothing has been checked yet/);
      assert.match(read.body, /The next stage is <strong>Screening<\/strong>/);
      assert.match(read.body, /<li class="step current" aria-current="step">Applied<\/li>/);
      assert.ok(read.body.includes('<dd>Harbour Water Company</dd>') && read.body.includes('<dd>Issuer</dd>'));
      assert.ok(!read.body.includes(statusToken), 'the token is not shown again');
      assert.equal((read.body.match(/<tr><td>[A-Z][a-z ]+<\/td><td><time /g) ?? []).length, 1);

      for (const stage of ['screening', 'due-diligence', 'approved']) {
        const moved = await rail.app.inject({
          method: 'POST',
          url: `/api/admin/partners/${applicationId}/stage`,
          headers: owner,
          payload: { stage, note: 'INTERNAL: checked' },
        });
        assert.equal(moved.statusCode, 200, moved.body);
      }
      const later = await postForm('/partners/status', { applicationId, statusToken }, from());
      isPage(later, 200);
      assert.match(later.body, /Stage: Approved/);
      assert.match(later.body, /<a href="\/portal\/signin">partner portal<\/a>/);
      assert.match(later.body, /The next stage is <strong>Onboarding<\/strong>/);
      const history = [...later.body.matchAll(/<tr><td>([A-Za-z ]+)<\/td><td><time datetime="([^"]+)">/g)].map((m) => m[1]);
      assert.deepEqual(history, ['Applied', 'Screening', 'Due diligence', 'Approved']);
      assert.match(later.body, /<li class="step done">Screening<span class="step-note"> \(done\)<\/span><\/li>/);
      assert.ok(!later.body.includes('INTERNAL'), 'no internal note');

      const rejected = await rail.app.inject({
        method: 'POST',
        url: `/api/admin/partners/${applicationId}/stage`,
        headers: owner,
        payload: { stage: 'rejected' },
      });
      assert.equal(rejected.statusCode, 200, rejected.body);
      const final = await postForm('/partners/status', { applicationId, statusToken }, from());
      assert.match(final.body, /Stage: Rejected/);
      assert.match(final.body, /<strong>Rejected<\/strong> is a final stage/);
      assert.match(final.body, /<li class="step current exit" aria-current="step">Rejected<\/li>/);
    });

    test('POST /partners/status: a wrong token, an unknown id and a malformed one are one 404 answer; empty fields are named', async () => {
      const { applicationId, statusToken } = await fileByForm(application());
      const unknownId = `pap_${randomBytes(16).toString('base64url')}`;
      const attempts: Array<[string, string]> = [
        [applicationId, randomBytes(32).toString('base64url')],
        [unknownId, statusToken],
        [applicationId, 'short'],
        ['not-an-id', statusToken],
      ];
      const bodies: string[] = [];
      for (const [id, token] of attempts) {
        const res = await postForm('/partners/status', { applicationId: id, statusToken: token }, from());
        isPage(res, 404);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.match(res.body, /<div class="error-summary" role="alert">/);
        assert.ok(res.body.includes(NO_SUCH_APPLICATION));
        assert.ok(!res.body.includes(token), 'the token typed is not shown again');
        bodies.push(res.body.replaceAll(`value="${id}"`, 'value="…"'));
      }
      assert.equal(new Set(bodies).size, 1, 'the same page whatever was wrong');

      const empty = await postForm('/partners/status', { applicationId: '', statusToken: '' }, from());
      isPage(empty, 400);
      assert.equal(byId(empty.body, 'applicationId-error'), 'Enter the application id.');
      assert.equal(byId(empty.body, 'statusToken-error'), 'Enter the status token.');

      const elsewhere = await postForm('/partners/status', { applicationId, statusToken }, from(), {
        ...FORM,
        origin: 'https://elsewhere.example',
      });
      isPage(elsewhere, 403);
      // The token never travels in a URL: a GET with one in its query reads nothing.
      const query = await get(`/partners/status?applicationId=${applicationId}&statusToken=${statusToken}`);
      assert.equal(query.statusCode, 200);
      assert.doesNotMatch(query.body, /Stage:/);
    });
  });
}
