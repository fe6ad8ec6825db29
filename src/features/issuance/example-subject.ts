import type { ClaimSpec } from '../../core/claims/claim-spec.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A made-up subject for a demonstration tenant's approval page (docs/haip.md, "The approval
 * step"): one plausible value per claim, of its kind, so a holder can try the authorization code
 * flow end to end without an issuer behind it. Never used for a tenant that is not a demonstration.
 */
export function exampleSubject(claims: readonly ClaimSpec[], now: number): Record<string, unknown> {
  const inAMonth = new Date(now + 30 * DAY_MS).toISOString().slice(0, 10);
  const value = (claim: ClaimSpec): unknown => {
    switch (claim.kind) {
      case 'text':
        return EXAMPLE_TEXT[claim.key] ?? 'Example';
      case 'date':
        return inAMonth;
      case 'number':
      case 'money':
        return 100;
      case 'bool':
        return true;
      case 'enum':
        return claim.options?.[0] ?? '';
      case 'array(text)':
        return ['example'];
      case 'array(object)':
        return [];
    }
  };
  return Object.fromEntries(claims.map((claim) => [claim.key, value(claim)]));
}

/** Readable values for the text claims demonstration types use. */
const EXAMPLE_TEXT: Record<string, string> = {
  given_name: 'Ada',
  family_name: 'Lovelace',
  pass_number: 'MT-000001',
  fare_zone: 'central',
};
