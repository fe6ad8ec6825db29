import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import {
  insertAccessToken,
  openTestDb,
  type TestDatabase,
  tenantRecord,
  testDatabases,
} from '../../../test/helpers/databases.ts';
import { holderJws } from '../../../test/helpers/holder.ts';
import { systemRandom } from '../../adapters/crypto/random-pool.ts';
import { type Db, migrate } from '../../adapters/sql/connect.ts';
import { SqlHolderReplayStore } from '../../adapters/sql/holders/sql-holder-replay-store.ts';
import { SqlIntegrationViews } from '../../adapters/sql/integration/sql-integration-views.ts';
import { SqlAccessTokenStore } from '../../adapters/sql/issuance/sql-access-token-store.ts';
import { SqlRateBudget } from '../../adapters/sql/kernel/sql-rate-budget.ts';
import { SqlOperatorSessionStore, SqlOperatorStore } from '../../adapters/sql/operators/sql-operator-store.ts';
import { SqlOperatorsViews } from '../../adapters/sql/operators/sql-operators-views.ts';
import { SqlPartnersViews } from '../../adapters/sql/partners/sql-partners-views.ts';
import { SqlTenantStore } from '../../adapters/sql/tenants/sql-tenant-store.ts';
import { SqlTenantsViews } from '../../adapters/sql/tenants/sql-tenants-views.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import { AccessTokenAuthenticator } from './access-token.ts';
import { AnonymousGate } from './anonymous-gate.ts';
import { HolderJwsAuthenticator } from './holder-jws.ts';
import { OperatorBearerAuthenticator } from './operator-bearer.ts';
import type { AuthInput } from './principal.ts';

const AUD = 'https://rail.example.test';
const NOW_MS = Date.UTC(2031, 4, 6, 12, 0, 0) + 250;
const NOW_S = Math.floor(NOW_MS / 1000);
const clock: Clock = { now: () => NOW_MS };
const OWNER_TOKEN = 'planes-owner-token-0123456789abcdefghijklmnop';
const CREDENTIAL_URL = `${AUD}/t/alpha/oid4vci/credential`;

const BEARER = /^Bearer realm="openrail"/;
const HOLDER = /^Holder realm="openrail"/;

const bearerInput = (token: string, url = CREDENTIAL_URL): AuthInput => ({
  authorization: `Bearer ${token}`,
  method: 'POST',
  url,
});
const holderInput = (jws: string): AuthInput => ({ authorization: `Holder ${jws}`, method: 'POST', url: CREDENTIAL_URL });
const freshHolderJws = () => holderJws({ aud: AUD, iat: NOW_S });

/** Rejects with 401 `unauthorized` and a www-authenticate challenge matching `challenge`. */
async function assertUnauthorized(promise: Promise<unknown>, challenge: RegExp) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ServiceError, `expected a ServiceError, got ${String(err)}`);
    assert.equal(err.status, 401);
    assert.equal(err.code, 'unauthorized');
    assert.match(err.headers['www-authenticate'] ?? '', challenge);
    return true;
  });
}

