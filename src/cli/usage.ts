/**
 * What each verb of the command line takes, said one way: `openrail <verb> --help` prints it and
 * exits 0; a mistaken option prints it to stderr and exits 2.
 */
export const VERB_USAGE = {
  serve: `usage: openrail serve
  runs the service (the same as npm start); it takes no options and is configured by the
  environment (README, "Configuration")`,
  verify: `usage: openrail verify [--ledger]
  the reference verifier on the conformance line protocol: one {id, input} per stdin line, one
  {id, verdict, failure, claims} per stdout line; --ledger adds the ten checks to each answer`,
  conformance: `usage: openrail conformance --verifier "<command>" [--vectors <url|file>] [--level 1|2] [--timeout <seconds>]
  runs a verifier against the conformance set; exit 0 when every vector passes, 1 when one fails,
  2 when the run cannot be made`,
} as const;

export type Verb = keyof typeof VERB_USAGE;

export const USAGE = `usage: openrail <command> [options]   (openrail <command> --help for its options)

commands:
  serve        run the service (the same as npm start); configured by environment (README)
  verify       the reference verifier on the conformance line protocol
  conformance  run a verifier against the conformance set
`;

export const asksForHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');
