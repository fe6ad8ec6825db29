import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * The service's configuration, read once from the environment and validated at boot
 * (README "Configuration"). A bad value stops the process with a message naming the variable.
 */
export type DatabaseLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

/** Where the data is stored, in words: never a database URL, which may carry a password. */
export function storageOf(database: DatabaseLocation): { engine: 'sqlite' | 'postgres'; where: string } {
  if (database.kind === 'sqlite') {
    return { engine: 'sqlite', where: database.file === ':memory:' ? 'in memory' : `the SQLite file ${database.file}` };
  }
  const url = new URL(database.url);
  return { engine: 'postgres', where: `the PostgreSQL database ${url.pathname.slice(1) || '(default)'} on ${url.hostname}` };
}

export interface Config {
  nodeEnv: 'production' | 'development' | 'test';
  port: number;
  host: string;
  publicUrl: URL;
  database: DatabaseLocation;
  /** PostgreSQL connections this deployment's processes on one machine may open, together. */
  dbPoolSize: number;
  dataDir: string;
  /** Where backups and their manifests are written (docs/operations.md, "Backups and restore drills"). */
  backupDir: string;
  ownerToken?: string;
  /** The bearer a Prometheus scraper presents at GET /metrics; unset: metrics are off (docs/operations.md). */
  metricsToken?: string;
  masterKey?: Buffer;
  directoryPepper?: string;
  demo: boolean;
  /** Whether Digital Credentials API requests also offer the unsigned form (docs/dc-api.md); default on. */
  dcApiUnsigned: boolean;
  logLevel: string;
  unmountedGroups: string[];
  security: { contacts: string[]; expires?: Date; policy?: string };
  platformName: string;
  /**
   * Origins outbound calls may reach although they are not public https (development and tests):
   * exact `scheme://host:port` strings, compared with a URL's origin.
   */
  outboundAllow: string[];
  /** The delays, in milliseconds, before each retry of a webhook delivery (docs/webhooks.md). */
  webhookRetrySchedule: number[];
  /**
   * The enterprise identity provider operators sign in with (docs/operator-sign-in.md); unset: a
   * password sign-in page only.
   */
  oidc?: OidcConfig;
  /**
   * The operator's own certificate authority for signing keys' certificates (docs/haip.md):
   * OPENRAIL_CA_CHAIN_FILE and OPENRAIL_CA_KEY_FILE, read at load; unset: the platform root.
   */
  certificateAuthority?: { chainPem: string; privateKeyPem: string };
  /**
   * The certificates a wallet attestation's x5c chain must end at for the authorization code flow
   * (docs/haip.md, "Wallet attestation trust"): OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE, read at
   * load, as base64 DER. Empty: no wallet is trusted, and the flow refuses every client.
   */
  walletAttestationAnchors: string[];
  /** smtp:// or smtps:// URL of the mail server; unset: the development outbox (docs/onboarding.md). */
  smtpUrl?: string;
  /** The From of every mail. */
  mailFrom: string;
  /**
   * The reverse proxies (addresses or CIDR blocks) whose X-Forwarded-For names the caller; empty:
   * the caller is the connection's peer (docs/security.md, "Behind a proxy").
   */
  trustProxy: string[];
  /** Every anonymous budget's quota is multiplied by this (docs/security.md, "Anonymous budgets"). */
  anonymousBudgetScale: number;
}

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

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

function port(env: Env): number {
  const raw = read(env, 'PORT') ?? '3000';
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535) throw new ConfigError('PORT', `must be an integer 0-65535 (got "${raw}")`);
  return n;
}

function integerIn(env: Env, name: string, min: number, max: number, fallback: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new ConfigError(name, `must be an integer ${min}-${max} (got "${raw}")`);
  return n;
}

