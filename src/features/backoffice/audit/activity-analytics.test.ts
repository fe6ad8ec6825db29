/**
 * The activity feed and analytics over HTTP (docs/backoffice/audit.md), on each engine, over real
 * issuance (offer, token, credential), a revocation, an operator enrolment and two hosted
 * verifications (one accepted, one refused): the feed against the outbox read directly, its
 * filters and pages, a tenant-admin held to its tenant (verifications of its types included); the
 * analytics counts against what the test made, in every bucket, and the window's bounds.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { accountOf, newHolderKey } from '../../../../test/helpers/holder.ts';
import { createOffer, issueOne, PASS_SUBJECT, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { present } from '../../../../test/helpers/presentation.ts';
import { owner, PUBLIC_URL, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { readOutbox } from '../../../adapters/sql/kernel/sql-event-outbox.ts';
import type { EventType } from '../../../core/events.ts';
import { IssuerUrls } from '../../../core/issuer-urls.ts';
import { encodeCursor } from '../../../http/admin/kit.ts';
import { KIND_OF } from './activity.ts';
import { SERIES_MAX } from './analytics.ts';

interface Item {
  at: string;
  type: string;
  kind: string;
  tenant: string;
  summary: string;
  refs: Record<string, string>;
}

const urls = new IssuerUrls(new URL(PUBLIC_URL));

for (const factory of testDatabases()) {
  describe(`activity and analytics (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let alphaAdmin: { authorization: string };
    let alphaType: string;
    let betaType: string;

    const get = (url: string, headers: Record<string, string> = owner) => rail.app.inject({ method: 'GET', url, headers });
    const ok = (res: LightMyRequestResponse) => {
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const refused = async (url: string, status: number, code: string, headers: Record<string, string> = owner) => {
      const res = await get(url, headers);
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      assert.equal(res.json().error, code);
    };
    /** Every item of a feed query, page by page. */
    const feed = async (query: string, headers: Record<string, string> = owner, limit = 3) => {
      const items: Item[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const body: { items: Item[]; nextCursor: string | null } = ok(
          await get(`/api/admin/activity?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`, headers),
        );
        assert.ok(body.items.length <= limit);
        items.push(...body.items);
        cursor = body.nextCursor;
        pages++;
      } while (cursor !== null && pages < 500);
      return items;
    };
    /** The outbox, newest first, with the tenant each event concerns (a presentation: its type's). */
    const outbox = async () =>
      (await readOutbox(rail.db, 0, 10_000)).reverse().map((e) => ({
        ...e,
        concerns: e.type.startsWith('presentation.')
          ? (urls.parseVct(String('vct' in e.data ? e.data.vct : undefined))?.tenant ?? e.tenant)
          : e.tenant,
      }));

    /** A hosted verification of `credential`: accepted, or refused for a wrong nonce. */
    const verify = async (credential: string, key: Awaited<ReturnType<typeof newHolderKey>>, vct: string, good: boolean) => {
      const opened = await rail.app.inject({
        method: 'POST',
        url: '/verify/request',
        payload: { vct, claims: ['holder_name'], nonce: randomBytes(18).toString('base64url'), aud: 'https://shop.example' },
      });
      assert.equal(opened.statusCode, 201, opened.body);
      const request = await get(`/oid4vp/request/${opened.json().transactionId}`, {});
      const claims = JSON.parse(Buffer.from(request.body.split('.')[1] ?? '', 'base64url').toString());
      const vpToken = await present(credential, key, ['holder_name'], {
        nonce: good ? claims.nonce : 'another-nonce-0123456789',
      });
      await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ vp_token: vpToken, state: claims.state }).toString(),
      });
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) {
        const made = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name } });
        assert.equal(made.statusCode, 201, made.body);
      }
      alphaAdmin = await signedInOperator(rail.app, 'alpha-admin', ['tenant-admin'], 'alpha');
      const alpha = await registerType(rail.app, 'alpha', 'Pass');
      alphaType = alpha.typeId;
      betaType = (await registerType(rail.app, 'beta', 'Card')).typeId;
      // alpha: two credentials collected, one offer left unredeemed, one revocation, one member,
      // two verifications of its type (one refused); beta: one credential.
      const first = await issueOne(rail.app, 'alpha', alphaType, PASS_SUBJECT);
      await issueOne(rail.app, 'alpha', alphaType, PASS_SUBJECT);
      const pending = await createOffer(rail.app, { tenant: 'alpha', typeId: alphaType, subject: PASS_SUBJECT });
      const revoked = await rail.app.inject({
        method: 'POST',
        url: '/api/revoke',
        headers: owner,
        payload: { tenant: 'alpha', offerId: pending.offerId },
      });
      assert.equal(revoked.statusCode, 404, 'an offer that issued nothing has nothing to revoke');
      const firstOffer = (await rail.db
        .selectFrom('issued_credentials')
        .select('offer_id')
        .where('tenant', '=', 'alpha')
        .orderBy('issued_at')
        .executeTakeFirstOrThrow()) as { offer_id: string };
      const revoke = await rail.app.inject({
        method: 'POST',
        url: '/api/revoke',
        headers: owner,
        payload: { tenant: 'alpha', offerId: firstOffer.offer_id },
      });
      assert.equal(revoke.statusCode, 200, revoke.body);
      const member = await rail.app.inject({
        method: 'POST',
        url: '/api/members/enroll',
        headers: owner,
        payload: { tenant: 'alpha', accountId: accountOf(await newHolderKey()) },
      });
      assert.equal(member.statusCode, 201, member.body);
      const second = await issueOne(rail.app, 'alpha', alphaType, PASS_SUBJECT);
      await verify(second.credential, second.key, alpha.vct, true);
      await verify(first.credential, first.key, alpha.vct, false);
      await issueOne(rail.app, 'beta', betaType, { ...PASS_SUBJECT, holder_name: 'Grace Hopper' });
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('the feed tells every event, newest first, in pages without gaps or repeats', async () => {
      const events = await outbox();
      const items = await feed('');
      assert.deepEqual(
        items.map((i) => i.refs.eventId),
        events.map((e) => e.id),
      );
      assert.deepEqual(await feed('', owner, 200), items, 'one page holds the same');
      for (const [i, item] of items.entries()) {
        const event = events[i] as (typeof events)[number];
        assert.equal(item.type, event.type);
        assert.equal(item.kind, KIND_OF[event.type as EventType]);
        assert.equal(item.tenant, event.concerns);
        assert.equal(item.at, event.createdAt);
        // Identifiers only: no claim value of either subject is ever told.
        for (const value of ['Ada Lovelace', 'Grace Hopper', '1815-12-10', 'Ghent']) assert.ok(!item.summary.includes(value));
      }
      const issued = items.filter((i) => i.type === 'credential.issued');
      assert.equal(issued.length, 4);
      for (const item of issued) {
        assert.equal(
          item.summary,
          `${item.tenant} issued credential ${item.refs.credentialId} of type ${item.refs.typeId} on offer ${item.refs.offerId}.`,
        );
      }
      const refusedOne = items.find((i) => i.type === 'presentation.failed') as Item;
      assert.equal(refusedOne.tenant, 'alpha');
      assert.match(
        refusedOne.summary,
        new RegExp(`^Verification \\S+ refused a credential of type ${alphaType} from alpha: \\S+ at \\S+\\.$`),
      );
      assert.equal(items.filter((i) => i.type === 'member.enrolled').length, 1);
      assert.equal(items.filter((i) => i.type === 'credential.revoked').length, 1);
    });

    test('the feed narrows by kind, tenant and time', async () => {
      const events = await outbox();
      const ids = (items: Item[]) => items.map((i) => i.refs.eventId);
      for (const kind of ['issuance', 'revocation', 'verification', 'enrolment', 'organisation']) {
        const expected = events.filter((e) => KIND_OF[e.type as EventType] === kind).map((e) => e.id);
        assert.ok(expected.length > 0, kind);
        assert.deepEqual(ids(await feed(`&kind=${kind}`)), expected, kind);
      }
      const beta = events.filter((e) => e.concerns === 'beta').map((e) => e.id);
      assert.deepEqual(ids(await feed('&tenant=beta')), beta);
      assert.deepEqual(
        ids(await feed('&tenant=alpha&kind=verification')),
        events.filter((e) => e.type.startsWith('presentation.')).map((e) => e.id),
      );
      assert.deepEqual(await feed('&tenant=root&kind=verification'), [], "root's feed holds only its own types' verifications");
      const middle = events[Math.floor(events.length / 2)] as (typeof events)[number];
      const at = Date.parse(middle.createdAt);
      assert.deepEqual(
        ids(await feed(`&since=${encodeURIComponent(middle.createdAt)}`)),
        events.filter((e) => Date.parse(e.createdAt) >= at).map((e) => e.id),
      );
      assert.deepEqual(await feed('&since=2999-01-01'), []);
    });

    test('a tenant-admin sees its own tenant, verifications of its types included, and is refused another', async () => {
      const events = await outbox();
      const alpha = events.filter((e) => e.concerns === 'alpha').map((e) => e.id);
      const items = await feed('', alphaAdmin);
      assert.deepEqual(
        items.map((i) => i.refs.eventId),
        alpha,
      );
      assert.ok(items.every((i) => i.tenant === 'alpha'));
      assert.equal(items.filter((i) => i.kind === 'verification').length, 2);
      await refused('/api/admin/activity?tenant=beta', 403, 'forbidden', alphaAdmin);
    });

    test('the feed refuses a bad cursor, an unknown kind and an empty window', async () => {
      for (const url of [
        '/api/admin/activity?cursor=%2A',
        `/api/admin/activity?cursor=${encodeCursor([4, 'd'])}`,
        `/api/admin/activity?cursor=${encodeCursor(['4'])}`,
        '/api/admin/activity?kind=gossip',
        '/api/admin/activity?since=2026-01-02&until=2026-01-01',
      ]) {
        await refused(url, 400, 'invalid_request');
      }
    });

    const sum = (points: Record<string, number | null>[], field: string) =>
      points.reduce((n, p) => n + ((p[field] as number | null) ?? 0), 0);

    test('analytics counts what was issued, offered, collected, enrolled and verified, per tenant and type', async () => {
      const all = ok(await get('/api/admin/analytics'));
      assert.equal(all.tenant, null);
      assert.equal(all.bucket, 'day');
      assert.equal(Date.parse(all.until) - Date.parse(all.since), 30 * 86_400_000);
      const ALPHA = {
        issued: 3,
        verified: 1,
        verificationsFailed: 1,
        enrolled: 1,
        offersCreated: 4,
        offersRedeemed: 3,
        offersCollected: 3,
        conversion: 0.75,
      };
      const BETA = {
        issued: 1,
        verified: 0,
        verificationsFailed: 0,
        enrolled: 0,
        offersCreated: 1,
        offersRedeemed: 1,
        offersCollected: 1,
        conversion: 1,
      };
      assert.deepEqual(all.totals, {
        issued: 4,
        verified: 1,
        verificationsFailed: 1,
        enrolled: 1,
        offersCreated: 5,
        offersRedeemed: 4,
        offersCollected: 4,
        conversion: 0.8,
      });
      const tenantSeries = Object.fromEntries(all.tenants.series.map((s: { tenant: string }) => [s.tenant, s]));
      assert.deepEqual(tenantSeries.alpha.totals, ALPHA);
      assert.deepEqual(tenantSeries.beta.totals, BETA);
      assert.equal(all.tenants.others, null);
      const typeSeries = all.types.series.map((s: { tenant: string; typeId: string; totals: unknown }) => [
        s.tenant,
        s.typeId,
        s.totals,
      ]);
      assert.deepEqual(typeSeries, [
        ['alpha', alphaType, { ...ALPHA, enrolled: null }],
        ['beta', betaType, { ...BETA, enrolled: null }],
      ]);
      for (const field of ['issued', 'verified', 'enrolled', 'offersCreated', 'offersCollected']) {
        assert.equal(sum(all.points, field), all.totals[field], field);
      }

      const one = ok(await get(`/api/admin/analytics?tenant=alpha&typeId=${alphaType}`));
      assert.deepEqual(one.totals, { ...ALPHA, enrolled: null });
      assert.equal(one.typeId, alphaType);
      assert.deepEqual(ok(await get('/api/admin/analytics?tenant=beta&typeId=no-such-type')).totals, {
        ...BETA,
        issued: 0,
        offersCreated: 0,
        offersRedeemed: 0,
        offersCollected: 0,
        conversion: null,
        enrolled: null,
      });
    });

    test('weeks and months roll up the same days', async () => {
      const day = ok(await get('/api/admin/analytics?tenant=alpha&bucket=day'));
      for (const bucket of ['week', 'month']) {
        const rolled = ok(await get(`/api/admin/analytics?tenant=alpha&bucket=${bucket}&until=${encodeURIComponent(day.until)}`));
        assert.deepEqual(rolled.totals, day.totals, bucket);
        assert.ok(rolled.points.length < day.points.length, bucket);
        for (const field of ['issued', 'verified', 'verificationsFailed', 'enrolled', 'offersCreated', 'offersCollected']) {
          assert.equal(sum(rolled.points, field), day.totals[field], `${bucket} ${field}`);
        }
        for (const point of rolled.points) {
          const start = new Date(`${point.start}T00:00:00Z`);
          if (bucket === 'week') assert.equal(start.getUTCDay(), 1, 'a week starts on Monday');
          else assert.equal(start.getUTCDate(), 1, 'a month starts on its first');
        }
      }
      // A window that ended before anything happened counts nothing.
      const before = ok(await get('/api/admin/analytics?since=2020-01-01&until=2020-03-01&bucket=month'));
      assert.equal(before.totals.issued, 0);
      assert.deepEqual(
        before.points.map((p: { start: string }) => p.start),
        ['2020-01-01', '2020-02-01'],
      );
    });

    test('a tenant-admin sees its own tenant; other roles and tenants are refused', async () => {
      const own = ok(await get('/api/admin/analytics', alphaAdmin));
      assert.equal(own.tenant, 'alpha');
      assert.deepEqual(
        own.tenants.series.map((s: { tenant: string }) => s.tenant),
        ['alpha'],
      );
      assert.equal(own.totals.issued, 3);
      assert.equal(ok(await get(`/api/admin/analytics?typeId=${alphaType}`, alphaAdmin)).totals.issued, 3);
      await refused('/api/admin/analytics?tenant=beta', 403, 'forbidden', alphaAdmin);
      const analyst = await signedInOperator(rail.app, 'an-analyst', ['analyst']);
      assert.equal(ok(await get('/api/admin/analytics?tenant=beta', analyst)).totals.issued, 1);
      const support = await signedInOperator(rail.app, 'a-supporter', ['support']);
      await refused('/api/admin/analytics', 403, 'forbidden', support);
    });

    test('analytics refuses a window over 366 days, an empty one, and a type without its tenant', async () => {
      assert.equal((await get('/api/admin/analytics?since=2024-01-01&until=2025-01-01')).statusCode, 200, '366 days');
      await refused('/api/admin/analytics?since=2024-01-01&until=2025-01-02', 400, 'invalid_request');
      await refused('/api/admin/analytics?since=2000-01-01', 400, 'invalid_request');
      await refused('/api/admin/analytics?since=2026-01-02&until=2026-01-01', 400, 'invalid_request');
      await refused(`/api/admin/analytics?typeId=${alphaType}`, 400, 'invalid_request');
      await refused('/api/admin/analytics?bucket=year', 400, 'invalid_request');
      await refused('/api/admin/analytics?limit=5', 400, 'invalid_request');
    });

    // Last: it adds tenants and members the tests above do not count.
    test('keeps the busiest series and folds the rest into others', async () => {
      const extra: string[] = [];
      for (let i = 0; i < SERIES_MAX + 1; i++) {
        const made = await rail.app.inject({
          method: 'POST',
          url: '/api/tenants',
          headers: owner,
          payload: { name: `Club ${i}` },
        });
        assert.equal(made.statusCode, 201, made.body);
        const slug = made.json().slug as string;
        extra.push(slug);
        const enrolled = await rail.app.inject({
          method: 'POST',
          url: '/api/members/enroll',
          headers: owner,
          payload: { tenant: slug, accountId: accountOf(await newHolderKey()) },
        });
        assert.equal(enrolled.statusCode, 201, enrolled.body);
      }
      const all = ok(await get('/api/admin/analytics'));
      const shown = all.tenants.series.map((s: { tenant: string }) => s.tenant);
      assert.equal(shown.length, SERIES_MAX);
      assert.deepEqual(shown.slice(0, 2), ['alpha', 'beta'], 'the busiest first');
      // 23 tenants counted something: alpha, beta and the extra ones, one enrolment each.
      const folded = extra.filter((slug) => !shown.includes(slug));
      assert.equal(folded.length, 3);
      assert.equal(all.tenants.others.series, 3);
      assert.equal(all.tenants.others.totals.enrolled, 3);
      assert.equal(sum(all.tenants.others.points, 'enrolled'), 3);
      assert.equal(all.totals.enrolled, 1 + SERIES_MAX + 1);
      assert.equal(all.types.others, null, 'the extra tenants have no types counted');
    });
  });
}
