import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DatabaseFactory, testDatabases } from '../../../../test/helpers/databases.ts';
import { type Harness, json, operator as owner, twoProcesses } from '../../../../test/helpers/harness.ts';

const ORGS = '/api/admin/orgs';
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const PASSWORD = 'a-long-enough-password';

/**
 * A suspension made on one process holds on the next request to another (docs/backoffice/orgs.md,
 * "Suspension"): the status is read from the database on every request, never kept per process.
 * Two real `openrail serve` processes on one PostgreSQL schema, over real HTTP.
 */
const postgres = testDatabases().find((f) => f.name === 'postgres');

describe('a suspension on one process holds on the other (two openrail serve processes, PostgreSQL)', {
  skip: postgres ? false : 'TEST_DATABASE_URL is not set: two processes sharing one database need PostgreSQL',
}, () => {
  let h: Harness;
  const send = async (
    lane: number,
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
    headers: Record<string, string> = owner,
  ) => h.send(lane, { method, url, ...(body === undefined ? { headers } : json(body, headers)) });
  const signIn = async (username: string, roles: string[]) => {
    assert.equal((await send(0, 'POST', '/api/operators', { username, password: PASSWORD, roles })).status, 201);
    const login = await send(0, 'POST', '/api/login', { username, password: PASSWORD }, {});
    return { authorization: `Bearer ${login.json().token as string}` };
  };
  const offer = (lane: number) =>
    send(lane, 'POST', '/api/offers', { tenant: 'ghent', typeId: 'pass', subject: { holder_name: 'Ada' } });
  const token = (lane: number, code: string) =>
    h.send(lane, {
      method: 'POST',
      url: '/t/ghent/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString(),
    });
  const codeOf = (offerUri: string) =>
    JSON.parse(new URL(offerUri).searchParams.get('credential_offer') ?? '{}').grants[PRE_AUTH]['pre-authorized_code'] as string;

  before(async () => {
    h = await twoProcesses(postgres as DatabaseFactory);
  });
  after(async () => {
    await h?.close();
  });

  test('process 1 refuses offers and codes of a tenant suspended through process 0, and issues again once reactivated', async () => {
    assert.equal((await send(0, 'POST', ORGS, { name: 'Ghent' })).status, 201, h.diagnostics());
    assert.equal((await send(0, 'POST', '/api/types', { tenant: 'ghent', name: 'Pass', claims: ['holder_name'] })).status, 201);
    // Process 1 has served the tenant's offers and token endpoint before the suspension.
    const early = await offer(1);
    assert.equal(early.status, 201, early.text);
    const warm = await offer(1);
    assert.equal((await token(1, codeOf(warm.json().offerUri as string))).status, 200);

    const ops1 = await signIn('ops-one', ['ops']);
    const ops2 = await signIn('ops-two', ['ops']);
    const filed = await send(0, 'POST', `${ORGS}/ghent/suspend`, { reason: 'Fraud report' }, ops1);
    assert.equal(filed.status, 202, filed.text);
    const approvalId = (filed.json().approval as { approvalId: string }).approvalId;
    const approved = await send(0, 'POST', `/api/admin/approvals/${approvalId}/approve`, {}, ops2);
    assert.equal(approved.status, 200, approved.text);

    const refused = await offer(1);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json().error, 'tenant_suspended');
    const code = await token(1, codeOf(early.json().offerUri as string));
    assert.equal(code.status, 400, code.text);
    assert.equal(code.json().error, 'invalid_grant');
    assert.equal((await send(1, 'GET', '/t/ghent/did.json', undefined, {})).status, 200, 'its DID document serves');

    assert.equal((await send(1, 'POST', `${ORGS}/ghent/reactivate`, { reason: 'Cleared' }, ops1)).status, 200);
    assert.equal((await offer(0)).status, 201, 'process 0 issues again after a reactivation on process 1');
    assert.equal((await token(0, codeOf(early.json().offerUri as string))).status, 200);
  });
});
