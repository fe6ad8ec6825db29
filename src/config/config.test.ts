import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';
import { MASTER_KEY_FILE, resolveMasterKey } from './master-key.ts';

type Env = Record<string, string>;

const KEY_A = Buffer.alloc(32, 0xa5);
const KEY_A_TEXT = KEY_A.toString('base64url');

/** Asserts that loadConfig(env) refuses with a ConfigError that names `variable` first. */
function refuses(env: Env, variable: string, secret?: string): void {
  let thrown: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof ConfigError, `expected a ConfigError for ${JSON.stringify(env)}, got ${String(thrown)}`);
  assert.equal(thrown.variable, variable, JSON.stringify(env));
  assert.ok(thrown.message.startsWith(`${variable} `), `"${thrown.message}" should start with ${variable}`);
  // The message is printed to stderr by `openrail serve`: a refused secret must not be echoed.
  if (secret) assert.ok(!thrown.message.includes(secret), `"${thrown.message}" echoes the secret`);
}

describe('loadConfig: defaults', () => {
  test('an empty environment gives the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl.href, 'http://localhost:3000/');
    assert.equal(config.publicUrl.origin, 'http://localhost:3000');
    assert.equal(config.dataDir, resolve('data'));
    assert.deepEqual(config.database, { kind: 'sqlite', file: resolve('data', 'openrail.sqlite') });
    assert.equal(config.demo, true);
    assert.equal(config.nodeEnv, 'development');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.ownerToken, undefined);
    assert.equal(config.masterKey, undefined);
    assert.deepEqual(config.unmountedGroups, []);
  });

  test('PUBLIC_URL defaults to http://localhost:<PORT>', () => {
    const config = loadConfig({ PORT: '8123' });
    assert.equal(config.port, 8123);
    assert.equal(config.publicUrl.origin, 'http://localhost:8123');
  });

  test('the default SQLite file lives under OPENRAIL_DATA_DIR', () => {
    const config = loadConfig({ OPENRAIL_DATA_DIR: '/tmp/openrail-somewhere' });
    assert.equal(config.dataDir, '/tmp/openrail-somewhere');
    assert.deepEqual(config.database, { kind: 'sqlite', file: '/tmp/openrail-somewhere/openrail.sqlite' });
    const relative = loadConfig({ OPENRAIL_DATA_DIR: 'var/rail' });
    assert.equal(relative.dataDir, resolve('var/rail'));
    assert.deepEqual(relative.database, { kind: 'sqlite', file: resolve('var/rail', 'openrail.sqlite') });
  });

  test('blank values count as unset', () => {
    const config = loadConfig({ PORT: '  ', HOST: '', PUBLIC_URL: ' ', OPENRAIL_DEMO: '', DATABASE_URL: '' });
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl.origin, 'http://localhost:3000');
    assert.equal(config.demo, true);
    assert.equal(config.database.kind, 'sqlite');
  });
});

