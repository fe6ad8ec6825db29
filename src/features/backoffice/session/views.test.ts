/**
 * The back office's session and credentials groups over HTTP (docs/backoffice/views.md), on each
 * engine: every operation answers what the suite made (real credentials issued over OID4VCI, one
 * revoked, a member enrolled, an offer addressed to a wallet); no claim value ever leaves; a
 * tenant-admin sees and changes only its own tenant; pages walk without gaps; bad input is 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { accountOf } from '../../../../test/helpers/holder.ts';
import { createOffer, issueOne, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../../test/helpers/refusals.ts';

const CLAIMS = ['holder_name', 'birth_date:date', 'member_code', 'class:enum(first|second)'];
/** Claim values no answer may carry: distinctive, so a search of the JSON finds any leak. */
const subject = (n: number) => ({
  holder_name: `Zanzibar Quokka ${n}`,
  birth_date: `1911-04-0${n}`,
  member_code: `MC-SECRET-${n}-QX`,
  class: 'second',
});
const SECRETS = [1, 2, 3, 4].flatMap((n) => Object.values(subject(n)).filter((v) => v !== 'second'));

interface Issued {
  tenant: string;
  credentialId: string;
  offerId: string;
  accountId: string;
  idx: number;
  uri: string;
}

/** The status entry a credential names, read from its signed payload. */
function statusOf(credential: string): { idx: number; uri: string } {
  const jwt = credential.split('~')[0] as string;
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString('utf8'));
  return payload.status.status_list;
}

