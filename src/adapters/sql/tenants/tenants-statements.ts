import type { IssuerState, TenantStatusName } from '../../../ports/tenant-store.ts';
import { type Db, onPostgres } from '../connect.ts';

/*
 * The tenants module's parts of other owners' statements (docs/architecture.md, "Tables, owners
 * and views"): what another module's adapter composes into its own SQL where a separate read would
 * not do (a lock its transaction holds, a read its hot path makes in one round trip).
 */

/**
 * Holds the tenant's row until the transaction ends, so that transactions which read what hangs
 * off a tenant and then write it (replace a set of rows, count them and add one, replace the one
 * row a tenant has) follow one another, the second reading what the first committed: as the same
 * requests would one after another. Without it, PostgreSQL under READ COMMITTED lets both read
 * the same "before", and their writes meet on a unique key (a 500) or both pass a limit.
 *
 * PostgreSQL: FOR NO KEY UPDATE, not FOR UPDATE, because inserting a row that references the
 * tenant takes FOR KEY SHARE on it, which this lets through: only other holders, and updates of
 * the tenant's own row, wait. SQLite: a writing transaction holds the database's one write lock
 * from its start (BEGIN IMMEDIATE), so there is nothing more to take.
 *
 * Called outside a transaction it only reads. Answers whether the tenant exists.
 */
export async function holdTenant(db: Db, slug: string): Promise<boolean> {
  let query = db.selectFrom('tenants').select('slug').where('slug', '=', slug);
  if (onPostgres(db)) query = query.forNoKeyUpdate();
  return (await query.executeTakeFirst()) !== undefined;
}

/**
 * The issuer's state, as the row a read joins it by: the tenant row as `t` (`from`), its issuing
 * state (`columns`: `issuer_status`, `issuer_haip`, `issuer_sign_in_url`, read back by
 * `issuerState`) and its key (`slug`). The offers module reads an issuer and its offer with it in
 * one statement, the first round trip of the token and credential requests and of a pushed
 * authorization request; the issuance module an issuer and the authorization request of a code
 * (docs/scaling.md).
 */
export const ISSUER_ROW = {
  from: 'tenants t',
  columns: 't.status as issuer_status, t.haip_issuance as issuer_haip, t.sign_in_url as issuer_sign_in_url',
  slug: 't.slug',
} as const;

/** The columns `ISSUER_ROW.columns` adds to a row. */
export interface IssuerColumns {
  issuer_status: TenantStatusName;
  issuer_haip: number | boolean;
  issuer_sign_in_url: string | null;
}

/** The issuer's state from a row read with `ISSUER_ROW`, and the row's other columns. */
export function issuerState<R extends IssuerColumns>(row: R): { issuer: IssuerState; rest: Omit<R, keyof IssuerColumns> } {
  const { issuer_status, issuer_haip, issuer_sign_in_url, ...rest } = row;
  return {
    issuer: { status: issuer_status, haipIssuance: Boolean(Number(issuer_haip)), signInUrl: issuer_sign_in_url },
    rest,
  };
}

/**
 * The issuer's part of a write that moves one of its authorization requests (the browser's
 * opening of a pushed request, the grant of its code), given the SQL of the written row's tenant
 * column: `serving` holds only while that tenant serves the authorization code flow (its HAIP
 * issuance on), and `returned` answers, beside the row written, its sign-in hook
 * (`issuer_sign_in_url`) and the name its pages show (`issuer_name`: the display name, else the
 * name). So the authorization endpoint's pages write and read the issuer in one statement
 * (docs/scaling.md).
 */
export const ISSUER_OF_REQUEST = {
  serving: (tenant: string) => `exists (select 1 from tenants t where t.slug = ${tenant} and t.haip_issuance = 1)`,
  returned: (tenant: string) =>
    `(select t.sign_in_url from tenants t where t.slug = ${tenant}) as issuer_sign_in_url, ` +
    `(select coalesce(t.display_name, t.name) from tenants t where t.slug = ${tenant}) as issuer_name`,
} as const;

/** The columns `ISSUER_OF_REQUEST.returned` adds to a row. */
export interface RequestIssuerColumns {
  issuer_sign_in_url: string | null;
  issuer_name: string;
}

/** Every tenant's name, as rows (slug, name) a read joins to name the tenant of its own rows. */
export const tenantNames = (db: Db) => db.selectFrom('tenants').select(['slug', 'name']);
