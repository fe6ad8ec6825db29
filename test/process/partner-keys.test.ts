/**
 * A partner's key across two real `openrail serve` processes on one PostgreSQL database
 * (docs/partners.md): minted through one, it works on both; revoked through one, it is refused on
 * both at the next call; a rotated-away secret likewise.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DatabaseFactory, testDatabases } from '../helpers/databases.ts';
import { expectStatus, type Harness, json, operator, twoProcesses } from '../helpers/harness.ts';
import { livePartnerSession } from '../helpers/partners.ts';

const postgres = testDatabases().find((f) => f.name === 'postgres');

describe('a partner key across two openrail serve processes on one PostgreSQL database', {
  skip: postgres ? false : 'TEST_DATABASE_URL is not set: two processes sharing one database need PostgreSQL',
}, () => {
  let h: Harness;
  let session: Record<string, string>;
  let typeId: string;
  let tenant: string;
  const offer = (lane: number, key: string) =>
    h.send(lane, {
      method: 'POST',
      url: '/api/offers',
      ...json({ tenant, typeId, subject: { holder_name: 'Ada' } }, { authorization: `Bearer ${key}` }),
    });

  before(async () => {
    h = await twoProcesses(postgres as DatabaseFactory);
    const made = await expectStatus(
      h.send(0, { method: 'POST', url: '/api/tenants', ...json({ name: 'Partner Water' }, operator) }),
      201,
    );
    tenant = String(made.slug);
    session = (await livePartnerSession(h.db, { tenant, scopes: ['issuance'], rateClass: 'standard' })).bearer;
    const type = await expectStatus(
      h.send(0, {
        method: 'POST',
        url: '/api/types',
        ...json({ tenant, name: 'Partner pass', claims: ['holder_name'] }, operator),
      }),
      201,
    );
    typeId = String(type.typeId);
  });
  after(async () => {
    await h?.close();
  });

  test('minted on one process, the key works on both; revoked on one, it is 401 on both', async () => {
    const minted = await expectStatus(
      h.send(0, {
        method: 'POST',
        url: '/api/partners/keys',
        ...json({ label: 'two processes', scopes: ['issuance'] }, session),
      }),
      201,
    );
    const key = minted.key as { id: string; secret: string };
    for (const lane of [0, 1]) assert.equal((await offer(lane, key.secret)).status, 201, `lane ${lane}`);

    const rotated = await expectStatus(
      h.send(1, { method: 'POST', url: `/api/partners/keys/${key.id}/rotate`, ...json({}, session) }),
      200,
    );
    const fresh = (rotated.key as { secret: string }).secret;
    for (const lane of [0, 1]) {
      assert.equal((await offer(lane, key.secret)).status, 401, `the old secret on lane ${lane}`);
      assert.equal((await offer(lane, fresh)).status, 201, `the new secret on lane ${lane}`);
    }

    await expectStatus(h.send(0, { method: 'POST', url: `/api/partners/keys/${key.id}/revoke`, ...json({}, session) }), 200);
    for (const lane of [0, 1]) assert.equal((await offer(lane, fresh)).status, 401, `revoked, on lane ${lane}`);
  });
});
