import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { JWK } from 'jose';
import { REPO_ROOT } from '../../test/helpers/process.ts';
import { es256Sign } from '../core/mdoc/cose.ts';
import { signMdoc } from '../core/mdoc/issuer-signed.ts';
import { addCredential, loadWallet } from '../wallet/wallet-file.ts';

/**
 * The wallet commands that speak no OID4VC protocol start without the protocol libraries
 * (wallet.ts): loading them costs about 0.4 s. Rather than time anything, each command
 * runs with a module hook that refuses those libraries, so one loaded too early fails the command.
 */
const OID4VC = '^@openid4vc/|^dcql$';
const SD_JWT = '^@sd-jwt/';

/** `openrail <args>` as a person runs it, with the packages matching `refused` made unloadable. */
function cliRefusing(refused: string, ...args: string[]) {
  const hooks = `export async function resolve(specifier, context, next) {
    if (new RegExp(${JSON.stringify(refused)}).test(specifier)) throw new Error('refused by the test: ' + specifier);
    return next(specifier, context);
  }`;
  const registration = `import { register } from 'node:module';
    register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(registration)}`, join(REPO_ROOT, 'bin', 'openrail.js'), ...args],
    { encoding: 'utf8', timeout: 30_000 },
  );
}

const home = mkdtempSync(join(tmpdir(), 'openrail-wallet-startup-'));
after(() => rmSync(home, { recursive: true, force: true }));

test('init, list and --help load neither the OID4VC nor the SD-JWT libraries', () => {
  const wallet = join(home, 'empty.json');
  for (const args of [
    ['--version'],
    ['wallet', '--help'],
    ['wallet', 'init', '--wallet', wallet],
    ['wallet', 'list', '--wallet', wallet],
    ['wallet', 'list', '--json', '--wallet', wallet],
  ]) {
    const run = cliRefusing(`${OID4VC}|${SD_JWT}`, ...args);
    assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.equal(run.stderr, '', args.join(' '));
  }
});

test('list reads a held credential with the SD-JWT library alone, not the OID4VC clients', () => {
  const path = join(home, 'holding.json');
  assert.equal(cliRefusing(OID4VC, 'wallet', 'init', '--wallet', path).status, 0);
  // `list` decodes and checks no signature: an unsigned SD-JWT without disclosures does.
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const issuer = 'did:web:issuer.example';
  const vct = 'https://issuer.example/credentials/membership';
  const credential = `${b64({ alg: 'ES256', typ: 'dc+sd-jwt' })}.${b64({ iss: issuer, vct, given_name: 'Ada' })}.c2ln~`;
  addCredential(loadWallet(path), { format: 'dc+sd-jwt', issuer, vct, collectedAt: new Date(0).toISOString(), credential });
  const run = cliRefusing(OID4VC, 'wallet', 'list', '--wallet', path);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^ {2}given_name: Ada$/m);
});

test('list reads a held mdoc with the mdoc library alone, neither the OID4VC clients nor the SD-JWT library', async () => {
  const path = join(home, 'mdoc.json');
  assert.equal(cliRefusing(OID4VC, 'wallet', 'init', '--wallet', path).status, 0);
  const wallet = loadWallet(path);
  // `list` reads the elements and checks no signature: an mdoc signed by any key, with any chain, does.
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const doctype = 'org.example.issuer.pass';
  const credential = await signMdoc({
    doctype,
    nameSpaces: [[doctype, [['given_name', 'Ada']]]],
    deviceKey: wallet.publicJwk,
    validity: { signed: new Date(0), validFrom: new Date(0), validUntil: new Date(0) },
    status: { idx: 0, uri: 'https://issuer.example/status/1' },
    x5chain: [new Uint8Array(8)],
    random: (n) => randomBytes(n),
    sign: async (data) => es256Sign(privateKey.export({ format: 'jwk' }) as JWK, data),
  });
  const entry = { issuer: 'did:web:issuer.example', doctype, deviceKey: wallet.publicJwk, credential };
  addCredential(wallet, { format: 'mso_mdoc', ...entry, collectedAt: new Date(0).toISOString() });
  const run = cliRefusing(`${OID4VC}|${SD_JWT}`, 'wallet', 'list', '--wallet', path);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^c1 {2}org\.example\.issuer\.pass \(mso_mdoc\)$/m);
  assert.match(run.stdout, /^ {2}org\.example\.issuer\.pass:\n {4}given_name: Ada$/m);
});

test('the refusal is real: collect needs the OID4VCI client and fails without it', () => {
  const path = join(home, 'collecting.json');
  assert.equal(cliRefusing(OID4VC, 'wallet', 'init', '--wallet', path).status, 0);
  const offer = `openid-credential-offer://?credential_offer_uri=${encodeURIComponent('https://issuer.example/offer/1')}`;
  const run = cliRefusing(OID4VC, 'wallet', 'collect', offer, '--wallet', path);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /refused by the test: @openid4vc\//);
});
