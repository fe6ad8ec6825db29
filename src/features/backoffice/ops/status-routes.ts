import { Type } from '@sinclair/typebox';
import type { Actor } from '../../../core/actor.ts';
import { cursorOf, iso, isoOrNull, LIST_SCOPE, ListPage, ListQuery, listParams, page } from '../../../http/admin/kit.ts';
import { defineRoute } from '../../../http/route.ts';
import { AdminMutation, errorResponse, OPERATOR_ERRORS, Slug } from '../../../http/schemas/common.ts';
import type { StatusListRow } from '../../../ports/issuance-views.ts';
import type { KeyRow } from '../../../ports/kernel-views.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import { Revoked, SelectorFields, selectorOf } from '../../status/routes.ts';
import type { StatusService } from '../../status/status-service.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { OpsReads } from './reads.ts';
import { actorOf, auditPage, BASE, detailText, opsGet, opsPost } from './routes-common.ts';
import { IntegrityView, KeyView, RevocationLogView, StatusListView } from './schemas.ts';
import type { StatusChecks } from './status-checks.ts';

/** Lists an integrity check covers per call, at most: each one reads and compares a whole list. */
const INTEGRITY_PAGE_MAX = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface StatusOps {
  reads: Pick<OpsReads, 'kernel' | 'issuance'>;
  checks: StatusChecks;
  status: StatusService;
  tenants: TenantService;
  uow: UnitOfWork<object>;
  statusUri: (tenant: string, seq: number) => string;
  clockNow: () => number;
}

