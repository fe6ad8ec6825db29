import { type SqlBool, sql } from 'kysely';

/**
 * Text conditions the owners' reads share, the same on both engines (docs/backoffice/views.md,
 * "Search"). Each is a condition for `.where(…)`; none names a table.
 */

/** `value` with LIKE's wildcards and escape character escaped (the pattern's escape is `\`). */
export const like = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Case-insensitive "contains" (SQLite's LIKE folds ASCII case, PostgreSQL's does not: both lower). */
export const containsCi = (column: string, q: string) =>
  sql<SqlBool>`lower(${sql.ref(column)}) like ${`%${like(q.toLowerCase())}%`} escape '\\'`;

/** Case-insensitive prefix. */
export const startsWithCi = (column: string, prefix: string) =>
  sql<SqlBool>`lower(${sql.ref(column)}) like ${`${like(prefix.toLowerCase())}%`} escape '\\'`;

/** Case-sensitive prefix, without LIKE's wildcards (ids hold `_`). */
export const startsWith = (column: string, prefix: string) =>
  sql<SqlBool>`substr(${sql.ref(column)}, 1, ${sql.lit(prefix.length)}) = ${prefix}`;

/** Case-sensitive "contains" in JSON text: `replace` is the same function on both engines. */
export const mentions = (column: string, value: string) =>
  sql<SqlBool>`replace(${sql.ref(column)}, ${value}, '') <> ${sql.ref(column)}`;
