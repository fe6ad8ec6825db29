import type { ClaimSpec } from '../core/claims/claim-spec.ts';

export interface CredentialTypeRecord {
  tenant: string;
  typeId: string;
  name: string;
  claims: ClaimSpec[];
  /** The formats it is offered in, in this order (docs/mdoc.md, "Types with formats"). */
  formats: CredentialFormat[];
  /** Its mdoc doctype and elements, when `formats` holds `mso_mdoc`; else null. */
  mdoc: MdocProfile | null;
  createdAt: number;
}

/** OID4VCI 1.0 Appendix A credential format identifiers. */
export type CredentialFormat = 'dc+sd-jwt' | 'mso_mdoc';

/** How a type is an ISO mdoc: its doctype, and each claim key's `[namespace, elementIdentifier]`. */
export interface MdocProfile {
  doctype: string;
  elements: Record<string, [string, string]>;
}

/**
 * Tenant-owned: every call names the tenant. Types are immutable once registered.
 * @tenantOwned
 */
export interface CredentialTypeStore {
  /** False when the tenant already has a type with this id (nothing is written then). */
  create(type: CredentialTypeRecord): Promise<boolean>;
  get(tenant: string, typeId: string): Promise<CredentialTypeRecord | undefined>;
  list(tenant: string): Promise<CredentialTypeRecord[]>;
  /**
   * Every tenant's types: the one cross-tenant read, for the public verification catalog, which
   * by design shows what anyone may ask a holder to present.
   */
  catalog(): Promise<CredentialTypeRecord[]>;
  /** The type's validity in days, or null when its credentials do not expire. */
  validity(tenant: string, typeId: string): Promise<number | null>;
  /** Sets (or with null clears) the type's validity; answers the one it replaces. */
  setValidity(tenant: string, typeId: string, days: number | null, at: number, by: string): Promise<number | null>;
  /** Every type with a validity, of one tenant or (null) all. */
  validities(tenant: string | null): Promise<TypeValidity[]>;
  /** What the type requires of its proofs' key attestations, or null when it requires none. */
  keyAttestation(tenant: string, typeId: string): Promise<KeyAttestationRequirement | null>;
  /** Sets (or with null clears) the type's requirement; answers the one it replaces. */
  setKeyAttestation(
    tenant: string,
    typeId: string,
    required: KeyAttestationRequirement | null,
    at: number,
    by: string,
  ): Promise<KeyAttestationRequirement | null>;
  /** The requirements of a tenant's types, by type id (the types that require none are absent). */
  keyAttestations(tenant: string): Promise<Map<string, KeyAttestationRequirement>>;
}

/**
 * A type's requirement of key attestations (OID4VCI 1.0 §12.2.4 `key_attestations_required`): the
 * attack-potential values accepted for the key storage and for user authentication; an absent
 * list accepts any value, or none.
 */
export interface KeyAttestationRequirement {
  keyStorage?: string[];
  userAuthentication?: string[];
}

export interface TypeValidity {
  tenant: string;
  typeId: string;
  validityDays: number;
  setAt: number;
  setBy: string;
}
