/**
 * A local OpenID provider for trying the operators' sign-in by hand (docs/operator-sign-in.md,
 * "A worked example against a local provider"): oidc-provider (a development dependency) on
 * loopback, one confidential client for openrail, PKCE required, and its development login page,
 * where any name you type signs in as that subject. Never for production.
 *
 *   node --import tsx scripts/local-oidc-provider.ts [--port 9000] [--openrail http://localhost:3000]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import Provider from 'oidc-provider';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '9000' }, openrail: { type: 'string', default: 'http://localhost:3000' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`--port must be a TCP port: ${values.port}`);
const openrail = new URL(values.openrail ?? '').origin;
const issuer = `http://127.0.0.1:${port}`;
const client = { id: 'openrail-local', secret: randomBytes(24).toString('base64url') };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: client.id,
      client_secret: client.secret,
      redirect_uris: [`${openrail}/auth/callback`],
      post_logout_redirect_uris: [`${openrail}/auth/login`],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  pkce: { required: () => true },
  findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
});

provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(
    [
      `a local OpenID provider is serving at ${issuer} (development only)`,
      'start openrail with:',
      `  OPENRAIL_OIDC_ISSUER=${issuer} OPENRAIL_OUTBOUND_ALLOW=${issuer} \\`,
      `  OPENRAIL_OIDC_CLIENT_ID=${client.id} OPENRAIL_OIDC_CLIENT_SECRET=${client.secret} npm start`,
      'at its login page, any name you type signs in as the subject of that name',
      '',
    ].join('\n'),
  );
});
