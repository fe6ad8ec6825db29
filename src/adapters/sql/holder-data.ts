import type { ErasurePart } from '../../ports/account-erasure-store.ts';
import type { TimelineSource } from '../../ports/backoffice-views.ts';
import type { LookupKey } from '../../ports/compliance-store.ts';
import type { Database } from './schema.ts';

/**
 * The holder-data registry (docs/holder-data.md): every column that names a person the service
 * knows — a holder's account, a partner's contact, an operator — with what an erasure does to it,
 * whether the account export carries it, and which timeline source shows it. The account erasure
 * (account/sql-account-erasure-store.ts) erases and verifies by it, the back-office timeline takes an
 * account's sources from it, and holder-data.test.ts fails when a migration adds a column that
 * looks like it names someone and is not written here.
 */

/** Whose column it is. */
export type SubjectKind = 'account' | 'partner-contact' | 'operator';

/**
 * What erasing an account does to the column's rows: `delete` them; `unlink` them (the row stays,
 * what names the account is overwritten by `set`, `pseudonym` names a column given an id that
 * names nobody); `end` (the erasure's own code: offers); `expires` (kept, bounded by the row's
 * expiry, never longer than `bound`); `kept` (the erasure leaves it, for the reason given).
 */
export type EraseRule =
  | { rule: 'delete'; part: ErasurePart }
  | {
      rule: 'unlink';
      part: ErasurePart;
      set?: (now: number) => Record<string, string | number | null>;
      pseudonym?: string;
    }
  | { rule: 'end'; part: ErasurePart }
  | { rule: 'expires'; bound: string }
  | { rule: 'kept'; why: string };

type Table = keyof Database & string;

/**
 * How a column holds its identifier: `equals` (the value itself; e-mail addresses compared without
 * case), `label` (the value or its actor label, `holder:<id>`, `operator:<username>`,
 * `partner:<memberId>`, docs/audit.md), `mentions` (anywhere inside JSON text), `names` (a string
 * of JSON text that is the value or its actor label: a short username is not found inside a word).
 */
export type LookupMatch = 'equals' | 'label' | 'mentions' | 'names';

export interface Lookup {
  by: readonly LookupKey[];
  match: LookupMatch;
}

export interface HolderColumn {
  table: Table;
  column: string;
  names: SubjectKind;
  /** What the rows are, in a person's words (the data page, the compliance inventory). */
  category: string;
  erase: EraseRule;
  /**
   * The section of `openrail-account-export/2` that carries it, or why the export does not:
   * `memberships` and `coinLedger` the membership module answers; a section of `records` names
   * the columns of the account's rows it carries (a column ending in `_at` as a time, those in
   * `json` parsed).
   */
  export:
    | { section: 'memberships' | 'coinLedger' }
    | { section: string; columns: readonly string[]; json?: readonly string[] }
    | { not: string };
  /** The timeline sources that show it for an account subject, if any do. */
  timeline?: readonly TimelineSource[];
  /** The column of the row that names its tenant (an erasure reports how many tenants held something). */
  tenant?: string;
  /** Other columns of the same row that say something about the person, gone with it. */
  also?: readonly string[];
  /**
   * How a data-subject lookup finds the person here, when it is not the default (an account
   * column holds the account id; an operator column the username or its actor label), or `none`
   * with the reason the rows are found another way.
   */
  lookup?: Partial<Lookup> | { none: string };
}

const OPERATOR_KEPT = 'operators are offboarded by suspension; what they did stays attributable';
const AUDIT_KEPT = 'the audit chain is append-only and hash-linked; it records the erasure itself';
const NOT_EXPORTED =
  'bookkeeping about the account rather than its own records: the data-subject lookup counts it (docs/account.md, "Export")';

