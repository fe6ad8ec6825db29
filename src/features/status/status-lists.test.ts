import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { type TestDatabase, tablesOf, testDatabases } from '../../../test/helpers/databases.ts';
import { newHolderKey } from '../../../test/helpers/holder.ts';
import {
  accessToken,
  createOffer,
  freshNonce,
  issueOne,
  issuerId,
  issuerPath,
  PASS_SUBJECT,
  proofJwt,
  registerType,
  requestCredential,
} from '../../../test/helpers/issuance.ts';
import { bearer, owner, PUBLIC_URL, railOn, stopRail, type TestRail } from '../../../test/helpers/rail.ts';
import type { Clock } from '../../core/clock.ts';
import { decompressStatusList, readStatus } from '../../core/status-list/codec.ts';

const STATUS_LIST_MEDIA_TYPE = 'application/statuslist+jwt';

/** A subject whose values are easy to look for in stored rows. */
const SUBJECT = {
  ...PASS_SUBJECT,
  holder_name: 'Zebedee Quillfeather',
  birth_date: '1871-03-14',
  zones: ['Zone-Kappa', 'Zone-Lambda'],
  trips: [{ from: 'Wexhampton', to: 'Orrinsby' }],
};

/** Only what revocation, support and audit need: no column may hold claim values. */
const LEDGER_COLUMNS = [
  'expires_at',
  'holder_thumbprint',
  'id',
  'idx',
  'issued_at',
  'list_seq',
  'offer_id',
  'revoked_at',
  'tenant',
  'type_id',
];

interface StatusRef {
  uri: string;
  idx: number;
}

interface Issued {
  credential: string;
  status: StatusRef;
  holderThumbprint: string;
}

/** The status reference an SD-JWT VC carries in its issuer-signed JWT. */
function statusOf(credential: string): StatusRef {
  const jwt = credential.split('~')[0] ?? '';
  const payload = decodeJwt(jwt) as { status?: { status_list?: StatusRef } };
  const ref = payload.status?.status_list;
  assert.ok(ref, 'the credential carries status.status_list');
  assert.deepEqual(Object.keys(ref).sort(), ['idx', 'uri']);
  assert.equal(typeof ref.uri, 'string');
  assert.ok(Number.isInteger(ref.idx) && ref.idx >= 0, String(ref.idx));
  return ref;
}

/** The path of one of our status URIs, for inject. */
function pathOf(uri: string): string {
  assert.ok(uri.startsWith(`${PUBLIC_URL}/`), uri);
  return uri.slice(PUBLIC_URL.length);
}

/** The status-list URI pattern of an issuer: <PUBLIC_URL>/t/<slug>/status/<seq>, root at the base. */
const listUriPattern = (tenant: string) =>
  new RegExp(`^${(PUBLIC_URL + issuerPath(tenant)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/status/([1-9][0-9]*)$`);

