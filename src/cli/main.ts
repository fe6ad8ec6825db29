import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../adapters/fs/package-root.ts';
import { asksForHelp, USAGE, VERB_USAGE, type Verb } from './usage.ts';

// A reader that stops early (`openrail wallet list | head -1`) closes the pipe: the rest of the
// output has nowhere to go, which is no failure of the command.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

/** `openrail <version>`, and the commit it was installed from when npm recorded one (build-info.json). */
function version(): string {
  const read = (file: string) => JSON.parse(readFileSync(join(PACKAGE_ROOT, file), 'utf8')) as Record<string, unknown>;
  const { version: number } = read('package.json');
  let commit: unknown;
  try {
    commit = read('build-info.json').commit;
  } catch {
    commit = undefined;
  }
  return `openrail ${String(number)}${typeof commit === 'string' && commit !== 'unknown' ? ` (${commit.slice(0, 12)})` : ''}\n`;
}

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
} else if (command === '--version' || command === '-v' || command === '-V' || command === 'version') {
  process.stdout.write(version());
} else if (!Object.hasOwn(VERBS, command)) {
  process.stderr.write(`openrail: unknown command "${command}"\n\n${USAGE}`);
  process.exitCode = 2;
} else if (asksForHelp(rest)) {
  process.stdout.write(`${VERB_USAGE[command as Verb]}\n`);
} else {
  await VERBS[command as Verb](rest);
}