export const HOLDER_DATA: readonly HolderColumn[] = [
  // A holder's account. The erasure runs these in this order; offers first, through the wallet items
  // that point at them, before those items are deleted.
  {
    table: 'offers',
    column: 'subject',
    names: 'account',
    lookup: { none: "the claims an offer was made with, not the account id: the lookup finds the offer's wallet item" },
    category: 'offers made out to the account',
    erase: { rule: 'end', part: 'offers' },
    export: { not: NOT_EXPORTED },
    timeline: ['offer'],
  },
  {
    table: 'deposits',
    column: 'account_id',
    names: 'account',
    category: 'deposits',
    erase: {
      rule: 'unlink',
      part: 'deposits',
      set: (now) => ({ body: '', body_hash: '', account_id: '', erased_at: now }),
    },
    export: {
      section: 'deposits',
      columns: ['tenant', 'deposit_id', 'product_id', 'item_id', 'body', 'created_at'],
      json: ['body'],
    },
    timeline: ['deposit'],
    tenant: 'tenant',
    also: ['body'],
  },
  {
    table: 'wallet_items',
    column: 'account_id',
    names: 'account',
    category: 'wallet items',
    erase: { rule: 'delete', part: 'walletItems' },
    export: {
      section: 'walletItems',
      columns: ['id', 'tenant', 'kind', 'title', 'state', 'created_at', 'updated_at', 'expires_at'],
    },
    timeline: ['item'],
    tenant: 'tenant',
  },
  {
    table: 'share_settings',
    column: 'account_id',
    names: 'account',
    category: 'sharing settings',
    erase: { rule: 'delete', part: 'shareSettings' },
    export: { section: 'sharingSettings', columns: ['item_id', 'tenant', 'elements'], json: ['elements'] },
  },
  {
    table: 'sharing_log',
    column: 'account_id',
    names: 'account',
    category: 'sharing log',
    erase: { rule: 'delete', part: 'sharingLog' },
    export: { section: 'sharingLog', columns: ['id', 'item_id', 'tenant', 'elements', 'at'], json: ['elements'] },
  },
  {
    table: 'channels',
    column: 'account_id',
    names: 'account',
    category: 'channels',
    erase: { rule: 'delete', part: 'channels' },
    export: {
      section: 'channels',
      columns: ['tenant', 'state', 'elements', 'requested_by', 'created_at', 'updated_at'],
      json: ['elements'],
    },
    timeline: ['channel'],
    tenant: 'tenant',
  },
  {
    table: 'coin_entries',
    column: 'account_id',
    names: 'account',
    category: 'coin ledger',
    erase: { rule: 'delete', part: 'coinEntries' },
    export: { section: 'coinLedger' },
  },
  {
    table: 'members',
    column: 'account_id',
    names: 'account',
    category: 'memberships',
    erase: { rule: 'delete', part: 'members' },
    export: { section: 'memberships' },
    timeline: ['membership'],
    tenant: 'tenant',
    also: ['display_name'],
  },
  {
    table: 'votes',
    column: 'account_id',
    names: 'account',
    category: 'votes',
    // One id for all of the account's votes: a proposal holds one vote per account, so it stays unique.
    erase: { rule: 'unlink', part: 'votes', pseudonym: 'erased:' },
    export: { section: 'votes', columns: ['tenant', 'proposal_id', 'option', 'assisted', 'cast_at'] },
  },
  {
    table: 'directory_contacts',
    column: 'account_id',
    names: 'account',
    category: 'directory contacts',
    erase: { rule: 'delete', part: 'directoryContacts' },
    export: { not: NOT_EXPORTED },
    also: ['entry'],
  },
  {
    table: 'directory_listings',
    column: 'account_id',
    names: 'account',
    category: 'directory listings',
    erase: { rule: 'delete', part: 'directoryListings' },
    export: { section: 'directoryListing', columns: ['community', 'display_name', 'created_at', 'updated_at'] },
    also: ['display_name', 'name_key'],
  },
  {
    table: 'issued_credentials',
    column: 'holder_thumbprint',
    names: 'account',
    category: 'credentials issued to the account',
    // The credential stays revocable by its status entry; its holder key is dropped.
    erase: { rule: 'unlink', part: 'credentials', set: () => ({ holder_thumbprint: '' }) },
    export: { section: 'credentials', columns: ['id', 'tenant', 'type_id', 'issued_at', 'revoked_at'] },
    timeline: ['credential', 'revocation'],
    tenant: 'tenant',
  },
  {
    table: 'presentation_transactions',
    column: 'holder_thumbprint',
    names: 'account',
    category: 'verifications the account answered',
    erase: { rule: 'unlink', part: 'presentations', set: () => ({ holder_thumbprint: null }) },
    export: { not: NOT_EXPORTED },
  },
  {
    table: 'signin_tickets',
    column: 'approved_account',
    names: 'account',
    category: 'sign-in approvals',
    erase: { rule: 'delete', part: 'signinTickets' },
    export: { not: NOT_EXPORTED },
  },
  {
    table: 'account_sessions',
    column: 'account_id',
    names: 'account',
    category: 'portal sessions',
    erase: { rule: 'delete', part: 'sessions' },
    export: { not: NOT_EXPORTED },
  },
  {
    table: 'approvals',
    column: 'account_id',
    names: 'account',
    category: 'back-office requests about the account',
    erase: { rule: 'delete', part: 'approvals' },
    export: { not: NOT_EXPORTED },
  },
  {
    table: 'holder_jti',
    column: 'account_id',
    names: 'account',
    category: 'replay guard of signed holder requests',
    erase: { rule: 'expires', bound: 'until the signed request could no longer be fresh (at most 301 seconds)' },
    export: { not: 'a replay guard, not data about the holder' },
  },
  {
    table: 'audit_log',
    column: 'actor',
    names: 'account',
    lookup: { match: 'label' },
    category: 'audit entries of what the account did',
    erase: { rule: 'kept', why: AUDIT_KEPT },
    export: { not: NOT_EXPORTED },
    timeline: ['audit'],
  },
  {
    table: 'audit_log',
    column: 'target',
    names: 'account',
    lookup: { match: 'label' },
    category: 'audit entries about the account',
    erase: { rule: 'kept', why: AUDIT_KEPT },
    export: { not: NOT_EXPORTED },
  },
  {
    table: 'audit_log',
    column: 'detail',
    names: 'account',
    lookup: { match: 'names' },
    category: 'audit entries whose details name the account',
    erase: { rule: 'kept', why: AUDIT_KEPT },
    export: { not: NOT_EXPORTED },
  },
  {
    table: 'outbox',
    column: 'data',
    names: 'account',
    lookup: { match: 'mentions' },
    category: 'events that name the account',
    erase: { rule: 'expires', bound: '30 days after the event was written (docs/webhooks.md, "Retention")' },
    export: { not: NOT_EXPORTED },
    timeline: ['event'],
  },
  {
    table: 'webhook_deliveries',
    column: 'payload',
    names: 'account',
    lookup: { match: 'mentions' },
    category: 'webhook deliveries of those events',
    erase: { rule: 'expires', bound: '30 days after the delivery finished (docs/webhooks.md, "Retention")' },
    export: { not: NOT_EXPORTED },
  },

  // A partner's contacts (docs/partners.md).
  {
    table: 'partner_applications',
    column: 'contact_email',
    names: 'partner-contact',
    lookup: { by: ['email'] },
    category: 'partner applications',
    erase: { rule: 'kept', why: 'kept while the application is open or its organisation is a partner' },
    export: { not: 'partner contacts are answered by the partner portal, not the account export' },
    also: ['contact_name'],
  },
  {
    table: 'partner_team',
    column: 'email',
    names: 'partner-contact',
    lookup: { by: ['email'] },
    category: 'partner team members',
    erase: { rule: 'kept', why: 'kept while the member is on the team; the partner removes members' },
    export: { not: 'partner contacts are answered by the partner portal, not the account export' },
  },
  {
    table: 'partner_sessions',
    column: 'member_id',
    names: 'partner-contact',
    lookup: { by: ['member'] },
    category: 'partner portal sessions',
    erase: { rule: 'expires', bound: 'the partner session lifetime' },
    export: { not: 'a session, not data about the contact' },
  },

  {
    table: 'audit_log',
    column: 'actor',
    names: 'partner-contact',
    category: 'audit entries of what the team member did',
    erase: { rule: 'kept', why: 'the audit chain is append-only and hash-linked' },
    export: { not: 'partner contacts are answered by the partner portal, not the account export' },
    lookup: { by: ['member'], match: 'label' },
  },
  {
    table: 'audit_log',
    column: 'target',
    names: 'partner-contact',
    category: 'audit entries about the contact',
    erase: { rule: 'kept', why: 'the audit chain is append-only and hash-linked' },
    export: { not: 'partner contacts are answered by the partner portal, not the account export' },
    lookup: { by: ['member', 'email'], match: 'label' },
  },
  {
    table: 'audit_log',
    column: 'detail',
    names: 'partner-contact',
    category: 'audit entries whose details name the contact',
    erase: { rule: 'kept', why: 'the audit chain is append-only and hash-linked' },
    export: { not: 'partner contacts are answered by the partner portal, not the account export' },
    lookup: { by: ['member', 'email'], match: 'names' },
  },

  // Data-subject requests (docs/backoffice/compliance.md): the request stays as proof it was
  // answered; an erased account's id leaves it.
  {
    table: 'compliance_requests',
    column: 'account_id',
    names: 'account',
    category: 'data-subject requests about the account',
    erase: { rule: 'unlink', part: 'complianceRequests', set: () => ({ account_id: null }) },
    export: {
      section: 'requests',
      columns: ['id', 'kind', 'state', 'received_at', 'due_at', 'decided_at', 'outcome'],
    },
  },
  {
    table: 'compliance_requests',
    column: 'identifier',
    names: 'partner-contact',
    category: 'data-subject requests made by e-mail address or username',
    erase: { rule: 'kept', why: 'proof that the request was answered, kept with the compliance records' },
    export: { not: 'a record of the request, answered by the request itself' },
    lookup: { by: ['email', 'username'] },
  },

  // Operators (docs/backoffice.md).
  ...operatorColumns(),
];

