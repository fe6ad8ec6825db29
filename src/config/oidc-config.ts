import { ConfigError, type Env, read } from './env.ts';

export interface OidcConfig {
  /** The provider's issuer identifier, where discovery starts. */
  issuer: URL;
  clientId: string;
  /** client_secret_post; absent with a private key (private_key_jwt). */
  clientSecret?: string;
  /** A PKCS#8 PEM ES256 or RS256 key for private_key_jwt, with its kid. */
  privateKey?: { pem: string; kid: string };
  /** Scopes asked besides openid. */
  scopes: string[];
}

/**
 * OPENRAIL_OIDC_ISSUER, _CLIENT_ID and either _CLIENT_SECRET or _PRIVATE_KEY (a PKCS#8 PEM, for
 * private_key_jwt, with _PRIVATE_KEY_ID its kid), optional _SCOPES (space-separated, beside
 * `openid`). The issuer is https, or plain http only where OPENRAIL_OUTBOUND_ALLOW names its
 * origin, as for webhooks (docs/operator-sign-in.md).
 */
export function oidcConfig(env: Env, outboundAllow: readonly string[]): OidcConfig | undefined {
  const raw = read(env, 'OPENRAIL_OIDC_ISSUER');
  const clientId = read(env, 'OPENRAIL_OIDC_CLIENT_ID');
  const clientSecret = read(env, 'OPENRAIL_OIDC_CLIENT_SECRET');
  const pem = read(env, 'OPENRAIL_OIDC_PRIVATE_KEY');
  if (!raw) {
    for (const name of ['OPENRAIL_OIDC_CLIENT_ID', 'OPENRAIL_OIDC_CLIENT_SECRET', 'OPENRAIL_OIDC_PRIVATE_KEY'] as const) {
      if (read(env, name)) throw new ConfigError(name, 'is set, but OPENRAIL_OIDC_ISSUER is not');
    }
    return undefined;
  }
  let issuer: URL;
  try {
    issuer = new URL(raw);
  } catch {
    throw new ConfigError('OPENRAIL_OIDC_ISSUER', 'must be the provider’s issuer URL');
  }
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && outboundAllow.includes(issuer.origin))) {
    throw new ConfigError('OPENRAIL_OIDC_ISSUER', 'must be https (plain http only for an origin OPENRAIL_OUTBOUND_ALLOW names)');
  }
  if (issuer.search || issuer.hash || issuer.username || issuer.password) {
    throw new ConfigError('OPENRAIL_OIDC_ISSUER', 'must carry no query, fragment or credentials');
  }
  if (!clientId || clientId.length > 255)
    throw new ConfigError('OPENRAIL_OIDC_CLIENT_ID', 'is required with OPENRAIL_OIDC_ISSUER');
  if (!clientSecret === !pem) {
    throw new ConfigError(
      'OPENRAIL_OIDC_CLIENT_SECRET',
      'or OPENRAIL_OIDC_PRIVATE_KEY (one of the two) is required with OPENRAIL_OIDC_ISSUER',
    );
  }
  const scopes = (read(env, 'OPENRAIL_OIDC_SCOPES') ?? '').split(/\s+/).filter((s) => s !== '' && s !== 'openid');
  if (scopes.some((s) => !/^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/.test(s)) || scopes.length > 10) {
    throw new ConfigError('OPENRAIL_OIDC_SCOPES', 'must be up to ten space-separated OAuth scope tokens');
  }
  const config: OidcConfig = { issuer, clientId, scopes };
  if (clientSecret) config.clientSecret = clientSecret;
  if (pem) {
    const kid = read(env, 'OPENRAIL_OIDC_PRIVATE_KEY_ID');
    if (!kid)
      throw new ConfigError(
        'OPENRAIL_OIDC_PRIVATE_KEY_ID',
        'is required with OPENRAIL_OIDC_PRIVATE_KEY (the key’s kid at the provider)',
      );
    if (!pem.includes('-----BEGIN PRIVATE KEY-----'))
      throw new ConfigError('OPENRAIL_OIDC_PRIVATE_KEY', 'must be a PKCS#8 PEM private key');
    config.privateKey = { pem, kid };
  }
  return config;
}
