import { randomBytes } from 'node:crypto';
import { cborEncode, IssuerSignedItem, parseIssuerSigned } from '@animo-id/mdoc';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { ChainVerifier } from '../../src/adapters/crypto/x509.ts';
import { parseClaimSpecs } from '../../src/core/claims/claim-spec.ts';
import { p256Thumbprint } from '../../src/core/jose/es256.ts';
import { mdocCrypto } from '../../src/core/mdoc/cose.ts';
import { presentMdoc } from '../../src/core/mdoc/device-response.ts';
import { elementValue } from '../../src/core/mdoc/issuer-signed.ts';
import { redirectTranscript } from '../../src/core/mdoc/session-transcript.ts';
import { jsonOfElement } from '../../src/core/mdoc/values.ts';
import { type ElementPath, verifyMdocPresentation } from '../../src/core/mdoc/verify-mdoc.ts';
import { certificatesOfPem } from '../../src/core/pem.ts';
import { configurationId } from '../../src/features/credential-types/formats.ts';
import { request } from './http.ts';
import type { PoolItem, Target } from './wallet.ts';

/**
 * The benches' ISO mdoc wallet (docs/mdoc.md): the `<typeId>.mdoc` configuration it collects, the
 * DeviceResponse it answers a hosted request with, and the sample check of an issued mdoc. The
 * structures are built and read by @animo-id/mdoc through openrail's own wallet code
 * (src/core/mdoc/device-response.ts), as the project's tests do.
 */

/** The credential configuration of the type's mdoc: `<typeId>.mdoc`. */
export const mdocConfiguration = (typeId: string) => configurationId(typeId, 'mso_mdoc');

/** The private JWK of a pool item's holder key: presentMdoc signs the DeviceResponse with it. */
export const privateJwkOf = (item: PoolItem) => item.key.export({ format: 'jwk' }) as JWK;

/**
 * Each claim of `claims` (claim specifications) with its `subject` value as the issuer encodes the
 * element it digests: the CBOR of the tag-24 IssuerSignedItem (digest id, 32-byte salt, identifier,
 * value; a date as full-date), with the same library. The crypto cost counts one SHA-256 of each.
 */
export function elementBytes(claims: readonly string[], subject: Record<string, unknown>): Uint8Array[] {
  const ctx = mdocCrypto((n) => randomBytes(n));
  return parseClaimSpecs(claims).map((c, i) =>
    cborEncode(IssuerSignedItem.create(i, c.key, elementValue(c.kind, subject[c.key]), ctx).dataItem),
  );
}

/**
 * The CBOR the verifier digests for a QR request's session transcript (`OpenID4VPHandoverInfo`:
 * client_id, nonce, no key thumbprint, response_uri), shaped as this deployment's requests are.
 */
export function handoverInfoBytes(origin: string): Uint8Array {
  const host = encodeURIComponent(new URL(origin).host);
  const clientId = `decentralized_identifier:did:web:${host}:t:openrail`;
  return cborEncode([clientId, randomBytes(18).toString('base64url'), null, `${origin}/oid4vp/response`]);
}

/** The request object's DCQL query as a wallet reads it: the `[namespace, element]` paths of its one mso_mdoc credential query. */
function requestedElements(requested: Record<string, unknown>): ElementPath[] | string {
  const query = requested.dcql_query as { credentials?: Array<{ format?: string; claims?: Array<{ path?: unknown }> }> };
  const [credential] = query?.credentials ?? [];
  if (credential?.format !== 'mso_mdoc') return 'the DCQL query asks for no mso_mdoc credential';
  const paths = (credential.claims ?? []).map((c) => c.path);
  const bad = paths.find((p) => !Array.isArray(p) || p.length !== 2 || !p.every((s) => typeof s === 'string'));
  if (bad !== undefined || paths.length === 0)
    return `the DCQL query's claims are not [namespace, element]: ${JSON.stringify(bad)}`;
  return paths as ElementPath[];
}

/**
 * The DeviceResponse answering a request object (OpenID4VP 1.0 Appendix B.2) as a wallet builds
 * it from what the request says: the elements its DCQL query names, signed with the device key over
 * the redirect transcript of its client_id, nonce and response_uri, with the thumbprint of the key
 * in client_metadata when the answer is encrypted (`direct_post.jwt`). A string says what the
 * request lacks.
 */