describe('loadConfig: refusals name the variable', () => {
  test('PORT', () => {
    for (const value of ['abc', '70000', '65536', '-1', '3000.5', '0x10', '1e3']) refuses({ PORT: value }, 'PORT');
  });

  test('OPENRAIL_DB_POOL_SIZE: a whole number 1-1000, 10 when unset', () => {
    for (const value of ['0', '-2', '1001', '2.5', 'ten', '1e2'])
      refuses({ OPENRAIL_DB_POOL_SIZE: value }, 'OPENRAIL_DB_POOL_SIZE');
    assert.equal(loadConfig({}).dbPoolSize, 10);
    assert.equal(loadConfig({ OPENRAIL_DB_POOL_SIZE: '24' }).dbPoolSize, 24);
  });

  test('OPENRAIL_NODE_ID: a node name, the host name when unset', () => {
    for (const value of ['-lead', 'a b', 'node/1', 'x'.repeat(64), 'nöde', 'a:b'])
      refuses({ OPENRAIL_NODE_ID: value }, 'OPENRAIL_NODE_ID');
    assert.equal(loadConfig({ OPENRAIL_NODE_ID: 'eu-west.node_2' }).nodeId, 'eu-west.node_2');
    assert.equal(loadConfig({}).nodeId, hostname());
  });

  test('PUBLIC_URL', () => {
    for (const value of [
      'not a url',
      'ftp://x',
      'https://x.org/path',
      'https://x.org/?a=b',
      'https://x.org/#f',
      'https://u:p@x.org',
    ]) {
      refuses({ PUBLIC_URL: value }, 'PUBLIC_URL');
    }
  });

  test('DATABASE_URL', () => {
    for (const value of ['mysql://x', 'sqlite:', 'file.sqlite', 'postgres://[broken'])
      refuses({ DATABASE_URL: value }, 'DATABASE_URL');
  });

  test('OPENRAIL_MASTER_KEY that is not 32 bytes of base64url', () => {
    const cases = [
      Buffer.alloc(16, 1).toString('base64url'),
      Buffer.alloc(33, 1).toString('base64url'),
      Buffer.alloc(32, 0xfb).toString('base64'), // standard base64 with + / and = padding
      `${KEY_A_TEXT.slice(0, 42)}!`,
      'not-a-key',
    ];
    for (const value of cases) refuses({ OPENRAIL_MASTER_KEY: value }, 'OPENRAIL_MASTER_KEY', value);
  });

  test('OPENRAIL_OWNER_TOKEN shorter than 32 characters', () => {
    const short = 'a'.repeat(31);
    refuses({ OPENRAIL_OWNER_TOKEN: short }, 'OPENRAIL_OWNER_TOKEN', short);
    assert.equal(loadConfig({ OPENRAIL_OWNER_TOKEN: 'a'.repeat(32) }).ownerToken, 'a'.repeat(32));
  });

  test('OPENRAIL_DEMO', () => {
    refuses({ OPENRAIL_DEMO: 'maybe' }, 'OPENRAIL_DEMO');
    refuses({ OPENRAIL_DEMO: 'true' }, 'OPENRAIL_DEMO');
    assert.equal(loadConfig({ OPENRAIL_DEMO: 'off' }).demo, false);
    assert.equal(loadConfig({ OPENRAIL_DEMO: 'on' }).demo, true);
  });

  test('NODE_ENV=production requires OPENRAIL_MASTER_KEY', () => {
    refuses({ NODE_ENV: 'production', PUBLIC_URL: 'https://rail.example.org' }, 'OPENRAIL_MASTER_KEY');
  });

  test('NODE_ENV=production requires an https PUBLIC_URL', () => {
    refuses({ NODE_ENV: 'production', PUBLIC_URL: 'http://rail.example.org', OPENRAIL_MASTER_KEY: KEY_A_TEXT }, 'PUBLIC_URL');
    // The default PUBLIC_URL is http, so production without PUBLIC_URL is refused too.
    refuses({ NODE_ENV: 'production', OPENRAIL_MASTER_KEY: KEY_A_TEXT }, 'PUBLIC_URL');
    const ok = loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://rail.example.org', OPENRAIL_MASTER_KEY: KEY_A_TEXT });
    assert.equal(ok.nodeEnv, 'production');
    assert.equal(ok.publicUrl.origin, 'https://rail.example.org');
  });

  test('NODE_ENV outside the allowed set', () => {
    refuses({ NODE_ENV: 'staging' }, 'NODE_ENV');
  });

  test('OPENRAIL_SECURITY_CONTACT', () => {
    refuses({ OPENRAIL_SECURITY_CONTACT: 'bob' }, 'OPENRAIL_SECURITY_CONTACT');
    refuses({ OPENRAIL_SECURITY_CONTACT: 'mailto:a@b.org, bob' }, 'OPENRAIL_SECURITY_CONTACT');
  });

  test('OPENRAIL_SECURITY_EXPIRES', () => {
    refuses({ OPENRAIL_SECURITY_EXPIRES: 'tomorrow' }, 'OPENRAIL_SECURITY_EXPIRES');
    refuses({ OPENRAIL_SECURITY_EXPIRES: '2027-06-30' }, 'OPENRAIL_SECURITY_EXPIRES');
  });

  test('OPENRAIL_OUTBOUND_ALLOW: origins only, and only https ones in production', () => {
    assert.deepEqual(loadConfig({}).outboundAllow, []);
    assert.deepEqual(loadConfig({ OPENRAIL_OUTBOUND_ALLOW: 'http://127.0.0.1:8080, https://hooks.internal' }).outboundAllow, [
      'http://127.0.0.1:8080',
      'https://hooks.internal',
    ]);
    refuses({ OPENRAIL_OUTBOUND_ALLOW: 'http://127.0.0.1:8080/hooks' }, 'OPENRAIL_OUTBOUND_ALLOW');
    refuses({ OPENRAIL_OUTBOUND_ALLOW: 'ftp://files.example' }, 'OPENRAIL_OUTBOUND_ALLOW');
    refuses({ OPENRAIL_OUTBOUND_ALLOW: 'not an origin' }, 'OPENRAIL_OUTBOUND_ALLOW');
    const production = { NODE_ENV: 'production', PUBLIC_URL: 'https://rail.example.org', OPENRAIL_MASTER_KEY: KEY_A_TEXT };
    refuses({ ...production, OPENRAIL_OUTBOUND_ALLOW: 'http://127.0.0.1:8080' }, 'OPENRAIL_OUTBOUND_ALLOW');
    assert.deepEqual(loadConfig({ ...production, OPENRAIL_OUTBOUND_ALLOW: 'https://10.0.0.5:8443' }).outboundAllow, [
      'https://10.0.0.5:8443',
    ]);
  });

  test('OPENRAIL_WEBHOOK_RETRY_SCHEDULE: delays with units; their count is the number of retries', () => {
    assert.deepEqual(
      loadConfig({}).webhookRetrySchedule,
      [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000],
    );
    assert.deepEqual(
      loadConfig({ OPENRAIL_WEBHOOK_RETRY_SCHEDULE: '250ms, 2s,1m,1h,1d' }).webhookRetrySchedule,
      [250, 2000, 60_000, 3_600_000, 86_400_000],
    );
    for (const bad of ['10', '10 s', '-1s', '0s', '8d', '1s,,1s', Array.from({ length: 21 }, () => '1s').join(',')]) {
      refuses({ OPENRAIL_WEBHOOK_RETRY_SCHEDULE: bad }, 'OPENRAIL_WEBHOOK_RETRY_SCHEDULE');
    }
  });

  test('OPENRAIL_SMTP_URL and OPENRAIL_MAIL_FROM', () => {
    assert.equal(loadConfig({}).smtpUrl, undefined);
    assert.equal(
      loadConfig({ OPENRAIL_SMTP_URL: 'smtps://user:pw@mail.example.org' }).smtpUrl,
      'smtps://user:pw@mail.example.org',
    );
    refuses({ OPENRAIL_SMTP_URL: 'https://mail.example.org' }, 'OPENRAIL_SMTP_URL');
    assert.equal(loadConfig({ PUBLIC_URL: 'https://rail.example.org' }).mailFrom, 'openrail <no-reply@rail.example.org>');
    assert.equal(loadConfig({ OPENRAIL_MAIL_FROM: 'Rail <rail@example.org>' }).mailFrom, 'Rail <rail@example.org>');
    refuses({ OPENRAIL_MAIL_FROM: 'Rail <rail@example.org>\r\nBcc: x@example.org' }, 'OPENRAIL_MAIL_FROM');
  });

  test('LOG_LEVEL', () => {
    refuses({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
  });

  test('OPENRAIL_DIRECTORY_PEPPER shorter than 32 characters', () => {
    refuses({ OPENRAIL_DIRECTORY_PEPPER: 'pepper' }, 'OPENRAIL_DIRECTORY_PEPPER', 'pepper');
  });
});

describe('loadConfig: good values', () => {
  test('postgres:// and postgresql:// select PostgreSQL with the URL unchanged', () => {
    for (const url of ['postgres://u:p@db.example:5432/rail', 'postgresql://u:p@db.example/rail?sslmode=require']) {
      assert.deepEqual(loadConfig({ DATABASE_URL: url }).database, { kind: 'postgres', url });
    }
  });

  test('sqlite:<file> selects that file', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.sqlite' }).database, { kind: 'sqlite', file: '/tmp/x.sqlite' });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:rel/y.sqlite' }).database, {
      kind: 'sqlite',
      file: resolve('rel/y.sqlite'),
    });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).database, { kind: 'sqlite', file: ':memory:' });
  });

  test('every variable read together', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      PUBLIC_URL: 'https://rail.example.org/',
      OPENRAIL_MASTER_KEY: KEY_A_TEXT,
      OPENRAIL_OWNER_TOKEN: 'o'.repeat(40),
      OPENRAIL_DIRECTORY_PEPPER: 'p'.repeat(32),
      OPENRAIL_DEMO: 'off',
      LOG_LEVEL: 'warn',
      OPENRAIL_SECURITY_CONTACT: 'mailto:sec@example.org, https://example.org/report',
      OPENRAIL_SECURITY_EXPIRES: '2027-06-30T00:00:00Z',
    });
    assert.equal(config.port, 0);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.publicUrl.origin, 'https://rail.example.org');
    assert.ok(config.masterKey?.equals(KEY_A));
    assert.equal(config.ownerToken, 'o'.repeat(40));
    assert.equal(config.directoryPepper, 'p'.repeat(32));
    assert.equal(config.demo, false);
    assert.equal(config.logLevel, 'warn');
    assert.deepEqual(config.security.contacts, ['mailto:sec@example.org', 'https://example.org/report']);
    assert.equal(config.security.expires?.toISOString(), '2027-06-30T00:00:00.000Z');
  });
});

