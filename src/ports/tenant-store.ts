import type { StoredSigningKey } from './signing-key-store.ts';

export interface TenantProfile {
  displayName: string | null;
  description: string | null;
  logoUri: string | null;
  primaryColor: string | null;
  backgroundColor: string | null;
  textColor: string | null;
}

/** A profile with nothing set, as a new tenant has. */
export const emptyProfile = (): TenantProfile => ({
  displayName: null,
  description: null,
  logoUri: null,
  primaryColor: null,
  backgroundColor: null,
  textColor: null,
});

export interface TenantRecord extends TenantProfile {
  slug: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

export interface TenantStore {
  /**
   * Inserts the tenant and its first signing keys in one transaction; false when the slug is
   * taken (nothing is written then).
   */
  create(tenant: TenantRecord, keys: StoredSigningKey[]): Promise<boolean>;
  get(slug: string): Promise<TenantRecord | undefined>;
  /** Applies the given profile fields; undefined when the tenant does not exist. */
  updateProfile(slug: string, patch: Partial<TenantProfile>, now: number): Promise<TenantRecord | undefined>;
  /** Slugs that start with `prefix`, for choosing a free one on collision. */
  slugsStartingWith(prefix: string): Promise<string[]>;
}
