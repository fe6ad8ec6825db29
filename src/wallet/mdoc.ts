/**
 * The reference wallet's ISO mdoc (docs/wallet-cli.md): an mdoc is held as the base64url CBOR
 * `IssuerSigned` the issuer sent, bound to the wallet's device key. This module reads one, checks
 * one before it is kept, describes one to the DCQL library, and presents one: a DeviceResponse
 * (core/mdoc/device-response.ts) signed over the OpenID4VP 1.0 session transcript of the request.
 * It loads the mdoc library, so the wallet imports it only where an mdoc is met.
 */
import { X509Certificate } from 'node:crypto';
import { COSEKey, type IssuerSignedDocument, parseIssuerSigned } from '@animo-id/mdoc';
import type { JWK } from 'jose';
import { decodeB64url, p256Jwk, p256Thumbprint } from '../core/jose/es256.ts';
import { es256Verify, mdocCrypto } from '../core/mdoc/cose.ts';
import { presentMdoc } from '../core/mdoc/device-response.ts';
import { COSE_ES256 } from '../core/mdoc/issuer-signed.ts';
import { redirectTranscript } from '../core/mdoc/session-transcript.ts';
import { jsonOfElement } from '../core/mdoc/values.ts';
import type { ElementPath } from '../core/mdoc/verify-mdoc.ts';
import { assertionKeyMatching } from '../core/verifier/did-keys.ts';
import { fetchDidDocument } from './did-web.ts';
import { WalletError, type WalletNetOptions } from './net.ts';
import type { StoredMdoc, Wallet } from './wallet-file.ts';

type P256Jwk = StoredMdoc['deviceKey'];
/** Elements by namespace, as JSON shows them (core/mdoc/values.ts). */
export type Namespaces = Record<string, Record<string, unknown>>;

const crypto = mdocCrypto(() => {
  throw new WalletError('the wallet draws no salt: it never signs an element.');
});

/** The `IssuerSigned` of a held or received mdoc, parsed; a refusal in the wallet's words when it cannot be. */
export function readMdoc(credential: string): IssuerSignedDocument {
  const bytes = decodeB64url(credential);
  if (!bytes || bytes.length === 0) throw new WalletError('the mdoc is not base64url.');
  try {
    return parseIssuerSigned(bytes);
  } catch {
    throw new WalletError('the mdoc is not a CBOR IssuerSigned this wallet can read.');
  }
}

/** Every element of a held mdoc by namespace, as JSON, for `list` and for matching a query. */
export function mdocNamespaces(credential: string): Namespaces {
  return jsonOfElement(readMdoc(credential).allIssuerSignedNamespaces) as Namespaces;
}

/**
 * What the wallet checks before keeping an mdoc (docs/wallet-cli.md, "Collecting"): that it reads,
 * is of the doctype the configuration names, its MSO is signed ES256 by the key of the leaf
 * certificate in its x5chain, that key is an assertion key of the issuer's DID document, every
 * element matches its digest, and the MSO binds this wallet's device key. The wallet holds no
 * certificate authority of its own: the DID document is what it trusts, as for an SD-JWT VC.
 */
export async function checkReceivedMdoc(
  credential: string,
  wallet: Wallet,
  expected: { doctype: string; issuer: string },
  fetchFn: typeof fetch,
  net: WalletNetOptions,
): Promise<{ doctype: string; deviceKey: P256Jwk }> {
  const document = readMdoc(credential);
  const { issuerAuth } = document.issuerSigned;
  const mso = issuerAuth.decodedPayload;
  if (document.docType !== mso.docType || mso.docType !== expected.doctype) {
    throw new WalletError('the mdoc is not of the doctype the offer named.');
  }
  const leaf = issuerAuth.x5chain?.[0];
  if (issuerAuth.alg !== COSE_ES256 || !leaf) throw new WalletError('the mdoc is not signed ES256 with an x5chain.');
  let issuerKey: JWK | undefined;
  try {
    issuerKey = p256Jwk(new X509Certificate(leaf).publicKey.export({ format: 'jwk' }));
  } catch {
    issuerKey = undefined;
  }
  if (!issuerKey) throw new WalletError("the mdoc's x5chain does not begin with a P-256 certificate.");
  const { data, signature } = issuerAuth.getRawVerificationData();
  if (!es256Verify(issuerKey, data, signature))
    throw new WalletError("the mdoc's signature does not verify with its certificate's key.");
  const didDocument = await fetchDidDocument(expected.issuer, fetchFn, net);
  if (!assertionKeyMatching(didDocument, issuerKey)) {
    throw new WalletError(`the mdoc's certificate names a key that ${expected.issuer} does not sign with.`);
  }
  for (const [namespace, items] of document.issuerSigned.nameSpaces ?? new Map()) {
    for (const item of items) {
      if (!(await item.isValid(namespace, issuerAuth, crypto))) {
        throw new WalletError(`the mdoc's element ${namespace}/${item.elementIdentifier} does not match its digest.`);
      }
    }
  }
  const deviceKey = deviceKeyOf(mso.deviceKeyInfo?.deviceKey);
  if (!deviceKey || deviceKey.x !== wallet.publicJwk.x || deviceKey.y !== wallet.publicJwk.y) {
    throw new WalletError("the mdoc is not bound to this wallet's key.");
  }
  return { doctype: mso.docType, deviceKey };
}

