import type { ClaimSpec } from '../../core/claims/claim-spec.ts';
import type { CredentialTypeRecord } from '../../ports/credential-type-store.ts';

/** 'date_of_birth' -> 'Date of birth': the label a wallet shows when nothing better is known. */
export function claimLabel(key: string): string {
  const words = key.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]?.toUpperCase() + words.slice(1) : key;
}

const isArray = (c: ClaimSpec) => c.kind === 'array(text)' || c.kind === 'array(object)';

/** Claim paths (OID4VP §7 pointers): the claim, and for arrays each element as well. */
export function claimPaths(c: ClaimSpec): Array<Array<string | null>> {
  return isArray(c) ? [[c.key], [c.key, null]] : [[c.key]];
}

/**
 * SD-JWT VC Type Metadata (draft-ietf-oauth-sd-jwt-vc §6), served at the `vct` URL. Every
 * claim is selectively disclosable ("always") and mandatory in the subject.
 */
export function typeMetadata(vct: string, type: CredentialTypeRecord) {
  return {
    vct,
    name: type.name,
    display: [{ locale: 'en', name: type.name }],
    claims: type.claims.flatMap((c) =>
      claimPaths(c).map((path) => ({
        path,
        display: [{ locale: 'en', label: path.length === 1 ? claimLabel(c.key) : `${claimLabel(c.key)} (item)` }],
        mandatory: path.length === 1,
        sd: 'always' as const,
      })),
    ),
  };
}
