import type { EventType } from '../../../core/events.ts';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import type { OutboxRow } from '../../../ports/kernel-views.ts';

/**
 * The activity feed's reading of outbox events (docs/backoffice/audit.md, "Activity"): each event
 * type belongs to one kind, and is told as one short English sentence made of identifiers,
 * states and counts from the event's payload, which never carries a claim value or personal data
 * (docs/events.md, "What a payload carries"). A value that does not look like an identifier is
 * shown as `?`, so a sentence cannot quote anything else.
 */

/** Every event type's kind: a Record over EventType, so a new event type does not compile until it has one. */
export const KIND_OF: Record<EventType, string> = {
  'offer.created': 'issuance',
  'offer.expired': 'issuance',
  'credential.issued': 'issuance',
  'credential.revoked': 'revocation',
  'presentation.completed': 'verification',
  'presentation.failed': 'verification',
  'member.enrolled': 'enrolment',
  'member.updated': 'membership',
  'deposit.created': 'deposit',
  'deposit.accepted': 'deposit',
  'channel.requested': 'channel',
  'channel.activated': 'channel',
  'channel.revoked': 'channel',
  'proposal.created': 'governance',
  'proposal.opened': 'governance',
  'proposal.closed': 'governance',
  'vote.cast': 'governance',
  'org.created': 'organisation',
  'org.suspended': 'organisation',
  'org.reactivated': 'organisation',
  'key.rotated': 'organisation',
  'partner.stage_changed': 'partner',
  'erasure.completed': 'erasure',
  'incident.opened': 'incident',
  'incident.updated': 'incident',
  'webhook.ping': 'webhook',
  'agent.acted': 'agent',
};

export const ACTIVITY_KINDS = [...new Set(Object.values(KIND_OF))].sort();

/** The event types of some kinds. */
export const typesOfKinds = (kinds: readonly string[]) =>
  (Object.keys(KIND_OF) as EventType[]).filter((type) => kinds.includes(KIND_OF[type]));

/** The ids an item refers to, by the payload field that carries them. */
export const REF_FIELDS = [
  'credentialId',
  'offerId',
  'typeId',
  'transactionId',
  'accountId',
  'proposalId',
  'depositId',
  'itemId',
  'productId',
  'applicationId',
  'receiptId',
  'webhookId',
] as const;

export type Refs = { eventId: string } & Partial<Record<(typeof REF_FIELDS)[number], string>>;

export interface ActivityItem {
  seq: number;
  at: number;
  type: string;
  kind: string;
  tenant: string;
  summary: string;
  refs: Refs;
}

const IDENTIFIER = /^[A-Za-z0-9._:/+-]{1,200}$/;
const id = (value: unknown) => (typeof value === 'string' && IDENTIFIER.test(value) ? value : '?');
const count = (value: unknown) => (Number.isSafeInteger(value) ? String(value) : '?');
const names = (value: unknown) => (Array.isArray(value) && value.length > 0 ? value.slice(0, 10).map(id).join(', ') : '?');

/**
 * The sentence of one event, its payload read as its type's; `tenant` is the tenant the event
 * concerns (the type's, for a presentation).
 */
