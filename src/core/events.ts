/**
 * Events an integrator could act on (docs/events.md). Each is written to the outbox in the same
 * transaction as the change it reports, so a change and its event commit or vanish together.
 * Payloads carry identifiers and states, never claim values.
 */
export const EVENT_TYPES = [
  'credential.issued',
  'credential.revoked',
  'offer.created',
  'offer.expired',
  'presentation.completed',
  'presentation.failed',
  'deposit.created',
  'deposit.accepted',
  'channel.requested',
  'channel.activated',
  'channel.revoked',
  'member.enrolled',
  'member.updated',
  'proposal.opened',
  'proposal.created',
  'proposal.closed',
  'vote.cast',
  'partner.stage_changed',
  'org.created',
  'org.suspended',
  'org.reactivated',
  'key.rotated',
  'erasure.completed',
  'incident.opened',
  'incident.updated',
  'webhook.ping',
  'agent.acted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Names on the list that nothing writes yet (docs/events.md, "Reserved names"): emitting one does not type-check. */
export const RESERVED_EVENT_TYPES = [] as const satisfies readonly EventType[];

type Id = string;
/** RFC 3339 in UTC, with milliseconds. */
type Time = string;
/** A credential's entry in its tenant's status list. */
interface StatusEntry {
  uri: string;
  idx: number;
}
type Side = 'tenant' | 'holder';

/**
 * What each event's `data` holds, by type: the one map every emit site is checked against, the
 * activity feed reads, and test/events-docs.test.ts holds docs/events.md and docs/webhooks.md to.
 */
export interface EventPayloads {
  'credential.issued': { credentialId: Id; typeId: Id; offerId: Id; status: StatusEntry };
  'credential.revoked': { credentialId: Id; typeId: Id; status: StatusEntry; revokedAt: Time };
  'offer.created': { offerId: Id; typeId: Id; expiresAt: Time; itemId?: Id };
  'offer.expired': { offerId: Id; typeId: Id; redeemed: boolean };
  'presentation.completed': { transactionId: Id; vct: string };
  'presentation.failed': { transactionId: Id; vct: string; error: string; link: string };
  'deposit.created': { depositId: Id; itemId: Id; accountId: Id; kind: string; productId: Id };
  'deposit.accepted': { depositId: Id; itemId: Id; accountId: Id };
  'channel.requested': { accountId: Id; elements: string[]; by: Side; itemId?: Id };
  'channel.activated': { accountId: Id; elements: string[]; by: Side };
  'channel.revoked': { accountId: Id; by: Side };
  'member.enrolled': { accountId: Id; via: 'operator' | 'presentation'; tier: string };
  /** A change of tier, display name or status (`tier`, `status`), or a coin entry (`balance`). */
  'member.updated': { accountId: Id; changed: string[]; tier?: string; status?: string; balance?: number };
  'proposal.opened': { proposalId: Id; opensAt: Time; closesAt: Time };
  'proposal.created': { proposalId: Id; optionCount: number; tiers: string[] | null; opensAt: Time; closesAt: Time };
  'proposal.closed': {
    proposalId: Id;
    tally: { total: number; assisted: number; options: Array<{ option: string; votes: number; assisted: number }> };
  };
  'vote.cast': { proposalId: Id; assisted: boolean };
  'partner.stage_changed': { applicationId: Id; kind: string; from: string | null; to: string };
  'org.created': { slug: string; did: string; demo: boolean };
  'org.suspended': { slug: string; did: string; approvalId?: Id };
  'org.reactivated': { slug: string; did: string };
  'key.rotated': { did: string; kid: string; previousKid: string; approvalId: Id };
  'erasure.completed': { receiptId: Id; accountId: Id };
  'incident.opened': { incidentId: Id; severity: string; state: string; detectedAt: Time };
  'incident.updated': { incidentId: Id; severity: string; state: string; changed: string[] };
  'webhook.ping': { webhookId: Id; reason: 'registered' | 'activated' | 'ping' | 'secret-rotated' };
  'agent.acted': { agent: string; action: string; ref: string | null };
}

/** Every member of each payload, optional ones included: the type checker keeps it equal to EventPayloads. */
export const EVENT_FIELDS: { readonly [T in EventType]: { readonly [K in keyof EventPayloads[T]]-?: true } } = {
  'credential.issued': { credentialId: true, typeId: true, offerId: true, status: true },
  'credential.revoked': { credentialId: true, typeId: true, status: true, revokedAt: true },
  'offer.created': { offerId: true, typeId: true, expiresAt: true, itemId: true },
  'offer.expired': { offerId: true, typeId: true, redeemed: true },
  'presentation.completed': { transactionId: true, vct: true },
  'presentation.failed': { transactionId: true, vct: true, error: true, link: true },
  'deposit.created': { depositId: true, itemId: true, accountId: true, kind: true, productId: true },
  'deposit.accepted': { depositId: true, itemId: true, accountId: true },
  'channel.requested': { accountId: true, elements: true, by: true, itemId: true },
  'channel.activated': { accountId: true, elements: true, by: true },
  'channel.revoked': { accountId: true, by: true },
  'member.enrolled': { accountId: true, via: true, tier: true },
  'member.updated': { accountId: true, changed: true, tier: true, status: true, balance: true },
  'proposal.opened': { proposalId: true, opensAt: true, closesAt: true },
  'proposal.created': { proposalId: true, optionCount: true, tiers: true, opensAt: true, closesAt: true },
  'proposal.closed': { proposalId: true, tally: true },
  'vote.cast': { proposalId: true, assisted: true },
  'partner.stage_changed': { applicationId: true, kind: true, from: true, to: true },
  'org.created': { slug: true, did: true, demo: true },
  'org.suspended': { slug: true, did: true, approvalId: true },
  'org.reactivated': { slug: true, did: true },
  'key.rotated': { did: true, kid: true, previousKid: true, approvalId: true },
  'erasure.completed': { receiptId: true, accountId: true },
  'incident.opened': { incidentId: true, severity: true, state: true, detectedAt: true },
  'incident.updated': { incidentId: true, severity: true, state: true, changed: true },
  'webhook.ping': { webhookId: true, reason: true },
  'agent.acted': { agent: true, action: true, ref: true },
};

/** What a use case emits; the outbox gives it its id and time. `data` is the type's payload. */
export type EventInput = {
  [T in EventType]: {
    type: T;
    /** The tenant the event belongs to; `root` for the platform's own (hosted verification). */
    tenant: string;
    data: EventPayloads[T];
  };
}[EventType];

/** The envelope an endpoint receives (domain model, fixed): `{id, type, createdAt, tenant, data}`. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  createdAt: string;
  tenant: string;
  data: Record<string, unknown>;
}
