/**
 * What each verb of the command line takes, said one way: `openrail <verb> --help` prints it and
 * exits 0; a mistaken option prints it to stderr and exits 2.
 */
export const VERB_USAGE = {
  serve: `usage: openrail serve [--workers <n>]
  runs the service (the same as npm start), configured by the environment (README,
  "Configuration"); --workers runs n processes on one port and one database (default: one per
  core; 1 serves from this process)`,
  restore: `usage: openrail restore [--outside-backup-dir] <manifest>
  restores a backup (docs/operations.md, "Restoring a backup") as the database DATABASE_URL
  names, which must not exist yet (SQLite) or hold no table (PostgreSQL): the manifest
  (<backupId>.manifest.json) and the backup file beside it must lie in the backup folder
  (OPENRAIL_BACKUP_DIR), links resolved, and the file's SHA-256 is checked first;
  --outside-backup-dir restores a backup kept elsewhere (a copy brought from another machine).
  Exit 0 when restored, 1 when refused, 2 for a mistaken command line`,
  verify: `usage: openrail verify [--ledger]
  the reference verifier on the conformance line protocol: one {id, input} per stdin line, one
  {id, verdict, failure, claims} per stdout line; an input with "format": "mso_mdoc" is an ISO
  mdoc presentation (schema 3); --ledger adds the ten checks to each answer`,
  conformance: `usage: openrail conformance --verifier "<command>" [--vectors <url|file> | --schema 1|2|3] [--level 1|2] [--timeout <seconds>]
  runs a verifier against the conformance set (minted here, of --schema, when no --vectors are
  given); exit 0 when every vector passes, 1 when one fails, 2 when the run cannot be made`,
  wallet: `usage: openrail wallet <subcommand> [--wallet <file>] [--allow-http]
  the reference wallet: a device key and credentials in one file (default ./openrail-wallet.json,
  or OPENRAIL_WALLET)
    init                          create the wallet and its device key; prints the account id
    collect <offer URI> [--tx-code <code>] [--format dc+sd-jwt|mso_mdoc]
                                  collect a credential (OID4VCI, pre-authorized code): the
                                  offer's SD-JWT VC, or with --format mso_mdoc its ISO mdoc
    list [--json]                 the credentials held and their claims (an mdoc's elements by
                                  namespace)
    present <openid4vp URI> [--credential <id>] [--claims <a,b> | --all]
                                  answer a verifier (OID4VP, DCQL) with an SD-JWT VC or an mdoc;
                                  asks claim by claim on a terminal
  with a service (its origin, e.g. https://rail.example.org), signed with the device key:
    items <origin> [--json]       what the service holds for this account (envelopes)
    accept <origin> <itemId> [--decline] [--tx-code <code>]
                                  accept (or decline) an item: collects an offer, shows a deposit
                                  or a channel
    share <origin> <itemId> [--with <tenant> --elements <a,b>] [--revoke <tenant,...>]
                                  set what a tenant may receive of an item; show its sharing log
    enroll <origin> [--credential <id>]
                                  join the programme of a credential's issuer by presenting it
    me <origin> [--json]          memberships and open proposals
    vote <origin> <proposalId> <option>
    approve <approve URL>         approve a browser's sign-in to the account portal: the URL its
                                  QR code holds (<origin>/account/approve?t=...)
  --allow-http lets the wallet talk plain http to this machine (localhost, 127.0.0.1) only.
  Exit 0 when done, 1 when the wallet or a service refused, 2 for a mistaken command line`,
} as const;

export type Verb = keyof typeof VERB_USAGE;

export const USAGE = `usage: openrail <command> [options]   (openrail <command> --help for its options; openrail --version or -v)

commands:
  serve        run the service (the same as npm start); configured by environment (README)
  restore      restore a backup into an empty database
  verify       the reference verifier on the conformance line protocol
  conformance  run a verifier against the conformance set
  wallet       the reference wallet: collect credentials, present them, approve sign-ins
`;

export const asksForHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');