for (const factory of testDatabases()) {
  describe(`back-office session and credentials views (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ghent: string;
    let bruges: string;
    const issued: Issued[] = [];
    let revoked: Issued;
    let member: Issued;
    let walletOffer: { offerId: string; itemId: string };
    let adminGhent: Record<string, string>;
    let adminBruges: Record<string, string>;
    let support: Record<string, string>;
    let analyst: Record<string, string>;
    let applicationId: string;
    /** Every answer the suite reads, to search for claim values at the end. */
    const seen: string[] = [];

    const get = async (url: string, headers: Record<string, string> = owner) => {
      const res = await rail.app.inject({ method: 'GET', url, headers });
      seen.push(res.body);
      return res;
    };
    const refused = (res: LightMyRequestResponse, status: number, code: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.json().error, code, res.body);
    };
    /** Walks a list page by page with `limit`, answering every row in order. */
    const walk = async (url: string, key: string, limit: number, headers: Record<string, string> = owner) => {
      const rows: unknown[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const sep = url.includes('?') ? '&' : '?';
        const body = ok(await get(`${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, headers));
        assert.ok(body[key].length <= limit);
        rows.push(...body[key]);
        cursor = body.nextCursor;
        pages++;
        assert.ok(pages < 100, 'the walk ends');
      } while (cursor !== null);
      return rows;
    };

    const issue = async (tenant: string, n: number): Promise<Issued> => {
      const before = new Set((await rail.db.selectFrom('issued_credentials').select('id').execute()).map((r) => r.id));
      const { credential, key } = await issueOne(rail.app, tenant, 'pass', subject(n));
      const row = (await rail.db.selectFrom('issued_credentials').selectAll().where('tenant', '=', tenant).execute()).find(
        (r) => !before.has(r.id),
      );
      assert.ok(row);
      const status = statusOf(credential);
      assert.equal(status.idx, row.idx);
      return { tenant, credentialId: row.id, offerId: row.offer_id, accountId: accountOf(key), ...status };
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      const made = async (name: string) =>
        ok(await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name } }), 201).slug as string;
      ghent = await made('Ghent Libraries');
      bruges = await made('Bruges Museums');
      await registerType(rail.app, ghent, 'Pass', CLAIMS);
      await registerType(rail.app, bruges, 'Pass', CLAIMS);
      issued.push(await issue(ghent, 1), await issue(ghent, 2), await issue(bruges, 3));
      revoked = issued[1] as Issued;
      member = issued[0] as Issued;
      ok(
        await rail.app.inject({
          method: 'POST',
          url: '/api/revoke',
          headers: owner,
          payload: { tenant: ghent, status: { uri: revoked.uri, idx: revoked.idx } },
        }),
      );
      ok(
        await rail.app.inject({
          method: 'POST',
          url: '/api/members/enroll',
          headers: owner,
          payload: { tenant: ghent, accountId: member.accountId },
        }),
        201,
      );
      const offered = await createOffer(rail.app, {
        tenant: ghent,
        typeId: 'pass',
        subject: subject(4),
        accountId: member.accountId,
      });
      walletOffer = { offerId: offered.offerId, itemId: (offered as unknown as { itemId: string }).itemId };
      applicationId = ok(
        await rail.app.inject({
          method: 'POST',
          url: '/api/admin/partners',
          headers: owner,
          payload: {
            kind: 'issuer',
            organisation: 'Quayside Ferries',
            contactName: 'Ines Duarte',
            contactEmail: 'ines@quayside.example',
            useCase: 'We issue boarding passes to our passengers.',
          },
        }),
        201,
      ).applicationId;
      adminGhent = await signedInOperator(rail.app, 'ghent-admin', ['tenant-admin'], ghent);
      adminBruges = await signedInOperator(rail.app, 'bruges-admin', ['tenant-admin'], bruges);
      support = await signedInOperator(rail.app, 'desk-support', ['support']);
      analyst = await signedInOperator(rail.app, 'desk-analyst', ['analyst']);
    });
    after(async () => {
      // The suite's last word: no answer carried a claim value the suite used.
      for (const body of seen) for (const secret of SECRETS) assert.ok(!body.includes(secret), `${secret} leaked`);
      assert.ok(seen.length > 40);
      await rail.stop();
      await db.drop();
    });

    describe('GET /api/admin/me', () => {
      test('the owner token: no username, via owner-token, every approval it could decide', async () => {
        const me = ok(await get('/api/admin/me'));
        assert.deepEqual(me, { username: null, via: 'owner-token', roles: ['owner'], tenant: null, pendingApprovals: [] });
      });
      test('a tenant-admin: its username, session, role and tenant', async () => {
        const me = ok(await get('/api/admin/me', adminGhent));
        assert.equal(me.username, 'ghent-admin');
        assert.equal(me.via, 'session');
        assert.deepEqual(me.roles, ['tenant-admin']);
        assert.equal(me.tenant, ghent);
        assert.ok(Array.isArray(me.pendingApprovals));
      });
      test('401 without a bearer', async () => {
        refused(await get('/api/admin/me', {}), 401, 'unauthorized');
      });
    });

    describe('GET /api/admin/search', () => {
      test('finds tenants, types, credentials by status index, holders, partners and operators', async () => {
        const byName = ok(await get('/api/admin/search?q=museum'));
        assert.deepEqual(byName.tenants, [{ slug: bruges, name: 'Bruges Museums' }]);
        const types = ok(await get('/api/admin/search?q=pass'));
        const typeTenants = types.types.map((t: { tenant: string }) => t.tenant);
        assert.ok(typeTenants.includes(ghent) && typeTenants.includes(bruges), typeTenants.join());
        const first = issued[0] as Issued;
        const byIndex = ok(await get(`/api/admin/search?q=${first.idx}`));
        assert.ok(byIndex.credentials.some((c: { credentialId: string }) => c.credentialId === first.credentialId));
        const qualified = ok(await get(`/api/admin/search?q=1:${first.idx}&tenant=${ghent}`));
        assert.deepEqual(
          qualified.credentials.map((c: { credentialId: string }) => c.credentialId),
          [first.credentialId],
        );
        assert.equal(qualified.credentials[0].status.uri, first.uri);
        const holders = ok(await get(`/api/admin/search?q=${member.accountId.slice(0, 10)}`));
        assert.ok(
          holders.holders.some(
            (h: { accountId: string; tenant: string }) => h.accountId === member.accountId && h.tenant === ghent,
          ),
        );
        const partners = ok(await get('/api/admin/search?q=quayside'));
        assert.deepEqual(
          partners.partners.map((p: { applicationId: string }) => p.applicationId),
          [applicationId],
        );
        const operators = ok(await get('/api/admin/search?q=desk-'));
        assert.deepEqual(
          operators.operators.map((o: { username: string }) => o.username),
          ['desk-analyst', 'desk-support'],
        );
        assert.deepEqual(operators.omitted, []);
      });
      test('a tenant-admin sees its own tenant only, and no partners or operators', async () => {
        const res = ok(await get('/api/admin/search?q=pass', adminGhent));
        assert.equal(res.tenant, ghent);
        assert.deepEqual(
          res.types.map((t: { tenant: string }) => t.tenant),
          [ghent],
        );
        assert.deepEqual(res.omitted.sort(), ['operators', 'partners']);
        const other = issued[2] as Issued;
        const byIndex = ok(await get(`/api/admin/search?q=1:${other.idx}`, adminGhent));
        assert.ok(byIndex.credentials.every((c: { tenant: string }) => c.tenant === ghent));
        assert.ok(!byIndex.credentials.some((c: { credentialId: string }) => c.credentialId === other.credentialId));
        const museums = ok(await get('/api/admin/search?q=museum', adminGhent));
        assert.deepEqual(museums.tenants, []);
        refused(await get(`/api/admin/search?q=pass&tenant=${bruges}`, adminGhent), 403, 'forbidden');
      });
      test('an analyst gets partners but not operators (the role matrix rows)', async () => {
        const res = ok(await get('/api/admin/search?q=desk', analyst));
        assert.deepEqual(res.omitted, ['operators']);
      });
      test('400 for a q shorter than 2 or longer than 100, or missing', async () => {
        for (const url of [
          '/api/admin/search?q=a',
          `/api/admin/search?q=${'a'.repeat(101)}`,
          '/api/admin/search',
          '/api/admin/search?q=ab&x=1',
        ]) {
          refused(await get(url), 400, 'invalid_request');
        }
      });
    });

    describe('GET /api/admin/today', () => {
      test('offers expiring within a day, scoped to the tenant for a tenant-admin', async () => {
        const all = ok(await get('/api/admin/today'));
        assert.ok(all.expiringOffers.top.some((o: { offerId: string }) => o.offerId === walletOffer.offerId));
        assert.ok(all.expiringOffers.count >= 1);
        assert.ok(all.partnersInReview.top.some((p: { applicationId: string }) => p.applicationId === applicationId));
        assert.equal(all.deadDeliveries.count, 0);
        assert.equal(all.provisioning.count, 0);
        assert.deepEqual(all.omitted, []);
        const own = ok(await get('/api/admin/today', adminGhent));
        assert.equal(own.tenant, ghent);
        assert.ok(own.expiringOffers.top.some((o: { offerId: string }) => o.offerId === walletOffer.offerId));
        assert.deepEqual(own.omitted, ['partnersInReview']);
        const other = ok(await get('/api/admin/today', adminBruges));
        assert.equal(other.expiringOffers.count, 0);
        assert.deepEqual(other.expiringOffers.top, []);
        const narrowed = ok(await get(`/api/admin/today?tenant=${bruges}`));
        assert.equal(narrowed.expiringOffers.count, 0);
        refused(await get(`/api/admin/today?tenant=${ghent}`, adminBruges), 403, 'forbidden');
      });
      test('an analyst gets no approvals or integration sections', async () => {
        const res = ok(await get('/api/admin/today', analyst));
        assert.deepEqual(res.omitted.sort(), ['approvals', 'deadDeliveries', 'provisioning']);
        assert.equal(res.deadDeliveries, undefined);
      });
    });

    describe('GET /api/admin/support/lookup', () => {
      test('a credential id, an offer id, an item id, an account id, a status index', async () => {
        const first = issued[0] as Issued;
        const byId = ok(await get(`/api/admin/support/lookup?q=${first.credentialId}`, support));
        assert.deepEqual(
          byId.matches.map((m: { kind: string; id: string; tenant: string }) => [m.kind, m.id, m.tenant]),
          [['credential', first.credentialId, ghent]],
        );
        const byOffer = ok(await get(`/api/admin/support/lookup?q=${first.offerId}`, support));
        assert.deepEqual(
          byOffer.matches.map((m: { kind: string; id: string }) => [m.kind, m.id]),
          [
            ['offer', first.offerId],
            ['credential', first.credentialId],
          ],
        );
        const byItem = ok(await get(`/api/admin/support/lookup?q=${walletOffer.itemId}`, support));
        assert.equal(byItem.matches[0].kind, 'item');
        assert.equal(byItem.matches[0].accountId, member.accountId);
        const byAccount = ok(await get(`/api/admin/support/lookup?q=${member.accountId}`, support));
        assert.deepEqual(
          byAccount.matches.map((m: { kind: string; tenant: string }) => [m.kind, m.tenant]),
          [['holder', ghent]],
        );
        const byStatus = ok(await get(`/api/admin/support/lookup?q=1:${revoked.idx}&tenant=${ghent}`, support));
        assert.deepEqual(
          byStatus.matches.map((m: { id: string; state: string }) => [m.id, m.state]),
          [[revoked.credentialId, 'revoked']],
        );
      });
      test("a tenant-admin finds its own tenant's only", async () => {
        const first = issued[0] as Issued;
        assert.equal(ok(await get(`/api/admin/support/lookup?q=${first.credentialId}`, adminGhent)).matches.length, 1);
        assert.deepEqual(ok(await get(`/api/admin/support/lookup?q=${first.credentialId}`, adminBruges)).matches, []);
        assert.deepEqual(ok(await get(`/api/admin/support/lookup?q=${member.accountId}`, adminBruges)).matches, []);
        refused(await get(`/api/admin/support/lookup?q=x&tenant=${ghent}`, adminBruges), 403, 'forbidden');
        refused(await get('/api/admin/support/lookup?q=x', analyst), 403, 'forbidden');
        refused(await get('/api/admin/support/lookup?q=', support), 400, 'invalid_request');
      });
    });

    describe('GET /api/admin/support/credential/{statusIndex}', () => {
      test('issued by which offer, created by whom; revoked when and by whom; no claims', async () => {
        const res = ok(await get(`/api/admin/support/credential/${revoked.idx}?tenant=${ghent}&list=1`, support));
        assert.equal(res.credentialId, revoked.credentialId);
        assert.equal(res.typeId, 'pass');
        assert.equal(res.typeName, 'Pass');
        assert.equal(res.state, 'revoked');
        assert.equal(res.revokedBy, 'owner-token');
        assert.equal(typeof res.revocationAuditSeq, 'number');
        assert.ok(res.revokedAt);
        assert.equal(res.offer.offerId, revoked.offerId);
        assert.equal(res.offer.createdBy, 'owner-token');
        assert.ok(res.offer.collectedAt);
        assert.equal(res.accountId, revoked.accountId);
        assert.deepEqual(res.status, { list: 1, idx: revoked.idx, uri: revoked.uri });
        assert.equal(res.expiresAt, null);
        const valid = ok(await get(`/api/admin/support/credential/${member.idx}?tenant=${ghent}`, adminGhent));
        assert.equal(valid.state, 'valid');
        assert.equal(valid.revokedBy, null);
      });
      test('404 unknown_credential for another index, list or tenant; 403 across tenants', async () => {
        const other = issued[2] as Issued;
        refused(await get(`/api/admin/support/credential/${other.idx}?tenant=${ghent}&list=1`), 404, 'unknown_credential');
        refused(await get(`/api/admin/support/credential/${member.idx}?tenant=${ghent}&list=2`), 404, 'unknown_credential');
        refused(await get(`/api/admin/support/credential/${member.idx}?tenant=${ghent}`, adminBruges), 403, 'forbidden');
        refused(await get(`/api/admin/support/credential/${member.idx}`, support), 400, 'invalid_request');
        refused(await get(`/api/admin/support/credential/x1?tenant=${ghent}`, support), 400, 'invalid_request');
      });
    });

    describe('GET /api/admin/support/timeline/{subject}', () => {
      test("an account's timeline: audit, events, its credential, membership, wallet item and offer, in order", async () => {
        const res = ok(await get(`/api/admin/support/timeline/${member.accountId}?limit=200`, support));
        const whats = res.entries.map((e: { source: string; what: string }) => `${e.source}:${e.what}`);
        for (const expected of [
          'credential:credential.issued',
          'membership:member.joined',
          'audit:member.enrolled',
          'event:member.enrolled',
          'item:item.created',
          'offer:offer.created',
        ]) {
          assert.ok(whats.includes(expected), `${expected} in ${whats.join(', ')}`);
        }
        const times = res.entries.map((e: { at: string }) => Date.parse(e.at));
        assert.deepEqual(
          times,
          [...times].sort((a, b) => a - b),
          'oldest first',
        );
        assert.equal(res.nextCursor, null);
        const paged = await walk(`/api/admin/support/timeline/${member.accountId}`, 'entries', 2, support);
        assert.deepEqual(paged, res.entries, 'pages of 2 walk the same entries');
      });
      test("a credential's timeline shows its issue and revocation; an offer's its credential", async () => {
        const res = ok(await get(`/api/admin/support/timeline/${revoked.credentialId}`, support));
        const whats = res.entries.map((e: { source: string; what: string }) => `${e.source}:${e.what}`);
        for (const expected of [
          'offer:offer.created',
          'credential:credential.issued',
          'revocation:credential.revoked',
          'audit:credential.revoked',
        ]) {
          assert.ok(whats.includes(expected), `${expected} in ${whats.join(', ')}`);
        }
        const offer = ok(await get(`/api/admin/support/timeline/${revoked.offerId}`, support));
        assert.ok(offer.entries.some((e: { ref: string }) => e.ref === revoked.credentialId));
      });
      test("a tenant-admin sees nothing of another tenant's subject; bad cursors and subjects are 400", async () => {
        assert.deepEqual(ok(await get(`/api/admin/support/timeline/${member.accountId}`, adminBruges)).entries, []);
        assert.ok(ok(await get(`/api/admin/support/timeline/${member.accountId}`, adminGhent)).entries.length > 0);
        refused(await get(`/api/admin/support/timeline/${member.accountId}?cursor=nonsense`, support), 400, 'invalid_request');
        const wrongShape = Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url');
        refused(
          await get(`/api/admin/support/timeline/${member.accountId}?cursor=${wrongShape}`, support),
          400,
          'invalid_request',
        );
        refused(await get('/api/admin/support/timeline/not-a-subject', support), 400, 'invalid_request');
        refused(await get(`/api/admin/support/timeline/${member.accountId}?limit=201`, support), 400, 'invalid_request');
      });
    });

    describe('GET /api/admin/credentials and /credential', () => {
      test('lists every credential, filters by tenant, type, state and time, and pages without gaps', async () => {
        const all = ok(await get('/api/admin/credentials'));
        assert.deepEqual(
          all.credentials.map((c: { credentialId: string }) => c.credentialId).sort(),
          issued.map((i) => i.credentialId).sort(),
        );
        const walked = await walk('/api/admin/credentials', 'credentials', 1);
        assert.deepEqual(walked, all.credentials);
        const revokedOnly = ok(await get(`/api/admin/credentials?tenant=${ghent}&status=revoked`));
        assert.deepEqual(
          revokedOnly.credentials.map((c: { credentialId: string; state: string }) => [c.credentialId, c.state]),
          [[revoked.credentialId, 'revoked']],
        );
        const valid = ok(await get(`/api/admin/credentials?tenant=${ghent}&status=valid&typeId=pass`));
        assert.deepEqual(
          valid.credentials.map((c: { credentialId: string }) => c.credentialId),
          [member.credentialId],
        );
        assert.deepEqual(ok(await get('/api/admin/credentials?status=expired')).credentials, []);
        assert.deepEqual(ok(await get('/api/admin/credentials?since=2999-01-01')).credentials, []);
        assert.equal(ok(await get('/api/admin/credentials?until=2999-01-01')).credentials.length, issued.length);
      });
      test('a tenant-admin lists its own tenant only; another tenant is 403', async () => {
        const own = ok(await get('/api/admin/credentials', adminBruges));
        assert.deepEqual(
          own.credentials.map((c: { credentialId: string }) => c.credentialId),
          [(issued[2] as Issued).credentialId],
        );
        refused(await get(`/api/admin/credentials?tenant=${ghent}`, adminBruges), 403, 'forbidden');
      });
      test('400 for a bad cursor, a bad status or limit', async () => {
        refused(await get('/api/admin/credentials?cursor=%21%21'), 400, 'invalid_request');
        const wrong = Buffer.from(JSON.stringify(['a', 'b'])).toString('base64url');
        refused(await get(`/api/admin/credentials?cursor=${wrong}`), 400, 'invalid_request');
        refused(await get('/api/admin/credentials?status=lost'), 400, 'invalid_request');
        refused(await get('/api/admin/credentials?limit=0'), 400, 'invalid_request');
      });
      test('one credential by tenant and id; 404 in another tenant; 403 across tenants', async () => {
        const one = ok(await get(`/api/admin/credential?tenant=${ghent}&credentialId=${member.credentialId}`));
        assert.equal(one.credentialId, member.credentialId);
        assert.equal(one.offer.createdBy, 'owner-token');
        assert.equal(one.accountId, member.accountId);
        refused(
          await get(`/api/admin/credential?tenant=${bruges}&credentialId=${member.credentialId}`),
          404,
          'unknown_credential',
        );
        ok(await get(`/api/admin/credential?tenant=${ghent}&credentialId=${member.credentialId}`, adminGhent));
        refused(
          await get(`/api/admin/credential?tenant=${ghent}&credentialId=${member.credentialId}`, adminBruges),
          403,
          'forbidden',
        );
        // A scoped credential must name its tenant (403 before the query is read); anyone else, 400.
        refused(await get(`/api/admin/credential?credentialId=${member.credentialId}`, adminBruges), 403, 'forbidden');
        refused(await get(`/api/admin/credential?credentialId=${member.credentialId}`), 400, 'invalid_request');
      });
    });

    describe('credential types', () => {
      test('GET /credential-types counts offers, credentials and revocations per type', async () => {
        const res = ok(await get('/api/admin/credential-types'));
        const pass = res.types.find((t: { tenant: string; typeId: string }) => t.tenant === ghent && t.typeId === 'pass');
        assert.deepEqual(
          { offers: pass.offers, issued: pass.issued, revoked: pass.revoked, claimCount: pass.claimCount },
          { offers: 3, issued: 2, revoked: 1, claimCount: 4 },
        );
        assert.equal(pass.vct, `https://rail.example.test/t/${ghent}/types/pass`);
        const walked = await walk('/api/admin/credential-types', 'types', 1);
        assert.deepEqual(walked, res.types);
        const own = ok(await get('/api/admin/credential-types', adminBruges));
        assert.ok(own.types.length > 0);
        assert.ok(own.types.every((t: { tenant: string }) => t.tenant === bruges));
        refused(await get(`/api/admin/credential-types?tenant=${ghent}`, adminBruges), 403, 'forbidden');
      });
      test('GET /credential-type: its claims and counts; 404 unknown_type; 403 across tenants', async () => {
        const res = ok(await get(`/api/admin/credential-type?tenant=${ghent}&typeId=pass`));
        assert.deepEqual(
          res.claims.map((c: { name: string }) => c.name),
          ['holder_name', 'birth_date', 'member_code', 'class'],
        );
        assert.deepEqual(res.claims[3], { name: 'class', kind: 'enum', mandatory: true, options: ['first', 'second'] });
        assert.equal(res.valid, 1);
        refused(await get(`/api/admin/credential-type?tenant=${ghent}&typeId=nothing`), 404, 'unknown_type');
        refused(await get(`/api/admin/credential-type?tenant=${ghent}&typeId=pass`, adminBruges), 403, 'forbidden');
        ok(await get(`/api/admin/credential-type?tenant=${bruges}&typeId=pass`, adminBruges));
      });
      test('GET /types groups by typeId across tenants; a tenant-admin sees its own use only', async () => {
        const res = ok(await get('/api/admin/types'));
        const pass = res.types.find((g: { typeId: string }) => g.typeId === 'pass');
        assert.equal(pass.tenants, 2);
        assert.equal(pass.issued, 3);
        assert.deepEqual(
          pass.uses.map((u: { tenant: string }) => u.tenant),
          [bruges, ghent].sort(),
        );
        const own = ok(await get('/api/admin/types', adminGhent));
        const ownPass = own.types.find((g: { typeId: string }) => g.typeId === 'pass');
        assert.deepEqual(
          ownPass.uses.map((u: { tenant: string }) => u.tenant),
          [ghent],
        );
        assert.deepEqual(await walk('/api/admin/types', 'types', 1), res.types);
      });
      test('POST /types registers as POST /api/types does, answering the audit entry; scoped and refused as it should', async () => {
        const post = (payload: unknown, headers: Record<string, string> = owner) =>
          rail.app.inject({ method: 'POST', url: '/api/admin/types', headers, payload: payload as object });
        const made = ok(await post({ tenant: ghent, name: 'Reader Card', claims: ['holder_name', 'card_no'] }), 201);
        assert.equal(made.ok, true);
        assert.equal(made.type.typeId, 'reader-card');
        assert.equal(made.type.vct, `https://rail.example.test/t/${ghent}/types/reader-card`);
        const entry = await rail.db
          .selectFrom('audit_log')
          .selectAll()
          .where('seq', '=', made.auditSeq)
          .executeTakeFirstOrThrow();
        assert.equal(entry.action, 'type.registered');
        assert.equal(entry.tenant, ghent);
        assert.equal(entry.target, 'reader-card');
        assert.equal(ok(await post({ tenant: ghent, name: 'Own Card', claims: ['a'] }, adminGhent), 201).type.tenant, ghent);
        const snapshot = () => rowCounts(rail.db, ['credential_types', 'audit_log']);
        await refusedUnchanged(
          snapshot,
          () => post({ tenant: ghent, name: 'Foreign Card', claims: ['a'] }, adminBruges),
          403,
          'forbidden',
        );
        await refusedUnchanged(snapshot, () => post({ tenant: ghent, name: 'Reader Card', claims: ['a'] }), 409, 'conflict');
        await refusedUnchanged(
          snapshot,
          () => post({ tenant: ghent, name: 'Analyst Card', claims: ['a'] }, analyst),
          403,
          'forbidden',
        );
        await refusedUnchanged(
          snapshot,
          () => post({ tenant: ghent, name: 'Bad Card', claims: ['a:float'] }),
          400,
          'invalid_claim_spec',
        );
        await refusedUnchanged(
          snapshot,
          () => post({ tenant: 'no-such-tenant', name: 'Lost Card', claims: ['a'] }),
          404,
          'unknown_tenant',
        );
        await refusedUnchanged(
          snapshot,
          () => post({ tenant: ghent, name: 'Huge Card', claims: Array.from({ length: 101 }, (_, i) => `c${i}`) }),
          400,
          'invalid_request',
        );
      });
    });

    describe('holders', () => {
      test('GET /holders lists known accounts; a tenant-admin only its own tenant’s', async () => {
        const all = await walk('/api/admin/holders', 'holders', 1);
        const listed = all.find((h) => (h as { accountId: string }).accountId === member.accountId) as {
          tenants: string[];
          memberships: number;
          items: number;
        };
        assert.deepEqual(listed, { accountId: member.accountId, tenants: [ghent], memberships: 1, items: 1 });
        assert.ok(
          !ok(await get('/api/admin/holders', adminBruges)).holders.some(
            (h: { accountId: string }) => h.accountId === member.accountId,
          ),
        );
        assert.ok(
          ok(await get('/api/admin/holders', adminGhent)).holders.some(
            (h: { accountId: string }) => h.accountId === member.accountId,
          ),
        );
        refused(await get(`/api/admin/holders?tenant=${ghent}`, adminBruges), 403, 'forbidden');
      });
      test('GET /holder: memberships, items by kind and state, credentials; 404 unknown_holder', async () => {
        const res = ok(await get(`/api/admin/holder?accountId=${member.accountId}`));
        assert.deepEqual(
          res.memberships.map((m: { tenant: string; tier: string; status: string }) => [m.tenant, m.tier, m.status]),
          [[ghent, 'member', 'active']],
        );
        assert.deepEqual(res.items, [{ tenant: ghent, kind: 'offer', state: 'pending', count: 1 }]);
        assert.deepEqual(res.credentials, [{ tenant: ghent, issued: 1, revoked: 0 }]);
        assert.equal(res.directoryListed, false);
        assert.equal(ok(await get(`/api/admin/holder?accountId=${member.accountId}`, adminGhent)).tenant, ghent);
        refused(await get(`/api/admin/holder?accountId=${member.accountId}`, adminBruges), 404, 'unknown_holder');
        refused(await get(`/api/admin/holder?accountId=${'A'.repeat(43)}`), 404, 'unknown_holder');
        refused(await get('/api/admin/holder?accountId=short'), 400, 'invalid_request');
      });
    });
  });
}