function deviceKeyOf(coseKey: Map<number, unknown> | undefined): P256Jwk | undefined {
  try {
    const jwk = coseKey ? p256Jwk(COSEKey.import(coseKey).toJWK()) : undefined;
    return jwk ? { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) } : undefined;
  } catch {
    return undefined;
  }
}

/** A held mdoc as the dcql library matches a credential query against it. */
export function mdocDcqlInput(stored: StoredMdoc) {
  return {
    credential_format: 'mso_mdoc' as const,
    doctype: stored.doctype,
    namespaces: mdocNamespaces(stored.credential),
    cryptographic_holder_binding: true,
  };
}

/**
 * The elements a query selected of an mdoc (the dcql library's output, by namespace), each under
 * the name the holder types and reads: its identifier, or `namespace/identifier` when two selected
 * elements share an identifier.
 */
export function askedElements(output: Namespaces): { asked: Record<string, unknown>; paths: Record<string, ElementPath> } {
  const flat = Object.entries(output).flatMap(([ns, values]) => Object.entries(values).map(([id, value]) => ({ ns, id, value })));
  const asked: Record<string, unknown> = {};
  const paths: Record<string, ElementPath> = {};
  for (const { ns, id, value } of flat) {
    const name = flat.filter((e) => e.id === id).length > 1 ? `${ns}/${id}` : id;
    asked[name] = value;
    paths[name] = [ns, id];
  }
  return { asked, paths };
}

/**
 * The DeviceResponse disclosing `elements` of a held mdoc, signed with the device key over the
 * transcript of a request invoked by redirect or QR (OpenID4VP 1.0 Appendix B.2.6.1): its client_id,
 * nonce and response_uri, and `encryptedTo`, the verifier's key an encrypted answer (`direct_post.jwt`)
 * goes to, null when the answer is posted in the clear (`direct_post`).
 */
export async function deviceResponseFor(
  wallet: Wallet,
  stored: StoredMdoc,
  elements: readonly ElementPath[],
  request: { client_id?: unknown; nonce?: unknown; response_uri?: unknown },
  encryptedTo: JWK | null,
): Promise<string> {
  if (stored.deviceKey.x !== wallet.publicJwk.x || stored.deviceKey.y !== wallet.publicJwk.y) {
    throw new WalletError(`${stored.id} is bound to a key this wallet does not hold.`);
  }
  if (typeof request.client_id !== 'string' || typeof request.nonce !== 'string' || typeof request.response_uri !== 'string') {
    throw new WalletError('the request lacks the client_id, nonce or response_uri an mdoc answer is bound to.');
  }
  const encryptionKey = encryptedTo === null ? null : p256Jwk(encryptedTo);
  if (encryptedTo !== null && !encryptionKey) throw new WalletError('the verifier’s encryption key is not a P-256 key.');
  const sessionTranscript = redirectTranscript({
    clientId: request.client_id,
    nonce: request.nonce,
    responseUri: request.response_uri,
    encryptionKeyThumbprint: encryptionKey ? p256Thumbprint(encryptionKey) : null,
  });
  return presentMdoc({ issuerSigned: stored.credential, elements, deviceKey: wallet.state.key as JWK, sessionTranscript });
}
