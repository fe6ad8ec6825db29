import type { Database } from './schema.ts';

/** A table of `schema.ts`. */
export type Table = keyof Database & string;

/**
 * Every table's one owning module (docs/architecture.md, "Tables, owners and views"): the module
 * whose adapters, in `adapters/sql/<owner>/`, alone name it in SQL. Another module reads it
 * through a view the owner publishes (a read port whose SQL sits in the owner's folder) or changes
 * it through the owner's service. `kernel` is the kernel's own: the audit chain, the outbox, job
 * leases, signing keys and their authority, rate windows, settings, mail outcomes.
 * `test/table-owners.test.ts` fails on a table with no owner or two, on an owner that is not a
 * module, and on an adapter that names a table its folder's module does not own.
 */
export const TABLE_OWNERS = {
  kernel: [
    'settings',
    'signing_keys',
    'certificate_authority',
    'audit_head',
    'audit_log',
    'outbox',
    'job_leases',
    'rate_windows',
    'mail_outcomes',
  ],
  tenants: ['tenants'],
  operators: [
    'operators',
    'operator_sessions',
    'operator_identities',
    'operator_identity_history',
    'operator_links',
    'operator_browser_sessions',
    'oidc_logins',
  ],
  holders: ['holder_jti'],
  'credential-types': ['credential_types', 'type_validity', 'type_key_attestation'],
  offers: ['offers'],
  issuance: [
    'access_tokens',
    'authorization_requests',
    'attestation_pop_jti',
    'spent_nonces',
    'issued_credentials',
    'status_lists',
  ],
  verification: ['presentation_transactions', 'verification_counts'],
  'issuer-trust': ['trusted_issuers'],
  membership: ['enrolment_types', 'members', 'coin_entries', 'proposals', 'votes'],
  directory: ['directory_listings', 'directory_contacts'],
  onboarding: ['onboarding_challenges'],
  account: ['signin_tickets', 'account_sessions', 'erasure_receipts'],
  wallet: ['wallet_items', 'channels', 'share_settings', 'sharing_log'],
  deposits: ['products', 'deposits', 'deposit_heads'],
  'wallet-providers': ['wallet_providers'],
  webhooks: ['webhooks', 'webhook_deliveries', 'webhook_attempts'],
  integration: ['integration_tokens'],
  partners: ['partner_applications', 'partner_stage_history', 'partner_team', 'partner_sessions'],
  approvals: ['approvals'],
  backoffice: [
    'org_lifecycle',
    'org_domains',
    'compliance_requests',
    'attestations',
    'incidents',
    'type_purposes',
    'retention_rules',
    'purge_runs',
    'purge_slot',
    'agent_heartbeats',
    'backups',
    'backup_drills',
  ],
} as const satisfies Record<string, readonly Table[]>;

export type Owner = keyof typeof TABLE_OWNERS;

/** The owner of each table, as a map (a table named twice keeps its first owner: the test refuses it). */
export const OWNER_OF: ReadonlyMap<Table, Owner> = new Map(
  (Object.entries(TABLE_OWNERS) as Array<[Owner, readonly Table[]]>)
    .flatMap(([owner, tables]) => tables.map((t) => [t, owner] as const))
    .reverse(),
);

/** What is wrong with an ownership declaration against the tables that exist: [] when each has one owner. */
export function ownershipProblems(
  tables: readonly string[],
  owned: Readonly<Record<string, readonly string[]>>,
  modules: readonly string[],
): string[] {
  const problems: string[] = [];
  const owners = new Map<string, string[]>();
  for (const [owner, list] of Object.entries(owned)) {
    if (owner !== 'kernel' && !modules.includes(owner)) problems.push(`${owner} owns tables but is not a module`);
    for (const t of list) owners.set(t, [...(owners.get(t) ?? []), owner]);
  }
  for (const t of tables) {
    const by = owners.get(t) ?? [];
    if (by.length === 0) problems.push(`table ${t} has no owner`);
    if (by.length > 1) problems.push(`table ${t} has two owners: ${by.join(', ')}`);
  }
  for (const t of owners.keys()) if (!tables.includes(t)) problems.push(`${t} is owned but is not a table`);
  return problems;
}
