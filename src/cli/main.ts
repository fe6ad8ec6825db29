import { asksForHelp, USAGE, VERB_USAGE, type Verb } from './usage.ts';

/**
 * Each verb's module is loaded when that verb runs: a wallet command does not load the server
 * (its framework, its database drivers and every feature), which would double its start time.
 */
const VERBS: Record<Verb, (args: string[]) => Promise<void>> = {
  serve: async (args) => (await import('./serve.ts')).serve(args),
  restore: async (args) => (await import('./restore.ts')).restore(args),
  verify: async (args) => (await import('./verify.ts')).verifyLines(args),
  conformance: async (args) => (await import('./conformance.ts')).runConformance(args),
  wallet: async (args) => (await import('./wallet.ts')).wallet(args),
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
