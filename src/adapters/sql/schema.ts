import type { Generated } from 'kysely';

/**
 * The tables as Kysely sees them. Times are integer milliseconds since the epoch, booleans
 * are 0/1 and JSON is text, so one set of queries runs on SQLite and on PostgreSQL.
 */
export interface SettingsTable {
  name: string;
  value: string;
}

export interface TenantsTable {
  slug: string;
  name: string;
  display_name: string | null;
  description: string | null;
  logo_uri: string | null;
  primary_color: string | null;
  background_color: string | null;
  text_color: string | null;
  created_at: number;
  updated_at: number;
  /** Migration 0023: `active` or `suspended`, with when and why it last changed (null: never). */
  status: Generated<'active' | 'suspended'>;
  status_since: number | null;
  status_reason: string | null;
  /** Migration 0039: 0/1, whether the tenant serves the authorization code flow (docs/haip.md). */
  haip_issuance: Generated<number>;
  sign_in_url: string | null;
}

/** An organisation's status changes (migration 0023), numbered per tenant. */
export interface OrgLifecycleTable {
  tenant: string;
  seq: number;
  status: 'active' | 'suspended';
  actor: string;
  reason: string;
  approval_id: string | null;
  at: number;
}

/** An organisation's custom domain (migration 0023): at most one per tenant. */
export interface OrgDomainsTable {
  tenant: string;
  domain: string;
  state: 'pending' | 'verified' | 'active' | 'revoked';
  token: string;
  requested_at: number;
  verified_at: number | null;
  activated_at: number | null;
  revoked_at: number | null;
  updated_at: number;
}

export interface SigningKeysTable {
  tenant: string;
  kid: string;
  purpose: 'issuer' | 'verifier';
  public_jwk: string;
  created_at: number;
  retired_at: number | null;
  /** Migration 0031: replaced by a rotation; still published until it is retired. */
  superseded_at: number | null;
  /** Migration 0037: JSON array of base64 DER, the key's certificate first, no trust anchor. */
  certificate_chain: string | null;
  /** Migration 0037: when the key's certificate ends; null until it has one. */
  certificate_not_after: number | null;
  /** Migration 0037: the key identifier (base64url) of the authority that issued the certificate. */
  certificate_authority: string | null;
  /** Migration 0045: `sealed` or `pkcs11` (ports/key-backend.ts). */
  key_backend: Generated<string>;
  /** Migration 0045, sealed: the private JWK sealed under the master key. */
  sealed_private_key: string | null;
  /** Migration 0045, pkcs11: the token's label, and the key object's CKA_LABEL and CKA_ID (hex). */
  token_label: string | null;
  object_label: string | null;
  object_id: string | null;
}

/** Migration 0045: where a key's private part is (ports/key-backend.ts PrivateKeyRef), on its row. */
export type PrivateKeyColumns = Pick<
  SigningKeysTable,
  'key_backend' | 'sealed_private_key' | 'token_label' | 'object_label' | 'object_id'
>;

/** Migration 0037: the platform certificate authority; since 0046 one row per root (the first is `platform`). */
export interface CertificateAuthorityTable {
  id: string;
  certificate: string;
  created_at: number;
  /** Migration 0045: where the authority's key is, in the columns signing keys use. */
  key_backend: Generated<string>;
  sealed_private_key: string | null;
  token_label: string | null;
  object_label: string | null;
  object_id: string | null;
  /** Migration 0046: when this root starts certifying keys. */
  active_from: Generated<number>;
  /** Migration 0046: when a replaced root's private key was destroyed (its reference columns are cleared). */
  retired_at: number | null;
}

export interface OperatorsTable {
  username: string;
  /** An scrypt hash, or NO_PASSWORD for an operator who has set none (invited, or signing in through its identity provider). */
  password_hash: string;
  roles: string;
  tenant: string | null;
  status: 'invited' | 'active' | 'suspended' | 'removed';
  failed_attempts: number;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
  /** Migration 0028: where invitations and password resets are mailed. */
  email: string | null;
  /** Migration 0028: the live invitation's (or reset's) hash and end. */
  invitation_hash: string | null;
  invitation_expires_at: number | null;
}

export interface OperatorSessionsTable {
  token_hash: string;
  username: string;
  created_at: number;
  expires_at: number;
  /** Migration 0036: the browser session that minted this bearer (GET /auth/api-token); it ends with it. */
  browser_session: string | null;
}

