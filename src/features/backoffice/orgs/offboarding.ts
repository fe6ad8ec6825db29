import { ServiceError } from '../../../core/errors.ts';
import { iso, type ListParams, page, windowOf } from '../../../http/admin/kit.ts';
import type { OffboardedOperator } from '../../../ports/operators-views.ts';
import type { SuspendedTenant } from '../../../ports/tenants-views.ts';
import type { TenantWindow, TimeKeyset } from '../../../ports/view-records.ts';

/** One line of the offboarding view: a suspended tenant, or a suspended or removed operator. */
export interface OffboardingRow {
  kind: 'tenant' | 'operator';
  /** The tenant's slug, or the operator's username. */
  id: string;
  status: 'suspended' | 'removed';
  /** The tenant of an operator (null: platform-wide); the tenant itself for a tenant. */
  tenant: string | null;
  since: number;
  /** A tenant's suspension reason; null for an operator. */
  reason: string | null;
}

type Window = TenantWindow & { before?: TimeKeyset; limit: number };

/** What the view reads, each from its owner: suspended tenants (tenants) and offboarded operators (operators). */
export interface OffboardingReads {
  suspended(filter: Window): Promise<SuspendedTenant[]>;
  offboarded(filter: Window): Promise<OffboardedOperator[]>;
}

/**
 * Where one source's page starts after the cursor [since, kind, id], in the list's order (since,
 * kind, id descending), the source's kind being fixed: the kinds tell the sources apart.
 */
function keysetOf(kind: OffboardingRow['kind'], after: readonly [number, string, string] | undefined): TimeKeyset | undefined {
  if (!after) return undefined;
  const [since, afterKind, id] = after;
  if (kind < afterKind) return { op: 'le', at: since };
  if (kind > afterKind) return { op: 'lt', at: since };
  return { op: 'tie', at: since, id };
}

/**
 * GET /api/admin/offboarding (docs/backoffice/orgs.md, "Offboarding"): suspended tenants and
 * suspended or removed operators, newest change first, a page of each source merged.
 */
export async function offboarding(reads: OffboardingReads, params: ListParams, kind: OffboardingRow['kind'] | undefined) {
  const after = params.after;
  if (
    after !== undefined &&
    (after.length !== 3 ||
      typeof after[0] !== 'number' ||
      (after[1] !== 'tenant' && after[1] !== 'operator') ||
      typeof after[2] !== 'string')
  ) {
    throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
  }
  const cursor = after && ([after[0] as number, after[1] as string, after[2] as string] as const);
  const limit = params.limit + 1;
  const window = { tenant: params.tenant, ...windowOf(params), limit };
  const of = (source: OffboardingRow['kind']) => {
    const before = keysetOf(source, cursor);
    return before ? { ...window, before } : window;
  };
  const [tenants, operators] = await Promise.all([
    kind === 'operator' ? [] : reads.suspended(of('tenant')),
    kind === 'tenant' ? [] : reads.offboarded(of('operator')),
  ]);
  const tenantRows: OffboardingRow[] = tenants.map((t) => ({
    kind: 'tenant',
    id: t.slug,
    status: 'suspended',
    tenant: t.slug,
    since: t.since,
    reason: t.reason,
  }));
  const operatorRows: OffboardingRow[] = operators.map((o) => ({
    kind: 'operator',
    id: o.username,
    status: o.status,
    tenant: o.tenant,
    since: o.since,
    reason: null,
  }));
  const shown = page(
    merged(tenantRows, operatorRows, limit),
    params.limit,
    (r) => [r.since, r.kind, r.id],
    (r) => ({ kind: r.kind, id: r.id, status: r.status, tenant: r.tenant, since: iso(r.since), reason: r.reason }),
  );
  return { entries: shown.rows, nextCursor: shown.nextCursor };
}

/**
 * The two sources, each in the list's order already (its owner's SQL), merged by (since, kind),
 * which tells the sources apart, so rows of one source keep their order; at most `limit`.
 */
function merged(tenants: readonly OffboardingRow[], operators: readonly OffboardingRow[], limit: number): OffboardingRow[] {
  const rows: OffboardingRow[] = [];
  let t = 0;
  let o = 0;
  while (rows.length < limit && (t < tenants.length || o < operators.length)) {
    const a = tenants[t];
    const b = operators[o];
    // At the same time, 'tenant' > 'operator': descending puts tenants first.
    if (a && (!b || a.since >= b.since)) {
      rows.push(a);
      t++;
    } else if (b) {
      rows.push(b);
      o++;
    }
  }
  return rows;
}
