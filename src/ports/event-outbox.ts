import type { EventInput } from '../core/events.ts';

/**
 * The event outbox (docs/events.md), written only inside a unit of work, so an event exists
 * exactly when its change committed. Delivery reads it later.
 */
export interface EventOutbox {
  /** Records the event and answers its id. */
  emit(event: EventInput): Promise<string>;
}
