/**
 * The record of processing's purposes (docs/backoffice/compliance.md, "Record of processing"):
 * what the deployment itself does with personal data (`activity`), and what an organisation issues
 * a credential for (`credential`, the purposes a credential type is bound to). Written once here;
 * the record reads the data categories, counts and recipients from the data when it is asked.
 */
export interface Purpose {
  purposeId: string;
  name: string;
  description: string;
  kind: 'activity' | 'credential';
  /** Whose data: holders, partner contacts, operators. */
  subjects: readonly string[];
  /** The tables whose registered columns (holder-data.ts) are this activity's data categories. */
  tables: readonly string[];
  /** How long its data is kept, as the service keeps it. */
  retention: string;
}

const ISSUER_DECIDES = 'as long as the issuing organisation keeps the credential valid; the holder may erase its account';

export const PURPOSES: readonly Purpose[] = [
  {
    purposeId: 'credential-issuance',
    name: 'Issuing credentials',
    description: 'Issuing credentials on behalf of organisations, and keeping their status so they can be revoked.',
    kind: 'activity',
    subjects: ['holders'],
    tables: ['offers', 'issued_credentials', 'wallet_items'],
    retention:
      'offers until collected or expired; a credential’s status entry while it can be presented; an erasure unlinks the holder key',
  },
  {
    purposeId: 'verification',
    name: 'Verifying presentations',
    description: 'Checking credentials holders present to relying parties through the hosted verifier.',
    kind: 'activity',
    subjects: ['holders'],
    tables: ['presentation_transactions'],
    retention: 'the transaction’s lifetime; an erasure drops the holder key a completed one recorded',
  },
  {
    purposeId: 'membership',
    name: 'Running programmes',
    description: 'Memberships of organisations’ programmes: tiers, coin ledgers and votes.',
    kind: 'activity',
    subjects: ['holders'],
    tables: ['members', 'coin_entries', 'votes'],
    retention: 'until the membership ends or the holder erases its account; votes stay counted, linked to nobody',
  },
  {
    purposeId: 'deposits-and-sharing',
    name: 'Delivering documents and sharing them',
    description: 'Bills, receipts and statements organisations deposit for holders, and what holders share back over channels.',
    kind: 'activity',
    subjects: ['holders'],
    tables: ['deposits', 'channels', 'share_settings', 'sharing_log'],
    retention: 'until the holder erases its account; a deposit keeps its place in its tenant’s chain without its contents',
  },
  {
    purposeId: 'holder-directory',
    name: 'The holder directory',
    description: 'Listings holders publish so others can find them by name, community or a hashed contact.',
    kind: 'activity',
    subjects: ['holders'],
    tables: ['directory_listings', 'directory_contacts'],
    retention: 'until the holder removes its listing or erases its account',
  },
  {
    purposeId: 'account-portal',
    name: 'The account portal',
    description: 'Signing holders in to see, export and erase what the service holds on them.',
    kind: 'activity',
    subjects: ['holders'],
    tables: ['account_sessions', 'signin_tickets', 'holder_jti'],
    retention: 'sessions and sign-in approvals until they expire; replay marks for at most 301 seconds',
  },
  {
    purposeId: 'partner-programme',
    name: 'The partner programme',
    description: 'Applications of organisations that want to join, their contacts and team members.',
    kind: 'activity',
    subjects: ['partner contacts'],
    tables: ['partner_applications', 'partner_team', 'partner_sessions', 'partner_stage_history'],
    retention: 'while the application is open or the organisation is a partner',
  },
  {
    purposeId: 'operations-and-accountability',
    name: 'Running the service accountably',
    description:
      'Operator accounts, the audit chain, four-eyes approvals, data-subject requests, incidents, attestations, the trust registry, automation agents’ heartbeats, events and webhook deliveries.',
    kind: 'activity',
    subjects: ['operators', 'holders', 'partner contacts'],
    tables: [
      'operators',
      'operator_sessions',
      'operator_browser_sessions',
      'operator_identities',
      'operator_identity_history',
      'operator_links',
      'org_lifecycle',
      'integration_tokens',
      'webhooks',
      'audit_log',
      'approvals',
      'compliance_requests',
      'attestations',
      'incidents',
      'type_purposes',
      'retention_rules',
      'purge_runs',
      'trusted_issuers',
      'agent_heartbeats',
      'backups',
      'type_validity',
      'type_key_attestation',
      'outbox',
      'webhook_deliveries',
    ],
    retention: 'the audit chain whole; events and webhook deliveries 30 days; operators are suspended, not deleted',
  },
  {
    purposeId: 'identification',
    name: 'Identification',
    description: 'Proving who the holder is: an identity card, a residence permit.',
    kind: 'credential',
    subjects: ['holders'],
    tables: [],
    retention: ISSUER_DECIDES,
  },
  {
    purposeId: 'membership-proof',
    name: 'Proof of membership',
    description: 'Proving membership of a programme, a club or a library.',
    kind: 'credential',
    subjects: ['holders'],
    tables: [],
    retention: ISSUER_DECIDES,
  },
  {
    purposeId: 'entitlement',
    name: 'Entitlement',
    description: 'Access to a service, a discount, a ticket or a benefit.',
    kind: 'credential',
    subjects: ['holders'],
    tables: [],
    retention: ISSUER_DECIDES,
  },
  {
    purposeId: 'qualification',
    name: 'Qualification',
    description: 'A diploma, a licence, a certificate of employment or of training.',
    kind: 'credential',
    subjects: ['holders'],
    tables: [],
    retention: ISSUER_DECIDES,
  },
  {
    purposeId: 'attribute-proof',
    name: 'Proof of an attribute',
    description: 'Proving one fact about the holder (over 18, resident of a city) and nothing more.',
    kind: 'credential',
    subjects: ['holders'],
    tables: [],
    retention: ISSUER_DECIDES,
  },
];

export const CREDENTIAL_PURPOSES = PURPOSES.filter((p) => p.kind === 'credential').map((p) => p.purposeId);