describe('resolveMasterKey', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'openrail-config-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('unset outside production: generates a 0600 key file once, warns once, reuses it', () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    const config = loadConfig({ OPENRAIL_DATA_DIR: dataDir });
    const warnings: string[] = [];
    const first = resolveMasterKey(config, (m) => warnings.push(m));
    assert.equal(first.length, 32);
    const file = join(dataDir, MASTER_KEY_FILE);
    assert.ok(existsSync(file));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url').equals(first));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /OPENRAIL_MASTER_KEY/);
    assert.ok(!(warnings[0] ?? '').includes(first.toString('base64url')), 'the warning must not print the key');

    const second = resolveMasterKey(loadConfig({ OPENRAIL_DATA_DIR: dataDir }), (m) => warnings.push(m));
    assert.ok(second.equals(first), 'the second call reuses the same key');
    assert.equal(warnings.length, 1, 'no second warning');
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  test('two data folders get two different keys', () => {
    const a = resolveMasterKey(loadConfig({ OPENRAIL_DATA_DIR: tempDir() }), () => {});
    const b = resolveMasterKey(loadConfig({ OPENRAIL_DATA_DIR: tempDir() }), () => {});
    assert.ok(!a.equals(b));
  });

  test('OPENRAIL_MASTER_KEY given: used as is, no file written, no warning', () => {
    const dataDir = tempDir();
    const warnings: string[] = [];
    const key = resolveMasterKey(loadConfig({ OPENRAIL_DATA_DIR: dataDir, OPENRAIL_MASTER_KEY: KEY_A_TEXT }), (m) =>
      warnings.push(m),
    );
    assert.ok(key.equals(KEY_A));
    assert.equal(existsSync(join(dataDir, MASTER_KEY_FILE)), false);
    assert.deepEqual(warnings, []);
  });

  test('a key file that does not hold 32 bytes is refused', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, MASTER_KEY_FILE), `${Buffer.alloc(16, 3).toString('base64url')}\n`, { mode: 0o600 });
    assert.throws(() => resolveMasterKey(loadConfig({ OPENRAIL_DATA_DIR: dataDir }), () => {}), /32-byte/);
  });
});

