import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { sql } from 'kysely';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../../../test/helpers/holder.ts';
import { PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { codeIn, type Mailbox, startSmtp } from '../../../test/helpers/smtp.ts';

const AUDIENCE = `${PUBLIC_URL}/onboard/verify`;

for (const factory of testDatabases()) {
  describe(`holder onboarding with real mail (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let mail: Mailbox;
    let now = Date.parse('2026-11-24T08:00:00Z');
    const clock = { now: () => now };
    const post = (url: string, payload: Record<string, unknown>, remoteAddress = '203.0.113.7') =>
      rail.app.inject({ method: 'POST', url, payload, remoteAddress });
    const proof = (key: HolderKey, claims: Record<string, unknown> = {}) =>
      holderJws({ aud: AUDIENCE, iat: Math.floor(now / 1000), ...claims }, { key });
    /** Starts a challenge for `identifier` and answers the code the mail carried. */
    const codeFor = async (identifier: string, remoteAddress?: string) => {
      const before = mail.messages.length;
      const res = await post('/onboard/start', { identifier }, remoteAddress);
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(mail.messages.length, before + 1);
      return codeIn(mail.messages.at(-1)?.raw ?? '');
    };

    before(async () => {
      db = await factory.create();
      mail = await startSmtp();
      rail = await startRail(db, { OPENRAIL_SMTP_URL: mail.url, OPENRAIL_MAIL_FROM: 'Rail <rail@example.test>' }, clock);
    });
    after(async () => {
      await rail.stop();
      await mail.close();
      await db.drop();
    });

    test('a code is mailed; with a holder proof it yields an attestation the platform DID document verifies', async () => {
      const key = await newHolderKey();
      const code = await codeFor('  Grace.Hopper@Example.org ');
      const sent = mail.messages.at(-1);
      assert.deepEqual(sent?.to, ['grace.hopper@example.org'], 'mailed to the normalised address');
      assert.match(sent?.raw ?? '', /From: Rail <rail@example\.test>/);
      const stored = JSON.stringify((await sql`select * from onboarding_challenges`.execute(rail.db)).rows).toLowerCase();
      assert.ok(!stored.includes('grace') && !stored.includes(code), 'neither the address nor the code is stored in clear');

      const res = await post('/onboard/verify', { identifier: 'grace.hopper@example.org', code, proof: await proof(key) });
      assert.equal(res.statusCode, 200, res.body);
      const { attestation, accountId, identifierHash } = res.json();
      assert.equal(accountId, accountOf(key));
      assert.equal(identifierHash, createHash('sha256').update('grace.hopper@example.org').digest('base64url'));

      const did = (await rail.app.inject({ method: 'GET', url: '/.well-known/did.json' })).json();
      const { kid, typ } = decodeProtectedHeader(attestation);
      assert.equal(typ, 'svc-ownership+jwt');
      const method = did.verificationMethod.find((m: { id: string }) => m.id === kid);
      assert.ok(method && did.assertionMethod.includes(kid), 'signed with an assertion key of the platform DID');
      const { payload } = await jwtVerify(attestation, await importJWK(method.publicKeyJwk as JWK, 'ES256'), {
        issuer: did.id,
        currentDate: new Date(now),
      });
      assert.equal(payload.sub, accountOf(key));
      assert.deepEqual(payload.cnf, { jkt: accountOf(key) });
      assert.equal(payload.identifier_hash, identifierHash);
      assert.equal(payload.identifier_type, 'email');

      const again = await post('/onboard/verify', { identifier: 'grace.hopper@example.org', code, proof: await proof(key) });
      assert.equal(again.json().error, 'invalid_code', 'a code works once');
    });

    test('wrong codes use up the attempts, and then even the right code is refused', async () => {
      const key = await newHolderKey();
      const code = await codeFor('ada@example.org');
      const wrong = code === '000000' ? '000001' : '000000';
      for (let i = 0; i < 5; i++) {
        const res = await post('/onboard/verify', { identifier: 'ada@example.org', code: wrong, proof: await proof(key) });
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().error, 'invalid_code');
      }
      const right = await post('/onboard/verify', { identifier: 'ada@example.org', code, proof: await proof(key) });
      assert.equal(right.json().error, 'invalid_code');
    });

    test('an expired code is refused; a newer code replaces an older one', async () => {
      const key = await newHolderKey();
      const old = await codeFor('linus@example.org');
      now += 11 * 60 * 1000;
      const late = await post('/onboard/verify', { identifier: 'linus@example.org', code: old, proof: await proof(key) });
      assert.equal(late.json().error, 'invalid_code');
      const first = await codeFor('linus@example.org');
      const second = await codeFor('linus@example.org');
      if (first !== second) {
        const stale = await post('/onboard/verify', { identifier: 'linus@example.org', code: first, proof: await proof(key) });
        assert.equal(stale.json().error, 'invalid_code', 'only the newest code counts');
      }
      const live = await rail.db
        .selectFrom('onboarding_challenges')
        .select('id')
        .where('spent_at', 'is', null)
        .where('created_at', '=', now)
        .execute();
      assert.equal(live.length, 1, 'a newer code ended the older ones');
      const ok = await post('/onboard/verify', { identifier: 'linus@example.org', code: second, proof: await proof(key) });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    test('the proof must be a fresh holder JWS for this operation, and is spent with the code', async () => {
      const key = await newHolderKey();
      const code = await codeFor('barbara@example.org');
      const session = await holderJws({ aud: PUBLIC_URL, iat: Math.floor(now / 1000) }, { key });
      const refused = await post('/onboard/verify', { identifier: 'barbara@example.org', code, proof: session });
      assert.equal(refused.json().error, 'invalid_proof', 'a session audience is not this operation’s');
      const stale = await post('/onboard/verify', {
        identifier: 'barbara@example.org',
        code,
        proof: await proof(key, { iat: Math.floor(now / 1000) - 600 }),
      });
      assert.equal(stale.json().error, 'invalid_proof');
      const used = await proof(key);
      assert.equal((await post('/onboard/verify', { identifier: 'barbara@example.org', code, proof: used })).statusCode, 200);
      const code2 = await codeFor('barbara@example.org');
      const replayed = await post('/onboard/verify', { identifier: 'barbara@example.org', code: code2, proof: used });
      assert.equal(replayed.json().error, 'invalid_proof', 'a proof works once');
    });

    test('the same answer for any address; starts are limited per address and per caller', async () => {
      const fresh = await post('/onboard/start', { identifier: 'nobody-yet@example.org' }, '198.51.100.1');
      const known = await post('/onboard/start', { identifier: 'grace.hopper@example.org' }, '198.51.100.2');
      assert.equal(fresh.statusCode, known.statusCode);
      assert.equal(fresh.body, known.body);
      for (let i = 0; i < 2; i++)
        assert.equal((await post('/onboard/start', { identifier: 'nobody-yet@example.org' }, '198.51.100.3')).statusCode, 202);
      const fourth = await post('/onboard/start', { identifier: 'nobody-yet@example.org' }, '198.51.100.4');
      assert.equal(fourth.statusCode, 429);
      assert.equal(fourth.json().error, 'rate_limited');
      assert.ok(Number(fourth.headers['retry-after']) > 0);
      let last = fourth;
      for (let i = 0; i < 11; i++) last = await post('/onboard/start', { identifier: `person${i}@example.org` }, '198.51.100.9');
      assert.equal(last.statusCode, 429, 'an eleventh start from one caller in an hour');
      assert.match(String(last.headers['ratelimit-policy']), /^"onboard-start";q=10;w=3600$/);
      const invalid = await post('/onboard/start', { identifier: 'not-an-address' }, '198.51.100.10');
      assert.equal(invalid.json().error, 'invalid_contact');
    });

    test('a mail server that refuses gives 503 mail_unavailable', async () => {
      mail.refusing = true;
      try {
        const count = async () => (await rail.db.selectFrom('onboarding_challenges').select('id').execute()).length;
        const before = await count();
        const res = await post('/onboard/start', { identifier: 'refused@example.org' }, '198.51.100.20');
        assert.equal(res.statusCode, 503);
        assert.equal(res.json().error, 'mail_unavailable');
        assert.equal(await count(), before, 'a refused start stores no challenge');
      } finally {
        mail.refusing = false;
      }
    });
  });
}

describe('holder onboarding without an SMTP server', () => {
  test('mail goes to the development outbox under the data folder', async () => {
    const [factory] = testDatabases();
    assert.ok(factory);
    const db = await factory.create();
    const dataDir = mkdtempSync(join(tmpdir(), 'openrail-outbox-'));
    const rail = await startRail(db, { OPENRAIL_DATA_DIR: dataDir });
    try {
      const res = await rail.app.inject({ method: 'POST', url: '/onboard/start', payload: { identifier: 'dev@example.org' } });
      assert.equal(res.statusCode, 202, res.body);
      const files = readdirSync(join(dataDir, 'mail-outbox'));
      assert.equal(files.length, 1);
      const eml = readFileSync(join(dataDir, 'mail-outbox', files[0] as string), 'utf8');
      assert.match(eml, /^To: dev@example\.org$/m);
      assert.match(codeIn(eml), /^[0-9]{6}$/);
    } finally {
      await rail.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
