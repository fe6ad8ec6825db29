import { createHash, randomBytes } from 'node:crypto';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { decodeJws, signEs256 } from '../src/core/jose/es256.ts';
import { type Driven, drive } from './lib/drive.ts';
import { type Format, wireFormat } from './lib/formats.ts';
import { type Answer, request } from './lib/http.ts';
import { mdocConfiguration, mdocPresentation, privateJwkOf } from './lib/mdoc.ts';
import { createOffer, issueOne, type PoolItem, setUpIssuer, type Target } from './lib/wallet.ts';

/**
 * The hosted verifier over HTTP, as a relying party and a wallet drive it: a type without array
 * claims (the hosted verifier refuses to ask for those), credentials issued through the issuance
 * rail (bench/lib/wallet.ts), then whole OID4VP transactions.
 */
export const HOSTED_CLAIMS = ['given_name', 'family_name', 'member_number', 'birth_date:date'];
const REQUESTED = ['given_name', 'family_name', 'member_number', 'birth_date'];
const RP_AUD = 'https://rp.bench.example';

export interface HostedTarget extends Target {
  vct: string;
}

/**
 * A credential the wallet holds and its holder key: the compact SD-JWT VC (ending in "~"), or the
 * mdoc (base64url IssuerSigned) with the key's private JWK, which signs its DeviceResponses.
 */
export interface Held {
  credential: string;
  item: PoolItem;
  privateJwk?: JWK;
}

/** The hosted bench's type, offered as ISO mdoc too (`mdoc: {}`) when `mdoc` is set. */
export function setUpHosted(origin: string, mdoc = false): Promise<HostedTarget> {
  return setUpIssuer(origin, { tenant: 'Bench Verify Club', type: 'Bench Member Card', claims: HOSTED_CLAIMS, mdoc });
}

/** The subject of the n-th held credential. */
export const hostedSubject = (n: number) => ({
  given_name: 'Ada',
  family_name: 'Lovelace',
  member_number: `M-${String(n).padStart(8, '0')}`,
  birth_date: '1815-12-10',
});

/**
 * Issues `count` credentials of `format` through the rail (offer, token, nonce, credential; the
 * `<typeId>.mdoc` configuration for mdoc), each to its own holder key.
 */