function publicUrl(env: Env, listenPort: number, production: boolean): URL {
  const raw = read(env, 'PUBLIC_URL') ?? `http://localhost:${listenPort}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_URL', `must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError('PUBLIC_URL', 'must use http or https');
  }
  // did:web maps the host (and port) onto /.well-known/did.json, so the base must be an origin.
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new ConfigError('PUBLIC_URL', 'must be an origin such as https://rail.example.org, without path, query or credentials');
  }
  if (production && url.protocol !== 'https:') throw new ConfigError('PUBLIC_URL', 'must use https when NODE_ENV=production');
  return url;
}

function database(env: Env, dataDir: string): DatabaseLocation {
  const raw = read(env, 'DATABASE_URL');
  if (!raw) return { kind: 'sqlite', file: resolve(dataDir, 'openrail.sqlite') };
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length);
    if (!file) throw new ConfigError('DATABASE_URL', 'must name a file after sqlite: (or sqlite::memory:)');
    return { kind: 'sqlite', file: file === ':memory:' ? file : resolve(file) };
  }
  throw new ConfigError('DATABASE_URL', 'must start with sqlite:, postgres:// or postgresql://');
}

function masterKey(env: Env, production: boolean): Buffer | undefined {
  const raw = read(env, 'OPENRAIL_MASTER_KEY');
  if (!raw) {
    if (production) throw new ConfigError('OPENRAIL_MASTER_KEY', 'is required when NODE_ENV=production');
    return undefined;
  }
  const key = Buffer.from(raw, 'base64url');
  if (!/^[A-Za-z0-9_-]+$/.test(raw) || key.length !== 32) {
    throw new ConfigError('OPENRAIL_MASTER_KEY', 'must be 32 random bytes encoded as base64url (43 characters)');
  }
  return key;
}

function secret(env: Env, name: string, minLength: number): string | undefined {
  const raw = read(env, name);
  if (raw !== undefined && raw.length < minLength) throw new ConfigError(name, `must be at least ${minLength} characters`);
  return raw;
}

function securityContacts(env: Env, url: URL): string[] {
  const raw = read(env, 'OPENRAIL_SECURITY_CONTACT');
  if (!raw) return [`mailto:security@${url.hostname}`];
  const contacts = raw.split(',').map((c) => c.trim());
  for (const c of contacts) {
    if (!/^(mailto:|https:|tel:)\S+$/.test(c)) {
      throw new ConfigError(
        'OPENRAIL_SECURITY_CONTACT',
        `must be a comma-separated list of mailto:, https: or tel: URIs (got "${c}")`,
      );
    }
  }
  return contacts;
}

function securityExpires(env: Env): Date | undefined {
  const raw = read(env, 'OPENRAIL_SECURITY_EXPIRES');
  if (!raw) return undefined;
  const date = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || Number.isNaN(date.getTime())) {
    throw new ConfigError('OPENRAIL_SECURITY_EXPIRES', 'must be an RFC 3339 date-time such as 2027-06-30T00:00:00Z');
  }
  return date;
}

function optionalHttpsUrl(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw && !/^https:\/\/\S+$/.test(raw)) throw new ConfigError(name, 'must be an https URL');
  return raw;
}

function outboundAllow(env: Env, production: boolean): string[] {
  const raw = read(env, 'OPENRAIL_OUTBOUND_ALLOW');
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const text = entry.trim();
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ConfigError('OPENRAIL_OUTBOUND_ALLOW', `must be a comma-separated list of origins (got "${text}")`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== text.replace(/\/$/, '')) {
      throw new ConfigError(
        'OPENRAIL_OUTBOUND_ALLOW',
        `lists origins such as http://127.0.0.1:8080, without a path (got "${text}")`,
      );
    }
    // A production deployment may name private https hosts, never plain http.
    if (production && url.protocol !== 'https:') {
      throw new ConfigError('OPENRAIL_OUTBOUND_ALLOW', `may name only https origins when NODE_ENV=production (got "${text}")`);
    }
    return url.origin;
  });
}

