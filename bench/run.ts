// `npm run bench -- <name> [options]`: the project's benchmarks. Timings are reported, never asserted.
import { cliBench } from './cli.ts';
import { failoverBench } from './failover.ts';
import { issuanceBench } from './issuance.ts';
import { keysBench } from './keys.ts';
import { memoryBench } from './memory.ts';
import { verifyBench } from './verify.ts';
import { webhooksBench } from './webhooks.ts';

const benches: Record<string, (argv: string[]) => Promise<void>> = {
  cli: cliBench,
  failover: failoverBench,
  issuance: issuanceBench,
  keys: keysBench,
  memory: memoryBench,
  verify: verifyBench,
  webhooks: webhooksBench,
};

const [name, ...rest] = process.argv.slice(2);
const bench = name ? benches[name] : undefined;
if (!bench) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(benches).join('|')}> [options]  (--help for a bench's options)\n`);
  process.exit(2);
}
try {
  await bench(rest);
  process.exit(0);
} catch (err) {
  const e = err as { code?: string; message?: string; stack?: string };
  // A mistaken option is told in one line; anything else with its stack.
  const usage = e.code?.startsWith('ERR_PARSE_ARGS') || e.message?.startsWith('--');
  process.stderr.write(`bench ${name} failed: ${usage ? e.message : (e.stack ?? String(err))}\n`);
  process.exit(usage ? 2 : 1);
}
