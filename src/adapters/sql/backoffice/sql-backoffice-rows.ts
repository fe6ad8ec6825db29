import type { CredentialRow, OfferRow } from '../../../ports/backoffice-views.ts';
import { type Conv, col, rowCodec } from '../row-codec.ts';
import type { IssuedCredentialsTable } from '../schema.ts';

/** What the back office's read models share: text matching, number reading and row mappings. */

export { containsCi, like, mentions, startsWith } from '../text-match.ts';

export const num = (v: unknown) => Number(v);
export const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
export const json = (text: string): Record<string, unknown> => {
  const value = JSON.parse(text) as unknown;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
};

/** The holder's thumbprint is blanked (empty) when it erases its account: read as no account. */
const account: Conv<string | null, string> = { write: (v) => v ?? '', read: (v) => (v === '' ? null : (v as string)) };
export const toCredential = rowCodec<CredentialRow, IssuedCredentialsTable>()(
  'id tenant typeId offerId listSeq idx issuedAt revokedAt expiresAt',
  { accountId: col('holder_thumbprint', account) },
).record;

export const CREDENTIAL_COLUMNS = [
  'issued_credentials.id',
  'issued_credentials.tenant',
  'issued_credentials.type_id',
  'issued_credentials.offer_id',
  'issued_credentials.list_seq',
  'issued_credentials.idx',
  'issued_credentials.holder_thumbprint',
  'issued_credentials.issued_at',
  'issued_credentials.revoked_at',
  'issued_credentials.expires_at',
] as const;

export const OFFER_COLUMNS = [
  'offers.id',
  'offers.tenant',
  'offers.type_id',
  'offers.created_at',
  'offers.expires_at',
  'offers.redeemed_at',
  'offers.collected_at',
] as const;

export const toOffer = (r: {
  id: string;
  tenant: string;
  type_id: string;
  created_at: number;
  expires_at: number;
  redeemed_at: number | null;
  collected_at: number | null;
}): OfferRow => ({
  id: r.id,
  tenant: r.tenant,
  typeId: r.type_id,
  createdAt: num(r.created_at),
  expiresAt: num(r.expires_at),
  redeemedAt: numOrNull(r.redeemed_at),
  collectedAt: numOrNull(r.collected_at),
});
