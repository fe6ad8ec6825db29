import { runConformance } from './conformance.ts';
import { serve } from './serve.ts';
import { verifyLines } from './verify.ts';

const USAGE = `usage: openrail <command>

commands:
  serve        run the service (the same as npm start); configured by environment (README)
  verify       the reference verifier on the conformance line protocol: {id, input} per stdin
               line, {id, verdict, failure, claims} per stdout line (--ledger adds the checks)
  conformance  --verifier "<command>" [--vectors <url|file>] [--level 1|2] [--timeout <s>]
               runs a verifier against the conformance set; exit 0 when every vector passes
`;

const [command, ...rest] = process.argv.slice(2);

switch (command) {
  case 'serve':
    await serve(rest);
    break;
  case 'verify':
    await verifyLines(rest);
    break;
  case 'conformance':
    await runConformance(rest);
    break;
  case undefined:
  case 'help':
  case '--help':
  case '-h':
    process.stdout.write(USAGE);
    break;
  default:
    process.stderr.write(`openrail: unknown command "${command}"\n\n${USAGE}`);
    process.exitCode = 2;
}
