import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../../core/errors.ts';
import { iso, isoOrNull, LIST_SCOPE } from '../../../http/admin/kit.ts';
import { Slug } from '../../../http/schemas/common.ts';
import type { StatusListRow } from '../../../ports/issuance-views.ts';
import type { KeyRow } from '../../../ports/kernel-views.ts';
import type { KeyBackend } from '../../../ports/key-backend.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import { Revoked, SelectorFields, selectorOf } from '../../status/routes.ts';
import type { StatusService } from '../../status/status-service.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { OpsReads } from './reads.ts';
import { auditRow, detailText, opsOperations } from './routes-common.ts';
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
  uow: UnitOfWork;
  statusUri: (tenant: string, seq: number) => string;
  clockNow: () => number;
  /** Asked, for each key in a token, whether its object is there and what it allows. */
  keyBackend: KeyBackend;
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
  /** A token key's object as the token reports it now; the token's own answer, or nulls when it cannot be asked. */
  const keyObjectOf = async (k: KeyRow): Promise<KeyView['keyObject']> => {
    if (!k.keyObject) return null;
    const { token, label, id } = k.keyObject;
    const owner = { tenant: k.tenant, purpose: k.purpose };
    try {
      const state = await ops.keyBackend.inspect(owner, k.kid, { backend: 'pkcs11', token, label, id });
      return {
        token,
        label,
        present: state.present,
        sensitive: state.token?.sensitive ?? null,
        extractable: state.token?.extractable ?? null,
      };
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'signing_unavailable')) throw err;
      return { token, label, present: null, sensitive: null, extractable: null };
    }
  };
  const keyView = (k: KeyRow, credentialsSigned: number | null, keyObject: KeyView['keyObject']): KeyView => ({
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
    backend: k.keyObject ? 'pkcs11' : 'sealed',
    keyObject,
  });
  const { list, detail, action } = opsOperations;
  return [
    list('/keys', {
      scope: LIST_SCOPE,
      summary:
        'Signing keys of every tenant and the platform: age, whether each signs now, credentials it signed, and where its private part is (a token key as the token reports it).',
      page: ['keys', KeyView, 'A page of keys, newest first.'],
      cursor: ['number', 'string'],
      read: ({ tenant, ...window }) => ops.reads.kernel.signingKeys(tenant, window),
      order: (k) => [k.createdAt, k.kid],
      // A key signed what its tenant issued while it was the issuing key: one count per issuer key of the page, in one read.
      views: async (keys) => {
        const issuers = keys.filter((k) => k.purpose === 'issuer');
        const counts = await ops.reads.issuance.issuedIn(
          issuers.map((k) => ({ tenant: k.tenant, from: k.createdAt, to: k.supersededAt ?? k.retiredAt })),
        );
        const signed = new Map(issuers.map((k, i) => [k, counts[i] ?? 0]));
        const objects = await Promise.all(keys.map(keyObjectOf));
        return keys.map((k, i) => keyView(k, signed.get(k) ?? null, objects[i] ?? null));
      },
    }),
    list('/status-lists', {
      scope: LIST_SCOPE,
      summary: 'Status lists of every issuer: size, allocation and revoked share.',
      page: ['lists', StatusListView, 'A page of lists.'],
      cursor: ['string', 'number'],
      read: ({ tenant, ...window }) => ops.checks.lists(tenant, window),
      order: (r) => [r.tenant, r.seq],
      view: listView,
    }),
    detail('/status-lists/{issuerDid}', {
      summary: 'One issuer’s status lists, by its DID.',
      query: {},
      answer: [
        'The issuer’s lists.',
        Type.Object({ issuerDid: Type.String(), tenant: Type.String(), lists: Type.Array(StatusListView) }),
      ],
      refusals: { 404: 'unknown_issuer' },
      read: async ({ params: { issuerDid } }) => {
        const tenant = await ops.checks.tenantOfDid(issuerDid);
        const rows: StatusListRow[] = [];
        for (let after: readonly [string, number] | undefined; ; ) {
          const batch = await ops.checks.lists(tenant, { limit: 201, after });
          rows.push(...batch.slice(0, 200));
          const last = batch[199];
          if (batch.length <= 200 || !last) break;
          after = [last.tenant, last.seq];
        }
        return { issuerDid, tenant, lists: rows.map(listView) };
      },
    }),
    list('/status-integrity', {
      scope: LIST_SCOPE,
      summary: 'Each list’s served token decoded, verified with the DID key and compared with the recorded bits.',
      pageMax: INTEGRITY_PAGE_MAX,
      page: [
        'lists',
        IntegrityView,
        'A page of checked lists; `ok` is true when every list on it holds.',
        { ok: Type.Boolean() },
      ],
      cursor: ['string', 'number'],
      read: ({ tenant, ...window }) => ops.checks.lists(tenant, window),
      order: (r) => [r.tenant, r.seq],
      views: async (rows) => {
        const lists = [];
        for (const row of rows) lists.push(await ops.checks.integrity(row));
        return lists;
      },
      beside: (lists) => ({ ok: lists.every((l) => l.ok) }),
    }),
    list('/revocations', {
      scope: LIST_SCOPE,
      summary: 'Who revoked which credential, when and why, newest first (from the audit log).',
      page: ['revocations', RevocationLogView, 'A page of revocations.'],
      cursor: ['number'],
      read: ({ tenant, ...window }) => ops.reads.kernel.auditOfAction('credential.revoked', tenant, window),
      order: (r) => [r.seq],
      view: (r) => ({
        ...auditRow(r),
        credentialId: r.target,
        typeId: detailText(r, 'typeId'),
        reason: detailText(r, 'reason'),
      }),
    }),
    action('/revoke', {
      scope: { tenantIn: 'body' },
      summary: 'Revoke a tenant’s credentials as its issuer would, with a reason, from the back office.',
      body: {
        tenant: Slug,
        ...SelectorFields,
        reason: Type.String({ minLength: 3, maxLength: 500, description: 'Why, kept in the audit log.' }),
      },
      answer: [200, 'What the call matched, and when each was first revoked.', Revoked.properties],
      refusals: { 404: ['unknown_tenant', 'unknown_credential'] },
      write: ({ body: { tenant, reason, ...selector }, actor }) =>
        ops.uow.run(async ({ audit }) => {
          const { views, newlyRevoked } = await ops.status.revoke(tenant, selectorOf(selector), actor, reason);
          const auditSeq = await audit.append({
            actor,
            action: 'ops.revoked',
            tenant,
            ...(views[0] ? { target: views[0].credentialId } : {}),
            detail: { reason, matched: views.length, revoked: newlyRevoked },
          });
          return { auditSeq, revoked: views };
        }),
    }),
  ];
}
