/**
 * Presenting a credential (OID4VP 1.0, DCQL, SD-JWT VC or ISO mdoc) with oid4vc-ts, dcql, sd-jwt-js
 * and the mdoc library, in two steps so that the holder decides in between:
 *
 * 1. `openRequest`: parse the `openid4vp://` URI, fetch the signed request object and check its
 *    signature by the verifier's did:web key, then match the DCQL query against the credentials
 *    the wallet holds.
 * 2. `answerRequest`: present one credential with the claims the holder chose (never more than the
 *    query asked for), bound to the request (an SD-JWT VC by a KB-JWT with aud = client_id and the
 *    request's nonce; an mdoc by a DeviceResponse signed over the session transcript of client_id,
 *    nonce and response_uri), and post it to the verifier's response_uri.
 */
import { sign } from 'node:crypto';
import {
  type Openid4vpAuthorizationRequest,
  Openid4vpClient,
  type ResolvedOpenid4vpAuthorizationRequest,
} from '@openid4vc/openid4vp';
import { digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { DcqlQuery } from 'dcql';
import { decodeJws, verifyEs256 } from '../core/jose/es256.ts';
import type { ElementPath } from '../core/mdoc/verify-mdoc.ts';
import { credentialClaims } from './claims.ts';
import { hashFor } from './collect.ts';
import { resolveDidWebKey } from './did-web.ts';
import { allowLibraryHttp } from './library-http.ts';
import type { Namespaces } from './mdoc.ts';
import { WalletError, type WalletNetOptions, walletFetch } from './net.ts';
import type { StoredCredential, Wallet } from './wallet-file.ts';

type Callbacks = ConstructorParameters<typeof Openid4vpClient>[0]['callbacks'];

/** A credential of the wallet that satisfies the query, with the claims the query asks of it. */
export interface Candidate {
  stored: StoredCredential;
  /** The claims asked for, by name, with this credential's values. */
  asked: Record<string, unknown>;
  /** An mdoc's: each asked name's `[namespace, elementIdentifier]` (mdoc.ts, `askedElements`). */
  paths?: Record<string, ElementPath>;
}

export interface OpenedRequest {
  /** The verifier as it names itself (`decentralized_identifier:did:web:…`). */
  clientId: string;
  /** The DCQL credential query the answer is given under. */
  queryId: string;
  /** The doctype the query asks for, when it asks for an mdoc (`meta.doctype_value`). */
  mdocDoctype?: string;
  candidates: Candidate[];
  request: Openid4vpAuthorizationRequest;
  client: Openid4vpClient;
  net: WalletNetOptions;
}

export interface VerifierAnswer {
  status: number;
  /** The JSON the response_uri answered, or its text. */
  body: unknown;
}

const refuseToSign = (what: string) => () => {
  throw new WalletError(`this wallet does not ${what}.`);
};

export async function openRequest(wallet: Wallet, requestUri: string, net: WalletNetOptions): Promise<OpenedRequest> {
  checkRequestTarget(requestUri);
  allowLibraryHttp(net);
  const fetchFn = walletFetch(net);
  // The request object must be signed by a key of the DID the verifier names; nothing else is trusted.
  const verifyJwt: Callbacks['verifyJwt'] = async (signer, jwt) => {
    if (signer.method !== 'did') return { verified: false };
    const signerJwk = await resolveDidWebKey(signer.didUrl, fetchFn, net);
    const jws = decodeJws(jwt.compact);
    return { verified: Boolean(jws && jws.header.alg === 'ES256' && verifyEs256(jws, signerJwk)), signerJwk };
  };
  const client = new Openid4vpClient({
    callbacks: {
      fetch: fetchFn,
      hash: hashFor,
      verifyJwt,
      signJwt: refuseToSign('sign JARM responses'),
      encryptJwe: refuseToSign('encrypt responses'),
      decryptJwe: refuseToSign('decrypt request objects'),
    },
  });
  const parsed = client.parseOpenid4vpAuthorizationRequest({ authorizationRequest: requestUri });
  if (parsed.type !== 'jar')
    throw new WalletError('the request is not a signed request object: this wallet answers signed requests only.');
  const resolved: ResolvedOpenid4vpAuthorizationRequest = await client.resolveOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: parsed.params,
  });
  const request = resolved.authorizationRequestPayload as Openid4vpAuthorizationRequest;
  if (resolved.client.prefix !== 'decentralized_identifier') throw new WalletError('the verifier is not identified by a DID.');
  if (request.response_mode !== 'direct_post')
    throw new WalletError('the verifier asks for a response mode other than direct_post.');
  if (!resolved.dcql) throw new WalletError('the request carries no DCQL query.');

  const query = DcqlQuery.parse(resolved.dcql.query as DcqlQuery.Input);
  DcqlQuery.validate(query);
  const asksMdoc = query.credentials.some((c) => c.format === 'mso_mdoc');
  // The mdoc library is loaded only when the query asks for an mdoc, and then read only of held mdocs.
  const mdoc = asksMdoc ? await import('./mdoc.ts') : undefined;
  const held = await Promise.all(
    wallet.state.credentials.map(async (stored) => {
      if (stored.format === 'mso_mdoc') return mdoc ? { stored, input: mdoc.mdocDcqlInput(stored) } : undefined;
      const claims = await credentialClaims(stored.credential);
      const input = {
        credential_format: 'dc+sd-jwt' as const,
        vct: stored.vct,
        claims: claims as never,
        cryptographic_holder_binding: true,
      };
      return { stored, input };
    }),
  );
  const inputs = held.filter((h) => h !== undefined);
  const result = DcqlQuery.query(
    query,
    inputs.map((h) => h.input),
  );
  const [queryId, match] = Object.entries(result.credential_matches)[0] ?? [];
  if (!queryId) throw new WalletError('the DCQL query has no credential query.');
  const candidates: Candidate[] = [];
  for (const found of match?.success ? match.valid_credentials : []) {
    const stored = inputs[found.input_credential_index]?.stored;
    const output = found.claims.valid_claim_sets[0]?.output as Record<string, unknown> | undefined;
    if (!stored || !output) continue;
    if (stored.format === 'mso_mdoc' && mdoc) candidates.push({ stored, ...mdoc.askedElements(output as Namespaces) });
    else candidates.push({ stored, asked: output });
  }
  const asked = query.credentials.find((c) => c.id === queryId);
  const doctype = asked?.format === 'mso_mdoc' ? asked.meta?.doctype_value : undefined;
  return {
    clientId: request.client_id ?? '',
    queryId,
    ...(doctype === undefined ? {} : { mdocDoctype: doctype }),
    candidates,
    request,
    client,
    net,
  };
}

