// `npm run bench -- cli [--runs <n>]`: how long the command line takes of its own, before any
// network: `openrail --version`, `openrail wallet --help`, and `openrail wallet list` on a wallet
// with no credential and on one holding a credential, each as a person runs it (a new Node
// process through bin/openrail.js).
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { signEs256 } from '../src/core/jose/es256.ts';
import { compactSdJwt, discloseClaims, SD_ALG } from '../src/core/sd-jwt/disclose.ts';
import { addCredential, loadWallet } from '../src/wallet/wallet-file.ts';
import { otherLoad } from './lib/machine.ts';
import { startRun, writeResults } from './lib/results.ts';
import { REPO_ROOT } from './lib/server.ts';
import { fixed, percentile, table } from './lib/stats.ts';

interface Wallets {
  empty: string;
  holding: string;
}

const COMMANDS: ReadonlyArray<{ name: string; args: (wallets: Wallets) => string[] }> = [
  { name: 'openrail --version', args: () => ['--version'] },
  { name: 'openrail wallet --help', args: () => ['wallet', '--help'] },
  { name: 'openrail wallet list', args: ({ empty }) => ['wallet', 'list', '--wallet', empty] },
  // A held credential's claims are read with the SD-JWT library, which `list` loads only then.
  { name: 'openrail wallet list, 1 credential', args: ({ holding }) => ['wallet', 'list', '--wallet', holding] },
];

/**
 * Puts into the wallet at `path` a credential shaped like the ones openrail issues (disclosable
 * claims, one of them an array with disclosable elements), signed by a throwaway key: `list`
 * decodes credentials and checks no signature, so no issuer is needed.
 */
function holdOneCredential(path: string): void {
  const wallet = loadWallet(path);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const issuer = 'did:web:issuer.example';
  const vct = 'https://issuer.example/credentials/membership';
  const { sd, disclosures } = discloseClaims(
    [
      { name: 'given_name', value: 'Ada', elementsDisclosable: false },
      { name: 'member_since', value: '2026-01-01', elementsDisclosable: false },
      { name: 'roles', value: ['reader', 'voter'], elementsDisclosable: true },
    ],
    randomBytes,
    2,
  );
  const payload = {
    iss: issuer,
    vct,
    iat: Math.floor(Date.now() / 1000),
    cnf: { jwk: wallet.publicJwk },
    _sd: sd,
    _sd_alg: SD_ALG,
  };
  const jwt = signEs256(privateKey, { typ: 'dc+sd-jwt', kid: `${issuer}#key-1` }, payload);
  addCredential(wallet, {
    format: 'dc+sd-jwt',
    issuer,
    vct,
    collectedAt: new Date().toISOString(),
    credential: compactSdJwt(jwt, disclosures),
  });
}

export async function cliBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string', default: '10' } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 200) throw new Error('--runs must be a whole number from 1 to 200');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const run = startRun('cli', log);
  const before = await otherLoad();
  const bin = join(REPO_ROOT, 'bin', 'openrail.js');
  const home = mkdtempSync(join(tmpdir(), 'openrail-bench-cli-'));
  const wallets: Wallets = { empty: join(home, 'wallet.json'), holding: join(home, 'holding.json') };
  try {
    for (const wallet of [wallets.empty, wallets.holding]) {
      execFileSync(process.execPath, [bin, 'wallet', 'init', '--wallet', wallet], { stdio: 'ignore' });
    }
    holdOneCredential(wallets.holding);
    const rows = COMMANDS.map(({ name, args }) => {
      const times: number[] = [];
      // One run first, unmeasured: Node's compile cache and the file system's are warm for every measured one.
      execFileSync(process.execPath, [bin, ...args(wallets)], { stdio: 'ignore' });
      for (let i = 0; i < runs; i++) {
        const started = process.hrtime.bigint();
        execFileSync(process.execPath, [bin, ...args(wallets)], { stdio: 'ignore' });
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      const sorted = Float64Array.from(times).sort();
      return { command: name, runs, p50Ms: percentile(sorted, 50), maxMs: sorted[sorted.length - 1] ?? 0 };
    });
    const bare = (() => {
      const started = process.hrtime.bigint();
      execFileSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
      return Number(process.hrtime.bigint() - started) / 1e6;
    })();
    log(
      table(
        ['command', 'runs', 'p50 ms', 'max ms'],
        rows.map((r) => [r.command, r.runs, fixed(r.p50Ms, 0), fixed(r.maxMs, 0)]),
      ),
    );
    log(`(a bare node process takes ${fixed(bare, 0)} ms here)`);
    log(`results: ${writeResults(run, before, { bareNodeMs: bare, rows })}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
