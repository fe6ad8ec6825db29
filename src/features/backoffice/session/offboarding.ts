import { ServiceError } from '../../../core/errors.ts';
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

/** The offboarding list's cursor, [since, kind, id]: what keysetOf reads, or `400 invalid_request`. */
export function offboardingCursor(after: readonly (string | number)[]): readonly [number, OffboardingRow['kind'], string] {
  const [since, kind, id] = after;
  if (after.length !== 3 || typeof since !== 'number' || (kind !== 'tenant' && kind !== 'operator') || typeof id !== 'string') {
    throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
  }
  return [since, kind, id];
}

/**
 * GET /api/admin/offboarding (docs/backoffice/orgs.md, "Offboarding"): suspended tenants and
 * suspended or removed operators, newest change first, a page of each source merged.
 */
export async function offboarding(
  reads: OffboardingReads,
  { after, kind, ...window }: Window & { after?: readonly [number, string, string]; kind?: OffboardingRow['kind'] },
): Promise<OffboardingRow[]> {
  const of = (source: OffboardingRow['kind']) => {
    const before = keysetOf(source, after);
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
  return merged(tenantRows, operatorRows, window.limit);
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
