/**
 * openrail with OPENRAIL_KEYS=pkcs11 on a SoftHSM token, on each engine: every key that signs is
 * made in the token and signs there (a tenant's credentials and status lists, the platform root
 * behind each x5c chain, the verifier's request objects, the platform's negative responses), a
 * four-eyes rotation makes the next key in the token while credentials issued before still verify,
 * no row of the database holds private key material, and a token that fails answers 503
 * signing_unavailable where a signature is needed while everything else answers; signing resumes
 * when the token is back, without a restart.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { sql } from 'kysely';
import pkcs11js from 'pkcs11js';
import { TOKEN_RETRY_SECONDS } from '../../src/adapters/crypto/keys/unavailable.ts';
import { keysNeeded } from '../../src/cli/restore.ts';
import type { Clock } from '../../src/core/clock.ts';
import { verifyPresentation } from '../../src/core/verifier/verify-presentation.ts';
import { DRILLS } from '../../src/features/backoffice/ops/backups.ts';
import { RETIREMENT } from '../../src/features/backoffice/ops/rotation.ts';
import { ISSUER_DOCUMENT_TTL_MS } from '../../src/features/verification/issuer-documents.ts';
import { ACTIVE_KEY_TTL_MS } from '../../src/ports/key-store.ts';
import type { TestDatabase } from '../helpers/databases.ts';
import { testDatabases } from '../helpers/databases.ts';
import { accountOf, newHolderKey } from '../helpers/holder.ts';
import {
  accessToken,
  createOffer,
  issueOne,
  issuerId,
  PASS_SUBJECT,
  proofJwt,
  registerType,
  requestCredential,
} from '../helpers/issuance.ts';
import { signedInOperator } from '../helpers/operators.ts';
import { present, verifiedOn } from '../helpers/presentation.ts';
import { owner, railOn, railSeconds, startRail, stopRail, type TestRail } from '../helpers/rail.ts';
import { deleteObjects, rawSession, type SoftToken, softhsmMissing, softToken } from '../helpers/softhsm.ts';
import { verifyByX5c } from '../helpers/x5c.ts';

const skip = softhsmMissing();
/** A credential's status list reference. */
const statusOf = (credential: string) =>
  (decodeJwt(credential.split('~')[0] as string) as { status: { status_list: { uri: string; idx: number } } }).status.status_list;
const kidOf = (jws: string) =>
  String(decodeProtectedHeader(jws.split('~')[0] as string).kid)
    .split('#')
    .pop();

/** The token's key objects as another application lists them: label and the attributes that keep a key in. */
function tokenObjects(token: SoftToken) {
  const raw = rawSession(token);
  try {
    return raw.objects([{ type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY }]).map((h) => {
      const [label, sensitive, extractable] = raw.lib.C_GetAttributeValue(raw.session, h, [
        { type: pkcs11js.CKA_LABEL },
        { type: pkcs11js.CKA_SENSITIVE },
        { type: pkcs11js.CKA_EXTRACTABLE },
      ]);
      return {
        label: label?.value.toString('utf8') ?? '',
        sensitive: sensitive?.value[0] === 1,
        extractable: extractable?.value[0] === 1,
      };
    });
  } finally {
    raw.close();
  }
}

