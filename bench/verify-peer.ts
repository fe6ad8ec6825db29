import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { JWK } from 'jose';
import { isObject, p256Jwk } from '../src/core/jose/es256.ts';
import { assertionKey, documentId } from '../src/core/verifier/did-keys.ts';
import { CLOCK_SKEW_S, KB_MAX_AGE_S, type VerificationInput } from '../src/core/verifier/verify-presentation.ts';

/**
 * The peer: @sd-jwt/sd-jwt-vc 0.19.0 `SDJwtVcInstance.verify(presentation, { keyBindingNonce,
 * requiredClaimKeys, currentDate, skewSeconds })`, with the callbacks and the little glue a
 * verifier needs around it to reach the same verdict as the reference verifier on a sound
 * presentation.
 *
 * What the library does itself: decodes the SD-JWT (twice: verify() and validate() each decode),
 * calls `verifier` on the issuer JWT (and checks iat/nbf/exp), hashes every disclosure and
 * rebuilds the claims, checks requiredClaimKeys, checks the KB-JWT's typ and the presence of
 * iat/aud/nonce/sd_hash, calls `kbVerifier`, compares the nonce, recomputes sd_hash, then (the
 * credential has a status claim) calls `statusListFetcher` (here: the input's list token, from
 * memory, as the reference verifier is given it), calls `statusVerifier` (here the issuer
 * verifier) on the list token with the same time checks, inflates the list and reads the entry.
 *
 * What the callbacks add: the issuer (and status list) key is the `kid`'s assertion key in the
 * supplied DID document (the same lookup as the reference verifier), alg must be ES256, then ES256;
 * the KB key is cnf.jwk. The glue after verify(): header typ dc+sd-jwt, iss is the document's DID,
 * vct, the KB-JWT's aud and its iat inside the reference verifier's window.
 *
 * What it does not do that the reference verifier does: the status list token's typ, sub (against
 * the credential's uri) and iss checks; refusing unreferenced or duplicate disclosures and nested
 * or array-element digests; a per-check ledger.
 */
export type PeerCrypto = 'node-crypto' | 'webcrypto';

export const PEER_CHECKS =
  'issuer ES256 signature (key by kid from the DID document, alg ES256), iss = DID, typ, vct, iat/exp, disclosure digests, ' +
  'required claims, KB-JWT typ + ES256 signature by cnf.jwk + nonce + aud + iat window, sd_hash, status list token signature ' +
  'and exp + entry (list fed from memory); not: the list typ/sub/iss, unreferenced or duplicate disclosures';

export const REFERENCE_CHECKS =
  'everything the peer checks, and the status list typ/sub/iss, refusal of unreferenced/duplicate/nested disclosures, ' +
  'a full ledger of 10 checks';

export interface PeerVerifier {
  /** True when the peer accepts the presentation and the glue's checks hold; false on any refusal. */
  verify(input: VerificationInput): Promise<boolean>;
  /** The refusal's message, for sanity checks (undefined when accepted). */
  reason(input: VerificationInput): Promise<string | undefined>;
}

const KEY_CACHE_LIMIT = 1024;

/**
 * `crypto`: 'node-crypto' verifies synchronously with node:crypto and keeps KeyObjects as the
 * reference verifier does (up to 1024, keyed by x.y, cleared when full), which is the fairest to
 * the peer; 'webcrypto' uses @sd-jwt/crypto-nodejs ES256.getVerifier (WebCrypto, the key imported
 * on every call), as the library's own examples do.
 */
export function peerVerifier(crypto: PeerCrypto, opts: { status?: boolean } = {}): PeerVerifier {
  /** The input being verified: its status list is what statusListFetcher returns (one presentation at a time). */
  let current: VerificationInput | undefined;
  const keys = new Map<string, KeyObject>();
  const keyOf = (jwk: JWK): KeyObject => {
    const id = `${jwk.x}.${jwk.y}`;
    let key = keys.get(id);
    if (!key) {
      key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' });
      if (keys.size >= KEY_CACHE_LIMIT) keys.clear();
      keys.set(id, key);
    }
    return key;
  };
  const es256 = async (jwk: JWK, data: string, sig: string): Promise<boolean> => {
    if (crypto === 'webcrypto') return (await ES256.getVerifier(jwk))(data, sig);
    const signature = Buffer.from(sig, 'base64url');
    if (signature.length !== 64) return false;
    return verify('sha256', Buffer.from(data, 'ascii'), { key: keyOf(jwk), dsaEncoding: 'ieee-p1363' }, signature);
  };
  const headerOf = (data: string): Record<string, unknown> => {
    const h = JSON.parse(Buffer.from(data.slice(0, data.indexOf('.')), 'base64url').toString('utf8'));
    return isObject(h) ? h : {};
  };

  const sdjwt = new SDJwtVcInstance({
    hasher: digest,
    // The issuer JWT and the status list token (statusVerifier defaults to this verifier).
    verifier: (data, sig, options) => {
      const header = headerOf(data);
      const key =
        header.alg === 'ES256' ? assertionKey((options as { didDocument?: unknown })?.didDocument, header.kid) : undefined;
      return key ? es256(key.jwk, data, sig) : false;
    },
    kbVerifier: (data, sig, payload) => {
      const holder = p256Jwk(isObject(payload.cnf) ? payload.cnf.jwk : undefined);
      return holder && headerOf(data).alg === 'ES256' ? es256(holder, data, sig) : false;
    },
    statusListFetcher: async (uri) => {
      const token = current?.statusList;
      if (token === undefined) throw new Error(`no status list for ${uri}`);
      return token;
    },
  });
  if (opts.status === false) {
    // A variant that does less than the reference verifier: the library's status step (fetch,
    // list signature, decode, entry) is replaced by nothing, to show the rest of its path alone.
    Object.assign(sdjwt, { verifyStatus: async () => undefined });
  }

  const run = async (input: VerificationInput): Promise<string | undefined> => {
    const { expected, now } = input;
    let result: Awaited<ReturnType<SDJwtVcInstance['verify']>>;
    current = input;
    try {
      result = await sdjwt.verify(input.presentation, {
        keyBindingNonce: expected.nonce,
        requiredClaimKeys: [...expected.claims],
        currentDate: now,
        skewSeconds: CLOCK_SKEW_S,
        didDocument: input.didDocument,
      });
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    } finally {
      current = undefined;
    }
    const kb = result.kb?.payload;
    if (result.header?.typ !== 'dc+sd-jwt') return 'typ';
    if (result.payload.iss === undefined || result.payload.iss !== documentId(input.didDocument)) return 'iss';
    if (result.payload.vct !== expected.vct) return 'vct';
    if (!kb) return 'no kb';
    if (kb.aud !== expected.aud) return 'aud';
    if (!(typeof kb.iat === 'number' && kb.iat <= now + CLOCK_SKEW_S && kb.iat >= now - KB_MAX_AGE_S)) return 'kb iat';
    return undefined;
  };
  return {
    verify: async (input) => (await run(input)) === undefined,
    reason: run,
  };
}