function operatorColumns(): HolderColumn[] {
  const columns: Array<[Table, string, string]> = [
    ['operators', 'username', 'operator accounts'],
    ['operators', 'email', 'operator accounts'],
    ['operator_sessions', 'username', 'operator sessions'],
    ['operator_browser_sessions', 'username', 'operator sessions'],
    ['operator_identities', 'username', 'linked sign-in identities'],
    ['operator_identities', 'subject', 'linked sign-in identities'],
    ['operator_identity_history', 'username', 'linked sign-in identities'],
    ['operator_identity_history', 'subject', 'linked sign-in identities'],
    ['operator_links', 'username', 'who created or invited whom'],
    ['operator_links', 'linked_to', 'who created or invited whom'],
    ['org_lifecycle', 'actor', 'organisation status changes'],
    ['audit_log', 'actor', 'audit entries of what the operator did'],
    ['audit_log', 'target', 'audit entries about the operator'],
    ['audit_log', 'detail', 'audit entries whose details name the operator'],
    ['approvals', 'requested_by', 'back-office requests, token provisioning included'],
    ['approvals', 'decided_by', 'back-office requests, token provisioning included'],
    ['integration_tokens', 'created_by', 'integration tokens'],
    ['presentation_transactions', 'requested_by', 'verifications opened on the operator plane'],
    ['integration_tokens', 'revoked_by', 'integration tokens'],
    ['webhooks', 'created_by', 'webhooks'],
    ['partner_applications', 'created_by', 'partner applications'],
    ['partner_stage_history', 'actor', 'partner stage changes'],
    ['partner_team', 'added_by', 'partner team members'],
    ['compliance_requests', 'filed_by', 'data-subject requests filed or decided'],
    ['compliance_requests', 'decided_by', 'data-subject requests filed or decided'],
    ['attestations', 'username', "attestations of the deployment's statements"],
    ['incidents', 'opened_by', 'incidents opened'],
    ['type_purposes', 'bound_by', 'purposes bound to credential types'],
    ['retention_rules', 'updated_by', 'retention rules and purges'],
    ['purge_runs', 'requested_by', 'retention rules and purges'],
    ['trusted_issuers', 'added_by', 'the trust registry'],
    ['trusted_issuers', 'changed_by', 'the trust registry'],
    ['agent_heartbeats', 'reported_by', 'automation agents’ heartbeats'],
    ['backups', 'taken_by', 'backups taken'],
    ['type_validity', 'set_by', 'credential types’ validity'],
    ['type_key_attestation', 'set_by', 'credential types’ key attestation requirements'],
  ];
  const lookups: Record<string, HolderColumn['lookup']> = {
    'operators.email': { by: ['email'] },
    'audit_log.detail': { by: ['username', 'email'], match: 'names' },
    'operator_identities.subject': { none: "an identity provider's subject: its rows are found by their username" },
    'operator_identity_history.subject': { none: "an identity provider's subject: its rows are found by their username" },
  };
  return columns.map(([table, column, category]) => {
    const lookup = lookups[`${table}.${column}`];
    return {
      table,
      column,
      names: 'operator',
      category,
      erase: { rule: 'kept', why: OPERATOR_KEPT },
      export: { not: 'operators are not holders' },
      ...(lookup ? { lookup } : {}),
    };
  });
}

