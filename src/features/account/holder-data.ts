import type { ErasureCounts, ErasurePart } from '../../ports/account-erasure-store.ts';
import type { InventoryRow, SubjectPlace } from '../../ports/compliance-store.ts';
import type { HolderRecords, LeftOut, LookupKeys, Placed } from '../../ports/holder-records.ts';

const inOrder = <T>(placed: ReadonlyArray<Placed<T>>): T[] =>
  [...placed].sort((a, b) => a.position - b.position).map((p) => p.value);

/**
 * The holder-data registry run whole (docs/holder-data.md): the owners' parts (Context.holderRecords)
 * composed, each on its own tables, in the registry's order. Called inside a unit of work, every
 * part reads and writes in its one transaction, so an erasure and its verification see one state
 * and a failure undoes every part.
 */
export class HolderData {
  private readonly parts: readonly HolderRecords[];

  constructor(parts: readonly HolderRecords[]) {
    // By each part's first entry: the account entries of one owner follow one another in the
    // registry, so the erasure deletes and unlinks in the registry's order.
    this.parts = [...parts].sort((a, b) => (a.positions[0] ?? Infinity) - (b.positions[0] ?? Infinity));
  }

  /** Every tenant that holds something of the account, sorted. */
  async tenantsOf(accountId: string): Promise<string[]> {
    const tenants = new Set<string>();
    for (const part of this.parts) for (const t of await part.tenantsOf(accountId)) tenants.add(t);
    return [...tenants].sort();
  }

  /** Deletes and unlinks the account's rows, adding each part's rows to `counts`. */
  async erase(accountId: string, now: number, counts: ErasureCounts): Promise<void> {
    for (const part of this.parts) add(counts, await part.erase(accountId, now));
  }

  /** Adds to `counts` the rows that still name the account where an erasure deletes or unlinks. */
  async remaining(accountId: string, counts: ErasureCounts): Promise<void> {
    for (const part of this.parts) add(counts, await part.remaining(accountId));
  }

  /** Every registered place that holds one of the identifiers, with its count, in the registry's order. */
  async lookup(keys: LookupKeys, leftOut?: LeftOut): Promise<SubjectPlace[]> {
    const placed: Array<Placed<SubjectPlace>> = [];
    for (const part of this.parts) placed.push(...(await part.lookup(keys, leftOut)));
    return inOrder(placed);
  }

  /** Every registered column, in the registry's order, with how many rows hold a value in it. */
  async inventory(): Promise<InventoryRow[]> {
    const placed: Array<Placed<InventoryRow>> = [];
    for (const part of this.parts) placed.push(...(await part.inventory()));
    return inOrder(placed);
  }

  /** The account's records by export section, the sections in the registry's order. */
  async records(accountId: string, limit: number): Promise<Record<string, Array<Record<string, unknown>>>> {
    const placed: Array<Placed<{ section: string; rows: Array<Record<string, unknown>> }>> = [];
    for (const part of this.parts) placed.push(...(await part.records(accountId, limit)));
    return Object.fromEntries(inOrder(placed).map((s) => [s.section, s.rows]));
  }
}

function add(counts: ErasureCounts, more: Partial<ErasureCounts>): void {
  for (const [part, n] of Object.entries(more) as Array<[ErasurePart, number]>) counts[part] += n;
}