/** An operator's enterprise identity (migration 0024): one per operator, one operator per identity. */
export interface OperatorIdentitiesTable {
  issuer: string;
  subject: string;
  username: string;
  linked_at: number;
}

/** Migration 0028: an operator (`linked_to`) that could have chosen or learned `username`'s credentials. */
export interface OperatorLinksTable {
  username: string;
  linked_to: string;
  kind: 'created' | 'password' | 'identity';
  since: number;
}

/** Migration 0028: every enterprise identity an operator was ever linked to. */
export interface OperatorIdentityHistoryTable {
  issuer: string;
  subject: string;
  username: string;
  linked_at: number;
}

export interface HolderJtiTable {
  account_id: string;
  jti: string;
  expires_at: number;
}

/** Wallet attestation proofs of possession an issuer took, by the hash of their jti (migration 0042). */
export interface AttestationPopJtiTable {
  tenant: string;
  jti_hash: string;
  expires_at: number;
}

export interface AccessTokensTable {
  token_hash: string;
  tenant: string;
  grant_id: string;
  created_at: number;
  expires_at: number;
  spent_at: number | null;
  /** Migration 0039: the RFC 7638 thumbprint of the DPoP key the token is bound to, or null. */
  dpop_jkt: string | null;
}

/** A pushed authorization request of the authorization code flow (migration 0039), push to redemption. */
export interface AuthorizationRequestsTable {
  id: string;
  tenant: string;
  request_uri_hash: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  type_id: string;
  attestation_jkt: string;
  dpop_jkt: string | null;
  offer_id: string | null;
  phase: Generated<string>;
  browser_hash: string | null;
  code_hash: string | null;
  continue_hash: string | null;
  created_at: number;
  expires_at: number;
}

export interface CredentialTypesTable {
  tenant: string;
  type_id: string;
  name: string;
  /** JSON array of canonical claim spec strings. */
  claims: string;
  /** Migration 0047: JSON array of the formats it is offered in. */
  formats: Generated<string>;
  /** Migration 0047: JSON of its mdoc profile (doctype, elements); null when it is not offered as mdoc. */
  mdoc: string | null;
  created_at: number;
}

export interface OffersTable {
  id: string;
  tenant: string;
  type_id: string;
  code_hash: string;
  ref_hash: string | null;
  /** JSON of the offer's tx_code object (input_mode, length, description), when one is required. */
  tx_code: string | null;
  tx_code_hash: string | null;
  /** Transaction-code attempts made, right or wrong. */
  tx_attempts: number;
  /** JSON subject values; null once collected or erased. */
  subject: string | null;
  created_at: number;
  expires_at: number;
  erase_after: number;
  redeemed_at: number | null;
  collected_at: number | null;
}

export interface SpentNoncesTable {
  nonce_hash: string;
  tenant: string;
  expires_at: number;
  spent_at: number;
}

export interface StatusListsTable {
  tenant: string;
  seq: number;
  /** Entries in the published bit string. */
  size: number;
  /** How many indices may be handed out before the next list opens (random picks stay cheap). */
  capacity: number;
  allocated: number;
  created_at: number;
  /** Raised by every revocation that sets a bit of this list. */
  revision: Generated<number>;
}

export interface IssuedCredentialsTable {
  id: string;
  tenant: string;
  type_id: string;
  offer_id: string;
  list_seq: number;
  idx: number;
  holder_thumbprint: string;
  issued_at: number;
  revoked_at: number | null;
  /** The latest moment it can be presented (its type's validity when issued); null: no expiry (migration 0034). */
  expires_at: number | null;
}

