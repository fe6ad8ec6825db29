import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { ServiceError } from '../../../core/errors.ts';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import type { PageWindow } from '../../../core/page.ts';
import { ROOT_SLUG } from '../../../core/slug.ts';
import { decompressStatusList, readStatus } from '../../../core/status-list/codec.ts';
import type { IssuanceViews, StatusListRow } from '../../../ports/issuance-views.ts';
import type { KeyStore } from '../../../ports/key-store.ts';
import type { StatusService } from '../../status/status-service.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { IntegrityView } from './schemas.ts';

/** Mismatched indices named per list, at most. */
const MISMATCHES_NAMED = 20;

/**
 * Status lists as operations sees them (docs/operations.md, "Status lists"): each list's size and
 * revoked share, and the integrity check, which takes the token the status endpoint serves now
 * and checks that it decodes, is signed by a key the issuer's DID document publishes, names the
 * list it is served at, and carries exactly the bits the issued-credential record holds.
 */
export class StatusChecks {
  constructor(
    private readonly deps: {
      /** The status lists as the issued-credential record holds them. */
      issuance: IssuanceViews;
      status: StatusService;
      tenants: TenantService;
      keys: KeyStore;
      urls: IssuerUrls;
      revoked: (tenant: string, seq: number) => Promise<number[]>;
    },
  ) {}

  /** The tenant whose DID this is; `unknown_issuer` for any other DID. */
  async tenantOfDid(did: string): Promise<string> {
    const platform = this.deps.tenants.didOf(ROOT_SLUG);
    const slug = did === platform ? ROOT_SLUG : did.startsWith(`${platform}:t:`) ? did.slice(platform.length + 3) : undefined;
    if (slug === undefined || this.deps.tenants.didOf(slug) !== did || !(await this.deps.tenants.find(slug))) {
      throw new ServiceError('unknown_issuer', `No issuer of this deployment has the DID ${did}.`);
    }
    return slug;
  }

  lists(tenant: string | null, page: PageWindow<readonly [string, number]>): Promise<StatusListRow[]> {
    return this.deps.issuance.statusLists(tenant, page);
  }

  async integrity(row: Pick<StatusListRow, 'tenant' | 'seq' | 'size'>): Promise<IntegrityView> {
    const { tenant, seq } = row;
    const uri = this.deps.urls.statusList(tenant, seq);
    const issuerDid = this.deps.tenants.didOf(tenant);
    const problems: string[] = [];
    const mismatched: number[] = [];
    const result = (): IntegrityView => ({ tenant, issuerDid, seq, uri, ok: problems.length === 0, problems, mismatched });
    let token: string;
    try {
      token = await this.deps.status.token(tenant, seq);
    } catch (err) {
      problems.push(`the list is not served: ${err instanceof Error ? err.message : 'error'}`);
      return result();
    }
    let lst: string | undefined;
    try {
      const header = decodeProtectedHeader(token);
      const claims = decodeJwt(token) as { sub?: unknown; iss?: unknown; status_list?: { bits?: unknown; lst?: unknown } };
      if (header.typ !== 'statuslist+jwt') problems.push(`typ is ${String(header.typ)}, not statuslist+jwt`);
      if (claims.sub !== uri) problems.push('sub is not the URI the list is served at');
      if (claims.iss !== issuerDid) problems.push("iss is not the issuer's DID");
      if (claims.status_list?.bits !== 1) problems.push('bits is not 1');
      lst = typeof claims.status_list?.lst === 'string' ? claims.status_list.lst : undefined;
      const published = (await this.deps.keys.publishedKeys(tenant)).filter((k) => k.purpose === 'issuer');
      const key = published.find((k) => k.kid === header.kid);
      if (!key) problems.push(`signed with key ${String(header.kid)}, which the DID document does not publish`);
      else await jwtVerify(token, await importJWK(key.publicJwk, 'ES256'), { algorithms: ['ES256'], typ: 'statuslist+jwt' });
    } catch (err) {
      problems.push(`the token does not verify: ${err instanceof Error ? err.message : 'error'}`);
    }
    if (lst === undefined) {
      problems.push('the token carries no status list');
      return result();
    }
    let bits: Uint8Array;
    try {
      bits = decompressStatusList(lst);
    } catch {
      problems.push('the status list does not decompress');
      return result();
    }
    if (bits.length * 8 < row.size) problems.push(`the list holds ${bits.length * 8} entries, the record ${row.size}`);
    const stored = new Set(await this.deps.revoked(tenant, seq));
    for (let i = 0; i < Math.min(row.size, bits.length * 8); i++) {
      if ((readStatus(bits, 1, i) === 1) !== stored.has(i)) {
        if (mismatched.length < MISMATCHES_NAMED) mismatched.push(i);
        else break;
      }
    }
    if (mismatched.length > 0)
      problems.push(
        `${mismatched.length === MISMATCHES_NAMED ? 'at least ' : ''}${mismatched.length} entries differ from the record`,
      );
    return result();
  }
}
