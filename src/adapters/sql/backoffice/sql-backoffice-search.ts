import { type SqlBool, sql } from 'kysely';
import { isIdLike } from '../../../core/ids.ts';
import type {
  CredentialRow,
  LookupMatch,
  OperatorHit,
  PartnerHit,
  SearchViews,
  StatusRef,
  TenantHit,
  TypeHit,
} from '../../../ports/backoffice-views.ts';
import type { Db } from '../connect.ts';
import { SqlIssuanceViews } from '../issuance/sql-issuance-views.ts';
import { SqlOffersViews } from '../offers/sql-offers-views.ts';
import { inTenant } from '../windowed.ts';
import { CREDENTIAL_COLUMNS, containsCi, like, num, startsWith, toCredential } from './sql-backoffice-rows.ts';

/**
 * The back office's search box and exact lookup over the tables the features keep
 * (docs/backoffice/views.md, "GET /api/admin/search", "GET /api/admin/support/lookup"). Read-only.
 */
export class SqlSearchViews implements SearchViews {
  private readonly issuance: SqlIssuanceViews;
  private readonly offers: SqlOffersViews;

  constructor(private readonly db: Db) {
    this.issuance = new SqlIssuanceViews(db);
    this.offers = new SqlOffersViews(db);
  }

  async searchTenants(q: string, tenant: string | null, cap: number): Promise<TenantHit[]> {
    const rows = await this.db
      .selectFrom('tenants')
      .select(['slug', 'name'])
      .where((eb) => eb.or([containsCi('slug', q), containsCi('name', q)]))
      .where(inTenant(tenant, 'slug'))
      .orderBy('slug')
      .limit(cap)
      .execute();
    return rows.map((r) => ({ slug: r.slug, name: r.name }));
  }

