import type { AuditTrail } from './audit-trail.ts';
import type { EventOutbox } from './event-outbox.ts';

/** What every unit of work can record besides its own stores. */
export interface Recorders {
  audit: AuditTrail;
  events: EventOutbox;
}

/**
 * Runs a use case in one transaction (docs/architecture.md, "Use cases own the transaction").
 * The function receives stores bound to that transaction, plus the audit trail and the event
 * outbox: everything it writes commits together, or, when it throws, nothing does. A refusal is
 * a throw, so a refused use case leaves no row, no audit entry and no event.
 */
export interface UnitOfWork<S> {
  run<T>(work: (scope: S & Recorders) => Promise<T>): Promise<T>;
}
