import type { OperatorRole } from '../../ports/operator-store.ts';
import type { OperatorPrincipal } from '../auth/operator-bearer.ts';

/**
 * The back office's one role matrix (docs/backoffice.md, "Roles"): every operation under
 * /api/admin/* takes its roles from one row here. The rows the interface's table fixes are marked;
 * the others are our choice for groups whose roles it does not show. The legacy `issuer` and
 * `verifier` roles are in no row, so they are refused everywhere under /api/admin/*. A
 * `tenant-admin` is scoped to its tenant by the route's tenant scope, never by the row.
 */
export const BACKOFFICE_ROLES = ['owner', 'ops', 'analyst', 'auditor', 'support', 'tenant-admin'] as const;

const ALL: readonly OperatorRole[] = BACKOFFICE_ROLES;

export const ROLE_MATRIX = {
  /** Interface table: activity, audit. */
  audit: ALL,
  /** Interface table: analytics. */
  analytics: ['analyst', 'auditor', 'owner', 'tenant-admin'],
  /** Interface table: approvals read. */
  approvalsRead: ['auditor', 'ops', 'owner', 'support', 'tenant-admin'],
  /** Interface table: approvals write. */
  approvalsWrite: ['ops', 'owner', 'support', 'tenant-admin'],

  /** Credential, holder and type views: everyone who looks after a deployment, on what they may see. */
  credentialsRead: ALL,
  /** Registering a credential type from the back office. */
  typesWrite: ['owner', 'ops', 'tenant-admin'],

  /** Who am I, what needs attention, the search box. */
  session: ALL,
  /** Operators and tenants being wound down. */
  offboarding: ['owner', 'ops', 'auditor'],
  /** Answering a holder or relying party: lookup, one credential's state, a subject's timeline. */
  support: ['owner', 'ops', 'support', 'tenant-admin'],

  /** Organisations: list, one, its admins, its domain, its lifecycle. */
  orgsRead: ['owner', 'ops', 'analyst', 'auditor', 'support', 'tenant-admin'],
  /** Creating an organisation, suspending and reactivating one, activating a custom domain. */
  orgsRun: ['owner', 'ops'],
  /** An organisation's own settings: its admins, its custom domain, a branding preview. */
  orgsManage: ['owner', 'ops', 'tenant-admin'],

  /** Operators: the list and one operator. */
  operatorsRead: ['owner', 'ops', 'auditor', 'support'],
  /** Operators: create (by invitation or identity), invite again or reset a password, enable, suspend, remove, roles. */
  operatorsWrite: ['owner'],
  /**
   * An operator's own password and identity link: every back-office role reaches the operation,
   * and the operator service holds it to the operator itself (or the owner token); no one sets
   * another's (docs/security.md, "Separation of duties").
   */
  operatorsSelf: ALL,
  /** Members, consent and the coin ledger of holders. */
  peopleRead: ['owner', 'ops', 'auditor', 'support', 'tenant-admin'],
  /** Governance proposals across tenants. */
  governanceRead: ['owner', 'ops', 'analyst', 'auditor', 'tenant-admin'],
  governanceWrite: ['owner', 'ops', 'tenant-admin'],
  /** Coins issued, spent and outstanding per tenant. */
  economy: ['owner', 'analyst', 'auditor', 'tenant-admin'],

  /** Interface table: compliance read (the lookup and the negative response included). */
  complianceRead: ['auditor', 'ops', 'owner', 'support'],
  /** Interface table: compliance write (erasure requests: file, refuse, verify). */
  complianceWrite: ['ops', 'owner'],
  /** Interface table: DSAR export. */
  dsarExport: ['owner'],
  /** Interface table: attest (any back-office role, for itself). */
  attest: ALL,
  /** The other compliance reads (roles not shown): the inventory, incidents, the programme, RoPA, retention rules. */
  complianceOversee: ['auditor', 'ops', 'owner'],
  /** The other compliance changes (roles not shown): incidents, retention rules and purges, purposes. */
  complianceRun: ['ops', 'owner'],

  /** Operations (docs/operations.md; roles not shown: ours): health, keys, status lists, trust, backups and every other ops read. */
  opsRead: ['owner', 'ops', 'auditor'],
  /** Operations changes: a backup, an ops revocation, the trust registry, a type's validity, demonstration fixtures. */
  opsRun: ['owner', 'ops'],

  /** Partner pipeline (docs/partners.md, "Roles"). */
  partnersRead: ['owner', 'ops', 'analyst', 'auditor', 'support'],
  partnersWrite: ['owner', 'ops'],
  /** Webhooks, tokens, contracts and deposits (docs/integration.md, docs/webhooks.md). */
  integrationRead: ['owner', 'ops', 'auditor', 'support', 'tenant-admin'],
  integrationWrite: ['owner', 'ops', 'tenant-admin'],
  /** Approving a provisioning request mints a token: owners only, four eyes (docs/integration.md). */
  integrationMint: ['owner'],
  /** Rotating a token reveals its new secret: not to ops, who may revoke but never hold one. */
  integrationSecrets: ['owner', 'tenant-admin'],
} as const satisfies Record<string, readonly OperatorRole[]>;

export type MatrixRow = keyof typeof ROLE_MATRIX;

/** Whether the caller holds one of these roles (a key or a partner session holds none of them). */
export const holdsAny = (principal: OperatorPrincipal, roles: readonly string[]): boolean =>
  principal.roles.some((role) => roles.includes(role));

/** Whether the caller holds one of a matrix row's roles: what a view may show it of another group. */
export const holds = (principal: OperatorPrincipal, row: MatrixRow): boolean => holdsAny(principal, ROLE_MATRIX[row]);
