import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { PRE_AUTHORIZED_GRANT } from '../../core/pre-authorized-code.ts';
import type { CredentialTypeRecord, KeyAttestationRequirement } from '../../ports/credential-type-store.ts';
import type { AuthorizationFlowSettings, TenantRecord } from '../../ports/tenant-store.ts';
import { configurationsOf } from '../credential-types/formats.ts';
import { claimLabel } from '../credential-types/type-metadata.ts';

export const BATCH_SIZE = 10;
export const FORMAT = 'dc+sd-jwt';
/** COSE -7 (ES256): the algorithm of an mdoc's IssuerAuth (OID4VCI 1.0 Appendix A.2.2 lists COSE identifiers). */
const COSE_ES256 = -7;

/** Tenant branding as OID4VCI display objects (§12.2.4), from the tenant profile. */
function issuerDisplay(tenant: TenantRecord) {
  return [
    {
      name: tenant.displayName ?? tenant.name,
      locale: 'en',
      ...(tenant.description ? { description: tenant.description } : {}),
      ...(tenant.logoUri ? { logo: { uri: tenant.logoUri } } : {}),
      ...(tenant.backgroundColor ? { background_color: tenant.backgroundColor } : {}),
      ...(tenant.textColor ? { text_color: tenant.textColor } : {}),
    },
  ];
}

/** OID4VCI 1.0 §12.2.4 `key_attestations_required`, from a type's requirement (docs/haip.md, "Key attestation"). */
function keyAttestationsRequired(required: KeyAttestationRequirement) {
  return {
    ...(required.keyStorage ? { key_storage: required.keyStorage } : {}),
    ...(required.userAuthentication ? { user_authentication: required.userAuthentication } : {}),
  };
}

/** A credential configuration (OID4VCI 1.0 §12.2.4): what every format has, and the format's own members. */
interface Configuration extends Record<string, unknown> {
  format: string;
  scope: string;
  credential_metadata: {
    display: Array<Record<string, unknown> & { name: string; locale: string }>;
    claims: Array<{ path: unknown[]; mandatory: boolean; display: Array<{ name: string; locale: string }> }>;
  };
}

function configurations(
  urls: IssuerUrls,
  tenant: TenantRecord,
  type: CredentialTypeRecord,
  attestation: KeyAttestationRequirement | undefined,
): Array<[string, Configuration]> {
  // A type that requires key attestation takes it in a jwt proof's header, or alone as the
  // attestation proof type (HAIP 1.0 asks issuers for both).
  const required = attestation ? { key_attestations_required: keyAttestationsRequired(attestation) } : undefined;
  const proofTypes = {
    jwt: { proof_signing_alg_values_supported: ['ES256'], ...required },
    ...(required ? { attestation: { proof_signing_alg_values_supported: ['ES256'], ...required } } : {}),
  };
  const display = [
    {
      name: type.name,
      locale: 'en',
      ...(tenant.logoUri ? { logo: { uri: tenant.logoUri } } : {}),
      ...(tenant.backgroundColor ? { background_color: tenant.backgroundColor } : {}),
      ...(tenant.textColor ? { text_color: tenant.textColor } : {}),
    },
  ];
  // oid4vc-ts reads a configuration with credential_metadata as 1.0; without it, as draft 15.
  const metadataOf = (path: (key: string) => unknown[]) => ({
    display,
    claims: type.claims.map((c) => ({
      path: path(c.key),
      mandatory: true,
      display: [{ name: claimLabel(c.key), locale: 'en' }],
    })),
  });
  return configurationsOf(type).map(({ id, format }) => {
    if (format === 'mso_mdoc' && type.mdoc) {
      const elements = type.mdoc.elements;
      // OID4VCI 1.0 Appendix A.2: the doctype, COSE algorithms, the device key as a COSE key, claims by [namespace, element].
      const mdoc = {
        format,
        doctype: type.mdoc.doctype,
        scope: id,
        cryptographic_binding_methods_supported: ['cose_key'],
        credential_signing_alg_values_supported: [COSE_ES256],
        proof_types_supported: proofTypes,
        credential_metadata: metadataOf((key) => [...(elements[key] ?? [])]),
      };
      return [id, mdoc];
    }
    const sdJwt = {
      format: FORMAT,
      vct: urls.vct(tenant.slug, type.typeId),
      scope: id,
      cryptographic_binding_methods_supported: ['jwk'],
      credential_signing_alg_values_supported: ['ES256'],
      proof_types_supported: proofTypes,
      credential_metadata: metadataOf((key) => [key]),
      // The interface's flat claim list, kept beside credential_metadata for older readers.
      claims: type.claims.map((c) => ({ path: [c.key] })),
    };
    return [id, sdJwt];
  });
}

