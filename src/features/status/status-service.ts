import type { Static } from '@sinclair/typebox';
import { afterCommit } from '../../app/transactions.ts';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { compressStatusList, packStatuses } from '../../core/status-list/codec.ts';
import type { IssuanceViews } from '../../ports/issuance-views.ts';
import type { IssuedCredentialRecord, LedgerWrites, RevocationTarget } from '../../ports/issued-credential-store.ts';
import { type KeyStore, x5c } from '../../ports/key-store.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import type { Revocation } from './routes.ts';

/** Seconds a relying party may cache a list (its `ttl`, and the HTTP max-age). */
export const STATUS_LIST_TTL_S = 300;
/** A list token is valid this long after it is signed. */
export const STATUS_LIST_VALIDITY_S = 3600;
/** DEFLATE level of served lists: nearly level 9's size at a tenth of its time (codec.ts). */
const SERVED_LEVEL = 6;
/** Signed tokens kept, one per list. */
const TOKEN_CACHE_ENTRIES = 1024;
export const STATUS_LIST_MEDIA_TYPE = 'application/statuslist+jwt';

export type RevocationView = Static<typeof Revocation>;

export type RevokeSelector = { status: { uri: string; idx: number } } | { credentialId: string } | { offerId: string };

export interface StatusServiceDeps {
  views: Pick<IssuanceViews, 'statusList' | 'revokedIndices'>;
  ledger: LedgerWrites;
  uow: UnitOfWork;
  keys: KeyStore;
  tenants: TenantService;
  urls: IssuerUrls;
  clock: Clock;
}

/**
 * Token status lists and revocation (docs/status-lists.md), over the issuance module's record of
 * issued credentials: its views to read a list, its ledger to revoke.
 */
export class StatusService {
  /**
   * The token last signed for each list, with the list's revision it was built at. It is served
   * again while the list's revision is unchanged (one row read) and it is younger than the ttl, so
   * a served token always has most of its validity left. A cache only: any process may drop it.
   */
  private readonly signed = new Map<string, { revision: number; token: string; signedAt: number }>();

  constructor(private readonly deps: StatusServiceDeps) {}

  /**
   * The signed Status List Token (draft-ietf-oauth-status-list §5.1) of the record as it is now:
   * signed again whenever a revocation has changed the list since the last one, or that one is
   * older than the ttl.
   */
  async token(tenant: string, seq: number): Promise<string> {
    await this.deps.tenants.existing(tenant);
    const list = await this.deps.views.statusList(tenant, seq);
    if (!list) throw new ServiceError('unknown_status_list', `Tenant ${tenant} has no status list ${seq}.`);
    const key = `${tenant}\u0000${seq}`;
    const now = this.deps.clock.now();
    const cached = this.signed.get(key);
    if (cached && cached.revision === list.revision && now - cached.signedAt < STATUS_LIST_TTL_S * 1000) return cached.token;
    // The revision was read first: a revocation committed meanwhile is in this token, under the older
    // revision, and only makes the next fetch sign again.
    const revoked = await this.deps.views.revokedIndices(tenant, seq);
    const lst = compressStatusList(
      packStatuses(
        list.size,
        1,
        revoked.map((i) => [i, 1] as [number, number]),
      ),
      SERVED_LEVEL,
    );
    const signer = await this.deps.keys.signer(tenant, 'issuer');
    const iat = Math.floor(now / 1000);
    let token: string;
    try {
      token = await signer.sign(
        { typ: 'statuslist+jwt', kid: signer.kid, ...x5c(signer) },
        {
          iss: this.deps.tenants.didOf(tenant),
          sub: this.deps.urls.statusList(tenant, seq),
          iat,
          exp: iat + STATUS_LIST_VALIDITY_S,
          ttl: STATUS_LIST_TTL_S,
          status_list: { bits: 1, lst },
        },
      );
    } catch (err) {
      // A key that cannot sign just now (its token lost): the list as last signed is still true when
      // nothing was revoked since, and still valid until its exp; a list that changed is not served stale.
      const stale = cached && cached.revision === list.revision && now < cached.signedAt + STATUS_LIST_VALIDITY_S * 1000;
      if (stale && err instanceof ServiceError && err.code === 'signing_unavailable') return cached.token;
      throw err;
    }
    afterCommit(() => {
      if (this.signed.size >= TOKEN_CACHE_ENTRIES && !this.signed.has(key))
        this.signed.delete(this.signed.keys().next().value as string);
      this.signed.set(key, { revision: list.revision, token, signedAt: now });
    });
    return token;
  }

