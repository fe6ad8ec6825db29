import { Type } from '@sinclair/typebox';
import { actorLabel } from '../../../core/actor.ts';
import { iso, LIST_SCOPE } from '../../../http/admin/kit.ts';
import { boundedCount, CountQuery, Slug } from '../../../http/schemas/common.ts';
import { TypeId } from '../../credential-types/routes.ts';
import { MAX_VALIDITY_DAYS, type TypeService } from '../../credential-types/type-service.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { OpsReads } from './reads.ts';
import { opsOperations } from './routes-common.ts';
import { ExpiryView } from './schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A tenant's signing key is due for rotation at this age (docs/operations.md, "Expiry"). */
export const KEY_ROTATION_DAYS = 365;
/** Groups or keys shown per list, at most; `complete` says whether any list was cut. */
const SHOWN = 200;

/** What expires soon, and a type's validity (docs/operations.md, "Expiry"). */
export function expiryRoutes(deps: {
  reads: Pick<OpsReads, 'kernel' | 'issuance' | 'offers'>;
  types: TypeService;
  tenants: TenantService;
  clockNow: () => number;
}) {
  const { reads, types, tenants, clockNow } = deps;
  const { detail, action } = opsOperations;
  return [
    detail('/expiry', {
      scope: LIST_SCOPE,
      summary: 'Credentials, offers and signing keys approaching expiry or rotation, and each type’s validity.',
      query: {
        tenant: Type.Optional(Slug),
        withinDays: Type.Optional(CountQuery('How far ahead to look, 1 to 365 days; default 30.')),
      },
      answer: ['What expires within the window.', ExpiryView],
      read: async ({ query, tenant }) => {
        const now = clockNow();
        const withinDays = boundedCount(query.withinDays, 30, 365, 'withinDays');
        const until = now + withinDays * DAY_MS;
        const [credentials, offers, keys, validities] = await Promise.all([
          reads.issuance.expiring(tenant, now, until, SHOWN + 1),
          reads.offers.expiring(tenant, now, until, SHOWN + 1),
          reads.kernel.signingKeysOlderThan(tenant, until - KEY_ROTATION_DAYS * DAY_MS, SHOWN + 1),
          types.validities(tenant),
        ]);
        const group = (g: (typeof credentials)[number]) => ({
          tenant: g.tenant,
          typeId: g.typeId,
          count: g.count,
          firstExpiresAt: iso(g.firstAt),
        });
        return {
          checkedAt: iso(now),
          until: iso(until),
          complete: [credentials, offers, keys].every((l) => l.length <= SHOWN),
          credentials: credentials.slice(0, SHOWN).map(group),
          offers: offers.slice(0, SHOWN).map(group),
          keys: keys.slice(0, SHOWN).map((k) => {
            const rotateBy = k.createdAt + KEY_ROTATION_DAYS * DAY_MS;
            return {
              tenant: k.tenant,
              issuerDid: tenants.didOf(k.tenant),
              kid: k.kid,
              createdAt: iso(k.createdAt),
              rotateBy: iso(rotateBy),
              overdue: rotateBy <= now,
            };
          }),
          types: validities.map((v) => ({
            tenant: v.tenant,
            typeId: v.typeId,
            validityDays: v.validityDays,
            setAt: iso(v.setAt),
            setBy: v.setBy,
          })),
        };
      },
    }),
    action('/expiry-dates', {
      scope: { tenantIn: 'body' },
      summary: 'Set (or clear) how long a credential type’s credentials stay valid: those issued from then on carry an exp.',
      body: {
        tenant: Slug,
        typeId: TypeId,
        validityDays: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_VALIDITY_DAYS }), Type.Null()], {
          description: `Days from issuance, 1 to ${MAX_VALIDITY_DAYS}; null: credentials of the type do not expire.`,
        }),
      },
      answer: [
        200,
        'The validity set, and the one it replaced.',
        {
          tenant: Type.String(),
          typeId: Type.String(),
          validityDays: Type.Union([Type.Integer(), Type.Null()]),
          previousDays: Type.Union([Type.Integer(), Type.Null()]),
        },
      ],
      refusals: { 404: ['unknown_tenant', 'unknown_type'] },
      write: async ({ body: { tenant, typeId, validityDays }, actor }) => {
        await tenants.existing(tenant);
        const { previous, auditSeq } = await types.setValidity(tenant, typeId, validityDays, actor, actorLabel(actor));
        return { auditSeq, tenant, typeId, validityDays, previousDays: previous };
      },
    }),
  ];
}
