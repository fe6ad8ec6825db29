import { ID_PREFIXES } from '../../../core/ids.ts';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import { holds } from '../../../http/admin/role-matrix.ts';
import type { OperatorPrincipal } from '../../../http/auth/operator-bearer.ts';
import type { AccountInTenant } from '../../../ports/view-records.ts';
import { mergeOrdered } from '../credentials/merged.ts';
import { credentialView } from '../credentials/schemas.ts';
import type { FinderSources } from '../credentials/sources.ts';

/** A credential id or the start of one: the prefix and any base64url characters. */
const CREDENTIAL_ID_PREFIX = new RegExp(`^${ID_PREFIXES.credential}_[A-Za-z0-9_-]+$`);
/** A status index, with its list's number or without: `7`, `3:7`. */
const STATUS_INDEX = /^(?:([1-9][0-9]{0,8}):)?([0-9]{1,9})$/;
/** Hits per kind. */
const SEARCH_CAP = 10;

/**
 * The search box (docs/backoffice/views.md, "GET /api/admin/search"): each kind asks its owner's
 * view for one more hit than it shows, and shows a caller only the kinds its roles read elsewhere
 * in the matrix, narrowed to `tenant` (a scoped caller's own), naming what it left out.
 */
export class SearchBox {
  constructor(
    private readonly sources: FinderSources,
    private readonly urls: IssuerUrls,
  ) {}

  async search(principal: OperatorPrincipal, tenant: string | null, q: string) {
    const s = this.sources;
    const omitted: string[] = [];
    const truncated: string[] = [];
    /** Reads one more than the cap, to tell whether more hits exist. */
    const kind = async <T>(name: string, allowed: boolean, read: (() => Promise<T[]>) | undefined): Promise<T[]> => {
      if (!allowed) {
        omitted.push(name);
        return [];
      }
      const hits = read ? await read() : [];
      if (hits.length > SEARCH_CAP) truncated.push(name);
      return hits.slice(0, SEARCH_CAP);
    };
    const status = STATUS_INDEX.exec(q);
    const credentialsRead = holds(principal, 'credentialsRead');
    const cap = SEARCH_CAP + 1;
    const [tenants, typeHits, credentials, holders, partners, operators] = await Promise.all([
      kind('tenants', holds(principal, 'orgsRead'), () => s.tenants.search(q, tenant, cap)),
      kind('types', credentialsRead, () => s.types.search(q, tenant, cap)),
      kind(
        'credentials',
        credentialsRead,
        status
          ? () =>
              s.credentials.byStatus(
                { idx: Number(status[2]), ...(status[1] ? { listSeq: Number(status[1]) } : {}) },
                tenant,
                cap,
              )
          : CREDENTIAL_ID_PREFIX.test(q)
            ? () => s.credentials.byIdPrefix(q, tenant, cap)
            : undefined,
      ),
      kind('holders', credentialsRead, /^[A-Za-z0-9_-]{8,43}$/.test(q) ? () => this.holders(q, tenant, cap) : undefined),
      // Partners come before any tenant: platform-wide readers only (docs/partners.md, "Roles").
      kind('partners', holds(principal, 'partnersRead') && principal.tenant === null, () => s.partners.search(q, tenant, cap)),
      kind('operators', holds(principal, 'operatorsRead'), () => s.operators.byPrefix(q, tenant, cap)),
    ]);
    return {
      q,
      tenant,
      tenants,
      types: typeHits,
      credentials: credentials.map((c) => credentialView(this.urls, c)),
      holders,
      partners,
      operators,
      truncated,
      omitted,
    };
  }

  /** Accounts the service knows (members, wallet items) whose id starts with `prefix`, by (account, tenant). */
  private async holders(prefix: string, tenant: string | null, cap: number): Promise<AccountInTenant[]> {
    const s = this.sources;
    const [members, items] = await Promise.all([
      s.members.accountsByPrefix(prefix, tenant, cap),
      s.wallet.accountsByPrefix(prefix, tenant, cap),
    ]);
    return mergeOrdered(s.kernel, [members, items], (h) => [h.accountId, h.tenant], cap);
  }
}
