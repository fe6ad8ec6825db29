/**
 * The HAIP 1.0 profile of hosted verification (docs/haip.md, "Verification"): the verifier is
 * named by the hash of its certificate (`x509_hash`), and the wallet encrypts its response to a key
 * of the transaction's own (`direct_post.jwt`, ECDH-ES on P-256). The key is made when the
 * transaction opens, sealed at rest under the master key, and dropped when the transaction
 * completes: no two transactions share one, and none is used twice.
 */
import { createHash } from 'node:crypto';
import { compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { isObject } from '../../core/jose/es256.ts';
import type { KeyVault } from '../../ports/key-vault.ts';

/** The key agreement the response key is for; the only one accepted. */
export const RESPONSE_ALG = 'ECDH-ES';
/** The content encryptions offered to wallets (HAIP 1.0 §5: both listed), and the only ones accepted. */
export const RESPONSE_ENC_VALUES = ['A128GCM', 'A256GCM'] as const;
/** An encrypted response is refused above this size (the clear vp_token's own bound, and room for JWE overhead). */
export const MAX_RESPONSE_JWE = 360 * 1024;

/**
 * A web origin a Digital Credentials API request may be made from: https with a lowercase host
 * and an optional port, or plain http on the loopback host for development. No path, no slash.
 */
export const WEB_ORIGIN =
  /^(?:https:\/\/[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?|http:\/\/(?:localhost|127\.0\.0\.1))(?::[1-9][0-9]{0,4})?$/;

const sealContext = (transactionId: string) => `openrail:response-key:${transactionId}`;

/** OID4VP 1.0 §5.9.3: `x509_hash:` and the base64url SHA-256 of the signing certificate's DER. */
export function x509HashClientId(x5c: readonly string[]): string {
  const leaf = x5c[0];
  if (!leaf) throw new Error('the verifier key has no certificate');
  return `x509_hash:${createHash('sha256').update(Buffer.from(leaf, 'base64')).digest('base64url')}`;
}

/** A fresh response key for a transaction: its private JWK, sealed. */
export async function newResponseKey(vault: KeyVault, transactionId: string): Promise<string> {
  const { privateKey } = await generateKeyPair(RESPONSE_ALG, { crv: 'P-256', extractable: true });
  return vault.seal(JSON.stringify(await exportJWK(privateKey)), sealContext(transactionId));
}

function openKey(vault: KeyVault, sealed: string, transactionId: string): JWK {
  return JSON.parse(vault.open(sealed, sealContext(transactionId))) as JWK;
}

/**
 * The public half, as the request's `client_metadata.jwks` lists it: `kid` is the transaction's
 * id, which the wallet copies into the JWE header (OID4VP 1.0 §8.3) and the response endpoint
 * finds the transaction by.
 */
export function responseJwk(vault: KeyVault, sealed: string, transactionId: string): JWK {
  const { kty, crv, x, y } = openKey(vault, sealed, transactionId);
  return { kty, crv, x, y, kid: transactionId, use: 'enc', alg: RESPONSE_ALG } as JWK;
}

/** The transaction an encrypted response names (its JWE `kid`), or undefined when it names none. */
export function responseKid(jwe: string): string | undefined {
  try {
    const { kid } = decodeProtectedHeader(jwe);
    return typeof kid === 'string' && kid.length <= 100 ? kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The authorization response inside a JWE encrypted to the transaction's key: its parameters, or
 * a reason it cannot be read (another key, another algorithm, not JSON, not an object).
 */
export async function decryptResponse(
  vault: KeyVault,
  sealed: string,
  transactionId: string,
  jwe: string,
): Promise<{ ok: true; params: Record<string, unknown> } | { ok: false; reason: string }> {
  let plaintext: Uint8Array;
  try {
    const key = await importJWK(openKey(vault, sealed, transactionId), RESPONSE_ALG);
    ({ plaintext } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: [RESPONSE_ALG],
      contentEncryptionAlgorithms: [...RESPONSE_ENC_VALUES],
    }));
  } catch (err) {
    const code = (err as { code?: string }).code;
    return {
      ok: false,
      reason:
        code === 'ERR_JOSE_ALG_NOT_ALLOWED'
          ? `The response must be encrypted with ${RESPONSE_ALG} and one of ${RESPONSE_ENC_VALUES.join(', ')}.`
          : 'The response cannot be decrypted with this transaction’s key.',
    };
  }
  let params: unknown;
  try {
    params = JSON.parse(Buffer.from(plaintext).toString('utf8'));
  } catch {
    return { ok: false, reason: 'The decrypted response is not JSON.' };
  }
  if (!isObject(params)) return { ok: false, reason: 'The decrypted response is not a JSON object.' };
  return { ok: true, params };
}