export async function mdocPresentation(
  held: { credential: string; privateJwk: JWK },
  requested: Record<string, unknown>,
): Promise<string | { problem: string }> {
  const elements = requestedElements(requested);
  if (typeof elements === 'string') return { problem: elements };
  const { client_id: clientId, nonce, response_uri: responseUri, response_mode: mode } = requested;
  if (typeof clientId !== 'string' || typeof nonce !== 'string' || typeof responseUri !== 'string') {
    return { problem: 'the request object lacks client_id, nonce or response_uri' };
  }
  let encryptionKeyThumbprint: string | null = null;
  if (mode === 'direct_post.jwt') {
    const [key] = (requested.client_metadata as { jwks?: { keys?: JWK[] } } | undefined)?.jwks?.keys ?? [];
    if (!key) return { problem: 'a direct_post.jwt request without a key in client_metadata.jwks' };
    encryptionKeyThumbprint = await calculateJwkThumbprint(key, 'sha256');
  }
  return presentMdoc({
    issuerSigned: held.credential,
    elements,
    deviceKey: held.privateJwk,
    sessionTranscript: redirectTranscript({ clientId, nonce, responseUri, encryptionKeyThumbprint }),
  });
}

/**
 * A sanity check of one issued mdoc, outside the timed window: presented with its holder key over
 * a transcript of the bench's and judged by openrail's reference mdoc verifier against the
 * deployment's anchor, the tenant's DID document and its status list (chain, MSO signature, every
 * element's digest, device signature, validity, status); the MSO binds the holder key of the proof
 * and holds an element per claim of the type. Returns the problems found (empty when sound).
 */
export async function checkMdocCredential(
  target: Target,
  item: PoolItem,
  credential: string,
  claims: readonly string[],
): Promise<string[]> {
  let document: ReturnType<typeof parseIssuerSigned>;
  try {
    document = parseIssuerSigned(Buffer.from(credential, 'base64url'));
  } catch (err) {
    return [`the credential is not a base64url IssuerSigned: ${String(err).slice(0, 200)}`];
  }
  const problems: string[] = [];
  const paths = [...(document.issuerSigned.nameSpaces ?? new Map())].flatMap(([ns, items]) =>
    items.map((i) => [ns, i.elementIdentifier] as const),
  );
  if (paths.length !== claims.length) problems.push(`${paths.length} elements, expected ${claims.length}`);
  if (target.doctype !== undefined && document.docType !== target.doctype) problems.push(`doctype ${document.docType}`);
  const status = jsonOfElement((document.issuerSigned.issuerAuth.decodedPayload as { status?: unknown }).status) as {
    status_list?: { uri?: unknown };
  } | null;
  const uri = status?.status_list?.uri;
  if (typeof uri !== 'string') return [...problems, 'the MSO has no status_list uri'];
  const [anchorPem, did, list] = await Promise.all([
    request(`${target.origin}/.well-known/openrail-ca.pem`),
    request(`${target.origin}/t/${target.tenant}/did.json`),
    request(uri, { headers: { accept: 'application/statuslist+jwt' } }),
  ]);
  const anchors = certificatesOfPem(anchorPem.text);
  const chains = new ChainVerifier(anchors);
  const sessionTranscript = redirectTranscript({
    clientId: 'decentralized_identifier:did:web:bench.example',
    nonce: randomBytes(18).toString('base64url'),
    responseUri: 'https://bench.example/response',
    encryptionKeyThumbprint: null,
  });
  const result = await verifyMdocPresentation(
    {
      presentation: await presentMdoc({
        issuerSigned: credential,
        elements: paths,
        deviceKey: privateJwkOf(item),
        sessionTranscript,
      }),
      didDocument: did.json(),
      statusList: list.text,
      trustAnchors: anchors,
      expected: { doctype: document.docType, claims: paths, sessionTranscript },
      now: Math.floor(Date.now() / 1000),
    },
    (chain, _anchors, now) => chains.keyOf(chain, new Date(now * 1000)),
  );
  if (result.verdict !== 'accept') problems.push(`openrail's mdoc verifier: ${result.verdict} (${result.failure})`);
  else if (result.holder !== p256Thumbprint(item.jwk)) problems.push('the MSO device key is not the holder key of the proof');
  return problems;
}