export interface PresentationTransactionsTable {
  id: string;
  state: string;
  nonce: string;
  result_token_hash: string;
  caller_aud: string;
  type_tenant: string;
  type_id: string;
  vct: string;
  claims: string;
  requested_by: string | null;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
  outcome: string | null;
  /** RFC 7638 thumbprint of the presented credential's cnf key, once an accepted presentation completes it. */
  holder_thumbprint: string | null;
  /** When this transaction enrolled its holder as a member (at most once). */
  enrolled_at: number | null;
  /** An issuer of the trust registry the transaction asks for (migration 0031); null: a type of this deployment. */
  issuer_did: string | null;
  /** Migration 0038: `openid4vp` (the interface's profile) or `haip`. */
  profile: Generated<'openid4vp' | 'haip'>;
  /** Migration 0038: the response-encryption private JWK (HAIP, DC API), sealed; null once completed, and when none is needed. */
  response_key: string | null;
  /** Migration 0038: the web origin a Digital Credentials API request is made from; null: no DC API request. */
  dc_origin: string | null;
  /** Migration 0038: JSON array, the verifier certificate chain its x509_hash requests name; null when none does. */
  verifier_chain: string | null;
  /** Migration 0040: the relying party's page a same-device wallet returns the browser to; null: none. */
  redirect_uri: string | null;
  /** Migration 0040: hash of the response code that return carries; null until an answer through the response_uri is accepted. */
  response_code_hash: string | null;
  /** Migration 0047: the format asked for, `dc+sd-jwt` or `mso_mdoc`. */
  format: Generated<'dc+sd-jwt' | 'mso_mdoc'>;
}

export interface EnrolmentTypesTable {
  tenant: string;
  type_id: string;
  created_at: number;
}

export interface MembersTable {
  tenant: string;
  account_id: string;
  display_name: string | null;
  tier: string;
  status: string;
  balance: number;
  joined_at: number;
  updated_at: number;
}

export interface CoinEntriesTable {
  id: string;
  tenant: string;
  account_id: string;
  idempotency_key: string;
  delta: number;
  reason: string;
  balance_after: number;
  created_at: number;
  /** The entry's number in its member's ledger (migration 0019). */
  entry_no: number | null;
}

export interface ProposalsTable {
  id: string;
  tenant: string;
  title: string;
  /** JSON array of option strings. */
  options: string;
  /** JSON array of eligible tiers; null: every tier. */
  tiers: string | null;
  opens_at: number;
  closes_at: number;
  state: string;
  votes_cast: Generated<number>;
  created_at: number;
  opened_at: number | null;
  closed_at: number | null;
}

export interface VotesTable {
  tenant: string;
  proposal_id: string;
  account_id: string;
  option: string;
  assisted: number;
  cast_at: number;
}

export interface AuditHeadTable {
  id: number;
  seq: number;
  hash: string;
}

export interface AuditLogTable {
  seq: number;
  at: number;
  actor: string;
  action: string;
  tenant: string | null;
  target: string | null;
  /** JSON object. */
  detail: string;
  prev_hash: string;
  hash: string;
}

export interface OutboxTable {
  seq: Generated<number>;
  id: string;
  type: string;
  tenant: string;
  created_at: number;
  /** JSON object: the event's data. */
  data: string;
  /** Null until routed to webhooks; then how many deliveries the event got (0: it went nowhere). */
  routed_to: number | null;
}

export interface JobLeasesTable {
  name: string;
  holder: string;
  lease_until: number;
  started_at: number;
  finished_at: number | null;
  last_error: string | null;
}

export interface WalletItemsTable {
  id: string;
  tenant: string;
  account_id: string;
  kind: string;
  ref: string;
  title: string;
  state: string;
  demo: number;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
}

export interface ChannelsTable {
  tenant: string;
  account_id: string;
  state: string;
  /** JSON array of element names. */
  elements: string;
  requested_by: string;
  created_at: number;
  updated_at: number;
}

