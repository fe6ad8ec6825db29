/*
 * The issuance module's parts of other owners' statements (docs/architecture.md, "Tables, owners
 * and views"): what another adapter runs as its own SQL where a view on the service's database
 * would not do (a backup's contents, counted on the copy itself, inside its snapshot).
 */

/** Every revoked entry, by tenant, list and index: what a backup's status-list digests are made of. */
export const REVOKED_ENTRIES =
  'select tenant, list_seq, idx from issued_credentials where revoked_at is not null order by tenant, list_seq, idx';

/** Every status list's size, by tenant and number. */
export const STATUS_LIST_SIZES = 'select tenant, seq, size from status_lists order by tenant, seq';
