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
  'webhook.ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What a use case emits; the outbox gives it its id and time. */
export interface EventInput {
  type: EventType;
  /** The tenant the event belongs to; `root` for the platform's own (hosted verification). */
  tenant: string;
  data: Record<string, unknown>;
}

/** The envelope an endpoint receives (domain model, fixed): `{id, type, createdAt, tenant, data}`. */
export interface EventEnvelope extends EventInput {
  id: string;
  createdAt: string;
}