  /**
   * Has every list of the tenant signed again (a key rotation): each list's revision is raised, so
   * every process signs a fresh token on its next fetch, whatever it cached. Answers how many lists.
   */
  resignAll(tenant: string): Promise<number> {
    return this.deps.ledger.touchLists(tenant);
  }

  /** The revoked indices of a list, as the issued-credential record holds them. */
  revokedIndices(tenant: string, seq: number): Promise<number[]> {
    return this.deps.views.revokedIndices(tenant, seq);
  }

  /**
   * Sets the status bit of the selected credentials of `tenant`; repeating it changes nothing.
   * Each credential revoked now gets an audit entry and a credential.revoked event.
   */
  async revoke(
    tenant: string,
    selector: RevokeSelector,
    actor: Actor,
    reason?: string,
  ): Promise<{ views: RevocationView[]; newlyRevoked: string[] }> {
    await this.deps.tenants.get(tenant);
    const target = this.target(tenant, selector);
    return this.deps.uow.run((recorders) => this.revokeWithin(recorders, tenant, target, actor, reason));
  }

  /**
   * Revokes the credentials named by id, each once (docs/backoffice/approvals.md, revoke-bulk):
   * which were revoked now, and every one matched. Called inside another unit of work, it joins it.
   */
  async revokeEach(tenant: string, ids: string[], actor: Actor): Promise<{ views: RevocationView[]; newlyRevoked: string[] }> {
    return this.deps.uow.run((recorders) => this.revokeWithin(recorders, tenant, { by: 'credentials', ids }, actor));
  }

  /**
   * The revocation itself, in the unit of work `revoke` or `revokeEach` runs (joining the caller's,
   * an approval's transaction for a bulk revocation), with its audit entries and events. Answers
   * the matching credentials and the ids revoked now.
   */
  private async revokeWithin(
    { audit }: Recorders,
    tenant: string,
    target: RevocationTarget,
    actor: Actor,
    reason?: string,
  ): Promise<{ views: RevocationView[]; newlyRevoked: string[] }> {
    const { matched, newlyRevoked } = await this.deps.ledger.revoke(tenant, target, this.deps.clock.now());
    if (matched.length === 0) {
      throw new ServiceError('unknown_credential', `No credential of tenant ${tenant} matches this reference.`);
    }
    const views = matched.map((r) => this.view(r));
    for (const v of views.filter((v) => newlyRevoked.includes(v.credentialId))) {
      const data = { credentialId: v.credentialId, typeId: v.typeId, status: v.status, revokedAt: v.revokedAt };
      await audit.append(
        {
          actor,
          action: 'credential.revoked',
          tenant,
          target: v.credentialId,
          detail: reason === undefined ? data : { ...data, reason },
        },
        [{ type: 'credential.revoked', tenant, data }],
      );
    }
    return { views, newlyRevoked };
  }

  private target(tenant: string, selector: RevokeSelector): RevocationTarget {
    if ('credentialId' in selector) return { by: 'credential', id: selector.credentialId };
    if ('offerId' in selector) return { by: 'offer', offerId: selector.offerId };
    const list = this.deps.urls.parseStatusList(selector.status.uri);
    // Another tenant's (or another service's) status reference is refused like an unknown one.
    if (!list || list.tenant !== tenant) {
      throw new ServiceError('unknown_credential', `No credential of tenant ${tenant} matches this reference.`);
    }
    return { by: 'status', listSeq: list.seq, idx: selector.status.idx };
  }

  private view(r: IssuedCredentialRecord): RevocationView {
    return {
      credentialId: r.id,
      typeId: r.typeId,
      status: { uri: this.deps.urls.statusList(r.tenant, r.listSeq), idx: r.idx },
      issuedAt: new Date(r.issuedAt).toISOString(),
      revokedAt: new Date(r.revokedAt ?? 0).toISOString(),
    };
  }
}