for (const factory of testDatabases()) {
  describe(`token status lists and revocation over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let counter = 0;
    // Real time, moved forward by hand where a test must tell a first revocation from a repeat.
    let skew = 0;
    const clock: Clock = { now: () => Date.now() + skew };
    const later = () => {
      skew += 5_000;
    };

    before(async () => {
      ({ db, rail } = await railOn(factory, {}, clock));
    });
    after(() => stopRail(rail, db));

    const get = (url: string, headers: Record<string, string> = {}) => rail.app.inject({ method: 'GET', url, headers });
    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as object });
    const revokeApi = (body: unknown, headers: Record<string, string> = owner) => post('/api/revoke', body, headers);
    const revokeTenant = (tenant: string, body: unknown, headers: Record<string, string> = owner) =>
      post(`/api/tenants/${tenant}/revoke`, body, headers);

    /** A fresh tenant with a registered type, so every test reads lists nobody else writes to. */
    const newTenant = async (label: string) => {
      const res = await post('/api/tenants', { name: `${label} Lines ${++counter}` });
      assert.equal(res.statusCode, 201, res.body);
      const { slug, did } = res.json() as { slug: string; did: string };
      const { typeId } = await registerType(rail.app, slug, `Pass ${counter}`);
      return { slug, did, typeId };
    };

    const issue = async (tenant: string, typeId: string): Promise<Issued> => {
      const { credential, key } = await issueOne(rail.app, tenant, typeId, SUBJECT);
      return { credential, status: statusOf(credential), holderThumbprint: await calculateJwkThumbprint(key.publicJwk) };
    };

    /** One offer collected as a batch of `n` credentials, each bound to its own key. */
    const issueBatch = async (tenant: string, typeId: string, n: number) => {
      const { offerId, code } = await createOffer(rail.app, { tenant, typeId, subject: SUBJECT });
      const { access_token, c_nonce } = await accessToken(rail.app, tenant, code);
      const proofs: string[] = [];
      for (let i = 0; i < n; i++) {
        const nonce = i === 0 ? c_nonce : await freshNonce(rail.app, tenant);
        proofs.push(await proofJwt(await newHolderKey(), { aud: issuerId(tenant), nonce }));
      }
      const res = await requestCredential(rail.app, tenant, access_token, {
        credential_configuration_id: typeId,
        proofs: { jwt: proofs },
      });
      assert.equal(res.statusCode, 200, res.body);
      const credentials = (res.json().credentials as Array<{ credential: string }>).map((c) => c.credential);
      assert.equal(credentials.length, n);
      return { offerId, statuses: credentials.map(statusOf) };
    };

    /** Fetches a status list and checks everything a relying party checks; returns its claims and bits. */
    const fetchList = async (uri: string, tenant: string, did: string) => {
      const res = await get(pathOf(uri), { accept: STATUS_LIST_MEDIA_TYPE });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(String(res.headers['content-type']).split(';')[0]?.trim(), STATUS_LIST_MEDIA_TYPE);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      const jwt = res.body;
      assert.match(jwt, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'a compact JWS');

      // The issuer key is the one its DID document publishes as an assertion method.
      const docRes = await get(tenant === 'root' ? '/.well-known/did.json' : `/t/${tenant}/did.json`);
      assert.equal(docRes.statusCode, 200, docRes.body);
      const doc = docRes.json() as {
        id: string;
        verificationMethod: Array<{ id: string; publicKeyJwk: JWK }>;
        assertionMethod: string[];
      };
      assert.equal(doc.id, did);

      const header = decodeProtectedHeader(jwt);
      assert.equal(header.typ, 'statuslist+jwt');
      assert.equal(header.alg, 'ES256');
      assert.equal(typeof header.kid, 'string');
      const method = doc.verificationMethod.find((m) => m.id === `${did}#${header.kid}`);
      assert.ok(method, `the DID document publishes ${did}#${header.kid}`);
      assert.ok(doc.assertionMethod.includes(method.id), 'the list is signed by an assertion (issuer) key');
      assert.equal(header.kid, await calculateJwkThumbprint(method.publicKeyJwk, 'sha256'), 'kid is the RFC 7638 thumbprint');

      const { payload } = await jwtVerify(jwt, await importJWK(method.publicKeyJwk, 'ES256'), {
        currentDate: new Date(clock.now()),
        typ: 'statuslist+jwt',
        algorithms: ['ES256'],
        issuer: did,
        subject: uri,
      });
      assert.equal(payload.iss, did);
      assert.equal(payload.sub, uri);
      const { iat, exp, ttl } = payload as { iat: number; exp: number; ttl: number };
      assert.ok(Number.isInteger(iat), String(iat));
      assert.ok(Math.abs(iat - clock.now() / 1000) < 120, 'iat is now');
      assert.ok(Number.isInteger(exp) && exp > iat, `exp ${exp} after iat ${iat}`);
      assert.ok(typeof ttl === 'number' && ttl > 0, String(ttl));

      const maxAge = /(?:^|[,\s])max-age=(\d+)(?:$|[,\s])/.exec(String(res.headers['cache-control']));
      assert.ok(maxAge, `Cache-Control carries max-age: ${res.headers['cache-control']}`);
      assert.equal(Number(maxAge[1]), ttl, 'HTTP max-age equals the token ttl');

      const list = payload.status_list as { bits: number; lst: string };
      assert.deepEqual(Object.keys(list).sort(), ['bits', 'lst']);
      assert.equal(list.bits, 1);
      assert.match(list.lst, /^[A-Za-z0-9_-]+$/, 'base64url without padding');
      const bytes = decompressStatusList(list.lst);
      assert.ok(bytes.length > 0);
      return { payload, bytes, size: bytes.length * 8 };
    };

    /** Every index whose bit is set in a fetched list. */
    const setBits = (bytes: Uint8Array) => {
      const set: number[] = [];
      for (let i = 0; i < bytes.length * 8; i++) if (readStatus(bytes, 1, i) === 1) set.push(i);
      return set;
    };

    const ledger = (tenant: string) =>
      rail.db.selectFrom('issued_credentials').selectAll().where('tenant', '=', tenant).orderBy('id').execute();
    const ledgerAll = () => rail.db.selectFrom('issued_credentials').selectAll().orderBy('id').execute();
    const rowAt = async (tenant: string, status: StatusRef) => {
      const seq = Number(listUriPattern(tenant).exec(status.uri)?.[1]);
      const row = await rail.db
        .selectFrom('issued_credentials')
        .selectAll()
        .where('tenant', '=', tenant)
        .where('list_seq', '=', seq)
        .where('idx', '=', status.idx)
        .executeTakeFirst();
      assert.ok(row, `a ledger row for ${status.uri}#${status.idx}`);
      return row;
    };

    /** Checks a 200 revocation answer against the stored rows; returns the entries. */
    const assertRevoked = async (res: LightMyRequestResponse, tenant: string, typeId: string, expected: StatusRef[]) => {
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as {
        revoked: Array<{ credentialId: string; typeId: string; status: StatusRef; issuedAt: string; revokedAt: string }>;
      };
      assert.deepEqual(Object.keys(body), ['revoked']);
      assert.equal(body.revoked.length, expected.length, res.body);
      assert.deepEqual(
        body.revoked.map((r) => `${r.status.uri}#${r.status.idx}`).sort(),
        expected.map((s) => `${s.uri}#${s.idx}`).sort(),
      );
      for (const r of body.revoked) {
        assert.deepEqual(Object.keys(r).sort(), ['credentialId', 'issuedAt', 'revokedAt', 'status', 'typeId']);
        assert.deepEqual(Object.keys(r.status).sort(), ['idx', 'uri']);
        assert.equal(r.typeId, typeId);
        const row = await rowAt(tenant, r.status);
        assert.equal(r.credentialId, row.id);
        assert.equal(row.type_id, typeId);
        assert.ok(row.revoked_at !== null, 'the row is marked revoked');
        assert.equal(new Date(r.issuedAt).toISOString(), r.issuedAt, 'issuedAt is an ISO date-time');
        assert.equal(new Date(r.revokedAt).toISOString(), r.revokedAt, 'revokedAt is an ISO date-time');
        assert.equal(Date.parse(r.issuedAt), Number(row.issued_at));
        assert.equal(Date.parse(r.revokedAt), Number(row.revoked_at));
        assert.ok(Date.parse(r.revokedAt) >= Date.parse(r.issuedAt));
      }
      return body.revoked;
    };

    const assertError = (res: LightMyRequestResponse, status: number, error: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.json().error, error, res.body);
      assert.equal(typeof res.json().message, 'string');
    };

    /** Creates an operator (optionally tenant-scoped) and signs it in. */
    const operatorToken = async (roles: string[], tenant?: string) => {
      const username = `op-${++counter}`;
      const password = `Pw-${counter}-correct-horse-battery-staple`;
      const created = await post('/api/operators', { username, password, roles, ...(tenant ? { tenant } : {}) });
      assert.equal(created.statusCode, 201, created.body);
      const login = await post('/api/login', { username, password }, {});
      assert.equal(login.statusCode, 200, login.body);
      assert.equal(login.json().tenant, tenant ?? null);
      return bearer(login.json().token as string);
    };

    test("a tenant's credential names its list, which answers as a signed, cacheable Status List Token", async () => {
      const t = await newTenant('Harbour');
      const { status, credential } = await issue(t.slug, t.typeId);
      assert.match(status.uri, listUriPattern(t.slug));
      assert.ok(status.uri.startsWith(`${PUBLIC_URL}/t/${t.slug}/status/`), status.uri);

      assert.equal(status.uri, `${PUBLIC_URL}/t/${t.slug}/status/1`, "a tenant's first list is number 1");

      const { bytes, size } = await fetchList(status.uri, t.slug, t.did);
      assert.equal(size, 131_072, 'docs/status-lists.md: 131,072 one-bit entries');
      assert.ok(status.idx < size, `idx ${status.idx} lies inside the list of ${size}`);
      assert.equal(readStatus(bytes, 1, status.idx), 0, 'a fresh credential is valid');
      assert.deepEqual(setBits(bytes), [], 'nothing is revoked yet');

      // The credential itself is signed by the same key the list is.
      const credHeader = decodeProtectedHeader(credential.split('~')[0] ?? '');
      const listHeader = decodeProtectedHeader((await get(pathOf(status.uri))).body);
      assert.equal(credHeader.kid, `${t.did}#${listHeader.kid}`);
    });

    test("the platform's (root) credential names <PUBLIC_URL>/status/<seq>, signed by the platform DID", async () => {
      const { typeId } = await registerType(rail.app, 'root', `Root Pass ${++counter}`);
      const { status } = await issue('root', typeId);
      assert.match(status.uri, listUriPattern('root'));
      assert.ok(!status.uri.includes('/t/'), status.uri);
      const did = `did:web:${new URL(PUBLIC_URL).hostname}`;
      const { bytes, size } = await fetchList(status.uri, 'root', did);
      assert.ok(status.idx < size);
      assert.equal(readStatus(bytes, 1, status.idx), 0);
    });

    test('unknown lists and tenants answer 404', async () => {
      const t = await newTenant('Unknown');
      await issue(t.slug, t.typeId);
      const cases: Array<[string, string]> = [
        [`/t/${t.slug}/status/999`, 'unknown_status_list'],
        ['/status/999', 'unknown_status_list'],
        ['/t/no-such-tenant/status/1', 'unknown_tenant'],
        ['/t/root/status/1', 'unknown_tenant'],
      ];
      for (const [url, error] of cases) {
        const res = await get(url);
        assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
        assert.equal(res.json().error, error, url);
        assert.notEqual(String(res.headers['content-type']).split(';')[0], STATUS_LIST_MEDIA_TYPE, url);
        assert.equal(res.headers['access-control-allow-origin'], '*', `${url}: CORS-open errors too`);
      }
      // A tenant that has issued nothing has no list yet.
      const empty = await newTenant('Empty');
      assertError(await get(`/t/${empty.slug}/status/1`), 404, 'unknown_status_list');
    });

    test('credentials get distinct, unpredictable indices spread across the list', async () => {
      const t = await newTenant('Random');
      const single: StatusRef[] = [];
      for (let i = 0; i < 5; i++) single.push((await issue(t.slug, t.typeId)).status);
      const batch = await issueBatch(t.slug, t.typeId, 5);

      for (const group of [single, batch.statuses, [...single, ...batch.statuses]]) {
        const uris = new Set(group.map((s) => s.uri));
        assert.equal(uris.size, 1, 'one list while it has room');
        const idx = group.map((s) => s.idx);
        assert.equal(new Set(idx).size, idx.length, `distinct indices: ${idx}`);
        const steps = new Set(idx.slice(1).map((v, i) => v - (idx[i] ?? 0)));
        assert.ok(steps.size > 1, `not an arithmetic progression: ${idx}`);
        const sorted = [...idx].sort((a, b) => a - b);
        const sortedSteps = new Set(sorted.slice(1).map((v, i) => v - (sorted[i] ?? 0)));
        assert.ok(sortedSteps.size > 1, `not a progression in any order: ${idx}`);
      }

      const all = [...single, ...batch.statuses];
      const first = all[0];
      assert.ok(first);
      const { size } = await fetchList(first.uri, t.slug, t.did);
      const idx = all.map((s) => s.idx);
      assert.ok(
        idx.every((i) => i < size),
        `inside the list: ${idx}`,
      );
      // Ten uniform picks spanning less than 1/64 of the list would be a sign of counting, not chance.
      assert.ok(Math.max(...idx) - Math.min(...idx) > size / 64, `spread across the list of ${size}: ${idx}`);
      assert.ok(
        idx.some((i) => i >= 64),
        `not the first slots handed out in order: ${idx}`,
      );

      const rows = await ledger(t.slug);
      assert.equal(rows.length, all.length, 'one ledger row per credential');
      assert.deepEqual(rows.map((r) => r.idx).sort(), [...idx].sort());
    });

    test('POST /api/revoke by status reference sets that bit only; repeating it changes nothing', async () => {
      const t = await newTenant('Revoke Api');
      const [a, b, c] = [await issue(t.slug, t.typeId), await issue(t.slug, t.typeId), await issue(t.slug, t.typeId)];
      assert.ok(a && b && c);

      const first = await assertRevoked(await revokeApi({ tenant: t.slug, status: a.status }), t.slug, t.typeId, [a.status]);
      const { bytes } = await fetchList(a.status.uri, t.slug, t.did);
      assert.equal(readStatus(bytes, 1, a.status.idx), 1, 'the revoked credential reads INVALID');
      assert.equal(readStatus(bytes, 1, b.status.idx), 0);
      assert.equal(readStatus(bytes, 1, c.status.idx), 0);
      assert.deepEqual(setBits(bytes), [a.status.idx], 'no other bit is set');

      const rows = await ledger(t.slug);
      assert.deepEqual(
        rows.filter((r) => r.revoked_at !== null).map((r) => r.idx),
        [a.status.idx],
      );

      // Idempotent: same answer, same first revocation time, bit still set.
      later();
      const again = await assertRevoked(await revokeApi({ tenant: t.slug, status: a.status }), t.slug, t.typeId, [a.status]);
      assert.deepEqual(again, first);
      assert.deepEqual(await ledger(t.slug), rows, 'nothing changed in the ledger');
      const { bytes: after } = await fetchList(a.status.uri, t.slug, t.did);
      assert.deepEqual(setBits(after), [a.status.idx]);
    });

    test('POST /api/tenants/{tenant}/revoke by status, by credentialId and by offerId', async () => {
      const t = await newTenant('Revoke Path');
      const byStatus = await issue(t.slug, t.typeId);
      const byId = await issue(t.slug, t.typeId);
      const keep = await issue(t.slug, t.typeId);
      const batch = await issueBatch(t.slug, t.typeId, 3);
      const expected = new Set<number>();
      const assertBits = async () => {
        const { bytes } = await fetchList(keep.status.uri, t.slug, t.did);
        assert.deepEqual(
          setBits(bytes),
          [...expected].sort((x, y) => x - y),
        );
        assert.equal(readStatus(bytes, 1, keep.status.idx), 0, 'the untouched credential stays valid');
      };

      // By the credential's own status reference.
      const r1 = await assertRevoked(await revokeTenant(t.slug, { status: byStatus.status }), t.slug, t.typeId, [
        byStatus.status,
      ]);
      expected.add(byStatus.status.idx);
      await assertBits();

      // By credential id: taken from a revocation answer, and from the ledger.
      later();
      const fromAnswer = r1[0]?.credentialId;
      assert.ok(fromAnswer);
      const again = await assertRevoked(await revokeTenant(t.slug, { credentialId: fromAnswer }), t.slug, t.typeId, [
        byStatus.status,
      ]);
      assert.deepEqual(again, r1, 'the same credential, the same first revocation time');
      const idRow = await rowAt(t.slug, byId.status);
      assert.equal(idRow.revoked_at, null);
      const r2 = await assertRevoked(await revokeTenant(t.slug, { credentialId: idRow.id }), t.slug, t.typeId, [byId.status]);
      assert.equal(r2[0]?.credentialId, idRow.id);
      expected.add(byId.status.idx);
      await assertBits();

      // By offer: every credential collected from it.
      const r3 = await assertRevoked(await revokeTenant(t.slug, { offerId: batch.offerId }), t.slug, t.typeId, batch.statuses);
      for (const s of batch.statuses) expected.add(s.idx);
      for (const r of r3) assert.equal((await rowAt(t.slug, r.status)).offer_id, batch.offerId);
      await assertBits();
      later();
      const r3again = await assertRevoked(
        await revokeTenant(t.slug, { offerId: batch.offerId }),
        t.slug,
        t.typeId,
        batch.statuses,
      );
      assert.deepEqual(
        [...r3again].sort((x, y) => x.credentialId.localeCompare(y.credentialId)),
        [...r3].sort((x, y) => x.credentialId.localeCompare(y.credentialId)),
      );
      await assertBits();

      // The same revocation through /api/revoke is idempotent too.
      later();
      const r4 = await assertRevoked(await revokeApi({ tenant: t.slug, credentialId: idRow.id }), t.slug, t.typeId, [
        byId.status,
      ]);
      assert.deepEqual(r4, r2);
      await assertBits();
    });

    test('the platform (root) revokes its own credentials at <PUBLIC_URL>/status/<seq>', async () => {
      const { typeId } = await registerType(rail.app, 'root', `Root Revocable ${++counter}`);
      const a = await issue('root', typeId);
      const b = await issue('root', typeId);
      const did = `did:web:${new URL(PUBLIC_URL).hostname}`;
      const before = setBits((await fetchList(a.status.uri, 'root', did)).bytes);
      await assertRevoked(await revokeApi({ tenant: 'root', status: a.status }), 'root', typeId, [a.status]);
      const { bytes } = await fetchList(a.status.uri, 'root', did);
      assert.equal(readStatus(bytes, 1, a.status.idx), 1);
      assert.equal(readStatus(bytes, 1, b.status.idx), 0);
      assert.deepEqual(
        setBits(bytes),
        [...before, a.status.idx].sort((x, y) => x - y),
      );
    });

    test('refusals change nothing', async () => {
      const t = await newTenant('Guarded');
      const other = await newTenant('Neighbour');
      const mine = await issue(t.slug, t.typeId);
      const theirs = await issueBatch(other.slug, other.typeId, 1);
      const theirStatus = theirs.statuses[0];
      assert.ok(theirStatus);
      const theirRow = await rowAt(other.slug, theirStatus);
      const myRow = await rowAt(t.slug, mine.status);
      const snapshot = await ledgerAll();
      const listOf = async (tenant: { slug: string; did: string }, uri: string) =>
        setBits((await fetchList(uri, tenant.slug, tenant.did)).bytes);
      const myBits = await listOf(t, mine.status.uri);
      const theirBits = await listOf(other, theirStatus.uri);

      // Another tenant's credential, named through this tenant: as unknown as a nonexistent one.
      const crossTenant: Array<() => Promise<LightMyRequestResponse>> = [
        () => revokeApi({ tenant: t.slug, status: theirStatus }),
        () => revokeApi({ tenant: t.slug, credentialId: theirRow.id }),
        () => revokeApi({ tenant: t.slug, offerId: theirs.offerId }),
        () => revokeTenant(t.slug, { status: theirStatus }),
        () => revokeTenant(t.slug, { credentialId: theirRow.id }),
        () => revokeTenant(t.slug, { offerId: theirs.offerId }),
        // Their list's address with our own index: still their list.
        () => revokeTenant(t.slug, { status: { uri: theirStatus.uri, idx: mine.status.idx } }),
      ];
      for (const call of crossTenant) assertError(await call(), 404, 'unknown_credential');

      // A status URI of another host (or scheme, or port), or not a list address of ours.
      const path = pathOf(mine.status.uri);
      const foreign = [
        `https://elsewhere.example${path}`,
        `https://rail.example.test.evil.example${path}`,
        `http://rail.example.test${path}`,
        `https://rail.example.test:8443${path}`,
        `https://user@rail.example.test${path}`,
        `${mine.status.uri}/`,
        `${mine.status.uri}?x=1`,
        `${PUBLIC_URL}/t/root${path.replace(`/t/${t.slug}`, '')}`,
        `${PUBLIC_URL}${path.replace(`/t/${t.slug}`, `/t/${other.slug}`)}`,
        path,
        '',
      ];
      for (const uri of foreign) {
        const status = { uri, idx: mine.status.idx };
        assertError(await revokeApi({ tenant: t.slug, status }), 404, 'unknown_credential');
        assertError(await revokeTenant(t.slug, { status }), 404, 'unknown_credential');
      }

      // An index or list no credential has, and ids nobody issued.
      const taken = new Set((await ledger(t.slug)).map((r) => r.idx));
      let free = (mine.status.idx + 1) % 1000;
      while (taken.has(free)) free++;
      const nonexistent: unknown[] = [
        { status: { uri: mine.status.uri, idx: free } },
        { status: { uri: mine.status.uri, idx: 999_999_999 } },
        { status: { uri: `${PUBLIC_URL}/t/${t.slug}/status/999`, idx: mine.status.idx } },
        { credentialId: 'crd_nobody-issued-this' },
        { offerId: 'off_nobody-made-this' },
      ];
      for (const body of nonexistent) {
        assertError(await revokeTenant(t.slug, body), 404, 'unknown_credential');
        assertError(await revokeApi({ tenant: t.slug, ...(body as object) }), 404, 'unknown_credential');
      }

      // An unknown tenant.
      assertError(await revokeTenant('no-such-tenant', { credentialId: myRow.id }), 404, 'unknown_tenant');
      assertError(await revokeApi({ tenant: 'no-such-tenant', credentialId: myRow.id }), 404, 'unknown_tenant');

      // None, or more than one, selector.
      const selectors: unknown[] = [
        {},
        { status: mine.status, credentialId: myRow.id },
        { credentialId: myRow.id, offerId: myRow.offer_id },
        { status: mine.status, offerId: myRow.offer_id },
        { status: mine.status, credentialId: myRow.id, offerId: myRow.offer_id },
      ];
      for (const body of selectors) {
        assertError(await revokeTenant(t.slug, body), 400, 'invalid_request');
        assertError(await revokeApi({ tenant: t.slug, ...(body as object) }), 400, 'invalid_request');
      }
      // Malformed selectors and unknown fields fail the schema.
      for (const body of [
        { status: { uri: mine.status.uri } },
        { status: { idx: mine.status.idx } },
        { status: { ...mine.status, idx: -1 } },
        { status: { ...mine.status, idx: String(mine.status.idx) } },
        { status: { ...mine.status, extra: true } },
        { credentialId: '' },
        { credentialId: myRow.id, tenant: t.slug },
      ]) {
        assertError(await revokeTenant(t.slug, body), 400, 'invalid_request');
      }

      // /api/revoke must name the tenant.
      for (const body of [{ status: mine.status }, { credentialId: myRow.id }, { offerId: myRow.offer_id }]) {
        assertError(await revokeApi(body), 400, 'invalid_request');
      }

      // A tenant-scoped operator acts on its own tenant only.
      const scoped = await operatorToken(['issuer'], other.slug);
      assertError(await revokeApi({ tenant: t.slug, status: mine.status }, scoped), 403, 'forbidden');
      assertError(await revokeApi({ tenant: t.slug, credentialId: myRow.id }, scoped), 403, 'forbidden');
      assertError(await revokeTenant(t.slug, { status: mine.status }, scoped), 403, 'forbidden');
      assertError(await revokeTenant(t.slug, { offerId: myRow.offer_id }, scoped), 403, 'forbidden');
      assertError(await revokeTenant('root', { credentialId: myRow.id }, scoped), 403, 'forbidden');

      // An operator without the issuer or owner role.
      const verifier = await operatorToken(['verifier']);
      assertError(await revokeApi({ tenant: t.slug, status: mine.status }, verifier), 403, 'forbidden');
      assertError(await revokeTenant(t.slug, { status: mine.status }, verifier), 403, 'forbidden');

      // No bearer, or one nobody issued.
      for (const headers of [{}, bearer('not-a-token-anyone-issued')]) {
        for (const res of [
          await revokeApi({ tenant: t.slug, status: mine.status }, headers),
          await revokeTenant(t.slug, { status: mine.status }, headers),
        ]) {
          assertError(res, 401, 'unauthorized');
          assert.match(String(res.headers['www-authenticate']), /^Bearer /);
        }
      }

      assert.deepEqual(await ledgerAll(), snapshot, 'no refusal touched the ledger');
      assert.deepEqual(await listOf(t, mine.status.uri), myBits);
      assert.deepEqual(await listOf(other, theirStatus.uri), theirBits);
      assert.deepEqual(myBits, []);
      assert.deepEqual(theirBits, []);

      // The scoped operator can still revoke its own tenant's credential (the refusals were about scope).
      await assertRevoked(await revokeTenant(other.slug, { status: theirStatus }, scoped), other.slug, other.typeId, [
        theirStatus,
      ]);
      assert.deepEqual(await listOf(other, theirStatus.uri), [theirStatus.idx]);
      assert.deepEqual(await listOf(t, mine.status.uri), [], "the other tenant's list is untouched");
    });

    test('the issued-credential ledger never stores claim values', async () => {
      const t = await newTenant('Ledger');
      const issued = await issue(t.slug, t.typeId);
      await issueBatch(t.slug, t.typeId, 2);

      const table = (await tablesOf(rail.db)).find((x) => x.name === 'issued_credentials');
      assert.ok(table, 'the issued_credentials table exists');
      assert.deepEqual(table.columns.map((c) => c.name).sort(), LEDGER_COLUMNS);

      const rows = await ledger(t.slug);
      assert.equal(rows.length, 3);
      for (const row of rows) assert.deepEqual(Object.keys(row).sort(), LEDGER_COLUMNS);
      const stored = JSON.stringify(rows);
      const values = [
        SUBJECT.holder_name,
        SUBJECT.birth_date,
        ...SUBJECT.zones,
        ...SUBJECT.trips.flatMap((trip) => [trip.from, trip.to]),
      ];
      for (const value of values) assert.ok(!stored.includes(value), `no row holds "${value}"`);

      const row = await rowAt(t.slug, issued.status);
      assert.equal(row.holder_thumbprint, issued.holderThumbprint, 'the holder is kept by key thumbprint only');
      assert.equal(row.type_id, t.typeId);
      assert.equal(row.revoked_at, null);
    });
  });
}