export async function issueHeld(
  target: HostedTarget,
  count: number,
  format: Format = 'sd-jwt',
  concurrency = 8,
): Promise<Held[]> {
  const held: Held[] = [];
  const configuration = format === 'mdoc' ? mdocConfiguration(target.typeId) : target.typeId;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const item = await createOffer(target, hostedSubject(n));
      const issued = await issueOne(target, item, configuration);
      if (!issued.ok)
        throw new Error(`issuance failed at ${issued.failure.step} (${issued.failure.status}): ${issued.failure.body}`);
      held.push({ credential: issued.credential, item, ...(format === 'mdoc' ? { privateJwk: privateJwkOf(item) } : {}) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return held;
}

export type Step = 'request' | 'request_object' | 'response' | 'result';

/** The verification profile a transaction is opened under (docs/haip.md): the interface's, or HAIP 1.0. */
export type Profile = 'openid4vp' | 'haip';

export type TxResult = { ok: true; steps: Record<Step, number> } | { ok: false; key: string; sample: string };

/**
 * One transaction: POST /verify/request -> GET /oid4vp/request/<id> -> the wallet's SD-JWT+KB
 * (every disclosure, aud = client_id, nonce = the request's) -> POST /oid4vp/response (form,
 * vp_token {"credential": [<presentation>]}) -> GET /verify/result/<id> with the result token.
 * For `mdoc` the request asks for format mso_mdoc and the presentation is the wallet's
 * DeviceResponse (bench/lib/mdoc.ts): the elements the request's DCQL query names, signed by the
 * device key over the session transcript computed from the request object (its client_id, nonce
 * and response_uri, and under haip the thumbprint of the key the answer is encrypted to).
 * Under `haip` the response is that form's parameters as JSON in a JWE (ECDH-ES, A128GCM) to
 * the transaction's own key, posted as `response`: the wallet's encryption is in the timing, the
 * server's decryption in its CPU. Anything but a 201/200 at each step and an outcome with ok:
 * true is a failure. The wallet does not verify the request object's signature (client work, not
 * the server's).
 */
export async function transaction(
  target: HostedTarget,
  held: Held,
  profile: Profile = 'openid4vp',
  format: Format = 'sd-jwt',
): Promise<TxResult> {
  const steps = {} as Record<Step, number>;
  const failed = (step: Step, res: Answer): TxResult => ({
    ok: false,
    key: `${step} ${res.status}`,
    sample: res.text.slice(0, 300),
  });

  const nonce = randomBytes(18).toString('base64url');
  let s = performance.now();
  const opened = await request(`${target.origin}/verify/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      vct: target.vct,
      claims: REQUESTED,
      nonce,
      aud: RP_AUD,
      profile,
      ...(format === 'mdoc' ? { format: wireFormat(format) } : {}),
    }),
  });
  if (opened.status !== 201) return failed('request', opened);
  const { transactionId, resultToken } = opened.json<{ transactionId: string; resultToken: string }>();
  steps.request = performance.now() - s;

  s = performance.now();
  const objectRes = await request(`${target.origin}/oid4vp/request/${transactionId}`);
  if (objectRes.status !== 200) return failed('request_object', objectRes);
  const requested = decodeJws(objectRes.text)?.payload;
  steps.request_object = performance.now() - s;
  if (!requested || requested.nonce !== nonce || typeof requested.state !== 'string' || typeof requested.client_id !== 'string') {
    return { ok: false, key: 'request_object content', sample: JSON.stringify(requested ?? null).slice(0, 300) };
  }

  const presentation = format === 'mdoc' ? await deviceResponse(held, requested) : sdJwtKb(held, requested);
  if (typeof presentation !== 'string') return { ok: false, key: 'request_object mdoc', sample: presentation.problem };

  s = performance.now();
  const responseUri = typeof requested.response_uri === 'string' ? requested.response_uri : `${target.origin}/oid4vp/response`;
  const vpToken = { credential: [presentation] };
  let form: Record<string, string>;
  if (profile === 'haip') {
    const [key] = (requested.client_metadata as { jwks?: { keys?: JWK[] } } | undefined)?.jwks?.keys ?? [];
    if (!key) return { ok: false, key: 'request_object jwks', sample: JSON.stringify(requested).slice(0, 300) };
    const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ vp_token: vpToken, state: requested.state })))
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: String(key.kid) })
      .encrypt(await importJWK(key, 'ECDH-ES'));
    form = { response: jwe };
  } else {
    form = { vp_token: JSON.stringify(vpToken), state: requested.state };
  }
  const answered = await request(responseUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  if (answered.status !== 200) return failed('response', answered);
  steps.response = performance.now() - s;

  s = performance.now();
  const polled = await request(`${target.origin}/verify/result/${transactionId}`, {
    headers: { authorization: `Bearer ${resultToken}` },
  });
  if (polled.status !== 200) return failed('result', polled);
  const { outcome } = polled.json<{ outcome: Record<string, unknown> | null }>();
  steps.result = performance.now() - s;
  if (outcome?.ok !== true) {
    return {
      ok: false,
      key: `result ${outcome === null ? 'null (pending)' : String(outcome.error)}`,
      sample: JSON.stringify(outcome).slice(0, 300),
    };
  }
  if (outcome.presentedNonce !== nonce) return { ok: false, key: 'result nonce', sample: JSON.stringify(outcome).slice(0, 300) };
  return { ok: true, steps };
}

/** The SD-JWT VC with a KB-JWT over it: aud the request's client_id, nonce the request's. */
function sdJwtKb(held: Held, requested: Record<string, unknown>): string {
  const sdJwt = held.credential;
  const sdHash = createHash('sha256').update(sdJwt, 'ascii').digest('base64url');
  const kbJwt = signEs256(
    held.item.key,
    { typ: 'kb+jwt' },
    { iat: Math.floor(Date.now() / 1000), aud: requested.client_id, nonce: requested.nonce, sd_hash: sdHash },
  );
  return `${sdJwt}${kbJwt}`;
}

/** The mdoc's DeviceResponse for the request object (bench/lib/mdoc.ts). */
function deviceResponse(held: Held, requested: Record<string, unknown>): Promise<string | { problem: string }> {
  if (!held.privateJwk) return Promise.resolve({ problem: 'the held credential is not an mdoc' });
  return mdocPresentation({ credential: held.credential, privateJwk: held.privateJwk }, requested);
}

/** Latencies (ms, ascending) of the whole transactions, the wallet's KB signing included, and of each step. */
export interface HostedDrive extends Driven {
  steps: Record<Step, Float64Array>;
}

/** `concurrency` wallets running transactions back to back for `seconds`, cycling over the held credentials. */
export async function driveHosted(
  target: HostedTarget,
  held: Held[],
  concurrency: number,
  seconds: number,
  profile: Profile = 'openid4vp',
  format: Format = 'sd-jwt',
): Promise<HostedDrive> {
  const steps: Record<Step, number[]> = { request: [], request_object: [], response: [], result: [] };
  let next = 0;
  const m = await drive({
    workers: concurrency,
    seconds,
    take: () => held[next++ % held.length] as Held,
    attempt: async (h) => {
      const r = await transaction(target, h, profile, format);
      if (!r.ok) return r;
      for (const k of Object.keys(steps) as Step[]) steps[k].push(r.steps[k]);
      return undefined;
    },
    thrown: (err) => ({ key: 'network', sample: String(err).slice(0, 300) }),
  });
  const sorted = (a: number[]) => Float64Array.from(a).sort();
  return {
    ...m,
    steps: {
      request: sorted(steps.request),
      request_object: sorted(steps.request_object),
      response: sorted(steps.response),
      result: sorted(steps.result),
    },
  };
}
