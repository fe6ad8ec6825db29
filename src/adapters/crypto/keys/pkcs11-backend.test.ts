import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { calculateJwkThumbprint, compactVerify, importJWK } from 'jose';
import pkcs11js from 'pkcs11js';
import { rawSession, type SoftToken, softhsmMissing, softToken } from '../../../../test/helpers/softhsm.ts';
import { ServiceError } from '../../../core/errors.ts';
import { signEs256With } from '../../../core/jose/es256.ts';
import type { GeneratedKey, KeyOwner } from '../../../ports/key-backend.ts';
import { Pkcs11KeyBackend } from './pkcs11-backend.ts';
import { TOKEN_RETRY_SECONDS } from './unavailable.ts';

const skip = softhsmMissing();
const OWNER: KeyOwner = { tenant: 'city-of-ghent', purpose: 'issuer' };

/** A JWS signed by `key` through `backend`, and whether its public key verifies it. */
async function signAndVerify(backend: Pkcs11KeyBackend, key: GeneratedKey, payload: Record<string, unknown> = { n: 1 }) {
  const jws = await signEs256With((input) => backend.sign(OWNER, key.kid, key.ref, input), { typ: 'JWT', kid: key.kid }, payload);
  const { payload: bytes } = await compactVerify(jws, await importJWK(key.publicJwk, 'ES256'));
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
}

/** The refusal a token that cannot sign gives: 503 signing_unavailable with Retry-After. */
function isUnavailable(err: unknown): boolean {
  return (
    err instanceof ServiceError &&
    err.code === 'signing_unavailable' &&
    err.status === 503 &&
    err.headers['retry-after'] === String(TOKEN_RETRY_SECONDS)
  );
}