/**
 * OID4VCI 1.0 §12.2 Credential Issuer Metadata. The issuer is its own authorization server.
 * `attestations`: the key attestation requirements of its types, by type id.
 */
export function issuerMetadata(
  urls: IssuerUrls,
  tenant: TenantRecord,
  types: CredentialTypeRecord[],
  attestations: ReadonlyMap<string, KeyAttestationRequirement> = new Map(),
) {
  const issuer = urls.issuer(tenant.slug);
  return {
    credential_issuer: issuer,
    authorization_servers: [issuer],
    credential_endpoint: `${issuer}/credential`,
    nonce_endpoint: `${issuer}/nonce`,
    batch_credential_issuance: { batch_size: BATCH_SIZE },
    display: issuerDisplay(tenant),
    credential_configurations_supported: Object.fromEntries(
      types.flatMap((t) => configurations(urls, tenant, t, attestations.get(t.typeId))),
    ),
  };
}

/**
 * RFC 8414 metadata of the issuer's own authorization server (docs/issuance.md, docs/haip.md):
 * every field the interface lists, on every issuer, each true of it. `servesCodeFlow`: whether this
 * issuer serves the authorization code flow now, which takes its HAIP issuance and a deployment that
 * trusts a wallet provider (the issuance routes pass both; PAR, called only where it is served,
 * leaves the default).
 */
export function authorizationServerMetadata(
  urls: IssuerUrls,
  tenant: Pick<TenantRecord, 'slug'> & Partial<AuthorizationFlowSettings>,
  servesCodeFlow = tenant.haipIssuance === true,
) {
  const issuer = urls.issuer(tenant.slug);
  const common = {
    issuer,
    token_endpoint: `${issuer}/token`,
    'pre-authorized_grant_anonymous_access_supported': true,
    // Either grant's token request may carry a DPoP proof (RFC 9449); the authorization code flow's must.
    dpop_signing_alg_values_supported: ['ES256'],
  };
  if (!servesCodeFlow) {
    return {
      ...common,
      // No authorization endpoint is served, so no response type is supported (OID4VCI §12.3), no
      // PKCE method (RFC 7636, a parameter of the authorization request) and no authorization
      // details type (RFC 9396; the token endpoint ignores an authorization_details parameter).
      // Empty lists say so where the interface asks for every field.
      response_types_supported: [] as string[],
      grant_types_supported: [PRE_AUTHORIZED_GRANT],
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: [] as string[],
      authorization_details_types_supported: [] as string[],
    };
  }
  // HAIP 1.0 §4: PAR required, PKCE S256, RFC 9207 iss, wallet attestation client authentication;
  // OID4VCI 1.0 §5.1.1: authorization_details of type openid_credential at PAR.
  return {
    ...common,
    authorization_endpoint: `${issuer}/authorize`,
    pushed_authorization_request_endpoint: `${issuer}/par`,
    require_pushed_authorization_requests: true,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', PRE_AUTHORIZED_GRANT],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    authorization_details_types_supported: ['openid_credential'],
    token_endpoint_auth_methods_supported: ['attest_jwt_client_auth', 'none'],
    client_attestation_signing_alg_values_supported: ['ES256'],
    client_attestation_pop_signing_alg_values_supported: ['ES256'],
  };
}
