import { createHmac } from 'node:crypto';
import { ServiceError } from './errors.ts';

/**
 * Contact entries of the holder directory (docs/directory.md): an identifier is normalised, then
 * stored and looked up only as HMAC-SHA256(pepper, "<kind>:<normalised>"), never in clear. The
 * pepper is the deployment's secret (OPENRAIL_DIRECTORY_PEPPER), so an entry cannot be reversed
 * by hashing guesses without it.
 */
export const CONTACT_KINDS = ['email', 'phone'] as const;
export type ContactKind = (typeof CONTACT_KINDS)[number];

const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/;
const PHONE = /^\+[1-9][0-9]{7,14}$/;

/**
 * email: Unicode NFC, trimmed, lower-cased as a whole (no provider-specific rules: dots and
 * "+tags" are kept). phone: E.164 — spaces, dots, dashes and parentheses dropped, a leading "00"
 * read as "+", then "+" and 8 to 15 digits. Anything else is refused.
 */
export function normaliseContact(kind: ContactKind, value: string): string {
  if (kind === 'email') {
    const email = value.normalize('NFC').trim().toLowerCase();
    if (email.length > 254 || !EMAIL.test(email)) throw new ServiceError('invalid_contact', 'The e-mail address is not one.');
    return email;
  }
  let phone = value.replace(/[\s.()-]/g, '');
  if (phone.startsWith('00')) phone = `+${phone.slice(2)}`;
  if (!PHONE.test(phone)) throw new ServiceError('invalid_contact', 'A phone number is + and 8 to 15 digits (E.164).');
  return phone;
}

/** The stored and looked-up form of a contact: base64url of the HMAC. */
export function contactEntry(pepper: string, kind: ContactKind, normalised: string): string {
  return createHmac('sha256', pepper).update(`${kind}:${normalised}`, 'utf8').digest('base64url');
}

/**
 * Names which pepper made an entry, without revealing it: entries made under an earlier pepper
 * no longer match lookups, and a holder's own listing shows them as stale.
 */
export function pepperId(pepper: string): string {
  return createHmac('sha256', pepper).update('openrail directory pepper id', 'utf8').digest('base64url').slice(0, 8);
}

/** Display names are searched by this key: NFKC, lower-cased, inner whitespace collapsed. */
export const nameKey = (name: string): string => name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

/** The key of an account's directory budget in the shared rate windows (also erased with the account). */
export const directoryBudgetKey = (accountId: string): string => `directory:${accountId}`;
