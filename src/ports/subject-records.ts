/**
 * An account's own records for its export (docs/account.md, "Export"): each section the
 * holder-data registry gives an export, with the rows of the account it holds.
 */
export interface SubjectRecords {
  /** Per section, at most `limit` rows of the account, their columns by camel-case name. */
  records(accountId: string, limit: number): Promise<Record<string, Array<Record<string, unknown>>>>;
}
