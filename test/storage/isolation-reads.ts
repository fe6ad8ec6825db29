/**
 * The two checks the isolation cases of read views share (test/storage/isolation-*.ts): a read
 * asked as one tenant answers that tenant's rows only, and one row of a tenant is found by its own
 * tenant and the platform, never by the other.
 */
import assert from 'node:assert/strict';

export const TENANTS = ['alpha', 'beta'] as const;
export type Tenant = (typeof TENANTS)[number];

/**
 * Asks `read` as alpha, as beta and as the platform: each tenant's answer is non-empty and wholly
 * its own (by `tenantsOf`, every tenant a row names), and the platform's names both.
 */
export async function narrowed<R>(
  what: string,
  read: (tenant: Tenant | null) => Promise<R[]>,
  tenantsOf: (row: R) => readonly (string | null)[],
): Promise<void> {
  for (const t of TENANTS) {
    const rows = await read(t);
    assert.ok(rows.length > 0, `${what} as ${t} found its own rows`);
    for (const row of rows) assert.deepEqual([...new Set(tenantsOf(row))], [t], `${what} as ${t}: ${JSON.stringify(row)}`);
  }
  const all = new Set((await read(null)).flatMap(tenantsOf));
  for (const t of TENANTS) assert.ok(all.has(t), `${what} for the platform names ${t}`);
}

/** One row of a tenant, asked for by its own tenant, by the other, and by the platform. */
export async function ownOnly<R>(what: string, read: (t: Tenant, asked: Tenant | null) => Promise<R | undefined>): Promise<void> {
  for (const [i, t] of TENANTS.entries()) {
    const other = TENANTS[1 - i] as Tenant;
    assert.ok((await read(t, t)) !== undefined, `${what} of ${t}, as ${t}`);
    assert.ok((await read(t, null)) !== undefined, `${what} of ${t}, as the platform`);
    assert.equal(await read(t, other), undefined, `${what} of ${t}, as ${other}`);
  }
}

/** The tenant a row names. */
export const tenantOf = (row: { tenant: string | null }) => [row.tenant];
