import type { EventInput } from '../core/events.ts';

/**
 * The event outbox (docs/events.md), written only inside a unit of work, so an event exists
 * exactly when its change committed. Delivery reads it later.
 */
export interface EventOutbox {
  /**
   * Records the event and answers its id. `at`: when what it tells of happened, where that moment
   * is already fixed (an audit entry's `at`, for the events given with it); the clock's now if absent.
   */
  emit(event: EventInput, at?: number): Promise<string>;
}
