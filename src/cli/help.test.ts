import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../test/helpers/process.ts';
import { VERB_USAGE } from './usage.ts';

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'openrail.js'), ...args], { encoding: 'utf8', timeout: 30_000 });

test('each verb answers --help and -h with its usage on stdout and exit 0, worded one way', () => {
  for (const verb of Object.keys(VERB_USAGE) as Array<keyof typeof VERB_USAGE>) {
    for (const flag of ['--help', '-h']) {
      const run = cli(verb, flag);
      assert.equal(run.status, 0, `${verb} ${flag}: ${run.stderr}`);
      assert.equal(run.stdout, `${VERB_USAGE[verb]}\n`);
      assert.match(run.stdout, new RegExp(`^usage: openrail ${verb}\\b`));
      assert.equal(run.stderr, '');
    }
  }
});

test('the wallet usage names the formats collect takes', () => {
  assert.match(VERB_USAGE.wallet, /collect <offer URI> \[--tx-code <code>\] \[--format dc\+sd-jwt\|mso_mdoc\]/);
  const run = cli('wallet', 'collect', 'openid-credential-offer://?credential_offer_uri=x', '--format', 'jwt_vc_json');
  assert.match(run.stderr, /^openrail wallet: --format is dc\+sd-jwt or mso_mdoc$/m);
});

test('a mistaken option or command exits 2 with the usage on stderr', () => {
  for (const [args, verb] of [
    [['verify', '--bogus'], 'verify'],
    [['serve', 'now'], 'serve'],
    [['conformance', '--level', '3', '--verifier', 'x'], 'conformance'],
    [['wallet', 'frobnicate'], 'wallet'],
    [['wallet', 'list', '--bogus'], 'wallet'],
    [['wallet', 'collect', 'openid-credential-offer://?credential_offer_uri=x', '--format', 'jwt_vc_json'], 'wallet'],
  ] as const) {
    const run = cli(...args);
    assert.equal(run.status, 2, args.join(' '));
    assert.ok(run.stderr.includes(VERB_USAGE[verb]), run.stderr);
  }
  const unknown = cli('frobnicate');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
});

test('--version, -v, -V and version print the version on stdout and exit 0', () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v', '-V', 'version']) {
    const run = cli(flag);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^openrail ${version.replace(/\./g, '\\.')}( \\([0-9a-f]{12}\\))?\\n$`));
    assert.equal(run.stderr, '');
  }
});

test('a reader that closes the pipe early ends the command quietly, without a stack trace', async () => {
  // The reference verifier answers each stdin line on stdout: once its reader is gone, the next
  // answer meets a closed pipe (EPIPE).
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'openrail.js'), 'verify'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.destroy();
  const line = `${JSON.stringify({ id: 'x', input: { presentation: 'not-a-presentation' } })}\n`;
  for (let i = 0; i < 50; i++) child.stdin.write(line);
  child.stdin.end();
  const [code] = (await once(child, 'close')) as [number | null];
  assert.equal(stderr, '', 'nothing on stderr');
  assert.equal(code, 0);
});
