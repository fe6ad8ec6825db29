/**
 * Several processes, one token (issue 50): `openrail serve --workers 2` with OPENRAIL_KEYS=pkcs11
 * on a SoftHSM token. Each worker opens and logs in its own sessions; credentials asked of both
 * at once are all signed in the token and all verify with the tenant's published key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { testDatabases } from '../helpers/databases.ts';
import { newHolderKey } from '../helpers/holder.ts';
import { PRE_AUTH, proofJwt } from '../helpers/issuance.ts';
import { freePort, killAll, logLines, SERVING_BANNER, spawnOpenrail } from '../helpers/process.ts';
import { softhsmMissing, softToken } from '../helpers/softhsm.ts';

const OWNER = 'token-workers-owner-token-0123456789abcdef';
const MASTER_KEY = Buffer.alloc(32, 9).toString('base64url');
const skip = softhsmMissing();
after(killAll);

const factory = testDatabases().find((f) => f.name === 'postgres') ?? testDatabases()[0];

describe('two serving processes sign with one token at once', { skip }, () => {
  test('credentials asked of both workers together are all signed in the token and verify', { timeout: 180_000 }, async () => {
    assert.ok(factory);
    const token = softToken('openrail-workers');
    const target = await factory.create();
    const dataDir = mkdtempSync(join(tmpdir(), 'openrail-token-workers-'));
    try {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const proc = spawnOpenrail(['serve', '--workers', '2'], {
        ...token.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_URL: origin,
        DATABASE_URL: target.url,
        OPENRAIL_DATA_DIR: dataDir,
        OPENRAIL_OWNER_TOKEN: OWNER,
        OPENRAIL_MASTER_KEY: MASTER_KEY,
        OPENRAIL_DEMO: 'off',
      });
      await proc.waitForStdout(SERVING_BANNER, 90_000);
      const api = async (path: string, body: unknown) => {
        const res = await fetch(`${origin}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        assert.equal(res.status, 201, text);
        return JSON.parse(text) as Record<string, unknown>;
      };
      const tenant = String((await api('/api/tenants', { name: 'Token City' })).slug);
      const typeId = String((await api('/api/types', { tenant, name: 'Card', claims: ['name'] })).typeId);
      const issueOne = async (n: number) => {
        const created = await api('/api/offers', { tenant, typeId, subject: { name: `Holder ${n}` } });
        const offer = JSON.parse(new URL(String(created.offerUri)).searchParams.get('credential_offer') ?? 'null');
        const tokenRes = await fetch(`${origin}/t/${tenant}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: PRE_AUTH,
            'pre-authorized_code': offer.grants[PRE_AUTH]['pre-authorized_code'],
          }),
        });
        const { access_token, c_nonce } = (await tokenRes.json()) as { access_token: string; c_nonce: string };
        const key = await newHolderKey();
        const proof = await proofJwt(key, { aud: `${origin}/t/${tenant}`, nonce: c_nonce });
        const res = await fetch(`${origin}/t/${tenant}/credential`, {
          method: 'POST',
          headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ credential_configuration_id: typeId, proofs: { jwt: [proof] } }),
        });
        const text = await res.text();
        assert.equal(res.status, 200, text);
        return (JSON.parse(text) as { credentials: Array<{ credential: string }> }).credentials[0]?.credential as string;
      };
      const credentials = await Promise.all(Array.from({ length: 24 }, (_, n) => issueOne(n)));

      const did = (await (await fetch(`${origin}/t/${tenant}/did.json`)).json()) as {
        verificationMethod: Array<{ id: string; publicKeyJwk: JWK }>;
      };
      for (const credential of credentials) {
        const jwt = credential.split('~')[0] as string;
        const kid = String(decodeProtectedHeader(jwt).kid);
        const method = did.verificationMethod.find((m) => m.id === kid || kid.endsWith(m.id.split('#').pop() ?? '#'));
        assert.ok(method, `the DID document publishes ${kid}`);
        await compactVerify(jwt, await importJWK(method.publicKeyJwk, 'ES256'));
        assert.equal(decodeJwt(jwt).name === undefined, true, 'selectively disclosable: the claim is a disclosure');
      }
      // Both workers answered credential requests: each signed with its own sessions on the token.
      const signers = new Set(
        logLines(proc.stdout())
          .filter((l) => l.msg === 'request' && l.route === '/t/:tenant/credential' && l.status === 200)
          .map((l) => l.pid),
      );
      assert.equal(signers.size, 2, `credential requests answered by ${[...signers].join(', ')}`);
    } finally {
      await killAll();
      await target.drop();
      rmSync(dataDir, { recursive: true, force: true });
      token.remove();
    }
  });
});
