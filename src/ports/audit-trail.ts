import type { Actor } from '../core/actor.ts';
import type { EventInput } from '../core/events.ts';

export interface AuditInput {
  actor: Actor;
  /** What happened, `<object>.<verb>`: `tenant.created`, `offer.created`, `credential.revoked`. */
  action: string;
  /**
   * The tenant the change belongs to: the tenant acted on, or for an operator account its tenant
   * scope; null for what belongs to no tenant (a platform operator, a hosted verification).
   */
  tenant: string | null;
  /** The id of the object acted on, when it has one. */
  target?: string;
  /** Identifiers and states that explain the change; never a secret, a code or a claim value. */
  detail?: Record<string, unknown>;
}

/**
 * The hash-chained audit log (docs/audit.md), written only inside a unit of work, so an entry
 * exists exactly when its change committed.
 */
export interface AuditTrail {
  /**
   * Appends one entry and answers its sequence number (`auditSeq`). The events given are emitted
   * with it, as the unit of work's outbox would emit them, in the same statement where the engine
   * allows (PostgreSQL: the head's move, the entry and the events are one round trip).
   */
  append(entry: AuditInput, events?: readonly EventInput[]): Promise<number>;
}
