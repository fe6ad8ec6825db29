import { createHash, createHmac } from 'node:crypto';

/**
 * The OID4VCI pre-authorized code grant as this service speaks it, shared by the offers that
 * hand codes out and the token endpoint that redeems them.
 */
export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** The tx_code is bound to its pre-authorized code, so its short value is useless without it. */
export const txCodeHash = (code: string, txCode: string) =>
  createHash('sha256').update(`${code}\u0000${txCode}`, 'utf8').digest('base64url');

/**
 * A by-reference offer's code, derived from its handle under a key only the service holds, so
 * no code is stored in clear and a handle seen in transit (or in a log) cannot be turned into
 * the code without the key.
 */
export const codeFromHandle = (key: Buffer, handle: string) =>
  `pac_${createHmac('sha256', key).update(`openrail:pre-authorized-code:${handle}`, 'utf8').digest('base64url')}`;

/**
 * The handle of an offer addressed to a wallet, derived from the offer id under the same key, so
 * the service can answer the offer's URI again when the holder accepts the wallet item without
 * keeping the handle (or the code) anywhere.
 */
export const handleOfOffer = (key: Buffer, offerId: string) =>
  createHmac('sha256', key).update(`openrail:addressed-offer-handle:${offerId}`, 'utf8').digest('base64url');
