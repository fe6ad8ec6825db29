/**
 * Single-use guarantees of the issuance rail under concurrency (docs/architecture.md, "Rules that
 * hold everywhere"): a pre-authorized code, an access token and a c_nonce are each spent by
 * exactly one of many concurrent requests, the others are refused with the protocol's error and
 * never a 5xx, and a refused collection spends nothing.
 *
 * The same races run in-process against one rail on every test database (SQLite always, and
 * PostgreSQL when TEST_DATABASE_URL is set), and across two real `openrail serve` processes
 * sharing one PostgreSQL schema over real HTTP when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { hashToken } from '../../src/core/secrets.ts';
import { readStatus } from '../../src/core/status-list/codec.ts';
import { STATUS_BLOCK } from '../../src/features/issuance/issue-credential.ts';
import { type DatabaseFactory, testDatabases } from '../helpers/databases.ts';
import {
  assertNo5xx,
  expectStatus,
  type Harness,
  inProcess,
  json,
  operator,
  type Reply,
  type Req,
  race,
  summary,
  twoProcesses,
} from '../helpers/harness.ts';
import { type HolderKey, newHolderKey } from '../helpers/holder.ts';
import { PASS_CLAIMS, PASS_SUBJECT, PRE_AUTH, proofJwt } from '../helpers/issuance.ts';
import { PUBLIC_URL } from '../helpers/rail.ts';

/** Concurrent requests per race. */
const RACERS = 40;

// ---- the protocol, over whichever harness -------------------------------------------------------

let tenantCounter = 0;
async function createTenant(h: Harness): Promise<string> {
  tenantCounter += 1;
  const name = `Race Works ${tenantCounter} ${Math.random().toString(36).slice(2, 8)}`;
  const created = await expectStatus(h.send(0, { method: 'POST', url: '/api/tenants', ...json({ name }, operator) }), 201);
  return String(created.slug);
}

async function registerType(h: Harness, tenant: string): Promise<string> {
  const body = { tenant, name: 'Season Pass', claims: PASS_CLAIMS };
  const created = await expectStatus(h.send(0, { method: 'POST', url: '/api/types', ...json(body, operator) }), 201);
  return String(created.typeId);
}

interface CreatedOffer {
  offerId: string;
  code: string;
}

async function createOffer(h: Harness, tenant: string, typeId: string): Promise<CreatedOffer> {
  const created = await expectStatus(
    h.send(0, { method: 'POST', url: '/api/offers', ...json({ tenant, typeId, subject: PASS_SUBJECT }, operator) }),
    201,
  );
  const offer = JSON.parse(new URL(String(created.offerUri)).searchParams.get('credential_offer') ?? 'null');
  const code = offer?.grants?.[PRE_AUTH]?.['pre-authorized_code'];
  assert.equal(typeof code, 'string', JSON.stringify(created));
  return { offerId: String(created.offerId), code };
}

