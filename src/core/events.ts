import { type Static, type TObject, Type } from '@sinclair/typebox';

/**
 * Events an integrator could act on (docs/events.md). Each is written to the outbox in the same
 * transaction as the change it reports, so a change and its event commit or vanish together.
 * Payloads carry identifiers and states, never claim values.
 */
const Id = Type.String();
/** RFC 3339 in UTC, with milliseconds. */
const Time = Type.String();
/** A credential's entry in its tenant's status list. */
const StatusEntry = Type.Object({ uri: Type.String(), idx: Type.Number() });
const Side = Type.Union([Type.Literal('tenant'), Type.Literal('holder')]);
const Strings = Type.Array(Type.String());

/**
 * Every event a use case may emit, by type, with what its `data` holds: the one map every emit site
 * is checked against, the envelope's readers (the outbox, webhook delivery, the activity feed) read
 * as, and test/events-docs.test.ts holds docs/events.md and docs/webhooks.md to. Its order is the
 * order the names are listed in (a webhook's `events`, the envelope contract).
 */
export const EVENTS = {
  'credential.issued': Type.Object({ credentialId: Id, typeId: Id, offerId: Id, status: StatusEntry }),
  'credential.revoked': Type.Object({ credentialId: Id, typeId: Id, status: StatusEntry, revokedAt: Time }),
  'offer.created': Type.Object({ offerId: Id, typeId: Id, expiresAt: Time, itemId: Type.Optional(Id) }),
  'offer.expired': Type.Object({ offerId: Id, typeId: Id, redeemed: Type.Boolean() }),
  'presentation.completed': Type.Object({ transactionId: Id, vct: Type.String() }),
  'presentation.failed': Type.Object({ transactionId: Id, vct: Type.String(), error: Type.String(), link: Type.String() }),
  'deposit.created': Type.Object({ depositId: Id, itemId: Id, accountId: Id, kind: Type.String(), productId: Id }),
  'deposit.accepted': Type.Object({ depositId: Id, itemId: Id, accountId: Id }),
  'channel.requested': Type.Object({ accountId: Id, elements: Strings, by: Side, itemId: Type.Optional(Id) }),
  'channel.activated': Type.Object({ accountId: Id, elements: Strings, by: Side }),
  'channel.revoked': Type.Object({ accountId: Id, by: Side }),
  'member.enrolled': Type.Object({
    accountId: Id,
    via: Type.Union([Type.Literal('operator'), Type.Literal('presentation')]),
    tier: Type.String(),
  }),
  /** A change of tier, display name or status (`tier`, `status`), or a coin entry (`balance`). */
  'member.updated': Type.Object({
    accountId: Id,
    changed: Strings,
    tier: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    balance: Type.Optional(Type.Number()),
  }),
  'proposal.opened': Type.Object({ proposalId: Id, opensAt: Time, closesAt: Time }),
  'proposal.created': Type.Object({
    proposalId: Id,
    optionCount: Type.Number(),
    tiers: Type.Union([Strings, Type.Null()]),
    opensAt: Time,
    closesAt: Time,
  }),
  'proposal.closed': Type.Object({
    proposalId: Id,
    tally: Type.Object({
      total: Type.Number(),
      assisted: Type.Number(),
      options: Type.Array(Type.Object({ option: Type.String(), votes: Type.Number(), assisted: Type.Number() })),
    }),
  }),
  'vote.cast': Type.Object({ proposalId: Id, assisted: Type.Boolean() }),
  'partner.stage_changed': Type.Object({
    applicationId: Id,
    kind: Type.String(),
    from: Type.Union([Type.String(), Type.Null()]),
    to: Type.String(),
  }),
  'org.created': Type.Object({ slug: Type.String(), did: Type.String(), demo: Type.Boolean() }),
  'org.suspended': Type.Object({ slug: Type.String(), did: Type.String(), approvalId: Type.Optional(Id) }),
  'org.reactivated': Type.Object({ slug: Type.String(), did: Type.String() }),
  'key.rotated': Type.Object({ did: Type.String(), kid: Type.String(), previousKid: Type.String(), approvalId: Id }),
  'erasure.completed': Type.Object({ receiptId: Id, accountId: Id }),
  'incident.opened': Type.Object({ incidentId: Id, severity: Type.String(), state: Type.String(), detectedAt: Time }),
  'incident.updated': Type.Object({ incidentId: Id, severity: Type.String(), state: Type.String(), changed: Strings }),
  'webhook.ping': Type.Object({
    webhookId: Id,
    reason: Type.Union([
      Type.Literal('registered'),
      Type.Literal('activated'),
      Type.Literal('ping'),
      Type.Literal('secret-rotated'),
    ]),
  }),
  'agent.acted': Type.Object({ agent: Type.String(), action: Type.String(), ref: Type.Union([Type.String(), Type.Null()]) }),
} satisfies Record<string, TObject>;

export type EventType = keyof typeof EVENTS;

export const EVENT_TYPES = Object.keys(EVENTS) as EventType[];

/** What each event's `data` holds, by type. */
export type EventPayloads = { [T in EventType]: Static<(typeof EVENTS)[T]> };

/** Every member of a type's payload, optional ones included. */
export const eventFields = (type: EventType): string[] => Object.keys(EVENTS[type].properties);

/** Names on the list that nothing writes yet (docs/events.md, "Reserved names"): emitting one does not type-check. */
export const RESERVED_EVENT_TYPES = [] as const satisfies readonly EventType[];

/** An event of each type, its `data` that type's payload, with what its holder adds (`E`). */
export type EventOf<E = unknown> = {
  [T in EventType]: {
    type: T;
    /** The tenant the event belongs to; `root` for the platform's own (hosted verification). */
    tenant: string;
    data: EventPayloads[T];
  } & E;
}[EventType];

/** What a use case emits; the outbox gives it its id and time. */
export type EventInput = EventOf;

/** The envelope an endpoint receives (domain model, fixed): `{id, type, createdAt, tenant, data}`. */
export type EventEnvelope = EventOf<{ id: string; createdAt: string }>;
