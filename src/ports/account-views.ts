/**
 * What the account module publishes of its tables (docs/architecture.md, "Tables, owners and
 * views"): the disk check of erasure receipts, which name no account.
 */
export interface AccountViews {
  /** The disk state of each of these receipts that exists (`zeroed`, `pending`, `not-checked`), in no order. */
  receiptDisks(ids: readonly string[]): Promise<Array<{ id: string; disk: string }>>;
}