const redeem = (h: Harness, lane: number, tenant: string, code: string) =>
  h.send(lane, {
    method: 'POST',
    url: `/t/${tenant}/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString(),
  });

async function accessToken(h: Harness, lane: number, tenant: string, code: string) {
  const body = await expectStatus(redeem(h, lane, tenant, code), 200);
  return { token: String(body.access_token), nonce: String(body.c_nonce) };
}

async function freshNonce(h: Harness, lane: number, tenant: string): Promise<string> {
  const body = await expectStatus(h.send(lane, { method: 'POST', url: `/t/${tenant}/nonce` }), 200);
  return String(body.c_nonce);
}

const issuer = (tenant: string) => `${PUBLIC_URL}/t/${tenant}`;

/** A credential request with its key proof, signed in advance so the race itself is only I/O. */
async function credentialRequest(tenant: string, typeId: string, token: string, nonce: string, key: HolderKey): Promise<Req> {
  const proof = await proofJwt(key, { aud: issuer(tenant), nonce });
  return {
    method: 'POST',
    url: `/t/${tenant}/credential`,
    ...json({ credential_configuration_id: typeId, proofs: { jwt: [proof] } }, { authorization: `Bearer ${token}` }),
  };
}

/** Exactly one 200; every other reply is `status` with the OAuth error `error`. Returns the winner's index. */
function assertOneWinner(h: Harness, replies: Reply[], status: number, error: string): number {
  assertNo5xx(h, replies);
  const winners = replies.flatMap((r, i) => (r.status === 200 ? [i] : []));
  assert.equal(winners.length, 1, `expected exactly one 200:\n${summary(replies)}`);
  for (const r of replies) {
    if (r.status === 200) continue;
    assert.equal(r.status, status, `lane ${r.lane}: ${r.text}`);
    const body = r.json();
    assert.equal(body.error, error, r.text);
    assert.equal(typeof body.error_description, 'string', r.text);
  }
  return winners[0] ?? -1;
}

function credentialOf(r: Reply): string {
  const body = r.json() as { credentials?: { credential?: unknown }[] };
  assert.equal(body.credentials?.length, 1, r.text);
  const credential = body.credentials?.[0]?.credential;
  assert.equal(typeof credential, 'string', r.text);
  return credential as string;
}

/** The issuer-signed JWT of an SD-JWT VC: its header and payload. */
function issuerJwt(credential: string) {
  const jwt = credential.split('~')[0] ?? '';
  return {
    jwt,
    header: decodeProtectedHeader(jwt),
    payload: decodeJwt(jwt) as {
      cnf?: { jwk?: JWK };
      status?: { status_list?: { idx?: number; uri?: string } };
    },
  };
}

const count = (rows: { n: unknown }[]) => Number(rows[0]?.n ?? 0);

/** Those of `nonces` the database records as spent (stored as sha-256 hashes). */
async function spentNonces(db: Db, nonces: string[]): Promise<string[]> {
  const byHash = new Map(nonces.map((n) => [hashToken(n), n]));
  const rows = await db
    .selectFrom('spent_nonces')
    .select('nonce_hash')
    .where('nonce_hash', 'in', [...byHash.keys()])
    .execute();
  return rows.map((r) => byHash.get(r.nonce_hash) ?? r.nonce_hash);
}

// ---- the races ----------------------------------------------------------------------------------

function raceSuite(name: string, skip: string | false, open: () => Promise<Harness>): void {
  describe(name, { skip }, () => {
    let h: Harness;
    let tenant: string;
    let typeId: string;

    before(async () => {
      h = await open();
      tenant = await createTenant(h);
      typeId = await registerType(h, tenant);
    });
    after(async () => {
      await h?.close();
    });

    test(`(a) ${RACERS} concurrent redemptions of one pre-authorized code: one 200, the rest 400 invalid_grant`, async () => {
      const { offerId, code } = await createOffer(h, tenant, typeId);
      const replies = await race(
        h,
        Array.from({ length: RACERS }, () => ({
          method: 'POST' as const,
          url: `/t/${tenant}/token`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString(),
        })),
      );
      const winner = replies[assertOneWinner(h, replies, 400, 'invalid_grant')] as Reply;
      const granted = winner.json();
      assert.equal(typeof granted.access_token, 'string');
      assert.equal(typeof granted.c_nonce, 'string');

      const tokens = await h.db
        .selectFrom('access_tokens')
        .select(['token_hash', 'spent_at'])
        .where('grant_id', '=', offerId)
        .execute();
      assert.deepEqual(tokens, [{ token_hash: hashToken(String(granted.access_token)), spent_at: null }]);
      const offer = await h.db
        .selectFrom('offers')
        .select(['redeemed_at', 'collected_at'])
        .where('id', '=', offerId)
        .executeTakeFirstOrThrow();
      assert.notEqual(offer.redeemed_at, null);
      assert.equal(offer.collected_at, null);
      // The c_nonce handed out with the token is not spent (whether or not minting stores a row).
      assert.deepEqual(await spentNonces(h.db, [String(granted.c_nonce)]), []);

      // The winning token and its c_nonce still collect (on the other process, when there is one).
      const collected = await h.send(
        1,
        await credentialRequest(tenant, typeId, String(granted.access_token), String(granted.c_nonce), await newHolderKey()),
      );
      assert.equal(collected.status, 200, collected.text);
    });

    test(`(b) ${RACERS} concurrent collections with one access token, each with its own key and nonce: one 200, the rest 401 invalid_token, no nonce spent by a loser`, async () => {
      const { offerId, code } = await createOffer(h, tenant, typeId);
      const { token } = await accessToken(h, 0, tenant, code);
      const nonces = await Promise.all(Array.from({ length: RACERS }, (_, i) => freshNonce(h, i % h.lanes, tenant)));
      const keys = await Promise.all(nonces.map(() => newHolderKey()));
      const requests = await Promise.all(nonces.map((n, i) => credentialRequest(tenant, typeId, token, n, keys[i] as HolderKey)));

      const replies = await race(h, requests);
      const w = assertOneWinner(h, replies, 401, 'invalid_token');
      for (const r of replies) {
        if (r.status === 401) assert.match(r.header('www-authenticate') ?? '', /error="invalid_token"/, r.text);
      }
      // The credential is bound to the winner's key.
      const { payload } = issuerJwt(credentialOf(replies[w] as Reply));
      assert.equal(payload.cnf?.jwk?.x, keys[w]?.publicJwk.x);
      assert.equal(payload.cnf?.jwk?.y, keys[w]?.publicJwk.y);

      const issued = await h.db
        .selectFrom('issued_credentials')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('offer_id', '=', offerId)
        .execute();
      assert.equal(count(issued), 1, 'exactly one issued_credentials row for the offer');
      const spent = await h.db
        .selectFrom('access_tokens')
        .select('spent_at')
        .where('token_hash', '=', hashToken(token))
        .executeTakeFirstOrThrow();
      assert.notEqual(spent.spent_at, null);

      // A refused collection spends nothing: no losing nonce is recorded as spent.
      const winnerNonce = nonces[w] as string;
      const losingNonces = nonces.filter((_, i) => i !== w);
      assert.deepEqual(
        await spentNonces(h.db, losingNonces),
        [],
        'a refused collection must spend nothing: losing nonces are still unused',
      );
      assert.deepEqual(await spentNonces(h.db, nonces), [winnerNonce], "exactly the winner's nonce is spent");

      // And by behaviour: every losing nonce still collects (each with a fresh grant), while the
      // winner's is refused.
      const fresh = await Promise.all(
        nonces.map(async (_, i) => accessToken(h, i % h.lanes, tenant, (await createOffer(h, tenant, typeId)).code)),
      );
      const reuse = await race(
        h,
        await Promise.all(
          nonces.map(async (n, i) => credentialRequest(tenant, typeId, fresh[i]?.token ?? '', n, await newHolderKey())),
        ),
      );
      assertNo5xx(h, reuse);
      assert.deepEqual(
        reuse.flatMap((r, i) => (i !== w && r.status !== 200 ? [`#${i} ${r.status} ${r.text}`] : [])),
        [],
        'every losing nonce is still good',
      );
      assert.equal(reuse[w]?.status, 400, reuse[w]?.text);
      assert.equal(reuse[w]?.json().error, 'invalid_nonce');
    });

    test(`(c) one nonce in ${RACERS} concurrent collections with different access tokens: one 200, the rest 400 invalid_nonce, losers' tokens unspent`, async () => {
      const offers = await Promise.all(Array.from({ length: RACERS }, () => createOffer(h, tenant, typeId)));
      const tokens = await Promise.all(offers.map((o, i) => accessToken(h, i % h.lanes, tenant, o.code)));
      const nonce = await freshNonce(h, 1 % h.lanes, tenant);
      const keys = await Promise.all(offers.map(() => newHolderKey()));
      const requests = await Promise.all(
        tokens.map((t, i) => credentialRequest(tenant, typeId, t.token, nonce, keys[i] as HolderKey)),
      );

      const replies = await race(h, requests);
      const w = assertOneWinner(h, replies, 400, 'invalid_nonce');
      credentialOf(replies[w] as Reply);

      assert.deepEqual(await spentNonces(h.db, [nonce]), [nonce], 'the shared nonce is spent, once');
      const tokenRows = await h.db
        .selectFrom('access_tokens')
        .select(['token_hash', 'spent_at'])
        .where(
          'token_hash',
          'in',
          tokens.map((t) => hashToken(t.token)),
        )
        .execute();
      const spentAt = new Map(tokenRows.map((r) => [r.token_hash, r.spent_at]));
      assert.equal(spentAt.size, RACERS);
      const spentLosers = tokens.filter((t, i) => i !== w && spentAt.get(hashToken(t.token)) !== null);
      assert.deepEqual(spentLosers, [], "a refused collection must spend nothing: the losers' access tokens are unspent");
      assert.notEqual(spentAt.get(hashToken(tokens[w]?.token ?? '')), null);
      const issued = await h.db
        .selectFrom('issued_credentials')
        .select('offer_id')
        .where(
          'offer_id',
          'in',
          offers.map((o) => o.offerId),
        )
        .execute();
      assert.deepEqual(
        issued.map((r) => r.offer_id),
        [offers[w]?.offerId],
      );
      const uncollected = await h.db
        .selectFrom('offers')
        .select((eb) => eb.fn.countAll().as('n'))
        .where(
          'id',
          'in',
          offers.map((o) => o.offerId),
        )
        .where('collected_at', 'is', null)
        .where('subject', 'is not', null)
        .execute();
      assert.equal(count(uncollected), RACERS - 1, "the losers' offers keep their subject, uncollected");

      // Every loser collects with a fresh nonce afterwards (concurrently, across processes).
      const losers = tokens.flatMap((t, i) => (i === w ? [] : [{ t, i }]));
      const retries = await Promise.all(
        losers.map(async ({ t, i }) =>
          credentialRequest(tenant, typeId, t.token, await freshNonce(h, i % h.lanes, tenant), keys[i] as HolderKey),
        ),
      );
      const second = await race(h, retries);
      assertNo5xx(h, second);
      assert.deepEqual(
        second.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`),
        [],
      );
      for (const r of second) credentialOf(r);
      // The spent nonce stays spent: a fresh grant presenting it is refused, and its token survives.
      const late = await createOffer(h, tenant, typeId);
      const lateToken = await accessToken(h, 0, tenant, late.code);
      const refused = await h.send(1, await credentialRequest(tenant, typeId, lateToken.token, nonce, await newHolderKey()));
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json().error, 'invalid_nonce');
      const kept = await h.send(
        0,
        await credentialRequest(tenant, typeId, lateToken.token, lateToken.nonce, await newHolderKey()),
      );
      assert.equal(kept.status, 200, kept.text);
    });

    test(`(d) ${RACERS} concurrent issuances of different offers on a fresh tenant all succeed with distinct status references`, async () => {
      // A fresh tenant has no status list yet: the first allocations race to open it too.
      const fresh = await createTenant(h);
      const freshType = await registerType(h, fresh);
      const offers = await Promise.all(Array.from({ length: RACERS }, () => createOffer(h, fresh, freshType)));
      const grants = await Promise.all(offers.map((o, i) => accessToken(h, i % h.lanes, fresh, o.code)));
      const keys = await Promise.all(offers.map(() => newHolderKey()));
      const requests = await Promise.all(
        grants.map((g, i) => credentialRequest(fresh, freshType, g.token, g.nonce, keys[i] as HolderKey)),
      );

      const replies = await race(h, requests);
      assertNo5xx(h, replies);
      assert.deepEqual(
        replies.filter((r) => r.status !== 200).map((r) => `lane ${r.lane}: ${r.status} ${r.text}`),
        [],
      );
      if (h.lanes > 1) {
        assert.ok(replies.some((r) => r.lane === 0) && replies.some((r) => r.lane === 1), 'both processes issued');
      }

      const did = await expectStatus(h.send(0, { method: 'GET', url: `/t/${fresh}/did.json` }), 200);
      const methods = did.verificationMethod as { id: string; publicKeyJwk: JWK }[];
      const refs = new Set<string>();
      for (const [i, r] of replies.entries()) {
        const { jwt, header, payload } = issuerJwt(credentialOf(r));
        // Either process signs with the one tenant key it opened from the shared database.
        const method = methods.find((m) => m.id === header.kid);
        assert.ok(method, `kid ${header.kid} is in the DID document`);
        await compactVerify(jwt, await importJWK(method.publicKeyJwk, 'ES256'));
        assert.equal(payload.cnf?.jwk?.x, keys[i]?.publicJwk.x);
        const ref = payload.status?.status_list;
        assert.equal(typeof ref?.idx, 'number', JSON.stringify(payload.status));
        assert.ok(ref?.uri?.startsWith(`${issuer(fresh)}/`), ref?.uri);
        refs.add(`${ref?.uri}#${ref?.idx}`);
      }
      assert.equal(refs.size, RACERS, 'every credential has its own (list, idx)');

      const rows = await h.db
        .selectFrom('issued_credentials')
        .select(['list_seq', 'idx', 'offer_id'])
        .where('tenant', '=', fresh)
        .execute();
      assert.equal(rows.length, RACERS);
      assert.equal(new Set(rows.map((r) => `${r.list_seq}#${r.idx}`)).size, RACERS, 'distinct (list_seq, idx) rows');
      assert.equal(new Set(rows.map((r) => r.offer_id)).size, RACERS, 'one credential per offer');
      // Each process reserves entries a block at a time (StatusSlots), one reservation per
      // tenant at a time: the counters cover every credential with at most one block per process.
      const lists = await h.db.selectFrom('status_lists').select(['seq', 'allocated']).where('tenant', '=', fresh).execute();
      const allocated = lists.reduce((sum, l) => sum + Number(l.allocated), 0);
      assert.ok(
        allocated >= RACERS && allocated <= RACERS + h.lanes * STATUS_BLOCK,
        `allocation counters cover the credentials, within a block per process: ${JSON.stringify(lists)}`,
      );
      // Every referenced list is published, by either process.
      for (const uri of new Set([...refs].map((r) => r.split('#')[0] ?? ''))) {
        const path = new URL(uri).pathname;
        for (let lane = 0; lane < h.lanes; lane++) {
          const res = await h.send(lane, { method: 'GET', url: path });
          assert.equal(res.status, 200, `${path} on lane ${lane}: ${res.text}`);
        }
      }
    });

    test('(e) a revocation is in the very next list fetch of every process, though each signed the list before', async () => {
      const offer = await createOffer(h, tenant, typeId);
      const grant = await accessToken(h, 0, tenant, offer.code);
      const request = await credentialRequest(tenant, typeId, grant.token, grant.nonce, await newHolderKey());
      const issued = await h.send(0, request);
      assert.equal(issued.status, 200, issued.text);
      const ref = issuerJwt(credentialOf(issued)).payload.status?.status_list as { uri: string; idx: number };
      const path = new URL(ref.uri).pathname;
      const bitOn = async (lane: number) => {
        const res = await h.send(lane, { method: 'GET', url: path });
        assert.equal(res.status, 200, res.text);
        const list = (decodeJwt(res.text) as { status_list: { lst: string } }).status_list;
        return readStatus(inflateSync(Buffer.from(list.lst, 'base64url')), 1, ref.idx);
      };
      for (let lane = 0; lane < h.lanes; lane++) assert.equal(await bitOn(lane), 0, `valid on lane ${lane}`);
      const revoked = await h.send(0, {
        method: 'POST',
        url: `/api/tenants/${tenant}/revoke`,
        ...json({ status: ref }, operator),
      });
      assert.equal(revoked.status, 200, revoked.text);
      for (let lane = h.lanes - 1; lane >= 0; lane--) assert.equal(await bitOn(lane), 1, `revoked on lane ${lane}`);
    });
  });
}

for (const factory of testDatabases()) {
  raceSuite(`issuance races in-process on ${factory.name} (one rail, concurrent inject)`, false, () => inProcess(factory));
}

const postgres = testDatabases().find((f) => f.name === 'postgres');
raceSuite(
  'issuance races across two openrail serve processes on one PostgreSQL database (real HTTP)',
  postgres ? false : 'TEST_DATABASE_URL is not set: two processes sharing one database need PostgreSQL',
  () => twoProcesses(postgres as DatabaseFactory),
);