describe('keys in a PKCS#11 token, through the whole service', { skip }, () => {
  let token: SoftToken;
  before(() => {
    token = softToken();
  });
  after(() => token?.remove());

  for (const factory of testDatabases()) {
    describe(factory.name, () => {
      let db: TestDatabase;
      let rail: TestRail;
      let typeId: string;
      let now = Date.now();
      const clock: Clock = { now: () => now };
      before(async () => {
        backupDir = mkdtempSync(join(tmpdir(), 'openrail-token-backups-'));
        ({ db, rail } = await railOn(factory, { ...token.env, OPENRAIL_DEMO: 'off', OPENRAIL_BACKUP_DIR: backupDir }, clock, {
          runJobs: false,
        }));
        const made = await rail.app.inject({
          method: 'POST',
          url: '/api/tenants',
          headers: owner,
          payload: { name: `Alpha ${factory.name}` },
        });
        assert.equal(made.statusCode, 201, made.body);
        typeId = (await registerType(rail.app, made.json().slug, 'pass')).typeId;
      });
      after(async () => {
        await stopRail(rail, db);
        rmSync(backupDir, { recursive: true, force: true });
      });
      let backupDir: string;
      /** A backup taken now and the drill the job makes of it. */
      const backupAndDrill = async (ops: { authorization: string }) => {
        const taken = await rail.app.inject({ method: 'POST', url: '/api/admin/ops/backup', headers: ops, payload: {} });
        assert.equal(taken.statusCode, 200, taken.body);
        const { backupId } = taken.json();
        now += DRILLS.everyMs;
        await rail.jobs.tick();
        const { drills } = (
          await rail.app.inject({ method: 'GET', url: `/api/admin/ops/backup-drills?backupId=${backupId}`, headers: ops })
        ).json();
        assert.equal(drills.length, 1);
        const manifest = JSON.parse(readFileSync(join(backupDir, `${backupId}.manifest.json`), 'utf8'));
        return {
          backupId,
          manifest,
          drill: drills[0] as { ok: boolean; checks: Array<{ check: string; ok: boolean; detail: string }> },
        };
      };
      const tenant = () => `alpha-${factory.name}`;

      test('issuance, hosted verification, revocation and the re-signed status list: every signature by a token key', async () => {
        const issued = await issueOne(rail.app, tenant(), typeId, PASS_SUBJECT);
        const did = (await rail.app.inject({ method: 'GET', url: `/t/${tenant()}/did.json` })).json() as {
          assertionMethod: string[];
        };
        assert.deepEqual(
          did.assertionMethod.map((m) => m.split('#').pop()),
          [kidOf(issued.credential)],
        );
        // The x5c chain ends at the platform root, whose key is in the token too.
        const anchor = (await rail.app.inject({ method: 'GET', url: '/.well-known/openrail-ca.pem' })).body;
        const claims = await verifyByX5c(issued.credential.split('~')[0] as string, anchor);
        assert.equal(claims.vct, decodeJwt(issued.credential.split('~')[0] as string).vct);
        const outcome = await verifiedOn(rail.app, issued);
        assert.equal(outcome.ok, true, JSON.stringify(outcome));

        const credentialId = (
          await rail.db.selectFrom('issued_credentials').select('id').where('tenant', '=', tenant()).executeTakeFirstOrThrow()
        ).id;
        const revoked = await rail.app.inject({
          method: 'POST',
          url: '/api/revoke',
          headers: owner,
          payload: { tenant: tenant(), credentialId, reason: 'Reported stolen.' },
        });
        assert.equal(revoked.statusCode, 200, revoked.body);
        const list = (await rail.app.inject({ method: 'GET', url: `/t/${tenant()}/status/1` })).body;
        assert.equal(kidOf(list), kidOf(issued.credential));
        const after = await verifiedOn(rail.app, issued);
        assert.equal(after.ok, false);
        assert.match(JSON.stringify(after), /revoked/);
      });

      test('a negative response is signed by the platform key in the token', async () => {
        const support = await signedInOperator(rail.app, `support-${factory.name}`, ['support']);
        const accountId = accountOf(await newHolderKey());
        const res = await rail.app.inject({
          method: 'POST',
          url: '/api/admin/compliance/dsar/negative-response',
          headers: support,
          payload: { subject: { accountId }, source: 'Letter' },
        });
        assert.equal(res.statusCode, 200, res.body);
        const platform = (await rail.app.inject({ method: 'GET', url: '/.well-known/did.json' })).json() as {
          assertionMethod: string[];
        };
        assert.ok(platform.assertionMethod.some((m) => m.endsWith(`#${kidOf(res.json().statement)}`)));
      });

      test('a four-eyes rotation makes the next key in the token; a credential issued before still verifies', async () => {
        const before = await issueOne(rail.app, tenant(), typeId, PASS_SUBJECT);
        const [ops1, ops2] = await Promise.all(
          ['one', 'two'].map((n) => signedInOperator(rail.app, `ops-${n}-${factory.name}`, ['ops'])),
        );
        const filed = await rail.app.inject({
          method: 'POST',
          url: '/api/admin/approvals',
          headers: ops1,
          payload: { action: 'key.rotate', params: { tenant: tenant() } },
        });
        assert.equal(filed.statusCode, 201, filed.body);
        const approved = await rail.app.inject({
          method: 'POST',
          url: `/api/admin/approvals/${filed.json().approval.approvalId}/approve`,
          headers: ops2,
          payload: {},
        });
        assert.equal(approved.statusCode, 200, approved.body);
        const { kid } = approved.json().approval.result;
        const row = await rail.db
          .selectFrom('signing_keys')
          .select(['key_backend', 'object_label', 'sealed_private_key'])
          .where('kid', '=', kid)
          .executeTakeFirstOrThrow();
        assert.deepEqual(row, {
          key_backend: 'pkcs11',
          object_label: `openrail/${tenant()}/issuer/${kid}`,
          sealed_private_key: null,
        });
        // As after any rotation, a verifier reads the issuer's DID document again once it has kept it
        // ISSUER_DOCUMENT_TTL_MS (the status list is signed by the new key already).
        now += Math.max(ISSUER_DOCUMENT_TTL_MS, ACTIVE_KEY_TTL_MS) + 1;
        const outcome = await verifiedOn(rail.app, before);
        assert.equal(outcome.ok, true, JSON.stringify(outcome));
        // And outside the service: the reference verifier and the OWF SD-JWT VC library, given the
        // DID document and the status list (signed by the new key in the token) as published.
        const didDocument = (await rail.app.inject({ method: 'GET', url: `/t/${tenant()}/did.json` })).json() as {
          verificationMethod: { id: string; publicKeyJwk: JWK }[];
        };
        const statusList = (await rail.app.inject({ method: 'GET', url: `/t/${tenant()}/status/1` })).body;
        assert.equal(kidOf(statusList), kid);
        const vct = String(decodeJwt(before.credential.split('~')[0] as string).vct);
        const nonce = randomBytes(16).toString('base64url');
        const reference = verifyPresentation({
          presentation: await present(before.credential, before.key, ['holder_name'], {
            aud: 'https://shop.example',
            nonce,
            iat: Math.floor(now / 1000),
          }),
          didDocument,
          statusList,
          expected: { aud: 'https://shop.example', nonce, vct, claims: ['holder_name'] },
          now: Math.floor(now / 1000),
        });
        assert.equal(reference.verdict, 'accept', JSON.stringify(reference.failure));
        const keyOf = (id: unknown) => {
          const method = didDocument.verificationMethod.find((m) => m.id.endsWith(`#${String(id).split('#').pop()}`));
          assert.ok(method, `the DID document publishes ${String(id)}`);
          return method.publicKeyJwk;
        };
        const owf = new SDJwtVcInstance({
          hasher: digest,
          verifier: await ES256.getVerifier(keyOf(kidOf(before.credential))),
          statusVerifier: await ES256.getVerifier(keyOf(decodeProtectedHeader(statusList).kid)),
          statusListFetcher: async () => statusList,
        });
        assert.equal((await owf.verify(before.credential, { currentDate: Math.floor(now / 1000) })).payload.vct, vct);
      });

      test('the platform verifier key rotates into the token too; once retired, its token object is deleted', async () => {
        const [ops1, ops2] = await Promise.all(
          ['three', 'four'].map((n) => signedInOperator(rail.app, `ops-${n}-${factory.name}`, ['ops'])),
        );
        const previous = await rail.db
          .selectFrom('signing_keys')
          .select(['kid', 'object_label'])
          .where('tenant', '=', 'root')
          .where('purpose', '=', 'verifier')
          .where('superseded_at', 'is', null)
          .executeTakeFirstOrThrow();
        const filed = await rail.app.inject({
          method: 'POST',
          url: '/api/admin/approvals',
          headers: ops1,
          payload: { action: 'key.rotate', params: { tenant: 'root', purpose: 'verifier' } },
        });
        assert.equal(filed.statusCode, 201, filed.body);
        const approved = await rail.app.inject({
          method: 'POST',
          url: `/api/admin/approvals/${filed.json().approval.approvalId}/approve`,
          headers: ops2,
          payload: {},
        });
        assert.equal(approved.statusCode, 200, approved.body);
        assert.deepEqual(
          [
            approved.json().approval.result.purpose,
            approved.json().approval.result.previousKid,
            approved.json().approval.result.listsResigned,
          ],
          ['verifier', previous.kid, 0],
        );
        now += Math.max(ISSUER_DOCUMENT_TTL_MS, ACTIVE_KEY_TTL_MS) + 1;
        const issued = await issueOne(rail.app, tenant(), typeId, PASS_SUBJECT);
        assert.equal((await verifiedOn(rail.app, issued)).ok, true, 'request objects signed by the new verifier key');
        assert.ok(
          tokenObjects(token).some((o) => o.label === previous.object_label),
          'superseded, still in the token',
        );
        now += RETIREMENT.everyMs;
        await rail.jobs.tick();
        const retired = await rail.db
          .selectFrom('signing_keys')
          .select('retired_at')
          .where('kid', '=', previous.kid)
          .executeTakeFirstOrThrow();
        assert.notEqual(retired.retired_at, null, 'nothing it signed can be presented: retired');
        assert.ok(!tokenObjects(token).some((o) => o.label === previous.object_label), 'and its token object deleted');
      });

      test('no row holds private key material; every key object in the token is sensitive and not extractable', async () => {
        for (const table of ['signing_keys', 'certificate_authority'] as const) {
          const rows = await sql<{ key_backend: string; sealed_private_key: string | null; object_label: string }>`
            select key_backend, sealed_private_key, object_label from ${sql.table(table)}`.execute(rail.db);
          assert.ok(rows.rows.length > 0);
          for (const r of rows.rows) {
            assert.equal(r.key_backend, 'pkcs11', `${table}: ${r.object_label}`);
            assert.equal(r.sealed_private_key, null);
          }
        }
        // Every key not retired is in the token (a retired key's objects are deleted).
        const labels = (
          await rail.db.selectFrom('signing_keys').select('object_label').where('retired_at', 'is', null).execute()
        ).map((r) => r.object_label);
        const objects = tokenObjects(token);
        for (const label of labels) {
          const object = objects.find((o) => o.label === label);
          assert.ok(object, `the token holds ${label}`);
          assert.deepEqual([object.sensitive, object.extractable], [true, false]);
        }
        assert.ok(
          objects.some((o) => o.label.startsWith('openrail/platform-ca/')),
          'the platform root is in the token',
        );
      });

      test('ops/keys shows each key where it lives; ops/health finds every active key in the token, and names one deleted', async () => {
        const ops = await signedInOperator(rail.app, `ops-health-${factory.name}`, ['ops']);
        const keys = (await rail.app.inject({ method: 'GET', url: '/api/admin/ops/keys?limit=200', headers: ops })).json()
          .keys as Array<{
          kid: string;
          retiredAt: string | null;
          backend: string;
          keyObject: { label: string; present: boolean; sensitive: boolean; extractable: boolean } | null;
        }>;
        assert.ok(keys.length >= 4);
        for (const k of keys) {
          assert.equal(k.backend, 'pkcs11');
          assert.ok(k.keyObject?.label.endsWith(`/${k.kid}`), k.kid);
          if (k.retiredAt === null)
            assert.deepEqual([k.keyObject?.present, k.keyObject?.sensitive, k.keyObject?.extractable], [true, true, false]);
          else assert.equal(k.keyObject?.present, false, 'a retired key’s object is gone');
        }
        const health = async () =>
          (await rail.app.inject({ method: 'GET', url: '/api/admin/ops/health', headers: ops })).json().components.keys as {
            state: string;
            token: string;
            loggedIn: boolean;
            signLatencyMs: number | null;
            activeKeys: number;
            missing: Array<{ tenant: string; kid: string }>;
          };
        const well = await health();
        assert.deepEqual([well.state, well.token, well.loggedIn, well.missing], ['ok', token.label, true, []]);
        assert.equal(typeof well.signLatencyMs, 'number');
        // A backup names the token objects its keys are, holds none of them, and its drill makes each sign.
        const first = await backupAndDrill(ops);
        assert.deepEqual(
          first.drill.checks.filter((c) => !c.ok),
          [],
        );
        assert.match(
          first.drill.checks.find((c) => c.check === 'keys')?.detail ?? '',
          /^\d+ keys that sign sign where this deployment keeps keys/,
        );
        const references = first.manifest.keys as Array<{ backend: string; token: string; label: string; purpose: string }>;
        assert.ok(references.some((k) => k.purpose === 'certificate-authority'));
        for (const k of references) assert.deepEqual([k.backend, k.token], ['pkcs11', token.label], k.label);
        assert.match(
          keysNeeded(first.manifest),
          new RegExp(`^0 keys are sealed[\\s\\S]*objects of the PKCS#11 token ${token.label}`),
        );
        // A tenant whose key someone deletes from the token: health names it, and the tenant cannot issue.
        const beta = `beta-${factory.name}`;
        const made = await rail.app.inject({
          method: 'POST',
          url: '/api/tenants',
          headers: owner,
          payload: { name: `Beta ${factory.name}` },
        });
        assert.equal(made.statusCode, 201, made.body);
        const betaKey = await rail.db
          .selectFrom('signing_keys')
          .select(['kid', 'object_label'])
          .where('tenant', '=', beta)
          .where('purpose', '=', 'issuer')
          .executeTakeFirstOrThrow();
        deleteObjects(token, betaKey.object_label as string);
        const ill = await health();
        assert.equal(ill.state, 'down');
        assert.deepEqual(ill.missing, [{ tenant: beta, kid: betaKey.kid, label: betaKey.object_label }]);
        const second = await backupAndDrill(ops);
        assert.equal(second.drill.ok, false);
        const keysCheck = second.drill.checks.find((c) => c.check === 'keys');
        assert.equal(keysCheck?.ok, false);
        assert.ok(
          keysCheck?.detail.includes(`${beta}/issuer ${betaKey.kid} (object ${betaKey.object_label} in ${token.label})`),
          keysCheck?.detail,
        );
        const betaType = (await registerType(rail.app, beta, 'pass')).typeId;
        const { code } = await createOffer(rail.app, { tenant: beta, typeId: betaType, subject: PASS_SUBJECT });
        const { access_token, c_nonce } = await accessToken(rail.app, beta, code);
        const holder = await newHolderKey();
        const refused = await requestCredential(rail.app, beta, access_token, {
          credential_configuration_id: betaType,
          proofs: { jwt: [await proofJwt(holder, { aud: issuerId(beta), nonce: c_nonce, iat: railSeconds(rail.app) })] },
        });
        assert.equal(refused.statusCode, 503, refused.body);
        assert.equal(refused.json().error, 'signing_unavailable');
      });

      test('a token lost: signing answers 503 signing_unavailable with Retry-After and spends nothing, the rest answers; back, it signs again without a restart', async () => {
        const issued = await issueOne(rail.app, tenant(), typeId, PASS_SUBJECT);
        const victim = await issueOne(rail.app, tenant(), typeId, PASS_SUBJECT);
        // The list as signed now, served while the token is gone.
        assert.equal((await rail.app.inject({ method: 'GET', url: `/t/${tenant()}/status/1` })).statusCode, 200);
        // A credential request made ready before the token goes: its access token and proof.
        const { code } = await createOffer(rail.app, { tenant: tenant(), typeId, subject: PASS_SUBJECT });
        const { access_token, c_nonce } = await accessToken(rail.app, tenant(), code);
        const holder = await newHolderKey();
        const request = {
          credential_configuration_id: typeId,
          proofs: { jwt: [await proofJwt(holder, { aud: issuerId(tenant()), nonce: c_nonce, iat: railSeconds(rail.app) })] },
        };
        const support = await signedInOperator(rail.app, `support-lost-${factory.name}`, ['support']);
        const requestsBefore = (await rail.db.selectFrom('compliance_requests').select('id').execute()).length;
        const away = `${token.tokens}-away`;
        renameSync(token.tokens, away);
        try {
          const refusals = [
            await requestCredential(rail.app, tenant(), access_token, request),
            await rail.app.inject({
              method: 'POST',
              url: '/api/admin/compliance/dsar/negative-response',
              headers: support,
              payload: { subject: { accountId: accountOf(await newHolderKey()) }, source: 'Letter' },
            }),
          ];
          for (const refused of refusals) {
            assert.equal(refused.statusCode, 503, refused.body);
            assert.equal(refused.json().error, 'signing_unavailable');
            assert.equal(refused.headers['retry-after'], String(TOKEN_RETRY_SECONDS));
          }
          assert.equal((await rail.db.selectFrom('compliance_requests').select('id').execute()).length, requestsBefore);
          // What needs no new signature answers: DID documents, the signed status list, the CA,
          // the verification page and catalogue, and a hosted verification being opened.
          for (const url of [
            `/t/${tenant()}/did.json`,
            '/.well-known/did.json',
            `/t/${tenant()}/status/1`,
            '/.well-known/openrail-ca.pem',
            '/verify',
            '/verify/catalog',
          ]) {
            assert.equal((await rail.app.inject({ method: 'GET', url })).statusCode, 200, url);
          }
          const opened = await rail.app.inject({
            method: 'POST',
            url: '/verify/request',
            payload: {
              vct: decodeJwt(issued.credential.split('~')[0] as string).vct,
              claims: ['holder_name'],
              nonce: 'n-0123456789abcdef',
              aud: 'https://shop.example',
            },
          });
          assert.equal(opened.statusCode, 201, opened.body);
          // A revocation needs no signature; the list it changes is not served as last signed.
          const revoked = await rail.app.inject({
            method: 'POST',
            url: '/api/revoke',
            headers: owner,
            payload: { tenant: tenant(), status: statusOf(victim.credential), reason: 'Lost.' },
          });
          assert.equal(revoked.statusCode, 200, revoked.body);
          const stale = await rail.app.inject({ method: 'GET', url: `/t/${tenant()}/status/1` });
          assert.equal(stale.statusCode, 503, stale.body);
          assert.equal(stale.json().error, 'signing_unavailable');
        } finally {
          renameSync(away, token.tokens);
        }
        await new Promise((r) => setTimeout(r, TOKEN_RETRY_SECONDS * 1000 + 100));
        // The same request, refused while the token was gone, is answered now: nothing was spent.
        const answered = await requestCredential(rail.app, tenant(), access_token, request);
        assert.equal(answered.statusCode, 200, answered.body);
        const credential = answered.json().credentials[0].credential as string;
        assert.equal((await verifiedOn(rail.app, { credential, key: holder })).ok, true);
        assert.equal((await verifiedOn(rail.app, issued)).ok, true);
        assert.equal((await verifiedOn(rail.app, victim)).ok, false, 'revoked while the token was gone');
      });

      test('a process started while the token is gone serves what needs no signature, and signs once the token is back', async () => {
        const away = `${token.tokens}-away`;
        renameSync(token.tokens, away);
        let late: TestRail | undefined;
        try {
          late = await startRail(db, { ...token.env, OPENRAIL_DEMO: 'off', OPENRAIL_BACKUP_DIR: backupDir }, clock, {
            runJobs: false,
          });
          assert.equal((await late.app.inject({ method: 'GET', url: `/t/${tenant()}/did.json` })).statusCode, 200);
          const refused = await late.app.inject({
            method: 'POST',
            url: '/api/admin/compliance/dsar/negative-response',
            headers: await signedInOperator(late.app, `support-late-${factory.name}`, ['support']),
            payload: { subject: { accountId: accountOf(await newHolderKey()) }, source: 'Letter' },
          });
          assert.equal(refused.statusCode, 503, refused.body);
        } finally {
          renameSync(away, token.tokens);
        }
        try {
          await new Promise((r) => setTimeout(r, TOKEN_RETRY_SECONDS * 1000 + 100));
          const issued = await issueOne(late.app, tenant(), typeId, PASS_SUBJECT);
          assert.equal((await verifiedOn(late.app, issued)).ok, true);
        } finally {
          await late?.stop();
        }
      });
    });
  }
});