describe('keys in a PKCS#11 token (SoftHSM)', { skip }, () => {
  let token: SoftToken;
  before(() => {
    token = softToken();
  });
  after(() => token.remove());

  test('a refused PIN is not presented again until the PIN file changes; then the token signs, without a new backend', async () => {
    const pinFile = join(token.tokens, '..', 'pin');
    writeFileSync(pinFile, 'not-the-pin\n');
    const backend = new Pkcs11KeyBackend({ module: token.module, token: { label: token.label }, pin: { file: pinFile } });
    try {
      await assert.rejects(
        backend.generate(OWNER),
        (err) => isUnavailable(err) && /CKR_PIN_INCORRECT/.test((err as Error).message),
      );
      const health = await backend.health();
      assert.equal(health.loggedIn, false);
      assert.match(health.problem ?? '', /CKR_PIN_INCORRECT/);
      assert.ok(!JSON.stringify(health).includes('not-the-pin'), 'health never shows the PIN');
      // Within the retry window nothing is tried; after it, the same refused PIN is still not presented.
      await new Promise((r) => setTimeout(r, TOKEN_RETRY_SECONDS * 1000 + 100));
      await assert.rejects(
        backend.generate(OWNER),
        (err) => isUnavailable(err) && /not presented again/.test((err as Error).message),
      );
      writeFileSync(pinFile, `${token.pin}\n`);
      await new Promise((r) => setTimeout(r, TOKEN_RETRY_SECONDS * 1000 + 100));
      const key = await backend.generate(OWNER);
      assert.deepEqual(await signAndVerify(backend, key), { n: 1 });
    } finally {
      await backend.close();
    }
  });

  describe('with the right PIN', () => {
    let backend: Pkcs11KeyBackend;
    let key: GeneratedKey;
    before(async () => {
      backend = new Pkcs11KeyBackend({
        module: token.module,
        token: { label: token.label },
        pin: { value: token.pin },
        sessions: 3,
      });
      key = await backend.generate(OWNER);
    });
    after(() => backend.close());

    test('a key is made in the token: sensitive, never extractable, labelled with tenant, purpose and kid; its kid is its thumbprint', async () => {
      assert.equal(key.kid, await calculateJwkThumbprint(key.publicJwk, 'sha256'));
      assert.equal(key.ref.backend, 'pkcs11');
      if (key.ref.backend !== 'pkcs11') return;
      assert.equal(key.ref.token, token.label);
      assert.equal(key.ref.label, `openrail/city-of-ghent/issuer/${key.kid}`);
      assert.match(key.ref.id, /^[0-9a-f]{32}$/);
      assert.deepEqual(await backend.inspect(OWNER, key.kid, key.ref), {
        present: true,
        token: { sensitive: true, extractable: false, neverExtractable: true, alwaysSensitive: true, local: true },
      });
      // Another application on the token finds both halves by the label, and cannot read the private value.
      const raw = rawSession(token);
      const [privateKey] = raw.objects([
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
        { type: pkcs11js.CKA_LABEL, value: key.ref.label },
      ]);
      assert.ok(privateKey);
      assert.throws(
        () => raw.lib.C_GetAttributeValue(raw.session, privateKey, [{ type: pkcs11js.CKA_VALUE }]),
        /CKR_ATTRIBUTE_SENSITIVE/,
      );
      const usage = raw.lib.C_GetAttributeValue(raw.session, privateKey, [
        { type: pkcs11js.CKA_DECRYPT },
        { type: pkcs11js.CKA_UNWRAP },
        { type: pkcs11js.CKA_DERIVE },
        { type: pkcs11js.CKA_SIGN },
      ]);
      assert.deepEqual(
        usage.map((a) => a.value[0]),
        [0, 0, 0, 1],
        'signs, and nothing else',
      );
      raw.close();
    });

    test('signatures verify under the stored public key, 200 at once over three sessions', async () => {
      const payloads = await Promise.all(Array.from({ length: 200 }, (_, n) => signAndVerify(backend, key, { n })));
      assert.deepEqual(
        payloads.map((p) => p.n),
        Array.from({ length: 200 }, (_, n) => n),
      );
    });

    test('sessions closed under it are reopened once, and the signature made', async () => {
      const raw = rawSession(token);
      raw.lib.C_CloseAllSessions(raw.slot);
      assert.deepEqual(await signAndVerify(backend, key, { after: 'closed sessions' }), { after: 'closed sessions' });
    });

    test('a token lost answers 503 signing_unavailable with Retry-After; signing resumes once it is back, without a restart', async () => {
      const away = `${token.tokens}-away`;
      renameSync(token.tokens, away);
      try {
        await assert.rejects(signAndVerify(backend, key), isUnavailable);
        const health = await backend.health();
        assert.equal(health.loggedIn, false);
        assert.ok(health.problem);
      } finally {
        renameSync(away, token.tokens);
      }
      await new Promise((r) => setTimeout(r, TOKEN_RETRY_SECONDS * 1000 + 100));
      assert.deepEqual(await signAndVerify(backend, key, { back: true }), { back: true });
      assert.equal((await backend.health()).loggedIn, true);
    });

    test('a key deleted from the token is reported absent and refuses to sign with 503, naming the key', async () => {
      const doomed = await backend.generate({ tenant: 'city-of-ghent', purpose: 'verifier' });
      assert.equal(await backend.destroy(doomed.ref), true);
      assert.equal(await backend.destroy(doomed.ref), false, 'nothing left to destroy');
      assert.deepEqual(await backend.inspect(OWNER, doomed.kid, doomed.ref), { present: false });
      await assert.rejects(
        backend.sign(OWNER, doomed.kid, doomed.ref, Buffer.from('x')),
        (err) => isUnavailable(err) && (err as Error).message.includes(doomed.kid),
      );
      // The other key still signs.
      assert.deepEqual(await signAndVerify(backend, key, { still: true }), { still: true });
    });

    test('a reference to another token, or a sealed key, is not this backend’s', async () => {
      if (key.ref.backend !== 'pkcs11') return;
      await assert.rejects(backend.sign(OWNER, key.kid, { ...key.ref, token: 'another-token' }, Buffer.from('x')), isUnavailable);
      await assert.rejects(backend.sign(OWNER, key.kid, { backend: 'sealed', sealed: 'v1.x.y.z' }, Buffer.from('x')), /sealed/);
    });
  });
});
