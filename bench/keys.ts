// `npm run bench -- keys [--signatures <n>]`: what a signature costs where the keys live
// (docs/keys.md): the sealed backend (in process, node:crypto) and the pkcs11 backend on a SoftHSM
// token made for the run, each signing a credential-sized JWS `--signatures` times, one at a time
// and eight at once. Each signature is checked against the key's public half.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { AesKeyVault } from '../src/adapters/crypto/key-vault.ts';
import { KeyBackends, type KeysConfig } from '../src/adapters/crypto/keys/key-backends.ts';
import { decodeJws, signEs256With, verifyEs256 } from '../src/core/jose/es256.ts';
import { softhsmMissing, softToken } from '../test/helpers/softhsm.ts';
import { otherLoad } from './lib/machine.ts';
import { startRun, writeResults } from './lib/results.ts';
import { fixed, latencySummary, table } from './lib/stats.ts';

const USAGE = `npm run bench -- keys [--signatures <n>]

  --signatures <n>  signatures per backend and concurrency (default 2,000)

Needs Debian's SoftHSM (apt-get install -y softhsm2) for the pkcs11 rows. Results go to
bench/results/keys-<timestamp>.json.`;

/** A payload the size of an issued credential's (an SD-JWT VC with a few digests). */
const PAYLOAD = {
  iss: 'did:web:rail.example.org:t:acme-transit',
  iat: 1_900_000_000,
  vct: 'https://rail.example.org/t/acme-transit/types/pass',
  cnf: { jwk: { kty: 'EC', crv: 'P-256', x: 'x'.repeat(43), y: 'y'.repeat(43) } },
  _sd: Array.from({ length: 8 }, (_, i) => `${i}`.repeat(43)),
  _sd_alg: 'sha-256',
};

interface Row {
  backend: string;
  concurrency: number;
  signatures: number;
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** CPU of this process (user + system) per signature. */
  cpuMsPerSignature: number;
}

async function measure(config: KeysConfig, concurrency: number, signatures: number): Promise<Row> {
  const backends = new KeyBackends(config, new AesKeyVault(Buffer.alloc(32, 5)));
  try {
    const owner = { tenant: 'bench', purpose: 'issuer' as const };
    const key = await backends.generate(owner);
    const sign = () =>
      signEs256With((input) => backends.sign(owner, key.kid, key.ref, input), { typ: 'dc+sd-jwt', kid: key.kid }, PAYLOAD);
    for (let i = 0; i < 50; i++) await sign(); // warm-up: sessions open, the key's handle found
    const latencies = new Float64Array(signatures);
    let next = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < signatures; i = next++) {
          const t = performance.now();
          const jws = await sign();
          latencies[i] = performance.now() - t;
          const decoded = decodeJws(jws);
          if (!decoded || !verifyEs256(decoded, key.publicJwk)) throw new Error(`${config.backend}: a signature does not verify`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    await backends.destroy(key.ref);
    return {
      backend: config.backend,
      concurrency,
      signatures,
      perSec: signatures / seconds,
      ...latencySummary(latencies.sort()),
      cpuMsPerSignature: (used.user + used.system) / 1000 / signatures,
    };
  } finally {
    await backends.close();
  }
}

export async function keysBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { signatures: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const signatures = Number(values.signatures ?? 2000);
  if (!Number.isInteger(signatures) || signatures < 100) throw new Error('--signatures is a whole number of at least 100');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const run = startRun('keys', log);
  const before = await otherLoad(1000);
  log(`other processes on the machine before the bench: ${fixed(before, 2)} busy cores (of ${availableParallelism()})`);
  const configs: KeysConfig[] = [{ backend: 'sealed' }];
  const missing = softhsmMissing();
  const token = missing ? undefined : softToken('openrail-keys-bench');
  if (token) {
    configs.push({
      backend: 'pkcs11',
      module: token.module,
      token: { label: token.label },
      pin: { value: token.pin },
      sessions: 8,
    });
  } else log(`pkcs11 rows skipped: ${missing}`);
  const rows: Row[] = [];
  try {
    for (const config of configs) for (const concurrency of [1, 8]) rows.push(await measure(config, concurrency, signatures));
  } finally {
    token?.remove();
  }
  const after = await otherLoad(1000);
  log(
    table(
      ['backend', 'concurrency', 'signatures', 'sig/s', 'p50 ms', 'p99 ms', 'max ms', 'cpu ms/sig'],
      rows.map((r) => [
        r.backend,
        r.concurrency,
        r.signatures,
        fixed(r.perSec, 0),
        fixed(r.p50Ms, 3),
        fixed(r.p99Ms, 3),
        fixed(r.maxMs, 3),
        fixed(r.cpuMsPerSignature, 3),
      ]),
    ),
  );
  log(
    'Each signature = a credential-sized ES256 JWS: its encoding, SHA-256 and the signature where the key lives (sealed: node:crypto in this process; pkcs11: CKM_ECDSA in SoftHSM through pkcs11js, on the thread pool). Latencies time the signature alone; cpu ms/sig is this process per signature (SoftHSM runs inside it), the check of each signature against the public key included.',
  );
  log(`other processes on the machine after: ${fixed(after, 2)} busy cores`);
  log(`results: ${writeResults(run, before, { signatures, rows, otherCoresAfter: after })}`);
}
