/**
 * The mdoc half of the test wallet (oid4vp-wallet.ts): a resolved OpenID4VP request whose DCQL query
 * asks for `mso_mdoc` is matched by the dcql library against the mdoc the wallet holds, and answered
 * with a DeviceResponse built by @animo-id/mdoc, signed over the session transcript the wallet
 * computes from what the request says (OpenID4VP 1.0 Appendix B.2.6): its client_id, nonce,
 * response_uri and encryption key, or the page's origin through the Digital Credentials API. The
 * key thumbprint comes from jose, not from openrail.
 */
import 'reflect-metadata'; // before @peculiar/x509
import assert from 'node:assert/strict';
import { parseIssuerSigned } from '@animo-id/mdoc';
import type { ResolvedOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import * as x509 from '@peculiar/x509';
import { DcqlQuery } from 'dcql';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { presentMdoc } from '../../src/core/mdoc/device-response.ts';
import { dcApiTranscript, redirectTranscript } from '../../src/core/mdoc/session-transcript.ts';
import { jsonOfElement } from '../../src/core/mdoc/values.ts';
import { accountOf, type HolderKey } from './holder.ts';

/** A device key whose private JWK the wallet holds, to sign DeviceResponses with. */
export interface DeviceKey extends HolderKey {
  privateJwk: JWK;
  thumbprint: string;
}

export async function newDeviceKey(): Promise<DeviceKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const key = { privateKey, publicJwk: await exportJWK(publicKey) };
  return { ...key, privateJwk: await exportJWK(privateKey), thumbprint: accountOf(key) };
}

/** What may be bent in an mdoc answer, for negative cases. */
export interface MdocOverrides {
  /** The nonce signed into the transcript instead of the request's. */
  nonce?: string;
  /** The client_id (or, through the DC API, the origin) signed into the transcript instead of the request's. */
  aud?: string;
  /** Signs the DeviceResponse with this key instead of the device key the mdoc binds. */
  kbKey?: DeviceKey;
}

/** The mdoc as the dcql library reads a wallet's credential: doctype, elements by namespace, the authority of its chain. */
function dcqlCredential(issuerSigned: string) {
  const document = parseIssuerSigned(Buffer.from(issuerSigned, 'base64url'));
  const namespaces = jsonOfElement(document.allIssuerSignedNamespaces) as Record<string, Record<string, unknown>>;
  const [leaf] = document.issuerSigned.issuerAuth.certificateChain;
  const aki = new x509.X509Certificate(leaf).getExtension(x509.AuthorityKeyIdentifierExtension);
  return {
    credential_format: 'mso_mdoc' as const,
    doctype: document.docType,
    namespaces,
    cryptographic_holder_binding: true,
    ...(aki?.keyId
      ? { authority: { type: 'aki' as const, values: [Buffer.from(aki.keyId, 'hex').toString('base64url')] as [string] } }
      : {}),
  };
}

/**
 * The DeviceResponse answering `resolved` with the mdoc `issuerSigned`: the elements the DCQL query
 * selects, signed with `deviceKey` over the transcript of the channel (`origin` for the DC API).
 */
export async function mdocPresentationFor(
  resolved: ResolvedOpenid4vpAuthorizationRequest,
  holding: { credential: string; deviceKey: DeviceKey },
  channel: { origin?: string },
  overrides: MdocOverrides = {},
) {
  assert.ok(resolved.dcql, 'the request carries a DCQL query');
  const query = DcqlQuery.parse(resolved.dcql.query as DcqlQuery.Input);
  DcqlQuery.validate(query);
  const result = DcqlQuery.query(query, [dcqlCredential(holding.credential)]);
  assert.ok(result.can_be_satisfied, `the DCQL query matches the mdoc: ${JSON.stringify(result)}`);
  const [queryId, match] = Object.entries(result.credential_matches)[0] ?? [];
  assert.ok(queryId && match?.success, 'one credential query matched');
  const selected = match.valid_credentials[0].claims.valid_claim_sets[0].output as Record<string, Record<string, unknown>>;
  const elements = Object.entries(selected).flatMap(([ns, values]) => Object.keys(values).map((id) => [ns, id] as const));

  const request = resolved.authorizationRequestPayload as Record<string, unknown>;
  const nonce = overrides.nonce ?? String(request.nonce);
  const jwks = (request.client_metadata as { jwks?: { keys: JWK[] } } | undefined)?.jwks;
  const encryptedTo = jwks?.keys[0];
  const thumbprint = encryptedTo ? await calculateJwkThumbprint(encryptedTo as JWK, 'sha256') : null;
  const sessionTranscript =
    channel.origin !== undefined
      ? dcApiTranscript({ origin: overrides.aud ?? channel.origin, nonce, encryptionKeyThumbprint: thumbprint })
      : redirectTranscript({
          clientId: overrides.aud ?? String(request.client_id),
          nonce,
          responseUri: String(request.response_uri),
          encryptionKeyThumbprint: request.response_mode === 'direct_post.jwt' ? thumbprint : null,
        });
  const presentation = await presentMdoc({
    issuerSigned: holding.credential,
    elements,
    deviceKey: (overrides.kbKey ?? holding.deviceKey).privateJwk,
    sessionTranscript,
  });
  return { queryId, disclosed: elements.map(([, id]) => id), presentation };
}