function sentence({ type, data: d }: OutboxRow, tenant: string, urls: IssuerUrls): string {
  const t = id(tenant);
  switch (type) {
    case 'offer.created':
      return `${t} created offer ${id(d.offerId)} of type ${id(d.typeId)}${d.itemId === undefined ? '' : ` for wallet item ${id(d.itemId)}`}.`;
    case 'offer.expired':
      return `Offer ${id(d.offerId)} of type ${id(d.typeId)} from ${t} ended without a credential collected${d.redeemed === true ? ' (its code had been redeemed)' : ''}.`;
    case 'credential.issued':
      return `${t} issued credential ${id(d.credentialId)} of type ${id(d.typeId)} on offer ${id(d.offerId)}.`;
    case 'credential.revoked':
      return `${t} revoked credential ${id(d.credentialId)} of type ${id(d.typeId)}.`;
    case 'presentation.completed':
    case 'presentation.failed': {
      const named = typeof d.vct === 'string' ? urls.parseVct(d.vct) : undefined;
      const what = named ? `a credential of type ${id(named.typeId)} from ${id(named.tenant)}` : 'a credential';
      return type === 'presentation.completed'
        ? `Verification ${id(d.transactionId)} accepted ${what}.`
        : `Verification ${id(d.transactionId)} refused ${what}: ${id(d.error)} at ${id(d.link)}.`;
    }
    case 'member.enrolled':
      return `Account ${id(d.accountId)} enrolled with ${t} via ${id(d.via)}, tier ${id(d.tier)}.`;
    case 'member.updated':
      return `${t} updated member ${id(d.accountId)}: ${names(d.changed)}.`;
    case 'deposit.created':
      return `${t} deposited ${id(d.depositId)} (${id(d.kind)}) for account ${id(d.accountId)}.`;
    case 'deposit.accepted':
      return `Account ${id(d.accountId)} accepted deposit ${id(d.depositId)} from ${t}.`;
    case 'channel.requested':
      return `A channel between ${t} and account ${id(d.accountId)} was requested by the ${id(d.by)}.`;
    case 'channel.activated':
      return `The channel between ${t} and account ${id(d.accountId)} was activated by the ${id(d.by)}.`;
    case 'channel.revoked':
      return `The channel between ${t} and account ${id(d.accountId)} was revoked by the ${id(d.by)}.`;
    case 'proposal.created':
      return `${t} drafted proposal ${id(d.proposalId)} with ${count(d.optionCount)} options.`;
    case 'proposal.opened':
      return `${t} opened proposal ${id(d.proposalId)} for voting.`;
    case 'proposal.closed': {
      const tally = d.tally as Record<string, unknown> | null | undefined;
      return `${t} closed proposal ${id(d.proposalId)} with ${count(tally?.total)} votes.`;
    }
    case 'vote.cast':
      return `A vote was cast on proposal ${id(d.proposalId)} of ${t}${d.assisted === true ? ', assisted at the desk' : ''}.`;
    case 'org.created':
      return `Organisation ${id(d.slug ?? tenant)} was created${d.demo === true ? ' (demonstration)' : ''}.`;
    case 'org.suspended':
      return `Organisation ${t} was suspended.`;
    case 'org.reactivated':
      return `Organisation ${t} was reactivated.`;
    case 'key.rotated':
      return `A signing key of ${t} was rotated.`;
    case 'partner.stage_changed':
      return d.from === null || d.from === undefined
        ? `Partner application ${id(d.applicationId)} (${id(d.kind)}) was filed.`
        : `Partner application ${id(d.applicationId)} moved from ${id(d.from)} to ${id(d.to)}.`;
    case 'erasure.completed':
      return `Account ${id(d.accountId)} was erased; ${t} was told (receipt ${id(d.receiptId)}).`;
    case 'incident.opened':
      return `Incident ${id(d.incidentId)} was opened (${id(d.severity)}).`;
    case 'incident.updated':
      return `Incident ${id(d.incidentId)} was updated: now ${id(d.state)}, ${id(d.severity)}.`;
    case 'webhook.ping':
      return `Webhook ${id(d.webhookId)} of ${t} was pinged (${id(d.reason)}).`;
    case 'agent.acted':
      return `Agent ${id(d.agent)} of ${t} did ${id(d.action)}${d.ref === null || d.ref === undefined ? '' : ` on ${id(d.ref)}`}.`;
    default:
      return `Event ${id(type)} of ${t}.`;
  }
}

/** An outbox row as a feed item. */
export function activityItem(row: OutboxRow, urls: IssuerUrls): ActivityItem {
  const data: Readonly<Record<string, unknown>> = row.data;
  const presentation = row.type.startsWith('presentation.');
  const named = presentation && typeof data.vct === 'string' ? urls.parseVct(data.vct) : undefined;
  const tenant = named?.tenant ?? row.tenant;
  const refs: Refs = { eventId: row.id };
  for (const field of REF_FIELDS) {
    const value = data[field];
    if (typeof value === 'string' && IDENTIFIER.test(value)) refs[field] = value;
  }
  if (named && refs.typeId === undefined) refs.typeId = named.typeId;
  return {
    seq: row.seq,
    at: row.createdAt,
    type: row.type,
    kind: KIND_OF[row.type] ?? 'other',
    tenant,
    summary: sentence(row, tenant, urls),
    refs,
  };
}