export interface ProductsTable {
  id: string;
  tenant: string;
  kind: string;
  name: string;
  require_channel: number;
  approved_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface DepositsTable {
  tenant: string;
  deposit_id: string;
  account_id: string;
  product_id: string;
  item_id: string;
  body: string;
  body_hash: string;
  created_at: number;
  /** The deposit's place in its tenant's hash chain, the link to the one before, and its own hash. */
  chain_seq: number | null;
  prev_hash: string | null;
  chain_hash: string | null;
  /** When the holder erased its account: the body, body hash and account are blanked, the link stays (migration 0020). */
  erased_at: number | null;
}

export interface DepositHeadsTable {
  tenant: string;
  seq: number;
  hash: string;
}

export interface ShareSettingsTable {
  item_id: string;
  tenant: string;
  account_id: string;
  elements: string;
}

export interface SharingLogTable {
  id: string;
  account_id: string;
  item_id: string;
  tenant: string;
  elements: string;
  at: number;
}

export interface WalletProvidersTable {
  id: string;
  name: string;
  homepage: string;
  contact: string | null;
  state: string;
  reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhooksTable {
  id: string;
  tenant: string;
  url: string;
  events: string;
  active: number;
  inactive_reason: string | null;
  sealed_secret: string;
  created_by: string;
  created_at: number;
  updated_at: number;
  dead_streak: Generated<number>;
  last_success_at: number | null;
  lane_holder: string | null;
  lane_until: Generated<number>;
  next_at: Generated<number>;
}

export interface WebhookDeliveriesTable {
  seq: Generated<number>;
  id: string;
  webhook_id: string;
  tenant: string;
  event_id: string;
  event_type: string;
  payload: string;
  state: string;
  attempts: number;
  failures: number;
  next_attempt_at: number;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  n: number;
  at: number;
  status: number | null;
  ok: number;
  latency_ms: number;
  error: string | null;
}

export interface IntegrationTokensTable {
  id: string;
  tenant: string;
  label: string;
  scopes: string;
  rate_class: string;
  token_hash: string;
  state: string;
  request_id: string | null;
  created_by: string;
  created_at: number;
  rotated_at: number | null;
  revoked_at: number | null;
  revoked_by: string | null;
  /** The partner application that minted it in its portal (migration 0021); null for a provisioned token. */
  partner_id: string | null;
}

export interface RateWindowsTable {
  key: string;
  window_start: number;
  used: number;
}

export interface DirectoryListingsTable {
  account_id: string;
  community: string;
  display_name: string;
  name_key: string;
  created_at: number;
  updated_at: number;
}

export interface DirectoryContactsTable {
  account_id: string;
  entry: string;
  kind: string;
  pepper_id: string;
}

export interface OnboardingChallengesTable {
  id: string;
  identifier_key: string;
  code_hash: string;
  created_at: number;
  expires_at: number;
  attempts: number;
  spent_at: number | null;
}

export interface SigninTicketsTable {
  id_hash: string;
  /** The hash of the browser's secret (migration 0027); null for a ticket opened before it. */
  browser_hash: string | null;
  browser: string;
  created_at: number;
  expires_at: number;
  approved_account: string | null;
  approved_at: number | null;
  spent_at: number | null;
}

export interface AccountSessionsTable {
  token_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
}

export interface ErasureReceiptsTable {
  id: string;
  completed_at: number;
  /** JSON object: rows erased or unlinked, per part of the pipeline. */
  counts: string;
  tenants: number;
  disk: string;
  disk_checked_at: number | null;
}

export interface PartnerApplicationsTable {
  id: string;
  kind: string;
  organisation: string;
  contact_name: string;
  contact_email: string;
  country: string | null;
  website: string | null;
  use_case: string;
  stage: string;
  stage_at: number;
  status_token_hash: string;
  tenant: string | null;
  /** JSON array of integration scopes. */
  grant_scopes: string | null;
  grant_rate_class: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
}

export interface PartnerStageHistoryTable {
  application_id: string;
  seq: number;
  from_stage: string | null;
  to_stage: string;
  actor: string;
  note: string | null;
  at: number;
}

export interface PartnerTeamTable {
  id: string;
  application_id: string;
  email: string;
  role: string;
  added_by: string;
  added_at: number;
}

export interface PartnerSessionsTable {
  token_hash: string;
  member_id: string;
  created_at: number;
  expires_at: number;
}

/** An approval of the approval desk (migration 0022, docs/backoffice/approvals.md). */
export interface ApprovalsTable {
  id: string;
  action: string;
  /** JSON object. */
  params: string;
  tenant: string | null;
  /** The holder account the approval names (a data-subject export); null otherwise. */
  account_id: string | null;
  state: string;
  reason: string | null;
  requested_by: string;
  requested_at: number;
  expires_at: number;
  decided_by: string | null;
  decided_at: number | null;
  note: string | null;
  /** JSON object, or null. */
  result: string | null;
  result_private: number;
  result_expires_at: number | null;
}

/** Data-subject requests (migration 0030, docs/backoffice/compliance.md). */
export interface ComplianceRequestsTable {
  id: string;
  /** access or erasure. */
  kind: string;
  state: string;
  /** account, email or username: which of account_id and identifier names the subject. */
  subject_kind: string;
  account_id: string | null;
  identifier: string | null;
  source: string;
  identity_check: string | null;
  received_at: number;
  due_at: number;
  filed_by: string;
  filed_at: number;
  decided_by: string | null;
  decided_at: number | null;
  /** negative, exported or erased. */
  outcome: string | null;
  ground: string | null;
  note: string | null;
  approval_id: string | null;
  receipt_id: string | null;
  /** The signed negative response (a JWS). */
  statement: string | null;
  /** Migration 0044: a negative answer given while another of the same subject stood (before 0044), naming that one. */
  repeat_of: string | null;
}

/** An operator's attestation of a statement (migration 0030). */
export interface AttestationsTable {
  id: string;
  username: string;
  tenant: string | null;
  statement_id: string;
  version: string;
  note: string | null;
  attested_at: number;
  audit_seq: number;
}

/** The breach register (migration 0030). */
export interface IncidentsTable {
  id: string;
  title: string;
  description: string | null;
  severity: string;
  state: string;
  /** JSON: the window and filters the affected scope is computed from. */
  scope: string;
  detected_at: number;
  opened_at: number;
  opened_by: string;
  updated_at: number;
  assessed_at: number | null;
  notified_at: number | null;
  closed_at: number | null;
}

/** The purpose a credential type is issued for (migration 0030). */
export interface TypePurposesTable {
  tenant: string;
  type_id: string;
  purpose_id: string;
  bound_at: number;
  bound_by: string;
}

/** Retention rules and purge runs (migration 0030). */
export interface RetentionRulesTable {
  category: string;
  keep_days: number;
  updated_at: number;
  updated_by: string;
}

export interface PurgeRunsTable {
  id: string;
  state: string;
  requested_by: string;
  requested_at: number;
  /** JSON: category → cutoff (ms). */
  cutoffs: string;
  /** JSON: category → rows deleted. */
  counts: string;
  /** JSON: the categories finished. */
  finished: string;
  finished_at: number | null;
  audit_seq: number;
}

/** Migration 0044: the one purge run that may be running (row 1), or none. */
export interface PurgeSlotTable {
  id: number;
  run_id: string | null;
}

export interface Database {
  settings: SettingsTable;
  tenants: TenantsTable;
  org_lifecycle: OrgLifecycleTable;
  org_domains: OrgDomainsTable;
  signing_keys: SigningKeysTable;
  certificate_authority: CertificateAuthorityTable;
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
  operator_identities: OperatorIdentitiesTable;
  operator_identity_history: OperatorIdentityHistoryTable;
  operator_links: OperatorLinksTable;
  holder_jti: HolderJtiTable;
  attestation_pop_jti: AttestationPopJtiTable;
  access_tokens: AccessTokensTable;
  authorization_requests: AuthorizationRequestsTable;
  credential_types: CredentialTypesTable;
  offers: OffersTable;
  spent_nonces: SpentNoncesTable;
  status_lists: StatusListsTable;
  issued_credentials: IssuedCredentialsTable;
  presentation_transactions: PresentationTransactionsTable;
  audit_head: AuditHeadTable;
  audit_log: AuditLogTable;
  outbox: OutboxTable;
  job_leases: JobLeasesTable;
  enrolment_types: EnrolmentTypesTable;
  members: MembersTable;
  coin_entries: CoinEntriesTable;
  proposals: ProposalsTable;
  votes: VotesTable;
  wallet_items: WalletItemsTable;
  channels: ChannelsTable;
  products: ProductsTable;
  deposits: DepositsTable;
  deposit_heads: DepositHeadsTable;
  share_settings: ShareSettingsTable;
  sharing_log: SharingLogTable;
  wallet_providers: WalletProvidersTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  integration_tokens: IntegrationTokensTable;
  rate_windows: RateWindowsTable;
  directory_listings: DirectoryListingsTable;
  directory_contacts: DirectoryContactsTable;
  onboarding_challenges: OnboardingChallengesTable;
  signin_tickets: SigninTicketsTable;
  account_sessions: AccountSessionsTable;
  erasure_receipts: ErasureReceiptsTable;
  partner_applications: PartnerApplicationsTable;
  partner_stage_history: PartnerStageHistoryTable;
  partner_team: PartnerTeamTable;
  partner_sessions: PartnerSessionsTable;
  approvals: ApprovalsTable;
  compliance_requests: ComplianceRequestsTable;
  attestations: AttestationsTable;
  incidents: IncidentsTable;
  type_purposes: TypePurposesTable;
  retention_rules: RetentionRulesTable;
  purge_runs: PurgeRunsTable;
  purge_slot: PurgeSlotTable;
  mail_outcomes: MailOutcomesTable;
  trusted_issuers: TrustedIssuersTable;
  agent_heartbeats: AgentHeartbeatsTable;
  backups: BackupsTable;
  backup_drills: BackupDrillsTable;
  type_validity: TypeValidityTable;
  type_key_attestation: TypeKeyAttestationTable;
  verification_counts: VerificationCountsTable;
  oidc_logins: OidcLoginsTable;
  operator_browser_sessions: OperatorBrowserSessionsTable;
}

/** Every message handed to the mail transport (migration 0031): never an address, subject or body. */
export interface MailOutcomesTable {
  id: string;
  at: number;
  /** `smtp` or `outbox`. */
  transport: string;
  ok: number;
  /** An SMTP reply code or a transport error code; null when the message was taken. */
  failure: string | null;
}

/** Issuers the hosted verifier accepts beyond the deployment's tenants (migration 0031). */
export interface TrustedIssuersTable {
  did: string;
  label: string;
  /** JSON: the DID document as resolved when the issuer was added. */
  document: string;
  /** `active`, `suspended` or `removed`. */
  state: string;
  added_by: string;
  added_at: number;
  changed_by: string;
  changed_at: number;
  reason: string | null;
}

/** The latest heartbeat of each automation agent of a tenant (migration 0032). */
export interface AgentHeartbeatsTable {
  tenant: string;
  agent: string;
  last_seen_at: number;
  beats: number;
  /** The operator or integration token that reported it, as the audit log names actors. */
  reported_by: string;
}

/** A backup taken (migration 0033). */
export interface BackupsTable {
  id: string;
  taken_at: number;
  /** The operator who asked for it, as the audit log names actors. */
  taken_by: string;
  /** `sqlite` or `postgres`. */
  engine: string;
  /** The backup file's name in the backup folder. */
  file: string;
  bytes: number;
  sha256: string;
  took_ms: number;
  /** JSON: the manifest, as written beside the file. */
  manifest: string;
}

/** A restore drill of a backup (migration 0033). */
export interface BackupDrillsTable {
  id: string;
  backup_id: string;
  /** `after-backup` or `scheduled`. */
  trigger: string;
  started_at: number;
  finished_at: number;
  ok: number;
  /** JSON: each check with its outcome and what it found. */
  checks: string;
}

/** A credential type's validity, set by operations (migration 0034). */
export interface TypeValidityTable {
  tenant: string;
  type_id: string;
  validity_days: number;
  set_at: number;
  /** The operator who set it, as the audit log names actors. */
  set_by: string;
}

/** A credential type whose proofs must carry a key attestation (migration 0041). */
export interface TypeKeyAttestationTable {
  tenant: string;
  type_id: string;
  /** JSON array of the key storage values accepted; null: any. */
  key_storage: string | null;
  /** JSON array of the user authentication values accepted; null: any. */
  user_authentication: string | null;
  set_at: number;
  /** The operator who set it, as the audit log names actors. */
  set_by: string;
}

/** Hosted presentation transactions rolled up before the sweep deletes them (migration 0035). */
export interface VerificationCountsTable {
  /** The UTC day the transactions were opened, as epoch milliseconds of its midnight. */
  day: number;
  tenant: string;
  type_id: string;
  requests: number;
  /** Answered by a wallet (an accepted or refused presentation, or a wallet error). */
  responses: number;
  accepted: number;
}

/** A sign-in waiting for the identity provider's answer (migration 0036). */
export interface OidcLoginsTable {
  /** SHA-256 of the `state` sent to the provider. */
  state_hash: string;
  /** SHA-256 of the value of the cookie that binds the sign-in to the browser that started it. */
  binder_hash: string;
  nonce: string;
  /** The PKCE code verifier. */
  verifier: string;
  /** The same-origin path to return to once signed in. */
  return_to: string;
  created_at: number;
  expires_at: number;
}

/** An operator's browser session (migration 0036): cookie `session`. */
export interface OperatorBrowserSessionsTable {
  /** SHA-256 of the cookie's value. */
  id_hash: string;
  username: string;
  /** `oidc` or `password`. */
  via: string;
  created_at: number;
  expires_at: number;
}
