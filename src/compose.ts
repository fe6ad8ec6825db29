import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { NonceMinter } from './adapters/crypto/c-nonce.ts';
import { KeyVault } from './adapters/crypto/key-vault.ts';
import { LocalKeyStore } from './adapters/crypto/local-key-store.ts';
import { hashToken, newToken } from './adapters/crypto/secrets.ts';
import { GuardedFetcher } from './adapters/http/guarded-fetcher.ts';
import { type Db, migrate, type OpenOptions, openDatabase } from './adapters/sql/connect.ts';
import { SqlAccessTokenStore } from './adapters/sql/sql-access-token-store.ts';
import { SqlCredentialTypeStore } from './adapters/sql/sql-credential-type-store.ts';
import { SqlHolderReplayStore } from './adapters/sql/sql-holder-replay-store.ts';
import { SqlIssuedCredentialStore } from './adapters/sql/sql-issued-credential-store.ts';
import { SqlOfferStore } from './adapters/sql/sql-offer-store.ts';
import { SqlOperatorSessionStore, SqlOperatorStore } from './adapters/sql/sql-operator-store.ts';
import { SqlPresentationTransactionStore } from './adapters/sql/sql-presentation-transaction-store.ts';
import { SqlSettingsStore } from './adapters/sql/sql-settings-store.ts';
import { SqlSigningKeyStore } from './adapters/sql/sql-signing-key-store.ts';
import { SqlTenantStore } from './adapters/sql/sql-tenant-store.ts';
import type { Config } from './config/config.ts';
import { resolveMasterKey } from './config/master-key.ts';
import { type Clock, systemClock } from './core/clock.ts';
import { credentialTypeRoutes } from './features/credential-types/routes.ts';
import { TypeService } from './features/credential-types/type-service.ts';
import { CredentialIssuer } from './features/issuance/issue-credential.ts';
import { IssuerUrls } from './features/issuance/issuer-urls.ts';
import { issuanceRoutes } from './features/issuance/routes.ts';
import { TokenService } from './features/issuance/token-service.ts';
import { OfferService } from './features/offers/offer-service.ts';
import { offerRoutes } from './features/offers/routes.ts';
import { OperatorService } from './features/operators/operator-service.ts';
import { operatorAuthRoutes, operatorConsoleRoutes } from './features/operators/routes.ts';
import { qrRoutes } from './features/pages/qr-route.ts';
import { verifyPageRoutes } from './features/pages/verify-page.ts';
import { statusRoutes } from './features/status/routes.ts';
import { StatusService } from './features/status/status-service.ts';
import { tenantRoutes } from './features/tenants/routes.ts';
import { TenantService } from './features/tenants/tenant-service.ts';
import { ReadinessProbe } from './features/trust/readiness.ts';
import { trustRoutes } from './features/trust/routes.ts';
import { conformanceRoutes } from './features/verification/conformance-routes.ts';
import { HostedVerifier } from './features/verification/hosted-verifier.ts';
import { verificationRoutes } from './features/verification/routes.ts';
import { StatusListSource } from './features/verification/status-list-source.ts';
import { buildApp } from './http/app.ts';
import { AccessTokenAuthenticator } from './http/auth/access-token.ts';
import { HolderJwsAuthenticator } from './http/auth/holder-jws.ts';
import { OperatorBearerAuthenticator } from './http/auth/operator-bearer.ts';
import type { Principal } from './http/auth/principal.ts';
import { buildOpenApi } from './http/openapi.ts';
import type { RouteGroup } from './http/route.ts';
import type { HttpFetcher } from './ports/http-fetcher.ts';
import type { SettingsStore } from './ports/settings-store.ts';

export const APP_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** Offer subjects are erased within this long of their erase time (docs/offers.md). */
const SWEEP_INTERVAL_MS = 60 * 1000;

export interface Openrail {
  app: FastifyInstance;
  db: Db;
  /** Set only on the start that generated the owner token: shown once, never stored in clear. */
  revealedOwnerToken?: string;
  close(): Promise<void>;
}

export interface ComposeOptions {
  clock?: Clock;
  logger?: FastifyBaseLogger;
  warn?: (message: string) => void;
  database?: OpenOptions;
  /** Outbound HTTP for status lists of other services (default: the SSRF-guarded fetcher). */
  fetcher?: HttpFetcher;
}

