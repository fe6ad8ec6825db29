/**
 * One source's part of a subject's timeline page (docs/backoffice/views.md, "GET
 * /api/admin/support/timeline/{subject}"): the owner answers its rows in its own (time, key) order,
 * starting after `start`, at most `limit`; the back office merges the sources by time.
 */
export interface SourcePage {
  /** Where the page starts; every row when absent. */
  start?: SourceStart;
  limit: number;
}

/**
 * The rows after `at`, and of those at `at` itself: `none`, `all`, or those whose key is past `key`
 * (the page before ended in this source at that millisecond).
 */
export type SourceStart = { at: number; sameAt: 'none' | 'all' } | { at: number; sameAt: 'past'; key: string | number };