/** Why an erasure leaves the column's rows, or how long they stay: for the rules that keep them. */
export function erasureNoteOf(c: HolderColumn): string | null {
  return c.erase.rule === 'kept' ? c.erase.why : c.erase.rule === 'expires' ? c.erase.bound : null;
}

/** How a lookup finds the person in this column; undefined when it does not look here. */
export function lookupOf(c: HolderColumn): Lookup | undefined {
  if (c.lookup !== undefined && 'none' in c.lookup) return undefined;
  const fallback: Lookup =
    c.names === 'account'
      ? { by: ['account'], match: 'equals' }
      : { by: ['username'], match: c.names === 'operator' ? 'label' : 'equals' };
  return { ...fallback, ...c.lookup };
}

/**
 * Columns whose names look like they name someone and do not (the reason beside each): the
 * schema test accepts them without a registry entry.
 */
export const NOT_A_SUBJECT: Readonly<Record<string, string>> = {
  'channels.requested_by': 'which side asked for the channel (holder or tenant), not who',
  'tenants.display_name': "an organisation's name",
  'wallet_providers.contact': "a wallet provider's published contact address, not a person's",
};

/** A column name that suggests it names a person: the schema test holds every such column to the registry. */
export const LOOKS_LIKE_A_SUBJECT =
  /(^|_)(account|accounts|holder_thumbprint|email|contact|contact_name|username|member_id|actor|subject|linked_to|display_name)(_id)?$|_by$/;

