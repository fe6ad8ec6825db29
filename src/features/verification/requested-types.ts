import type { ClaimSpec } from '../../core/claims/claim-spec.ts';
import { ServiceError } from '../../core/errors.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import type { CredentialFormat } from '../../ports/credential-type-store.ts';
import { claimLabel } from '../credential-types/type-metadata.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import type { TrustService } from '../issuer-trust/trust-service.ts';
import type { TenantService } from '../tenants/tenant-service.ts';

/**
 * Array claims are issued with each element its own disclosure; the reference verifier checks
 * top-level disclosures only, so such a claim cannot be asked for.
 */
const requestable = (c: ClaimSpec) => c.kind !== 'array(text)' && c.kind !== 'array(object)';

export interface RequestedTypesDeps {
  types: TypeService;
  tenants: TenantService;
  urls: IssuerUrls;
  trust: Pick<TrustService, 'trusted'>;
}

/** The credential types a relying party may ask a holder for (docs/verification.md), and the one a request names. */
export class RequestedTypes {
  constructor(private readonly deps: RequestedTypesDeps) {}

  /**
   * Every type of every tenant: what a relying party may ask a holder for, with the names a person
   * reads (the tenant's display name, each claim's label) beside the identifiers.
   */
  async catalog() {
    const all = await this.deps.types.catalog();
    const names = new Map<string, string>();
    for (const slug of new Set(all.map((t) => t.tenant))) {
      const tenant = await this.deps.tenants.find(slug);
      names.set(slug, tenant?.displayName ?? tenant?.name ?? slug);
    }
    return all.map((t) => {
      const v = this.deps.types.view(t);
      const claims = t.claims.filter(requestable).map((c) => c.key);
      const formats = t.formats.includes('mso_mdoc') ? { formats: t.formats, doctype: t.mdoc?.doctype } : {};
      const claimLabels = Object.fromEntries(claims.map((c) => [c, claimLabel(c)]));
      return {
        id: v.typeId,
        name: v.name,
        vct: v.vct,
        tenant: v.tenant,
        tenantName: names.get(v.tenant) ?? v.tenant,
        claims,
        claimLabels,
        ...formats,
      };
    });
  }

  /** The type a request names: of this deployment by its vct, or of a trusted issuer. */
  of(input: {
    vct: string;
    issuer?: string;
    claims: string[];
    format?: CredentialFormat;
  }): Promise<{ tenant: string; typeId: string }> {
    if (input.issuer !== undefined && input.format === 'mso_mdoc') {
      throw new ServiceError(
        'unsupported_format',
        'An mdoc is judged by its X.509 chain, and the trust registry holds DID documents only: mso_mdoc is asked of this deployment’s own types (docs/mdoc.md).',
      );
    }
    return input.issuer === undefined ? this.ownType(input) : this.trustedType(input.issuer);
  }

  /** A type of this deployment, offered in the format asked for, and the claims asked of it checked against it. */
  private async ownType(input: {
    vct: string;
    claims: string[];
    format?: CredentialFormat;
  }): Promise<{ tenant: string; typeId: string }> {
    const ref = this.deps.urls.parseVct(input.vct);
    const type = ref ? await this.deps.types.find(ref.tenant, ref.typeId) : undefined;
    if (!ref || !type) throw new ServiceError('unknown_type', `No credential type of this service has the vct ${input.vct}.`);
    const format = input.format ?? 'dc+sd-jwt';
    if (!type.formats.includes(format)) {
      throw new ServiceError(
        'unsupported_format',
        `The type ${type.typeId} is not offered as ${format}; it is offered as ${type.formats.join(' and ')}.`,
      );
    }
    const known = new Set(type.claims.map((c) => c.key));
    const unknown = input.claims.filter((c) => !known.has(c));
    if (unknown.length > 0) {
      throw new ServiceError('unknown_claim', `The type ${type.typeId} has no claim ${unknown.map((c) => `"${c}"`).join(', ')}.`);
    }
    // An mdoc discloses an array claim whole, as one element: it can be asked for.
    const arrays = format === 'mso_mdoc' ? [] : type.claims.filter((c) => !requestable(c) && input.claims.includes(c.key));
    if (arrays.length > 0) {
      throw new ServiceError(
        'unsupported_claim',
        `${arrays.map((c) => `"${c.key}"`).join(', ')} discloses array elements one by one, which the verifier does not check (docs/verifier.md).`,
      );
    }
    return ref;
  }

  /**
   * A type of a trusted issuer: this service knows none of its types, so the claims are the
   * caller's to name. The transaction is the platform's (`root`, no type id of ours), so nothing
   * that acts on a type of this deployment (enrolment) takes it.
   */
  private async trustedType(issuer: string): Promise<{ tenant: string; typeId: string }> {
    if (!(await this.deps.trust.trusted(issuer))) {
      throw new ServiceError('untrusted_issuer', `${issuer} is not a trusted issuer of this deployment.`);
    }
    return { tenant: ROOT_SLUG, typeId: '' };
  }
}
