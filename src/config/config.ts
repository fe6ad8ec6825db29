import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { tracingWanted } from '../core/tracing.ts';
import { certificateAuthority, walletAttestationAnchors } from './config-files.ts';
import { ConfigError, type Env, integerIn, oneOf, optionalHttpsUrl, read, secret } from './env.ts';
import { type KeysConfig, keysConfig } from './keys-config.ts';
import { type OidcConfig, oidcConfig } from './oidc-config.ts';
import { DEFAULT_RETRY_SCHEDULE, retrySchedule } from './retry-schedule.ts';

export { ConfigError } from './env.ts';
export type { KeysConfig } from './keys-config.ts';
export type { OidcConfig } from './oidc-config.ts';
export { DEFAULT_RETRY_SCHEDULE, retrySchedule } from './retry-schedule.ts';

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
  /** Where private keys are kept: sealed under the master key, or in a PKCS#11 token (docs/keys.md). */
  keys: KeysConfig;
  directoryPepper?: string;
  demo: boolean;
  /** Whether Digital Credentials API requests also offer the unsigned form (docs/dc-api.md); default on. */
  dcApiUnsigned: boolean;
  logLevel: string;
  unmountedGroups: string[];
  security: { contacts: string[]; expires?: Date; policy?: string };
  platformName: string;
  /** OPENRAIL_NODE_ID (default: the host name): names this node in leases, logs, metrics and ops/cloud. */
  nodeId: string;
  /** Whether the OTEL_* variables ask for traces (core/tracing.ts): an OTLP endpoint, not disabled. */
  tracing: boolean;
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

function port(env: Env): number {
  const raw = read(env, 'PORT') ?? '3000';
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535) throw new ConfigError('PORT', `must be an integer 0-65535 (got "${raw}")`);
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
    nodeId: nodeId(env),
    tracing: tracingWanted(env),
    outboundAllow: outboundAllow(env, production),
    webhookRetrySchedule: retrySchedule(read(env, 'OPENRAIL_WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE),
    mailFrom: mailFrom(env, url),
    trustProxy: trustProxy(env),
    anonymousBudgetScale: budgetScale(env),
    walletAttestationAnchors: walletAttestationAnchors(env),
    keys: keysConfig(env),
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
  if (authority && config.keys.backend === 'pkcs11') {
    throw new ConfigError(
      'OPENRAIL_CA_KEY_FILE',
      'holds a private key outside the token: with OPENRAIL_KEYS=pkcs11 the platform root is made in the token (docs/keys.md)',
    );
  }
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

/** A node's name: letters, digits, dot, dash and underscore, at most 63 (a host name's label fits). */
function nodeId(env: Env): string {
  const given = read(env, 'OPENRAIL_NODE_ID');
  const id = given ?? hostname();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(id)) {
    throw new ConfigError(
      'OPENRAIL_NODE_ID',
      given === undefined
        ? `the host name "${id.slice(0, 80)}" is no node name: set OPENRAIL_NODE_ID (letters, digits, . _ -, at most 63)`
        : 'must be 1 to 63 letters, digits, dots, dashes or underscores, starting with a letter or digit',
    );
  }
  return id;
}
