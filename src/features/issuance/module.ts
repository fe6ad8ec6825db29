import { NonceMinter } from '../../adapters/crypto/c-nonce.ts';
import { ChainVerifier } from '../../adapters/crypto/x509.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlAccessTokenStore } from '../../adapters/sql/issuance/sql-access-token-store.ts';
import { SqlAttestationPopReplayStore } from '../../adapters/sql/issuance/sql-attestation-pop-replay-store.ts';
import { SqlAuthorizationRequestStore } from '../../adapters/sql/issuance/sql-authorization-request-store.ts';
import { SqlIssuanceViews } from '../../adapters/sql/issuance/sql-issuance-views.ts';
import { SqlIssuedCredentialStore } from '../../adapters/sql/issuance/sql-issued-credential-store.ts';
import { defineModule } from '../../app/module.ts';
import { type Config, ConfigError } from '../../config/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { Random } from '../../core/random.ts';
import { AccessTokenAuthenticator, type DpopResourceCheck } from '../../http/auth/access-token.ts';
import type { CNonces } from '../../ports/c-nonces.ts';
import type { LedgerWrites } from '../../ports/issued-credential-store.ts';
import { credentialTypesModule } from '../credential-types/module.ts';
import { offersModule } from '../offers/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { authorizationRoutes } from './authorization-routes.ts';
import { AuthorizationService } from './authorization-service.ts';
import { CredentialIssuer, STATUS_BLOCK, STATUS_LIST_CAPACITY, STATUS_LIST_SIZE } from './issue-credential.ts';
import { OauthChecks } from './oauth-checks.ts';
import { issuanceRoutes } from './routes.ts';
import { StatusSlots } from './status-slots.ts';
import { TokenService } from './token-service.ts';

/** Spent c_nonce marks and expired access tokens are dropped this often. */
const PRUNE_EVERY_MS = 60 * 1000;

const holderRecords = holderRecordsOf('issuance');

/**
 * OID4VCI 1.0 for the platform issuer and every tenant: metadata, the token, nonce and
 * credential endpoints, and the access-token plane the credential endpoint is on.
 */
export const issuanceModule = defineModule({
  name: 'issuance',
  groups: ['issuance'],
  owns: [
    SqlAccessTokenStore,
    SqlIssuedCredentialStore,
    SqlAuthorizationRequestStore,
    SqlAttestationPopReplayStore,
    SqlIssuanceViews,
    holderRecords,
  ],
  holderRecords,
  views: SqlIssuanceViews,
  planes: ['access-token'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const types = await ctx.use(credentialTypesModule);
    const { store: offers, offers: offerService } = await ctx.use(offersModule);
    const ledger = ctx.store(SqlIssuedCredentialStore);
    const tokenStore = ctx.store(SqlAccessTokenStore);
    const nonces = new NonceMinter(ctx.vault.deriveKey('c_nonce'));
    const tokens = new TokenService(offers, tokenStore, nonces, ctx.clock, ctx.random);
    const slots = new StatusSlots(ledger, { size: STATUS_LIST_SIZE, capacity: STATUS_LIST_CAPACITY }, STATUS_BLOCK, ctx.clock);
    const checks = oauthChecks(ctx.config, nonces, ctx.clock, ctx.random);
    const issuer = new CredentialIssuer({
      types,
      offers,
      ledger,
      keys: ctx.keys,
      nonces,
      slots,
      tenants,
      urls: ctx.urls,
      clock: ctx.clock,
      random: ctx.random,
      ids: ctx.ids,
      attestations: checks.keyAttestations,
      meter: ctx.meter,
    });
    const authorizationStore = ctx.store(SqlAuthorizationRequestStore);
    const authorizations = new AuthorizationService({
      store: authorizationStore,
      uow: ctx.unitOfWork(),
      offers,
      offerService,
      types,
      tenants,
      tokens,
      checks,
      urls: ctx.urls,
      clock: ctx.clock,
      random: ctx.random,
      ids: ctx.ids,
    });
    const dpop: DpopResourceCheck = (tenant, token, jkt, request) => checks.checkResourceDpop(tenant, token, jkt, request);
    return {
      // `ledger`: what the status module changes of the record, revocations and a list's revision.
      services: { tokens, issuer, authorizations, ledger: ledger as LedgerWrites },
      routes: () => {
        const group = issuanceRoutes({ tenants, types, urls: ctx.urls, tokens, issuer, authorizations, checks });
        const flow = authorizationRoutes({ tenants, authorizations, urls: ctx.urls, siteName: ctx.config.platformName });
        return [{ ...group, routes: [...group.routes, ...flow] }];
      },
      planes: { 'access-token': new AccessTokenAuthenticator(tokenStore, ctx.clock, dpop) },
      jobs: [
        {
          name: 'issuance.prune',
          everyMs: PRUNE_EVERY_MS,
          run: async (now) => {
            await ledger.pruneSpentNonces(now);
            await tokenStore.prune(now);
            await authorizationStore.prune(now);
            await ctx.store(SqlAttestationPopReplayStore).prune(now);
          },
        },
      ],
    };
  },
});

/** The authorization code flow's checks over the configured wallet anchors: an anchor that is no certificate stops the start. */
function oauthChecks(config: Config, nonces: CNonces, clock: Clock, random: Random): OauthChecks {
  try {
    const chains = new ChainVerifier(config.walletAttestationAnchors);
    return new OauthChecks(chains, nonces, clock, random, config.publicUrl.protocol === 'http:');
  } catch (err) {
    throw new ConfigError(
      'OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE',
      `holds a certificate that cannot be read (${(err as Error).message})`,
    );
  }
}
