import { insideTransaction } from '../../app/transactions.ts';
import type { Clock } from '../../core/clock.ts';
import type { IssuedCredentialStore, ListRef, ListShape } from '../../ports/issued-credential-store.ts';

/**
 * Status-list entries this process may hand out, reserved from the database a block at a time
 * (decision 0007). The reservation only counts: which index a credential gets is still drawn at
 * random over the whole list when it is collected, and the unique (tenant, list, index) key still
 * decides, so an index is never handed out twice and never predictable. What a block saves is
 * the write to the list's row on every issuance, the one row every issuance of a tenant would
 * otherwise queue on (on PostgreSQL, across processes).
 *
 * Held in memory and safe to lose: a process that stops leaves at most one block's entries
 * counted but unused, which only fills a list (of which half is ever used) a little sooner.
 */
export class StatusSlots {
  private readonly held = new Map<string, { list: ListRef; left: number }>();
  private readonly refilling = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Pick<IssuedCredentialStore, 'reserveSlots'>,
    private readonly shape: ListShape,
    private readonly block: number,
    private readonly clock: Clock,
  ) {}

  /** One list per credential to be issued, each entry already counted against its capacity. */
  async take(tenant: string, count: number): Promise<ListRef[]> {
    // A block is counted on its own: taken inside a unit of work, a rollback would uncount a block
    // this process still held (and on PostgreSQL the list's row would stay locked until it ends).
    if (insideTransaction()) throw new Error('status-list entries are taken before a unit of work, never inside one');
    const lists: ListRef[] = [];
    while (lists.length < count) {
      const held = this.held.get(tenant);
      if (!held || held.left === 0) {
        await this.refill(tenant, count - lists.length);
        continue;
      }
      held.left--;
      lists.push(held.list);
    }
    return lists;
  }

  /** One reservation at a time per tenant: concurrent takers wait for the same one. */
  private refill(tenant: string, need: number): Promise<void> {
    let pending = this.refilling.get(tenant);
    if (!pending) {
      pending = this.store
        .reserveSlots(tenant, Math.max(need, this.block), this.shape, this.clock.now())
        .then((r) => {
          this.held.set(tenant, { list: { listSeq: r.listSeq, size: r.size }, left: r.granted });
        })
        .finally(() => this.refilling.delete(tenant));
      this.refilling.set(tenant, pending);
    }
    return pending;
  }
}
