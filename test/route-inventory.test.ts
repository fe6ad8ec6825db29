/**
 * The route table against the interface's route inventory (test/fixtures/routes.tsv): prints which
 * operations this build serves, group by group, and fails when a served operation disagrees with
 * the inventory (plane, stability, internal flag) or when the service serves an operation the
 * inventory does not list and EXTRAS below does not explain.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { schemasOf } from '../src/http/lazy-schemas.ts';
import { type TestDatabase, testDatabases } from './helpers/databases.ts';
import { startRail, type TestRail } from './helpers/rail.ts';

interface Listed {
  method: string;
  path: string;
  auth: string;
  group: string;
  stability: string;
  internal: boolean;
}

const INVENTORY: Listed[] = readFileSync(new URL('./fixtures/routes.tsv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [method = '', path = '', auth = '', group = '', stability = '', internal = ''] = line.split('\t');
    return { method, path, auth, group, stability, internal: internal === 'yes' };
  });

/** Operations served beyond the inventory, each with the reason it exists. */
const EXTRAS: Record<string, string> = {
  'GET /.well-known/openid-credential-issuer/t/{tenant}': 'OID4VCI 1.0 §12.2.2 places a tenant issuer’s metadata here',
  'GET /.well-known/oauth-authorization-server/t/{tenant}': 'RFC 8414 §3.1 places a tenant issuer’s AS metadata here',
  'GET /t/{tenant}/.well-known/oauth-authorization-server': 'the appended form older wallets read',
  'POST /par': 'pushed authorization requests of the authorization code flow (RFC 9126; HAIP 1.0 issuance, docs/haip.md)',
  'POST /t/{tenant}/par': 'a tenant issuer’s pushed authorization requests (HAIP 1.0 issuance)',
  'GET /authorize': 'the authorization endpoint, opening a pushed request in the holder’s browser (HAIP 1.0 issuance)',
  'GET /t/{tenant}/authorize': 'a tenant issuer’s authorization endpoint (HAIP 1.0 issuance)',
  'POST /authorize': 'the holder’s approval page answers here (HAIP 1.0 issuance)',
  'POST /t/{tenant}/authorize': 'a tenant issuer’s approval page answers here (HAIP 1.0 issuance)',
  'GET /authorize/continue': 'back from the issuer’s sign-in hook to the wallet (HAIP 1.0 issuance)',
  'GET /t/{tenant}/authorize/continue': 'a tenant issuer’s way back from its sign-in hook (HAIP 1.0 issuance)',
  'POST /api/tenants/{tenant}/authorizations/{authorizationId}/approve':
    'the issuer’s sign-in hook approves a holder’s authorization request (HAIP 1.0 issuance)',
  'POST /api/tenants/authorization-flow': 'a tenant’s HAIP issuance switch and sign-in hook (docs/haip.md)',
  'POST /api/types/key-attestation': 'a type’s key attestation requirement (docs/haip.md, "Key attestation")',
  'GET /.well-known/openrail-ca.pem':
    'the trust anchor of the signing keys’ certificates, for verifiers that resolve keys by x5c (HAIP 1.0; docs/haip.md)',
  'POST /verify/response/{transactionId}':
    'the Digital Credentials API’s answer, relayed by the page that asked with its result token (OID4VP 1.0 Appendix A; docs/dc-api.md)',
  'POST /nonce': 'OID4VCI 1.0 §7 nonce endpoint of the platform issuer',
  'GET /conformance/vectors/2':
    'the conformance set of schema /2, the HAIP and Digital Credentials API cases beside the interface’s /1 (docs/conformance.md)',
  'GET /conformance/vectors/3': 'the conformance set of schema /3, with the ISO mdoc cases (docs/conformance.md, docs/mdoc.md)',
  'POST /auth/login': 'the password sign-in form GET /auth/login shows (docs/operator-sign-in.md)',
  'POST /auth/logout':
    'signing out: the form GET /auth/logout shows, with the session’s anti-forgery token, so no other site can end a session (docs/operator-sign-in.md)',
  'POST /auth/api-token':
    'a new API token as a page, by a form of this session’s pages: same-origin with the anti-forgery token, within the same 5 live per session as the GET exchange (docs/operator-sign-in.md)',
  'GET /admin/*':
    'each page of the back office: the /api/admin operation at the same path, in the browser (docs/admin-app.md, "Pages")',
  'POST /admin/*': 'the forms of those pages, each running the one operation it names (docs/admin-app.md, "Forms")',
  'GET /console/': 'the console’s overview, as /console is (docs/admin-app.md, "The console")',
  'GET /console/*': 'each page of an organisation’s console (docs/admin-app.md, "The console")',
  'POST /console/*': 'the forms of the console’s pages (docs/admin-app.md, "Forms")',
  'GET /developers/docs': 'the index of the project’s documents the public pages link to (docs/public-pages.md, "Documents")',
  'GET /developers/docs/{name}': 'one of those documents, rendered as a page (docs/public-pages.md, "Documents")',
  'POST /demo/offer': 'the /demo page’s demonstration offer (docs/public-pages.md, "The demo")',
  'POST /demo/progress': 'whether a wallet collected the /demo page’s offer (docs/public-pages.md, "The demo")',
  'POST /demo/revoke': 'the /demo page’s revocation of what it issued (docs/public-pages.md, "The demo")',
  'POST /t/{tenant}/nonce': 'OID4VCI 1.0 §7 nonce endpoint of a tenant issuer',
  'GET /types/{typeId}': 'SD-JWT VC Type Metadata at the vct URL (platform types)',
  'GET /t/{tenant}/types/{typeId}': 'SD-JWT VC Type Metadata at the vct URL (tenant types)',
  'GET /credential-offer/{handle}': 'OID4VCI 1.0 §4.1.3 credential_offer_uri of by-reference offers',
  'GET /t/{tenant}/credential-offer/{handle}': 'OID4VCI 1.0 §4.1.3 credential_offer_uri of by-reference offers',
  'GET /assets/{file}': 'the stylesheet and icon of the pages (style-src self)',
  'GET /docs/assets/{file}': 'the API reference viewer, served from node_modules rather than a CDN',
  'POST /partners/apply':
    'the action of the /partners/apply form: the JSON intake’s rules and per-address budget, without a script (docs/partner-pages.md)',
  'POST /partners/status':
    'the action of the /partners/status form: the status token travels in a form body, never in a URL (docs/partner-pages.md)',
  'GET /operator/invitation':
    'the page where an invited operator, or one sent a password reset, chooses its own password (docs/operators.md, "Invitations")',
  'POST /operator/invitation':
    'the action of that page: no operator ever sets another’s password (docs/security.md, "Separation of duties")',
  'POST /api/admin/people/operators/{username}/invite':
    'mails an invitation again, or a password reset: how an operator regains access without anyone choosing its password',
  'GET /metrics':
    'the Prometheus exposition the ops issue asks for, on a plane of its own, off unless OPENRAIL_METRICS_TOKEN is set (docs/operations.md, "Metrics")',
  'POST /api/members/enrolment-types':
    'a tenant names the credential types whose accepted presentation enrols (POST /member/enroll; docs/decisions/0014)',
  'POST /api/admin/compliance/dsar/refuse':
    'an access request refused on a ground, as an erasure request is (docs/backoffice/compliance.md, "Access requests")',
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('the route table against the interface inventory', () => {
  let db: TestDatabase;
  let rail: TestRail;
  let served: Map<string, Record<string, unknown>>;

  before(async () => {
    const [sqlite] = testDatabases();
    assert.ok(sqlite);
    db = await sqlite.create();
    rail = await startRail(db);
    const doc = (await rail.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    served = new Map(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.includes(method))
          .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const),
      ),
    );
  });
  after(async () => {
    await rail.stop();
    await db.drop();
  });

  test('the inventory lists 275 operations', () => {
    assert.equal(INVENTORY.length, 275);
    assert.equal(new Set(INVENTORY.map((r) => `${r.method} ${r.path}`)).size, 275, 'each once');
  });

  test('which operations are served, by group', (t) => {
    const groups = [...new Set(INVENTORY.map((r) => r.group))];
    const lines = groups.map((group) => {
      const rows = INVENTORY.filter((r) => r.group === group);
      const here = rows.filter((r) => served.has(`${r.method} ${r.path}`));
      return `${group.padEnd(20)} ${String(here.length).padStart(3)} of ${String(rows.length).padStart(3)}`;
    });
    const total = INVENTORY.filter((r) => served.has(`${r.method} ${r.path}`)).length;
    t.diagnostic(`served ${total} of ${INVENTORY.length} operations of the inventory:\n${lines.join('\n')}`);
    assert.ok(total > 0);
  });

  test('the groups finished so far are served whole', () => {
    // A group joins this list once an issue has built every operation of it.
    const finished = [
      'participation',
      'trust',
      'issuance',
      'verification',
      'wallet',
      'membership',
      'directory',
      'onboarding',
      'account',
      'admin-integration',
      'partners',
      'portal',
      'admin-partners',
      'admin-audit',
      'admin-analytics',
      'admin-approvals',
      'admin-orgs',
      'admin-people',
      'admin-session',
      'admin-credentials',
      'admin-compliance',
      'admin-ops',
      'console',
    ];
    for (const group of finished) {
      const missing = INVENTORY.filter((r) => r.group === group && !served.has(`${r.method} ${r.path}`));
      assert.deepEqual(
        missing.map((r) => `${r.method} ${r.path}`),
        [],
        `${group}: every operation is served`,
      );
    }
  });

  test('the partner programme’s seven public pages are served', () => {
    const pages = INVENTORY.filter((r) => r.group === 'pages' && r.path.startsWith('/partners'));
    assert.equal(pages.length, 7);
    assert.deepEqual(
      pages.filter((r) => !served.has(`${r.method} ${r.path}`)).map((r) => r.path),
      [],
    );
  });

  test('the operators’ three pages are served, on the enterprise session', () => {
    const pages = INVENTORY.filter((r) => r.group === 'pages' && r.auth === 'enterprise-session');
    assert.deepEqual(pages.map((r) => `${r.method} ${r.path}`).sort(), ['GET /admin', 'GET /admin/', 'GET /console']);
    for (const r of pages) assert.equal(served.get(`${r.method} ${r.path}`)?.['x-svc-auth'], 'enterprise-session', r.path);
  });

  test('a served operation of the inventory has its plane, stability and internal flag', () => {
    for (const row of INVENTORY) {
      const op = served.get(`${row.method} ${row.path}`);
      if (!op) continue;
      const what = `${row.method} ${row.path}`;
      assert.equal(op['x-svc-auth'], row.auth, `${what}: plane`);
      assert.equal(op['x-svc-stability'], row.stability, `${what}: stability`);
      assert.equal(op['x-svc-internal'] === true, row.internal, `${what}: internal`);
    }
  });

  test('every route schema compiles (they are compiled on first use when serving, src/http/lazy-schemas.ts)', () => {
    const schemas = schemasOf.get(rail.app);
    assert.ok(schemas, 'the app was made by buildApp');
    assert.ok(schemas.pending > 500, `the schemas of every route wait to be compiled (${schemas.pending})`);
    schemas.compileAll();
    assert.equal(schemas.pending, 0);
  });

  test('every other served operation is an explained extra', () => {
    const listed = new Set(INVENTORY.map((r) => `${r.method} ${r.path}`));
    const unexplained = [...served.keys()].filter((key) => !listed.has(key) && !(key in EXTRAS));
    assert.deepEqual(unexplained, [], 'served, but neither in the inventory nor in EXTRAS');
    const stale = Object.keys(EXTRAS).filter((key) => !served.has(key));
    assert.deepEqual(stale, [], 'in EXTRAS, but no longer served');
  });
});