/** Keys, status lists, their integrity, revocations and the ops revoke (docs/operations.md, "Keys" and "Status lists"). */
export function statusRoutes(ops: StatusOps) {
  const listView = (r: StatusListRow): StatusListView => ({
    tenant: r.tenant,
    issuerDid: ops.tenants.didOf(r.tenant),
    seq: r.seq,
    uri: ops.statusUri(r.tenant, r.seq),
    size: r.size,
    capacity: r.capacity,
    allocated: r.allocated,
    revoked: r.revoked,
    revokedShare: r.allocated === 0 ? 0 : Math.round((r.revoked / r.allocated) * 10_000) / 10_000,
    revision: r.revision,
    createdAt: iso(r.createdAt),
  });
  const keyView = (k: KeyRow, credentialsSigned: number | null): KeyView => ({
    tenant: k.tenant,
    issuerDid: ops.tenants.didOf(k.tenant),
    kid: k.kid,
    purpose: k.purpose,
    createdAt: iso(k.createdAt),
    supersededAt: isoOrNull(k.supersededAt),
    retiredAt: isoOrNull(k.retiredAt),
    inUse: k.retiredAt === null && k.supersededAt === null,
    ageDays: Math.floor((ops.clockNow() - k.createdAt) / DAY_MS),
    credentialsSigned,
  });
  return [
    defineRoute({
      ...opsGet(`${BASE}/keys`),
      scope: LIST_SCOPE,
      summary: 'Signing keys of every tenant and the platform: age, whether each signs now, credentials it signed.',
      querystring: ListQuery(),
      responses: { 200: { description: 'A page of keys, newest first.', schema: ListPage('keys', KeyView) }, ...OPERATOR_ERRORS },
      handler: async (request) => {
        const p = listParams(request);
        const rows = await ops.reads.kernel.signingKeys(p.tenant, {
          ...p,
          after: cursorOf(p.after, ['number', 'string'] as const),
          limit: p.limit + 1,
        });
        const shown = page(
          rows,
          p.limit,
          (k) => [k.createdAt, k.kid],
          (k) => k,
        );
        // A key signed what its tenant issued while it was the issuing key: one count per issuer key of the page, in one read.
        const issuers = shown.rows.filter((k) => k.purpose === 'issuer');
        const counts = await ops.reads.issuance.issuedIn(
          issuers.map((k) => ({ tenant: k.tenant, from: k.createdAt, to: k.supersededAt ?? k.retiredAt })),
        );
        const signed = new Map(issuers.map((k, i) => [k, counts[i] ?? 0]));
        return { keys: shown.rows.map((k) => keyView(k, signed.get(k) ?? null)), nextCursor: shown.nextCursor };
      },
    }),
    defineRoute({
      ...opsGet(`${BASE}/status-lists`),
      scope: LIST_SCOPE,
      summary: 'Status lists of every issuer: size, allocation and revoked share.',
      querystring: ListQuery(),
      responses: { 200: { description: 'A page of lists.', schema: ListPage('lists', StatusListView) }, ...OPERATOR_ERRORS },
      handler: async (request) => {
        const p = listParams(request);
        const rows = await ops.checks.lists(p.tenant, {
          ...p,
          after: cursorOf(p.after, ['string', 'number'] as const),
          limit: p.limit + 1,
        });
        const shown = page(rows, p.limit, (r) => [r.tenant, r.seq], listView);
        return { lists: shown.rows, nextCursor: shown.nextCursor };
      },
    }),
    defineRoute({
      ...opsGet(`${BASE}/status-lists/{issuerDid}`),
      summary: 'One issuer’s status lists, by its DID.',
      params: Type.Object({ issuerDid: Type.String({ minLength: 8, maxLength: 300, pattern: '^did:web:[A-Za-z0-9.%:_-]+$' }) }),
      querystring: Type.Object({}, { additionalProperties: false }),
      responses: {
        200: {
          description: 'The issuer’s lists.',
          schema: Type.Object({ issuerDid: Type.String(), tenant: Type.String(), lists: Type.Array(StatusListView) }),
        },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_issuer'),
      },
      handler: async (request) => {
        const tenant = await ops.checks.tenantOfDid(request.params.issuerDid);
        const rows: StatusListRow[] = [];
        for (let after: readonly [string, number] | undefined; ; ) {
          const batch = await ops.checks.lists(tenant, { limit: 201, after });
          rows.push(...batch.slice(0, 200));
          const last = batch[199];
          if (batch.length <= 200 || !last) break;
          after = [last.tenant, last.seq];
        }
        return { issuerDid: request.params.issuerDid, tenant, lists: rows.map(listView) };
      },
    }),
    defineRoute({
      ...opsGet(`${BASE}/status-integrity`),
      scope: LIST_SCOPE,
      summary: 'Each list’s served token decoded, verified with the DID key and compared with the recorded bits.',
      querystring: ListQuery(),
      responses: {
        200: {
          description: 'A page of checked lists; `ok` is true when every list on it holds.',
          schema: Type.Object({
            ok: Type.Boolean(),
            lists: Type.Array(IntegrityView),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
        },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => {
        const p = listParams(request);
        const limit = Math.min(p.limit, INTEGRITY_PAGE_MAX);
        const rows = await ops.checks.lists(p.tenant, {
          ...p,
          after: cursorOf(p.after, ['string', 'number'] as const),
          limit: limit + 1,
        });
        const shown = page(
          rows,
          limit,
          (r) => [r.tenant, r.seq],
          (r) => r,
        );
        const lists = [];
        for (const row of shown.rows) lists.push(await ops.checks.integrity(row));
        return { ok: lists.every((l) => l.ok), lists, nextCursor: shown.nextCursor };
      },
    }),
    defineRoute({
      ...opsGet(`${BASE}/revocations`),
      scope: LIST_SCOPE,
      summary: 'Who revoked which credential, when and why, newest first (from the audit log).',
      querystring: ListQuery(),
      responses: {
        200: { description: 'A page of revocations.', schema: ListPage('revocations', RevocationLogView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => {
        const shown = await auditPage(ops.reads.kernel, 'credential.revoked', request, (r) => ({
          credentialId: r.target,
          typeId: detailText(r, 'typeId'),
          reason: detailText(r, 'reason'),
        }));
        return { revocations: shown.rows, nextCursor: shown.nextCursor };
      },
    }),
    defineRoute({
      ...opsPost(`${BASE}/revoke`),
      scope: { tenantIn: 'body' },
      summary: 'Revoke a tenant’s credentials as its issuer would, with a reason, from the back office.',
      body: Type.Object(
        {
          tenant: Slug,
          ...SelectorFields,
          reason: Type.String({ minLength: 3, maxLength: 500, description: 'Why, kept in the audit log.' }),
        },
        { additionalProperties: false },
      ),
      responses: {
        200: {
          description: 'What the call matched, and when each was first revoked.',
          schema: AdminMutation(Revoked.properties),
        },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_tenant or unknown_credential'),
      },
      handler: async (request) => {
        const { tenant, reason, ...selector } = request.body;
        const actor: Actor = actorOf(request);
        return ops.uow.run(async ({ audit }) => {
          const { views, newlyRevoked } = await ops.status.revoke(tenant, selectorOf(selector), actor, reason);
          const auditSeq = await audit.append({
            actor,
            action: 'ops.revoked',
            tenant,
            ...(views[0] ? { target: views[0].credentialId } : {}),
            detail: { reason, matched: views.length, revoked: newlyRevoked },
          });
          return { ok: true as const, auditSeq, revoked: views };
        });
      },
    }),
  ];
}