/**
 * OPENRAIL_OIDC_ISSUER, _CLIENT_ID and either _CLIENT_SECRET or _PRIVATE_KEY (a PKCS#8 PEM, for
 * private_key_jwt, with _PRIVATE_KEY_ID its kid), optional _SCOPES (space-separated, beside
 * `openid`). The issuer is https, or plain http only where OPENRAIL_OUTBOUND_ALLOW names its
 * origin, as for webhooks (docs/operator-sign-in.md).
 */
function oidcConfig(env: Env, outboundAllow: readonly string[]): OidcConfig | undefined {
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

/** Seven retries over about a day: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h (docs/webhooks.md). */
export const DEFAULT_RETRY_SCHEDULE = '10s,1m,5m,30m,2h,6h,12h';
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `10s,1m,5m`: the delay before each retry; the count is the number of retries (1 to 20, each up to 7 days). */
/**
 * OPENRAIL_CA_CHAIN_FILE (PEM certificates, the issuing CA's first, the trust anchor last) and
 * OPENRAIL_CA_KEY_FILE (the issuing CA's PKCS#8 private key): both or neither. Their contents are
 * checked against each other when the service starts.
 */
function certificateAuthority(env: NodeJS.ProcessEnv): Config['certificateAuthority'] {
  const chainFile = read(env, 'OPENRAIL_CA_CHAIN_FILE');
  const keyFile = read(env, 'OPENRAIL_CA_KEY_FILE');
  if (!chainFile && !keyFile) return undefined;
  if (!chainFile) throw new ConfigError('OPENRAIL_CA_CHAIN_FILE', 'is required with OPENRAIL_CA_KEY_FILE');
  if (!keyFile) throw new ConfigError('OPENRAIL_CA_KEY_FILE', 'is required with OPENRAIL_CA_CHAIN_FILE');
  return {
    chainPem: readSmallFile('OPENRAIL_CA_CHAIN_FILE', chainFile, 64),
    privateKeyPem: readSmallFile('OPENRAIL_CA_KEY_FILE', keyFile, 64),
  };
}

/** The text of a file a variable names, of at most `maxKiB`; a file that cannot be read, or is larger, stops the start. */
function readSmallFile(variable: string, file: string, maxKiB: number): string {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(variable, `names a file that cannot be read (${file})`);
  }
  if (content.length > maxKiB * 1024) throw new ConfigError(variable, `names a file over ${maxKiB} KiB (${file})`);
  return content;
}

/** OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: a PEM file of the wallet providers' trust anchors (at most 32). */
function walletAttestationAnchors(env: NodeJS.ProcessEnv): string[] {
  const file = read(env, 'OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE');
  if (!file) return [];
  const pem = readSmallFile('OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE', file, 256);
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0 || blocks.length > 32) {
    throw new ConfigError('OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE', `must hold 1 to 32 PEM certificates (${file})`);
  }
  // Their DER is read as certificates when the issuance module starts (a fault stops the start).
  return blocks.map((block) => block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, ''));
}

export function retrySchedule(raw: string, variable = 'OPENRAIL_WEBHOOK_RETRY_SCHEDULE'): number[] {
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length < 1 || parts.length > 20) throw new ConfigError(variable, 'must list 1 to 20 delays');
  return parts.map((part) => {
    const match = /^(\d{1,6})(ms|s|m|h|d)$/.exec(part);
    const ms = match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 0) : 0;
    if (!match || ms < 1 || ms > 7 * 86_400_000) {
      throw new ConfigError(variable, `must be comma-separated delays such as 10s,1m,5m,2h (got "${part}")`);
    }
    return ms;
  });
}

/** `10.0.0.5,10.1.0.0/16,::1`: each an IP address or a CIDR block. */
function trustProxy(env: Env): string[] {
  const raw = read(env, 'OPENRAIL_TRUST_PROXY');
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const text = entry.trim();
    const [address = '', bits, extra] = text.split('/');
    const family = isIP(address);
    const prefix = Number(bits);
    const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && prefix <= (family === 6 ? 128 : 32));
    if (family === 0 || extra !== undefined || !prefixOk) {
      throw new ConfigError('OPENRAIL_TRUST_PROXY', `lists IP addresses or CIDR blocks such as 10.0.0.0/8 (got "${text}")`);
    }
    return text;
  });
}

