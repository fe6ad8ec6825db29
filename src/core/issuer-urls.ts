import { ServiceError } from './errors.ts';
import { ROOT_SLUG } from './slug.ts';

/**
 * Addresses of each issuer, derived from PUBLIC_URL and never stored (docs/issuance.md): the
 * platform's `root` tenant issues at the base itself, every other tenant at `<base>/t/<slug>`.
 */
export class IssuerUrls {
  readonly origin: string;

  constructor(publicUrl: URL) {
    this.origin = publicUrl.origin;
  }

  /** The OID4VCI Credential Issuer Identifier, which is also the authorization server issuer. */
  issuer(tenant: string): string {
    return tenant === ROOT_SLUG ? this.origin : `${this.origin}/t/${tenant}`;
  }

  /** The path after the origin ('' for root), used to place well-known documents (RFC 8414 §3). */
  issuerPath(tenant: string): string {
    return tenant === ROOT_SLUG ? '' : `/t/${tenant}`;
  }

  vct(tenant: string, typeId: string): string {
    return `${this.issuer(tenant)}/types/${typeId}`;
  }

  statusList(tenant: string, seq: number): string {
    return `${this.issuer(tenant)}/status/${seq}`;
  }

  /** The tenant and type a vct of ours names, or undefined for any other string. */
  parseVct(vct: string): { tenant: string; typeId: string } | undefined {
    if (!vct.startsWith(`${this.origin}/`)) return undefined;
    const m = /^\/(?:t\/([a-z0-9-]+)\/)?types\/([a-z0-9-]+)$/.exec(vct.slice(this.origin.length));
    if (!m?.[2] || m[1] === ROOT_SLUG) return undefined;
    return { tenant: m[1] ?? ROOT_SLUG, typeId: m[2] };
  }

  /** The tenant and list a status URI of ours names, or undefined for any other URI. */
  parseStatusList(uri: string): { tenant: string; seq: number } | undefined {
    if (!uri.startsWith(`${this.origin}/`)) return undefined;
    const m = /^\/(?:t\/([a-z0-9-]+)\/)?status\/([1-9][0-9]{0,8})$/.exec(uri.slice(this.origin.length));
    if (!m?.[2] || m[1] === ROOT_SLUG) return undefined;
    return { tenant: m[1] ?? ROOT_SLUG, seq: Number(m[2]) };
  }
}

/**
 * The tenant a public `/t/{tenant}/...` path names. The platform answers at the base itself, so
 * `/t/root/...` is unknown, as `/t/root/did.json` is.
 */
export function pathTenant(slug: string | undefined): string {
  if (!slug || slug === ROOT_SLUG) throw new ServiceError('unknown_tenant', `No tenant answers at /t/${slug ?? ''}.`);
  return slug;
}