/** Presents `candidate` with the claims in `disclose` (a subset of what was asked) and posts the answer. */
export async function answerRequest(
  wallet: Wallet,
  opened: OpenedRequest,
  candidate: Candidate,
  disclose: readonly string[],
): Promise<VerifierAnswer> {
  const notAsked = disclose.filter((claim) => !Object.hasOwn(candidate.asked, claim));
  if (notAsked.length > 0) throw new WalletError(`the verifier did not ask for ${notAsked.join(', ')}: it is never disclosed.`);
  const { stored } = candidate;
  let presentation: string;
  if (stored.format === 'mso_mdoc') {
    const { deviceResponseFor } = await import('./mdoc.ts');
    const elements = disclose.map((name) => candidate.paths?.[name]).filter((path) => path !== undefined);
    // openRequest takes direct_post requests only: the answer goes in the clear, bound to no encryption key.
    presentation = await deviceResponseFor(wallet, stored, elements, opened.request, null);
  } else {
    const kbSigner = async (data: string) =>
      sign('sha256', Buffer.from(data, 'utf8'), { key: wallet.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    const sdJwtVc = new SDJwtVcInstance({ hasher: digest, kbSigner, kbSignAlg: 'ES256' });
    presentation = await sdJwtVc.present(stored.credential, Object.fromEntries(disclose.map((c) => [c, true])), {
      kb: { payload: { aud: opened.clientId, nonce: String(opened.request.nonce), iat: Math.floor(Date.now() / 1000) } },
    });
  }
  const { authorizationResponsePayload } = await opened.client.createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: opened.request,
    authorizationResponsePayload: { vp_token: { [opened.queryId]: [presentation] } },
  });
  const { response } = await opened.client.submitOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: opened.request,
    authorizationResponsePayload,
  });
  const text = await response.text();
  let body: unknown = text;
  if (response.headers.get('content-type')?.startsWith('application/json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, body };
}

/**
 * Names what a presentation request lacks before any library reads it (and never quotes it): a URI
 * at all, a `client_id`, and a `request_uri` that is an http(s) URL (this wallet answers signed
 * requests only, OpenID4VP 1.0 §5.10).
 */
export function checkRequestTarget(requestUri: string): void {
  let params: URLSearchParams;
  try {
    params = new URL(requestUri).searchParams;
  } catch {
    throw new WalletError('the request is not a URI: pass the openid4vp:// link, quoted.');
  }
  if (!params.get('client_id')) throw new WalletError('the request URI carries no client_id.');
  const target = params.get('request_uri');
  if (target === null) {
    throw new WalletError('the request URI carries no request_uri: this wallet answers signed requests only.');
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new WalletError('the request_uri is not a URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WalletError('the request_uri is not an http(s) URL.');
}
