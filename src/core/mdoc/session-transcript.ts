import { createHash } from 'node:crypto';
import { cborEncode, DataItem } from '@animo-id/mdoc';

/**
 * The `SessionTranscript` an mdoc's device signature covers when presented over OpenID4VP 1.0
 * (Appendix B.2.6): `[null, null, Handover]`, as the CBOR-encoded tag-24 data item the library takes
 * (`SessionTranscriptBytes`). The handover binds the verifier, the nonce and, when the answer is
 * encrypted, the key it is encrypted to; a signature over another transcript does not verify.
 */

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

const transcript = (handover: [string, Uint8Array]) => cborEncode(DataItem.fromData([null, null, handover]));

/** A JWK SHA-256 thumbprint (RFC 7638) as the handover holds it: its 32 bytes. */
const thumbprintBytes = (thumbprint: string | null) => (thumbprint === null ? null : Buffer.from(thumbprint, 'base64url'));

/**
 * Invocation by redirect or QR (Appendix B.2.6.1): `OpenID4VPHandover` over
 * `[client_id, nonce, jwkThumbprint, response_uri]`, the thumbprint null when the answer is not encrypted.
 */
export function redirectTranscript(input: {
  clientId: string;
  nonce: string;
  responseUri: string;
  /** The base64url RFC 7638 thumbprint of the key the answer is encrypted to (`direct_post.jwt`); null for `direct_post`. */
  encryptionKeyThumbprint: string | null;
}): Uint8Array {
  const info = cborEncode([input.clientId, input.nonce, thumbprintBytes(input.encryptionKeyThumbprint), input.responseUri]);
  return transcript(['OpenID4VPHandover', sha256(info)]);
}

/**
 * Invocation through the Digital Credentials API (Appendix B.2.6.2): `OpenID4VPDCAPIHandover` over
 * `[origin, nonce, jwkThumbprint]`, the origin without the `origin:` prefix.
 */
export function dcApiTranscript(input: { origin: string; nonce: string; encryptionKeyThumbprint: string | null }): Uint8Array {
  const info = cborEncode([input.origin, input.nonce, thumbprintBytes(input.encryptionKeyThumbprint)]);
  return transcript(['OpenID4VPDCAPIHandover', sha256(info)]);
}
