/**
 * A stored credential's claims, for `wallet list` and for matching a verifier's query. The SD-JWT
 * library is imported when the first credential is read, not with this module: loading it (and
 * the schema library under it) takes about a quarter of a second, which a wallet holding no
 * credential, and every command that reads none, should not pay.
 */
import type { StoredCredential } from './wallet-file.ts';

/** The credential's claims with every disclosure applied (sd-jwt-js), without the SD-JWT's own members. */
export async function credentialClaims(credential: string): Promise<Record<string, unknown>> {
  const [{ SDJwtVcInstance }, { digest }] = await Promise.all([import('@sd-jwt/sd-jwt-vc'), import('@sd-jwt/crypto-nodejs')]);
  const all = (await new SDJwtVcInstance({ hasher: digest }).getClaims(credential)) as Record<string, unknown>;
  const { iss: _iss, iat: _iat, exp: _exp, nbf: _nbf, vct: _vct, cnf: _cnf, status: _status, _sd_alg: _alg, ...claims } = all;
  return claims;
}

/**
 * What a held credential says, for `wallet list`: an SD-JWT VC's claims, an mdoc's elements by
 * namespace. The mdoc library, like the SD-JWT one, is imported when the first such credential is read.
 */
export async function heldClaims(stored: StoredCredential): Promise<Record<string, unknown>> {
  if (stored.format === 'dc+sd-jwt') return credentialClaims(stored.credential);
  const { mdocNamespaces } = await import('./mdoc.ts');
  return mdocNamespaces(stored.credential);
}
