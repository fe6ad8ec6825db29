import { isDemoSlug } from '../../core/slug.ts';
import type { Db } from './connect.ts';
import type { Database } from './schema.ts';

/** A table whose rows name their tenant. */
type TenantTable = { [T in keyof Database]: 'tenant' extends keyof Database[T] ? T : never }[keyof Database];

/**
 * Deletes a demonstration tenant's rows of `tables`, in their order (one that references another
 * goes first), and answers the rows deleted per table; refuses a tenant that is not a
 * demonstration one. Each owner names its own tables (docs/operations.md, "Fixtures").
 */
export async function clearDemoRows(db: Db, tenant: string, tables: readonly TenantTable[]): Promise<Record<string, number>> {
  if (!isDemoSlug(tenant)) throw new Error(`${tenant} is not a demonstration tenant`);
  const cleared: Record<string, number> = {};
  for (const table of tables) {
    // Every table here has a tenant column; the builder cannot see it through the union.
    const result = await db
      .deleteFrom(table as 'members')
      .where('tenant', '=', tenant)
      .executeTakeFirst();
    cleared[table] = Number(result.numDeletedRows);
  }
  return cleared;
}
