import type * as Oauth2 from '@openid4vc/oauth2';
import type * as Openid4vci from '@openid4vc/openid4vci';
import { whenFirstUsed } from '../../core/lazy-package.ts';

const loadOauth2 = whenFirstUsed<typeof Oauth2>('@openid4vc/oauth2');
const loadOpenid4vci = whenFirstUsed<typeof Openid4vci>('@openid4vc/openid4vci');
let httpAudiences = false;

/**
 * oid4vc-ts's authorization server checks (@openid4vc/oauth2), with zod beneath them: loaded by
 * the first request of the authorization code flow (PAR, the token endpoint, a key attestation),
 * so a deployment that issues with pre-authorized codes only never holds them (docs/scaling.md,
 * "Memory"). The library refuses an http audience unless told otherwise, process-wide: after
 * `allowHttpAudiences` (a development deployment, whose issuer URLs are http), it is told so
 * before any use.
 */
export function oauth2(): typeof Oauth2 {
  const library = loadOauth2();
  if (httpAudiences && !library.getGlobalConfig().allowInsecureUrls) {
    library.setGlobalConfig({ ...library.getGlobalConfig(), allowInsecureUrls: true });
  }
  return library;
}

/** @openid4vc/openid4vci (key attestations), on @openid4vc/oauth2 configured as above. */
export function openid4vci(): typeof Openid4vci {
  oauth2();
  return loadOpenid4vci();
}

/** PUBLIC_URL is http (development only: production requires https), so audiences are http URLs. */
export function allowHttpAudiences(): void {
  httpAudiences = true;
}
