import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { HolderKey } from './holder.ts';

/** The hosted verifier's client id under the test rails' PUBLIC_URL. */
export const CLIENT_ID = 'decentralized_identifier:did:web:rail.example.test';

/** The holder's presentation of the named disclosures, with a KB-JWT. */
export async function present(
  credential: string,
  key: HolderKey,
  names: string[],
  kb: { aud?: string; nonce: string; iat?: number },
): Promise<string> {
  const [jwt, ...rest] = credential.split('~').filter((p) => p !== '');
  const chosen = rest.filter((d) => names.includes(JSON.parse(Buffer.from(d, 'base64url').toString())[1]));
  const sdJwt = `${[jwt, ...chosen].join('~')}~`;
  const sdHash = createHash('sha256').update(sdJwt, 'ascii').digest('base64url');
  const kbJwt = await new SignJWT({
    aud: kb.aud ?? CLIENT_ID,
    nonce: kb.nonce,
    iat: kb.iat ?? Math.floor(Date.now() / 1000),
    sd_hash: sdHash,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
    .sign(key.privateKey);
  return `${sdJwt}${kbJwt}`;
}
