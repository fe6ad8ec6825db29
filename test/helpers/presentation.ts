import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodeJwt, SignJWT } from 'jose';
import type { HolderKey } from './holder.ts';
import { railSeconds } from './rail.ts';

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

/** A form body for inject, as a wallet posts it. */
export const formBody = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

/**
 * A holder's answer to an open hosted transaction on `app`: the request object read there, the
 * named disclosures presented to its nonce, and the outcome read back with the result token.
 */
export async function presentAndRead(
  app: FastifyInstance,
  created: { transactionId: string; resultToken: string },
  issued: { credential: string; key: HolderKey },
  names: string[],
) {
  const request = decodeJwt((await app.inject({ method: 'GET', url: `/oid4vp/request/${created.transactionId}` })).body) as {
    nonce: string;
    state: string;
  };
  // Dated by the rail's clock, which a suite may have moved on.
  const vp = await present(issued.credential, issued.key, names, { nonce: request.nonce, iat: railSeconds(app) });
  await app.inject({
    method: 'POST',
    url: '/oid4vp/response',
    ...formBody({ vp_token: JSON.stringify({ credential: [vp] }), state: request.state }),
  });
  const res = await app.inject({
    method: 'GET',
    url: `/verify/result/${created.transactionId}`,
    headers: { authorization: `Bearer ${created.resultToken}` },
  });
  return res.json().outcome;
}

/**
 * A hosted verification on `app` of `issued`, asking for `names` of its type (the vct its issuer
 * signed), opened by a shop and answered by the holder: the transaction as opened.
 */
export async function openVerification(app: FastifyInstance, vct: string, names: string[] = ['holder_name']) {
  const opened = await app.inject({
    method: 'POST',
    url: '/verify/request',
    payload: { vct, claims: names, nonce: randomBytes(16).toString('base64url'), aud: 'https://shop.example' },
  });
  if (opened.statusCode !== 201) throw new Error(`POST /verify/request answered ${opened.statusCode}: ${opened.body}`);
  return opened.json() as { transactionId: string; resultToken: string };
}

/** The outcome of a hosted verification of `issued` on `app`, the holder disclosing `names`. */
export async function verifiedOn(app: FastifyInstance, issued: { credential: string; key: HolderKey }, names = ['holder_name']) {
  const { vct } = decodeJwt(issued.credential.split('~')[0] as string) as { vct: string };
  return presentAndRead(app, await openVerification(app, vct, names), issued, names);
}