function budgetScale(env: Env): number {
  const raw = read(env, 'OPENRAIL_ANONYMOUS_BUDGET_SCALE');
  if (raw === undefined) return 1;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || n < 0.01 || n > 100_000) {
    throw new ConfigError('OPENRAIL_ANONYMOUS_BUDGET_SCALE', `must be a number from 0.01 to 100000 (got "${raw}")`);
  }
  return n;
}

function mailFrom(env: Env, url: URL): string {
  const raw = read(env, 'OPENRAIL_MAIL_FROM') ?? `openrail <no-reply@${url.hostname}>`;
  if (!/^[^\r\n<>]*<?[^\s@<>]+@[^\s@<>]+>?$/.test(raw))
    throw new ConfigError('OPENRAIL_MAIL_FROM', 'must be an address, optionally "Name <address>"');
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['production', 'development', 'test'] as const, 'development');
  const production = nodeEnv === 'production';
  const listenPort = port(env);
  const url = publicUrl(env, listenPort, production);
  const dataDir = resolve(read(env, 'OPENRAIL_DATA_DIR') ?? 'data');
  const unmounted = read(env, 'OPENRAIL_UNMOUNTED_GROUPS');
  const config: Config = {
    nodeEnv,
    port: listenPort,
    host: read(env, 'HOST') ?? '127.0.0.1',
    publicUrl: url,
    database: database(env, dataDir),
    dbPoolSize: integerIn(env, 'OPENRAIL_DB_POOL_SIZE', 1, 1000, 10),
    dataDir,
    backupDir: resolve(read(env, 'OPENRAIL_BACKUP_DIR') ?? join(dataDir, 'backups')),
    demo: oneOf(env, 'OPENRAIL_DEMO', ['on', 'off'] as const, 'on') === 'on',
    dcApiUnsigned: oneOf(env, 'OPENRAIL_DC_API_UNSIGNED', ['on', 'off'] as const, 'on') === 'on',
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    unmountedGroups: unmounted ? unmounted.split(',').map((g) => g.trim()) : [],
    security: { contacts: securityContacts(env, url) },
    platformName: read(env, 'OPENRAIL_PLATFORM_NAME') ?? 'openrail',
    outboundAllow: outboundAllow(env, production),
    webhookRetrySchedule: retrySchedule(read(env, 'OPENRAIL_WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE),
    mailFrom: mailFrom(env, url),
    trustProxy: trustProxy(env),
    anonymousBudgetScale: budgetScale(env),
    walletAttestationAnchors: walletAttestationAnchors(env),
  };
  const ownerToken = secret(env, 'OPENRAIL_OWNER_TOKEN', 32);
  if (ownerToken) config.ownerToken = ownerToken;
  const metricsToken = secret(env, 'OPENRAIL_METRICS_TOKEN', 32);
  if (metricsToken) config.metricsToken = metricsToken;
  const key = masterKey(env, production);
  if (key) config.masterKey = key;
  const oidc = oidcConfig(env, config.outboundAllow);
  if (oidc) config.oidc = oidc;
  const authority = certificateAuthority(env);
  if (authority) config.certificateAuthority = authority;
  const smtp = read(env, 'OPENRAIL_SMTP_URL');
  if (smtp) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(smtp);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')) {
      throw new ConfigError('OPENRAIL_SMTP_URL', 'must be an smtp:// or smtps:// URL');
    }
    config.smtpUrl = smtp;
  }
  const pepper = secret(env, 'OPENRAIL_DIRECTORY_PEPPER', 32);
  if (pepper) config.directoryPepper = pepper;
  const expires = securityExpires(env);
  if (expires) config.security.expires = expires;
  const policy = optionalHttpsUrl(env, 'OPENRAIL_SECURITY_POLICY');
  if (policy) config.security.policy = policy;
  return config;
}