/** The composition root: adapters, then services, then routes. */
export async function compose(config: Config, options: ComposeOptions = {}): Promise<Openrail> {
  const clock = options.clock ?? systemClock;
  const warn = options.warn ?? ((m: string) => process.emitWarning(m));
  const vault = new KeyVault(resolveMasterKey(config, warn));

  const db = openDatabase(config.database, options.database);
  try {
    await migrate(db);
    const settings = new SqlSettingsStore(db);
    await checkMasterKey(settings, vault);

    const tenantStore = new SqlTenantStore(db);
    const keys = new LocalKeyStore(new SqlSigningKeyStore(db), vault, clock);
    const operatorStore = new SqlOperatorStore(db);
    const sessions = new SqlOperatorSessionStore(db);

    const tenants = new TenantService(tenantStore, keys, config.publicUrl, clock);
    await tenants.seed({ demo: config.demo, platformName: config.platformName });
    const operators = new OperatorService(operatorStore, sessions, tenantStore, clock);

    const urls = new IssuerUrls(config.publicUrl);
    const typeStore = new SqlCredentialTypeStore(db);
    const offerStore = new SqlOfferStore(db);
    const ledger = new SqlIssuedCredentialStore(db);
    const types = new TypeService(typeStore, tenants, urls, clock);
    const offers = new OfferService(offerStore, types, urls, clock);
    const nonces = new NonceMinter(vault.deriveKey('c_nonce'));
    const tokens = new TokenService(offerStore, nonces, clock);
    const issuer = new CredentialIssuer(types, offerStore, ledger, keys, nonces, tenants, urls, clock);
    const status = new StatusService(ledger, keys, tenants, urls, clock);
    const transactions = new SqlPresentationTransactionStore(db);
    const statusLists = new StatusListSource(
      urls,
      (t, seq) => status.token(t, seq),
      options.fetcher ?? new GuardedFetcher(),
      clock,
    );
    const verifier = new HostedVerifier(transactions, types, tenants, keys, statusLists, urls, clock);

    const origin = config.publicUrl.origin;
    const replay = new SqlHolderReplayStore(db);
    const authenticators = {
      public: { authenticate: async (): Promise<Principal> => ({ plane: 'public' }) },
      operator: new OperatorBearerAuthenticator(ownerTokenHash(settings, config), operatorStore, sessions, clock),
      holder: new HolderJwsAuthenticator(origin, replay, clock),
      'access-token': new AccessTokenAuthenticator(new SqlAccessTokenStore(db), clock),
    };

    let openApi: Record<string, unknown> = {};
    const all: RouteGroup[] = [
      trustRoutes({
        tenants,
        keys,
        clock,
        readiness: new ReadinessProbe(async () => void (await sql`select 1`.execute(db)), keys, clock),
        appRoot: APP_ROOT,
        publicUrl: config.publicUrl,
        security: config.security,
        openApi: () => openApi,
      }),
      tenantRoutes(tenants),
      credentialTypeRoutes(types, tenants, urls),
      offerRoutes(offers),
      issuanceRoutes({ tenants, types: typeStore, urls, tokens, issuer }),
      statusRoutes(status),
      operatorAuthRoutes(operators),
      operatorConsoleRoutes(operators),
      verificationRoutes(verifier),
      conformanceRoutes(clock),
      qrRoutes(),
      verifyPageRoutes(),
    ];
    const groups = mountedGroups(all, config.unmountedGroups);
    openApi = buildOpenApi(groups, origin);

    const app = buildApp({ groups, authenticators, publicOrigin: origin, ...(options.logger ? { logger: options.logger } : {}) });
    await app.ready();
    // Last, so that a start which fails earlier cannot generate a token nobody ever sees.
    const revealed = await revealOwnerTokenOnFirstStart(settings, config);
    // Spent holder jti marks are kept for their freshness window only.
    const pruning = setInterval(() => void replay.prune(clock.now()).catch(() => {}), PRUNE_INTERVAL_MS);
    pruning.unref();
    // Subjects past their time are erased, and spent or expired nonces and tokens dropped.
    // Expired presentation transactions are deleted.
    const sweep = () =>
      Promise.all([offerStore.sweep(clock.now()), transactions.sweep(clock.now())]).catch((err) =>
        app.log.error({ err }, 'sweep failed'),
      );
    await sweep();
    const sweeping = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
    sweeping.unref();
    const result: Openrail = {
      app,
      db,
      close: async () => {
        clearInterval(pruning);
        clearInterval(sweeping);
        await app.close();
        await db.destroy();
      },
    };
    if (revealed) result.revealedOwnerToken = revealed;
    return result;
  } catch (err) {
    await db.destroy();
    throw err;
  }
}

/** The names a deployment can list in OPENRAIL_UNMOUNTED_GROUPS. */
export function mountedGroups(all: RouteGroup[], unmounted: string[]): RouteGroup[] {
  const known = new Set(all.map((g) => g.name));
  const unknown = unmounted.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(`OPENRAIL_UNMOUNTED_GROUPS names unknown groups: ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  }
  return all.filter((g) => !unmounted.includes(g.name));
}

async function checkMasterKey(settings: SettingsStore, vault: KeyVault): Promise<void> {
  const check = vault.checkValue();
  if (await settings.putIfAbsent('master_key_check', check)) return;
  if ((await settings.get('master_key_check')) !== check) {
    throw new Error('OPENRAIL_MASTER_KEY is not the key this database was created with; its private keys cannot be opened.');
  }
}

const OWNER_TOKEN_SETTING = 'owner_token_hash';

/**
 * The break-glass owner token: OPENRAIL_OWNER_TOKEN when set; otherwise one generated on the
 * first start, printed once, and kept only as a hash. Concurrent first starts agree on one.
 */
function ownerTokenHash(settings: SettingsStore, config: Config): () => Promise<string | undefined> {
  if (config.ownerToken) {
    const hash = hashToken(config.ownerToken);
    return async () => hash;
  }
  return () => settings.get(OWNER_TOKEN_SETTING);
}

async function revealOwnerTokenOnFirstStart(settings: SettingsStore, config: Config): Promise<string | undefined> {
  if (config.ownerToken) return undefined;
  const token = newToken('oro');
  return (await settings.putIfAbsent(OWNER_TOKEN_SETTING, hashToken(token))) ? token : undefined;
}
