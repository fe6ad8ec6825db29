import type { AuditTrail } from './audit-trail.ts';
import type { EventOutbox } from './event-outbox.ts';

/** What a unit of work hands its function: the recorders written in its transaction. */
export interface Recorders {
  audit: AuditTrail;
  events: EventOutbox;
}

/**
 * Runs a use case in one transaction (docs/architecture.md, "Use cases own the transaction").
 * What is called inside `run`'s function is in the transaction: the service's own stores, the
 * services of other modules, and the audit trail and event outbox the function is handed. What
 * is called outside it is not: a store call before or after `run` is a statement of its own.
 * Everything written inside commits together or, when the function throws, not at all: a refusal
 * is a throw, so a refused use case leaves no row, no audit entry and no event.
 *
 * The stores are not handed to the function: the service holds them, once, in its deps, and they
 * join the running transaction by themselves (the ambient transaction, decision 0020).
 */
export interface UnitOfWork {
  run<T>(work: (recorders: Recorders) => Promise<T>): Promise<T>;
}
