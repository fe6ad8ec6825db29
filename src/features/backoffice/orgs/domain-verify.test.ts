import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { rowCounts } from '../../../../test/helpers/refusals.ts';
import { hasOpenssl, selfSignedCertificate } from '../../../../test/helpers/tls.ts';
import { GuardedFetcher } from '../../../adapters/http/guarded-fetcher.ts';

const ORGS = '/api/admin/orgs';
const DOMAIN = 'id.ghent.test';
const TABLES = ['org_domains', 'audit_log'] as const;

/**
 * Verifying a custom domain over real TLS (docs/backoffice/orgs.md, "Custom domain"): the service
 * fetches https://<domain>/.well-known/openrail-domain.json through the guarded fetcher. The
 * domain is a name of this test, resolved to 127.0.0.1 and served on port 443 with a certificate
 * the fetcher is told to trust; the fetcher's other rules (no redirects, bounded body) stay.
 */
let server: Server | undefined;
let cert = '';
/** What the domain answers next. */
let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 404, body: '' };
let skip: string | false = hasOpenssl ? false : 'openssl is not available to make a certificate';

before(async () => {
  if (skip) return;
  const tls = selfSignedCertificate(DOMAIN, `DNS:${DOMAIN}`);
  cert = tls.cert;
  server = createServer({ key: tls.key, cert }, (req, res) => {
    if (req.url !== '/.well-known/openrail-domain.json') {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body);
  });
  const listening = server;
  skip = await new Promise<string | false>((resolve) => {
    listening.once('error', (err: NodeJS.ErrnoException) => resolve(`port 443 is not available here (${err.code})`));
    listening.listen(443, '127.0.0.1', () => resolve(false));
  });
});
after(async () => {
  if (server?.listening) await new Promise<void>((resolve) => server?.close(() => resolve()));
});

for (const factory of testDatabases()) {
  describe(`verifying a custom domain (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let admin: Record<string, string>;

    const post = (url: string, headers: Record<string, string> = owner, payload: unknown = {}) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const counts = () => rowCounts(rail.db, TABLES);

    before(async () => {
      if (skip) return;
      db = await factory.create();
      const fetcher = new GuardedFetcher({
        ca: cert,
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        allowAddress: (ip) => ip === '127.0.0.1',
      });
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { fetcher });
      assert.equal((await post(ORGS, owner, { name: 'Ghent' })).statusCode, 201);
      admin = await signedInOperator(rail.app, 'ghent-admin', ['tenant-admin'], 'ghent');
    });
    after(async () => {
      if (skip) return;
      await rail.stop();
      await db.drop();
    });

    test('the document is fetched and compared; only a matching one verifies, and only a verified domain activates', async (t) => {
      if (skip) return t.skip(skip);
      assert.equal((await post(`${ORGS}/ghent/domain`, admin, { domain: DOMAIN })).statusCode, 200);
      const { document } = (
        await rail.app.inject({ method: 'GET', url: `${ORGS}/ghent/domain/document`, headers: admin })
      ).json();

      const refused = async (code: string, status: number) => {
        const before = await counts();
        const res = await post(`${ORGS}/ghent/domain/verify`, admin);
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.json().error, code, res.body);
        assert.deepEqual(await counts(), before);
        const state = (await rail.app.inject({ method: 'GET', url: `${ORGS}/ghent/domain`, headers: admin })).json();
        assert.equal(state.state, 'pending', 'nothing changed');
      };
      answer = { status: 404, body: '' };
      await refused('domain_unreachable', 502);
      answer = { status: 302, body: '', headers: { location: 'https://elsewhere.example/' } };
      await refused('domain_unreachable', 502);
      answer = { status: 200, body: JSON.stringify({ ...document, token: 'not-the-token' }) };
      await refused('domain_mismatch', 409);
      answer = { status: 200, body: JSON.stringify({ ...document, tenant: 'someone-else' }) };
      await refused('domain_mismatch', 409);
      answer = { status: 200, body: 'not json' };
      await refused('domain_mismatch', 409);
      answer = { status: 200, body: JSON.stringify({ ...document, padding: 'x'.repeat(17 * 1024) }) };
      await refused('domain_unreachable', 502);

      answer = { status: 200, body: JSON.stringify(document) };
      const verified = await post(`${ORGS}/ghent/domain/verify`, admin);
      assert.equal(verified.statusCode, 200, verified.body);
      assert.equal(verified.json().domain.state, 'verified');
      assert.equal(typeof verified.json().domain.verifiedAt, 'string');
      const entry = await rail.db
        .selectFrom('audit_log')
        .select(['action', 'actor'])
        .where('seq', '=', verified.json().auditSeq)
        .executeTakeFirstOrThrow();
      assert.deepEqual(entry, { action: 'org.domain_verified', actor: 'operator:ghent-admin' });

      // A verified domain is not replaced, and only the platform activates it.
      assert.equal((await post(`${ORGS}/ghent/domain`, admin, { domain: 'other.ghent.test' })).json().error, 'domain_state');
      assert.equal((await post(`${ORGS}/ghent/domain/activate`, admin)).statusCode, 403);
      const activated = await post(`${ORGS}/ghent/domain/activate`);
      assert.equal(activated.statusCode, 200, activated.body);
      assert.equal(activated.json().domain.state, 'active');
      assert.equal((await post(`${ORGS}/ghent/domain/activate`)).json().error, 'domain_state');
      assert.equal((await post(`${ORGS}/ghent/domain/verify`, admin)).json().error, 'domain_state');
      const revoked = await post(`${ORGS}/ghent/domain/revoke`, admin);
      assert.equal(revoked.json().domain.state, 'revoked');
    });
  });
}
