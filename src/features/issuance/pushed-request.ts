import { ServiceError } from '../../core/errors.ts';

/**
 * What a pushed authorization request asks (RFC 9126; docs/haip.md, "The flow"), read from its
 * form before anything is looked up: the client, where to send the code, PKCE S256, the state to
 * give back, and which credential configuration (by `scope` or `authorization_details`, or left
 * to the offer `issuer_state` names). Each fault is `invalid_request`, saying which.
 */
export interface PushedRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  issuerState: string | undefined;
  /**
   * Named by scope or authorization_details: one, or the formats of one type (a type offered as
   * SD-JWT VC and as mdoc, docs/mdoc.md); undefined: the offer's.
   */
  configurationIds: string[] | undefined;
}

/** Configurations one authorization may name: the formats of one type. */
const MAX_CONFIGURATIONS = 2;

const MAX_STATE = 512;
const MAX_REDIRECT_URI = 2048;

export const pushRefused = (message: string) => new ServiceError('invalid_request', message);

export function readPushedRequest(form: Record<string, string>): PushedRequest {
  if (form.response_type !== 'code') throw pushRefused('response_type must be "code".');
  if (!form.client_id) throw pushRefused('client_id is required.');
  if (form.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(form.code_challenge ?? '')) {
    throw pushRefused('PKCE is required: code_challenge (43 base64url characters) with code_challenge_method S256.');
  }
  if (form.state !== undefined && form.state.length > MAX_STATE)
    throw pushRefused(`state is longer than ${MAX_STATE} characters.`);
  return {
    clientId: form.client_id,
    redirectUri: checkRedirectUri(form.redirect_uri),
    state: form.state ?? null,
    codeChallenge: form.code_challenge as string,
    issuerState: form.issuer_state,
    configurationIds: configurationsOf(form),
  };
}

/** The configurations `scope` (their ids) or `authorization_details` (OID4VCI §5.1.1) names, if either is sent. */
function configurationsOf(form: Record<string, string>): string[] | undefined {
  if (form.authorization_details !== undefined) {
    if (form.scope !== undefined) throw pushRefused('Send scope or authorization_details, not both.');
    let details: unknown;
    try {
      details = JSON.parse(form.authorization_details);
    } catch {
      throw pushRefused('authorization_details is not JSON.');
    }
    if (
      !Array.isArray(details) ||
      details.length === 0 ||
      details.length > MAX_CONFIGURATIONS ||
      details.some((d) => d?.type !== 'openid_credential')
    ) {
      throw pushRefused(
        `authorization_details must hold one entry of type openid_credential (or ${MAX_CONFIGURATIONS}: the formats of one type).`,
      );
    }
    return details.map((d) => {
      const id = d.credential_configuration_id;
      if (typeof id !== 'string' || id === '') throw pushRefused('authorization_details names no credential_configuration_id.');
      return id;
    });
  }
  if (form.scope === undefined) return undefined;
  const scopes = form.scope.split(' ').filter(Boolean);
  if (scopes.length === 0 || scopes.length > MAX_CONFIGURATIONS) {
    throw pushRefused(`scope must name one credential configuration (or ${MAX_CONFIGURATIONS}: the formats of one type).`);
  }
  return scopes;
}

/**
 * A redirect_uri a wallet may name: an absolute URI without a fragment (RFC 6749 §3.1.2), of
 * https, a private scheme (a wallet app's), or http on the loopback host (RFC 8252 §7.3).
 */
function checkRedirectUri(value: string | undefined): string {
  if (!value) throw pushRefused('redirect_uri is required.');
  if (value.length > MAX_REDIRECT_URI) throw pushRefused(`redirect_uri is longer than ${MAX_REDIRECT_URI} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw pushRefused('redirect_uri is not an absolute URI.');
  }
  if (url.hash !== '' || value.includes('#')) throw pushRefused('redirect_uri must not have a fragment.');
  const scheme = url.protocol.slice(0, -1);
  const loopback = url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
  if (['javascript', 'data', 'file', 'blob', 'vbscript', 'about'].includes(scheme) || (scheme === 'http' && !loopback)) {
    throw pushRefused('redirect_uri must be https, a wallet app’s own scheme, or http on the loopback host.');
  }
  return value;
}
