/**
 * @auth0/mdl as an independent mdoc reader (docs/mdoc.md): it presents an mdoc openrail issued, on
 * its own, and verifies a DeviceResponse against trust anchors, reporting each check it made. Its
 * parser takes a DeviceResponse, so the issued `IssuerSigned` is put in one (as a wallet holds it)
 * before it is presented.
 */
import { cborDecode, cborEncode } from '@animo-id/mdoc';
import { DeviceResponse, parse, Verifier } from '@auth0/mdl';
import type { JWK } from 'jose';

/** The checks every verification made here must have passed. */
export const AUTH0_CORE_CHECKS = [
  'Issuer certificate must be valid',
  'Issuer signature must be valid',
  'Device signature must be valid',
  'The MSO must be valid at the time of verification',
] as const;

/** A DeviceResponse made by @auth0/mdl from an issued mdoc: `elements` of `namespace` disclosed, signed by `deviceKey` over `transcript`. */
export async function presentWithAuth0(o: {
  issuerSigned: string;
  doctype: string;
  namespace: string;
  elements: readonly string[];
  deviceKey: JWK;
  transcript: Uint8Array;
}): Promise<Uint8Array> {
  const document = new Map<string, unknown>([
    ['docType', o.doctype],
    ['issuerSigned', cborDecode(Buffer.from(o.issuerSigned, 'base64url'))],
  ]);
  const held = cborEncode(
    new Map<string, unknown>([
      ['version', '1.0'],
      ['documents', [document]],
      ['status', 0],
    ]),
  );
  const fields = o.elements.map((id) => ({ path: [`$['${o.namespace}']['${id}']`], intent_to_retain: false }));
  const response = await DeviceResponse.from(parse(Buffer.from(held)))
    .usingPresentationDefinition({
      id: 'openrail-test',
      input_descriptors: [
        { id: o.doctype, format: { mso_mdoc: { alg: ['ES256'] } }, constraints: { limit_disclosure: 'required', fields } },
      ],
    })
    .usingSessionTranscriptBytes(Buffer.from(o.transcript))
    .authenticateWithSignature(o.deviceKey as never, 'ES256')
    .sign();
  return response.encode();
}

/**
 * @auth0/mdl's verdict on a DeviceResponse: the checks it passed and failed, and the elements of
 * `namespace` it read. The check of a country name in the issuer certificate is left out:
 * ISO/IEC 18013-5 asks it of a driving licence's certificate, and openrail's name none.
 */
export async function verifyWithAuth0(
  deviceResponse: Uint8Array,
  anchorsPem: readonly string[],
  transcript: Uint8Array,
  namespace: string,
): Promise<{ passed: string[]; failed: string[]; elements: Record<string, unknown> | undefined }> {
  const passed: string[] = [];
  const failed: string[] = [];
  const read = await new Verifier([...anchorsPem]).verify(deviceResponse, {
    encodedSessionTranscript: Buffer.from(transcript),
    onCheck: (a) => {
      if (a.status === 'PASSED') passed.push(a.check);
      else if (!a.check.startsWith('Country name')) failed.push(a.check);
    },
  });
  return { passed, failed, elements: read.documents[0]?.getIssuerNameSpace(namespace) as Record<string, unknown> | undefined };
}
