import { serve } from './serve.ts';

const USAGE = `usage: openrail <command>

commands:
  serve     run the service (the same as npm start); configured by environment (README)
`;

const [command, ...rest] = process.argv.slice(2);

switch (command) {
  case 'serve':
    await serve(rest);
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