describe('loadConfig: the enterprise identity provider (docs/operator-sign-in.md)', () => {
  const base = { OPENRAIL_OIDC_CLIENT_ID: 'openrail', OPENRAIL_OIDC_CLIENT_SECRET: 'a-client-secret' };

  test('an https issuer with a client id and secret; scopes beside openid', () => {
    const config = loadConfig({
      ...base,
      OPENRAIL_OIDC_ISSUER: 'https://login.example.org',
      OPENRAIL_OIDC_SCOPES: 'openid email  profile',
    });
    assert.equal(config.oidc?.issuer.href, 'https://login.example.org/');
    assert.equal(config.oidc?.clientId, 'openrail');
    assert.equal(config.oidc?.clientSecret, 'a-client-secret');
    assert.deepEqual(config.oidc?.scopes, ['email', 'profile']);
    assert.equal(loadConfig({}).oidc, undefined, 'unset: no provider, the password form');
  });

  test('plain http only for an origin OPENRAIL_OUTBOUND_ALLOW names', () => {
    refuses({ ...base, OPENRAIL_OIDC_ISSUER: 'http://127.0.0.1:9000' }, 'OPENRAIL_OIDC_ISSUER');
    const allowed = loadConfig({
      ...base,
      OPENRAIL_OIDC_ISSUER: 'http://127.0.0.1:9000',
      OPENRAIL_OUTBOUND_ALLOW: 'http://127.0.0.1:9000',
    });
    assert.equal(allowed.oidc?.issuer.origin, 'http://127.0.0.1:9000');
  });

  test('what is missing or contradictory stops the start, naming the variable', () => {
    refuses({ OPENRAIL_OIDC_ISSUER: 'https://login.example.org', OPENRAIL_OIDC_CLIENT_SECRET: 's' }, 'OPENRAIL_OIDC_CLIENT_ID');
    refuses({ OPENRAIL_OIDC_ISSUER: 'https://login.example.org', OPENRAIL_OIDC_CLIENT_ID: 'c' }, 'OPENRAIL_OIDC_CLIENT_SECRET');
    refuses(
      { ...base, OPENRAIL_OIDC_ISSUER: 'https://login.example.org', OPENRAIL_OIDC_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----' },
      'OPENRAIL_OIDC_CLIENT_SECRET',
    );
    refuses({ OPENRAIL_OIDC_CLIENT_ID: 'c' }, 'OPENRAIL_OIDC_CLIENT_ID');
    refuses({ ...base, OPENRAIL_OIDC_ISSUER: 'https://login.example.org?x=1' }, 'OPENRAIL_OIDC_ISSUER');
    refuses({ ...base, OPENRAIL_OIDC_ISSUER: 'not a url' }, 'OPENRAIL_OIDC_ISSUER');
    refuses(
      { OPENRAIL_OIDC_ISSUER: 'https://login.example.org', OPENRAIL_OIDC_CLIENT_ID: 'c', OPENRAIL_OIDC_PRIVATE_KEY: 'x' },
      'OPENRAIL_OIDC_PRIVATE_KEY_ID',
    );
  });
});

describe('loadConfig: the operator’s certificate authority (docs/haip.md)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openrail-ca-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const chainFile = join(dir, 'chain.pem');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(chainFile, '-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n');
  writeFileSync(keyFile, '-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n');

  test('both files are read at load (their contents are checked at start); neither: the platform root', () => {
    const config = loadConfig({ OPENRAIL_CA_CHAIN_FILE: chainFile, OPENRAIL_CA_KEY_FILE: keyFile });
    assert.match(config.certificateAuthority?.chainPem ?? '', /BEGIN CERTIFICATE/);
    assert.match(config.certificateAuthority?.privateKeyPem ?? '', /BEGIN PRIVATE KEY/);
    assert.equal(loadConfig({}).certificateAuthority, undefined);
  });

  test('one without the other, or a file that cannot be read or is too large, stops the start', () => {
    refuses({ OPENRAIL_CA_CHAIN_FILE: chainFile }, 'OPENRAIL_CA_KEY_FILE');
    refuses({ OPENRAIL_CA_KEY_FILE: keyFile }, 'OPENRAIL_CA_CHAIN_FILE');
    refuses({ OPENRAIL_CA_CHAIN_FILE: join(dir, 'absent.pem'), OPENRAIL_CA_KEY_FILE: keyFile }, 'OPENRAIL_CA_CHAIN_FILE');
    const large = join(dir, 'large.pem');
    writeFileSync(large, 'x'.repeat(65 * 1024));
    refuses({ OPENRAIL_CA_CHAIN_FILE: chainFile, OPENRAIL_CA_KEY_FILE: large }, 'OPENRAIL_CA_KEY_FILE');
  });
});

describe('loadConfig: the wallet attestation anchors (docs/haip.md)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openrail-anchors-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const pem = (n: number) => '-----BEGIN CERTIFICATE-----\nAA ==\n-----END CERTIFICATE-----\n'.repeat(n);

  test('unset: no anchors; set: each PEM block as base64 (read as a certificate when issuance starts)', () => {
    assert.deepEqual(loadConfig({}).walletAttestationAnchors, []);
    const file = join(dir, 'two.pem');
    writeFileSync(file, pem(2));
    assert.deepEqual(loadConfig({ OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: file }).walletAttestationAnchors, ['AA==', 'AA==']);
  });

  test('no certificate, more than 32, an unreadable or too large file: refused, naming the variable', () => {
    const cases = { none: 'nothing here', many: pem(33), large: 'x'.repeat(257 * 1024) };
    for (const [name, content] of Object.entries(cases)) {
      const file = join(dir, `${name}.pem`);
      writeFileSync(file, content);
      refuses({ OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: file }, 'OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE');
    }
    refuses({ OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: join(dir, 'absent.pem') }, 'OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE');
  });
});
