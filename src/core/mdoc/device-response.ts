import { DeviceRequest, DeviceResponse, MDoc, parseIssuerSigned, uint8ArrayToBase64Url } from '@animo-id/mdoc';
import type { JWK } from 'jose';
import { decodeB64url } from '../jose/es256.ts';
import { mdocCrypto } from './cose.ts';
import type { ElementPath } from './verify-mdoc.ts';

/**
 * The holder's side of an mdoc presentation over OpenID4VP 1.0 (Appendix B.2): the base64url
 * `DeviceResponse` disclosing exactly the elements asked for, signed by the device key over the
 * verifier's session transcript. The wallet command and the tests present with it; the library
 * builds and signs every structure.
 */
export async function presentMdoc(input: {
  /** The credential as issued: base64url CBOR `IssuerSigned`. */
  issuerSigned: string;
  elements: readonly ElementPath[];
  /** The device key's private JWK (P-256). */
  deviceKey: JWK;
  sessionTranscript: Uint8Array;
}): Promise<string> {
  const bytes = decodeB64url(input.issuerSigned);
  if (!bytes) throw new Error('the credential is not base64url');
  const document = parseIssuerSigned(bytes);
  const nameSpaces = new Map<string, Map<string, boolean>>();
  for (const [ns, id] of input.elements) {
    const wanted = nameSpaces.get(ns) ?? new Map<string, boolean>();
    wanted.set(id, false);
    nameSpaces.set(ns, wanted);
  }
  const request = DeviceRequest.from('1.0', [{ itemsRequestData: { docType: document.docType, nameSpaces } }]);
  const signed = await DeviceResponse.from(new MDoc([document]))
    .usingDeviceRequest(request)
    .usingSessionTranscriptBytes(input.sessionTranscript)
    .authenticateWithSignature(input.deviceKey, 'ES256')
    .sign(mdocCrypto(() => new Uint8Array(0)));
  return uint8ArrayToBase64Url(signed.encode());
}