  async searchTypes(q: string, tenant: string | null, cap: number): Promise<TypeHit[]> {
    const rows = await this.db
      .selectFrom('credential_types')
      .select(['tenant', 'type_id', 'name'])
      .where((eb) => eb.or([containsCi('type_id', q), containsCi('name', q)]))
      .where(inTenant(tenant))
      .orderBy('tenant')
      .orderBy('type_id')
      .limit(cap)
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, typeId: r.type_id, name: r.name }));
  }

  async credentialsByStatus(ref: StatusRef, tenant: string | null, cap: number): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .where('idx', '=', ref.idx)
      .$if(ref.listSeq !== undefined, (qb) => qb.where('list_seq', '=', ref.listSeq as number))
      .where(inTenant(tenant))
      .orderBy('tenant')
      .orderBy('list_seq')
      .limit(cap)
      .execute();
    return rows.map(toCredential);
  }

  async credentialsByIdPrefix(prefix: string, tenant: string | null, cap: number): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .where(startsWith('id', prefix))
      .where(inTenant(tenant))
      .orderBy('id')
      .limit(cap)
      .execute();
    return rows.map(toCredential);
  }

  async holdersByPrefix(prefix: string, tenant: string | null, cap: number) {
    const known = this.db
      .selectFrom('members')
      .select(['account_id', 'tenant'])
      .where(startsWith('account_id', prefix))
      .where(inTenant(tenant))
      .union(
        this.db
          .selectFrom('wallet_items')
          .select(['account_id', 'tenant'])
          .where(startsWith('account_id', prefix))
          .where(inTenant(tenant)),
      );
    const rows = await this.db
      .selectFrom(known.as('known'))
      .select(['known.account_id', 'known.tenant'])
      .orderBy('known.account_id')
      .orderBy('known.tenant')
      .limit(cap)
      .execute();
    return rows.map((r) => ({ accountId: r.account_id, tenant: r.tenant }));
  }

  async searchPartners(q: string, tenant: string | null, cap: number): Promise<PartnerHit[]> {
    const rows = await this.db
      .selectFrom('partner_applications')
      .select(['id', 'organisation', 'kind', 'stage', 'tenant'])
      .where((eb) => eb.or([startsWith('id', q), containsCi('organisation', q)]))
      .where(inTenant(tenant))
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(cap)
      .execute();
    return rows.map((r) => ({
      applicationId: r.id,
      organisation: r.organisation,
      kind: r.kind,
      stage: r.stage,
      tenant: r.tenant,
    }));
  }

  async operatorsByPrefix(prefix: string, tenant: string | null, cap: number): Promise<OperatorHit[]> {
    const rows = await this.db
      .selectFrom('operators')
      .select(['username', 'roles', 'tenant', 'status'])
      .where(sql<SqlBool>`lower(${sql.ref('username')}) like ${`${like(prefix.toLowerCase())}%`} escape '\\'`)
      .where('status', '<>', 'removed')
      .where(inTenant(tenant))
      .orderBy('username')
      .limit(cap)
      .execute();
    return rows.map((r) => ({
      username: r.username,
      roles: JSON.parse(r.roles) as string[],
      tenant: r.tenant,
      status: r.status,
    }));
  }

  async lookup(q: string, tenant: string | null, cap: number): Promise<LookupMatch[]> {
    const matches: LookupMatch[] = [];
    const credential = (c: CredentialRow): LookupMatch => ({
      kind: 'credential',
      id: c.id,
      tenant: c.tenant,
      accountId: c.accountId,
      typeId: c.typeId,
      state: c.revokedAt === null ? 'valid' : 'revoked',
      at: c.issuedAt,
    });
    if (isIdLike('credential', q)) {
      const found = await this.issuance.credential(q, tenant);
      if (found) matches.push(credential(found));
    }
    if (isIdLike('offer', q)) {
      const offer = await this.offers.offer(q, tenant);
      if (offer) {
        matches.push({
          kind: 'offer',
          id: offer.id,
          tenant: offer.tenant,
          accountId: null,
          typeId: offer.typeId,
          state: offer.collectedAt !== null ? 'collected' : offer.redeemedAt !== null ? 'redeemed' : 'open',
          at: offer.createdAt,
        });
        const issued = await this.db
          .selectFrom('issued_credentials')
          .select(CREDENTIAL_COLUMNS)
          .where('offer_id', '=', q)
          .where(inTenant(tenant))
          .orderBy('issued_at')
          .orderBy('id')
          .limit(cap)
          .execute();
        matches.push(...issued.map(toCredential).map(credential));
      }
    }
    if (isIdLike('item', q)) {
      const item = await this.db
        .selectFrom('wallet_items')
        .select(['id', 'tenant', 'account_id', 'kind', 'state', 'created_at'])
        .where('id', '=', q)
        .where(inTenant(tenant))
        .executeTakeFirst();
      if (item) {
        matches.push({
          kind: 'item',
          id: item.id,
          tenant: item.tenant,
          accountId: item.account_id,
          typeId: null,
          state: `${item.kind}:${item.state}`,
          at: num(item.created_at),
        });
      }
    }
    if (isIdLike('transaction', q)) {
      const tx = await this.db
        .selectFrom('presentation_transactions')
        .select(['id', 'type_tenant', 'type_id', 'holder_thumbprint', 'created_at', 'completed_at'])
        .where('id', '=', q)
        .where(inTenant(tenant, 'type_tenant'))
        .executeTakeFirst();
      if (tx) {
        matches.push({
          kind: 'transaction',
          id: tx.id,
          tenant: tx.type_tenant,
          accountId: tx.holder_thumbprint,
          typeId: tx.type_id,
          state: tx.completed_at === null ? 'open' : 'completed',
          at: num(tx.created_at),
        });
      }
    }
    if (/^[A-Za-z0-9_-]{43}$/.test(q)) {
      const known = await this.accountTenants(q, tenant);
      matches.push(
        ...known.map(
          (t): LookupMatch => ({ kind: 'holder', id: q, tenant: t, accountId: q, typeId: null, state: null, at: null }),
        ),
      );
    }
    const status = /^(?:([1-9][0-9]{0,8}):)?([0-9]{1,9})$/.exec(q);
    if (status) {
      const ref = { idx: Number(status[2]), ...(status[1] ? { listSeq: Number(status[1]) } : {}) };
      matches.push(...(await this.credentialsByStatus(ref, tenant, cap)).map(credential));
    }
    if (/^[A-Za-z0-9._:-]{1,64}$/.test(q)) {
      const deposits = await this.db
        .selectFrom('deposits')
        .select(['deposit_id', 'tenant', 'account_id', 'created_at', 'erased_at'])
        .where('deposit_id', '=', q)
        .where(inTenant(tenant))
        .orderBy('tenant')
        .limit(cap)
        .execute();
      matches.push(
        ...deposits.map(
          (d): LookupMatch => ({
            kind: 'deposit',
            id: d.deposit_id,
            tenant: d.tenant,
            accountId: d.account_id === '' ? null : d.account_id,
            typeId: null,
            state: d.erased_at === null ? 'kept' : 'erased',
            at: num(d.created_at),
          }),
        ),
      );
    }
    return matches.slice(0, cap);
  }

  /** The tenants that hold something of an account: a membership, an item, a channel, a deposit, a credential. */
  private async accountTenants(accountId: string, tenant: string | null): Promise<string[]> {
    const of = <T extends 'members' | 'wallet_items' | 'channels' | 'deposits'>(table: T) =>
      this.db
        .selectFrom(table as 'members')
        .select('tenant')
        .where('account_id', '=', accountId)
        .where(inTenant(tenant));
    const rows = await of('members')
      .union(of('wallet_items'))
      .union(of('channels'))
      .union(of('deposits'))
      .union(
        this.db
          .selectFrom('issued_credentials')
          .select('tenant')
          .where('holder_thumbprint', '=', accountId)
          .where(inTenant(tenant)),
      )
      .execute();
    return rows.map((r) => r.tenant).sort();
  }
}
