/**
 * What the back office's navigation says, beyond what the contract gives (docs/admin-app.md,
 * "Navigation"): the sections and the route groups each lists, the names of pages whose path
 * does not name them well, the pages that are not links of their own because another page shows
 * them (a look-up of one row beside its list, a form beside the list it changes), and the pages
 * the start page links to. Paths here are relative to /api/admin and to /admin alike.
 */

/** The sections in the order of the navigation: a label and the route groups whose pages it lists. */
export const SECTIONS: ReadonlyArray<{ label: string; groups: readonly string[] }> = [
  { label: 'Today and support', groups: ['admin-session'] },
  { label: 'Approvals', groups: ['admin-approvals'] },
  { label: 'Organisations', groups: ['admin-orgs'] },
  { label: 'People', groups: ['admin-people'] },
  { label: 'Credentials and holders', groups: ['admin-credentials'] },
  { label: 'Audit', groups: ['admin-audit'] },
  { label: 'Analytics', groups: ['admin-analytics'] },
  { label: 'Integration', groups: ['integration-webhooks', 'integration-tokens', 'integration-contracts'] },
  { label: 'Partners', groups: ['admin-partners'] },
  { label: 'Compliance', groups: ['admin-compliance'] },
  { label: 'Operations', groups: ['admin-ops'] },
];

/** A page listed in another section than its route group's. */
export const SECTION_OF: Readonly<Record<string, string>> = {
  // Verifying the chain is read beside the log it verifies.
  '/ops/audit': 'Audit',
};

/** The page the navigation's "Today" stands for: the start page (/admin) shows it. */
export const START_PAGE = '/today';

/**
 * Pages that are no link of their own: each is shown on the page it names (its look-up or its form
 * there, posting to its own address, which still answers), and the filter finds that page by the
 * merged page's name. Only where the operator may open that page; else the page keeps its link.
 */
export const MERGED: Readonly<Record<string, string>> = {
  // The start page's search box.
  '/search': START_PAGE,
  // The look-ups of one row, beside their list.
  '/support/credential': '/support/lookup',
  '/support/timeline': '/support/lookup',
  '/credential': '/credentials',
  '/credential-type': '/credential-types',
  '/holder': '/holders',
  // Forms with no page of their own, beside what they change or create.
  '/ops/backup': '/ops/backups',
  '/ops/revoke': '/ops/revocations',
  '/ops/expiry-dates': '/ops/expiry',
  '/ops/fixtures': '/ops/demo-hygiene',
  '/compliance/dsar/lookup': '/compliance/dsar/requests',
  '/compliance/dsar/negative-response': '/compliance/dsar/requests',
  '/compliance/dsar/export': '/compliance/dsar/requests',
  '/compliance/dsar/refuse': '/compliance/dsar/requests',
  '/compliance/accountability/attest': '/compliance/accountability/attestations',
  '/compliance/retention/purge-run': '/compliance/retention/rules',
};

/** Names of pages whose path words would be unclear, or the same as another page's. */
export const LABELS: Readonly<Record<string, string>> = {
  '/support/lookup': 'Support lookup',
  '/support/credential': 'Credential by status entry',
  '/credential': 'Credential by ID',
  '/credential-type': 'Credential type by ID',
  '/types': 'Types across organisations',
  '/holder': 'Holder by account',
  '/audit': 'Audit log',
  '/ops/audit': 'Audit chain check',
  '/ops/cloud': 'Deployment',
  '/ops/comms-health': 'Mail and webhook health',
  '/ops/status-integrity': 'Status list integrity',
  '/ops/backup': 'Take a backup',
  '/ops/revoke': 'Revoke credentials',
  '/ops/expiry-dates': 'Validity periods',
  '/ops/fixtures': 'Demo fixtures',
  '/compliance/dsar/requests': 'Access requests (DSAR)',
  '/compliance/dsar/lookup': 'DSAR lookup',
  '/compliance/dsar/negative-response': 'DSAR negative response',
  '/compliance/dsar/export': 'DSAR export',
  '/compliance/dsar/refuse': 'DSAR refusal',
  '/compliance/erasure/requests': 'Erasure requests',
  '/compliance/accountability/attestations': 'Attestations',
  '/compliance/accountability/attest': 'Attest a statement',
  '/compliance/accountability/role-history': 'Role history',
  '/compliance/accountability/role-separation': 'Role separation',
  '/compliance/retention/rules': 'Retention rules',
  '/compliance/retention/purge-run': 'Purge run',
  '/compliance/ropa': 'Record of processing (RoPA)',
  '/compliance/ropa/purposes': 'Processing purposes',
  '/compliance/program': 'Programme',
  '/compliance/meta-inventory': 'Personal data inventory',
  '/integration/deposits/integrity': 'Deposit chain integrity',
  '/integration/key-options': 'Token scopes and rates',
  '/integration/webhooks/coverage': 'Webhook coverage',
  '/integration/deliveries': 'Webhook deliveries',
  '/partners/portfolio': 'Partner portfolio',
};

/** What the start page links to first: the pages an operator uses most, each shown if its roles admit it. */
export const START_LINKS: ReadonlyArray<{ path: string; label: string; about: string }> = [
  { path: '/approvals', label: 'Approvals', about: 'Four-eyes requests waiting for a second operator' },
  { path: '/people/operators', label: 'People', about: 'Operators, their roles, status and sign-ins' },
  { path: '/orgs', label: 'Organisations', about: 'Each organisation’s status, domain and admins' },
  { path: '/credentials', label: 'Credentials', about: 'Issued credentials by type, state and issue time' },
  { path: '/audit', label: 'Audit', about: 'Every change, in the hash-chained audit log' },
  { path: '/ops/health', label: 'Health', about: 'Each component of the deployment and its numbers' },
];
