import { runConformance } from './conformance.ts';
import { serve } from './serve.ts';
import { asksForHelp, USAGE, VERB_USAGE, type Verb } from './usage.ts';
import { verifyLines } from './verify.ts';
import { wallet } from './wallet.ts';

const VERBS: Record<Verb, (args: string[]) => Promise<void>> = {
  serve,
  verify: verifyLines,
  conformance: runConformance,
  wallet,
};

const [command, ...rest] = process.argv.slice(2);

if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
  process.stdout.write(USAGE);
} else if (!Object.hasOwn(VERBS, command)) {
  process.stderr.write(`openrail: unknown command "${command}"\n\n${USAGE}`);
  process.exitCode = 2;
} else if (asksForHelp(rest)) {
  process.stdout.write(`${VERB_USAGE[command as Verb]}\n`);
} else {
  await VERBS[command as Verb](rest);
}