/** The registry's account columns in erasure order. */
export const ACCOUNT_COLUMNS = HOLDER_DATA.filter((c) => c.names === 'account');

/** An account's timeline sources (the back office's timeline): those the registry names for the columns that hold it. */
export const ACCOUNT_TIMELINE_SOURCES: ReadonlySet<TimelineSource> = new Set(ACCOUNT_COLUMNS.flatMap((c) => c.timeline ?? []));

/**
 * Columns of a schema (as `table.column`) that look like they name someone and are neither in the
 * registry nor in NOT_A_SUBJECT; and registry entries whose column the schema does not have.
 */
export function registryGaps(columns: ReadonlyArray<{ table: string; column: string }>): {
  unregistered: string[];
  stale: string[];
} {
  const present = new Set(columns.map((c) => `${c.table}.${c.column}`));
  const registered = new Set(HOLDER_DATA.flatMap((c) => [c.column, ...(c.also ?? [])].map((col) => `${c.table}.${col}`)));
  const unregistered = [...present]
    .filter((key) => LOOKS_LIKE_A_SUBJECT.test(key.split('.')[1] ?? '') && !registered.has(key) && !(key in NOT_A_SUBJECT))
    .sort();
  const stale = [...registered, ...Object.keys(NOT_A_SUBJECT)].filter((key) => !present.has(key)).sort();
  return { unregistered, stale };
}