for (const factory of testDatabases()) {
  describe(`credential planes (${factory.name})`, () => {
    let tdb: TestDatabase;
    let db: Db;
    let tokens: SqlAccessTokenStore;
    let operatorAuth: OperatorBearerAuthenticator;
    let accessAuth: AccessTokenAuthenticator;
    let holderAuth: HolderJwsAuthenticator;
    let sessionToken: string;

    /** Issues an access token for `tenantSlug` expiring at `expiresAt`; returns the bearer. */
    async function issue(tenantSlug = 'alpha', expiresAt = NOW_MS + 300_000): Promise<string> {
      const token = newToken(systemRandom, 'orat');
      await insertAccessToken(db, {
        tenant: tenantSlug,
        tokenHash: hashToken(token),
        grantId: `g-${token.slice(-8)}`,
        createdAt: NOW_MS,
        expiresAt,
      });
      return token;
    }

    const spentAt = async (token: string) =>
      (
        await db
          .selectFrom('access_tokens')
          .select('spent_at')
          .where('token_hash', '=', hashToken(token))
          .executeTakeFirstOrThrow()
      ).spent_at;

    before(async () => {
      tdb = await factory.create();
      db = openTestDb(tdb);
      await migrate(db);
      const tenants = new SqlTenantStore(db);
      assert.equal(await tenants.create(tenantRecord('alpha', NOW_MS), []), true);
      assert.equal(await tenants.create(tenantRecord('beta', NOW_MS), []), true);

      const operators = new SqlOperatorStore(db);
      const sessions = new SqlOperatorSessionStore(db);
      assert.equal(
        await operators.create({
          username: 'olivia',
          passwordHash: 'not-a-real-hash',
          roles: ['issuer'],
          tenant: null,
          status: 'active',
          failedAttempts: 0,
          lockedUntil: null,
          createdAt: NOW_MS,
          updatedAt: NOW_MS,
          email: null,
          invitationExpiresAt: null,
        }),
        true,
      );
      sessionToken = newToken(systemRandom, 'orsess');
      await sessions.create(hashToken(sessionToken), 'olivia', NOW_MS, NOW_MS + 3_600_000);

      tokens = new SqlAccessTokenStore(db);
      operatorAuth = new OperatorBearerAuthenticator({
        ownerTokenHash: async () => hashToken(OWNER_TOKEN),
        operators: new SqlOperatorsViews(db),
        keys: new SqlIntegrationViews(db),
        partners: new SqlPartnersViews(db),
        tenants: new SqlTenantsViews(db),
        budget: new SqlRateBudget(db),
        clock,
      });
      accessAuth = new AccessTokenAuthenticator(tokens, clock, async () => {
        throw new Error('no token of these tests is DPoP-bound');
      });
      holderAuth = new HolderJwsAuthenticator(
        AUD,
        new SqlHolderReplayStore(db),
        clock,
        new AnonymousGate(new SqlRateBudget(db), clock, pino({ level: 'silent' })),
      );
    });
    /** The holder plane authenticates, then admits (burning the jti), as a route does. */
    const acceptHolder = async (input: AuthInput) => {
      const principal = await holderAuth.authenticate(input);
      await holderAuth.admit(principal, { address: '192.0.2.1' });
      return principal;
    };
    after(async () => {
      await db?.destroy();
      await tdb?.drop();
    });

    test('each credential is accepted on its own plane', async () => {
      const ownerP = await operatorAuth.authenticate(bearerInput(OWNER_TOKEN));
      assert.deepEqual(ownerP, { plane: 'operator', via: 'owner-token', username: null, roles: ['owner'], tenant: null });
      const sessionP = await operatorAuth.authenticate(bearerInput(sessionToken));
      assert.deepEqual(sessionP, { plane: 'operator', via: 'session', username: 'olivia', roles: ['issuer'], tenant: null });
      const token = await issue();
      const accessP = await accessAuth.authenticate(bearerInput(token));
      assert.equal(accessP.plane, 'access-token');
      assert.equal(accessP.token.tenant, 'alpha');
      assert.equal(accessP.token.tokenHash, hashToken(token));
      assert.equal((await acceptHolder(holderInput(await freshHolderJws()))).plane, 'holder');
    });

    test('the owner token and an operator session token are refused by the access-token plane', async () => {
      await assertUnauthorized(accessAuth.authenticate(bearerInput(OWNER_TOKEN)), BEARER);
      await assertUnauthorized(accessAuth.authenticate(bearerInput(sessionToken)), BEARER);
      // Both remain valid where they belong.
      assert.equal((await operatorAuth.authenticate(bearerInput(OWNER_TOKEN))).plane, 'operator');
      assert.equal((await operatorAuth.authenticate(bearerInput(sessionToken))).plane, 'operator');
    });

    test('an access token is refused by the operator plane and stays usable', async () => {
      const token = await issue();
      await assertUnauthorized(operatorAuth.authenticate(bearerInput(token)), BEARER);
      assert.equal(await spentAt(token), null);
      assert.equal((await accessAuth.authenticate(bearerInput(token))).plane, 'access-token');
    });

    test('a Holder JWS is refused by both bearer planes and its jti is not spent', async () => {
      const jws = await freshHolderJws();
      await assertUnauthorized(operatorAuth.authenticate(holderInput(jws)), BEARER);
      await assertUnauthorized(accessAuth.authenticate(holderInput(jws)), BEARER);
      // The raw JWS sent as a bearer is no operator or access token either.
      await assertUnauthorized(operatorAuth.authenticate(bearerInput(jws)), BEARER);
      await assertUnauthorized(accessAuth.authenticate(bearerInput(jws)), BEARER);
      assert.equal((await acceptHolder(holderInput(jws))).plane, 'holder');
    });

    test('Bearer tokens of every kind are refused by the holder plane', async () => {
      const access = await issue();
      const jws = await freshHolderJws();
      for (const token of [OWNER_TOKEN, sessionToken, access, jws]) {
        await assertUnauthorized(acceptHolder(bearerInput(token)), HOLDER);
      }
      assert.equal(await spentAt(access), null);
      await assertUnauthorized(acceptHolder({ authorization: undefined, method: 'POST', url: CREDENTIAL_URL }), HOLDER);
      await assertUnauthorized(
        operatorAuth.authenticate({ authorization: undefined, method: 'POST', url: CREDENTIAL_URL }),
        BEARER,
      );
      await assertUnauthorized(
        accessAuth.authenticate({ authorization: undefined, method: 'POST', url: CREDENTIAL_URL }),
        BEARER,
      );
    });

    test('an expired access token is refused', async () => {
      for (const expiresAt of [NOW_MS - 60_000, NOW_MS - 1, NOW_MS]) {
        const token = await issue('alpha', expiresAt);
        await assertUnauthorized(accessAuth.authenticate(bearerInput(token)), /^Bearer realm="openrail", error="invalid_token"/);
      }
      const live = await issue('alpha', NOW_MS + 1);
      assert.equal((await accessAuth.authenticate(bearerInput(live))).plane, 'access-token');
    });

    test('an access token is refused once spent', async () => {
      const token = await issue();
      assert.equal((await accessAuth.authenticate(bearerInput(token))).plane, 'access-token');
      assert.equal(await spentAt(token), null, 'authentication only reads the token');
      // Spent as the credential endpoint spends it (IssuedCredentialStore.collect; test/storage).
      await db.updateTable('access_tokens').set({ spent_at: NOW_MS }).where('token_hash', '=', hashToken(token)).execute();
      await assertUnauthorized(accessAuth.authenticate(bearerInput(token)), /^Bearer realm="openrail", error="invalid_token"/);
      assert.equal(await tokens.findUsable(hashToken(token), NOW_MS), undefined);
    });

    test('an access token in the URL is refused even with a valid header', async () => {
      const token = await issue();
      for (const url of [
        `${CREDENTIAL_URL}?access_token=${token}`,
        `${CREDENTIAL_URL}?access_token=`,
        `${CREDENTIAL_URL}?format=dc%2Bsd-jwt&access_token=${token}`,
      ]) {
        await assertUnauthorized(
          accessAuth.authenticate(bearerInput(token, url)),
          /^Bearer realm="openrail", error="invalid_request"/,
        );
      }
      await assertUnauthorized(
        accessAuth.authenticate({ authorization: undefined, method: 'POST', url: `${CREDENTIAL_URL}?access_token=${token}` }),
        BEARER,
      );
      assert.equal(await spentAt(token), null);
      assert.equal((await accessAuth.authenticate(bearerInput(token))).plane, 'access-token');
    });
  });
}
