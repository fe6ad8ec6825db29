import { type TSchema, Type } from '@sinclair/typebox';
import { Instant, iso, LIST_SCOPE, listParams } from '../../../http/admin/kit.ts';
import { adminOperations } from '../../../http/admin/operations.ts';
import { DateTimeView, Nullable, Slug } from '../../../http/schemas/common.ts';
import { TypeId } from '../../credential-types/routes.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { membershipModule } from '../../membership/module.ts';
import { offersModule } from '../../offers/module.ts';
import type { GroupBuilder } from '../module.ts';
import { AnalyticsService, BUCKETS, PointView, RemainderView, SERIES_MAX, SeriesView, TotalsView } from './analytics.ts';

const SeriesList = (description: string): TSchema =>
  Type.Object({ series: Type.Array(SeriesView, { maxItems: SERIES_MAX }), others: Nullable(RemainderView) }, { description });

/** GET /api/admin/analytics (docs/backoffice/audit.md, "Analytics"). */
export const analyticsGroup: GroupBuilder = async (ctx) => {
  const reads = {
    issuance: ctx.viewsOf(issuanceModule),
    offers: ctx.viewsOf(offersModule),
    membership: ctx.viewsOf(membershipModule),
    kernel: ctx.views,
  };
  const service = new AnalyticsService(reads, ctx.urls, () => ctx.clock.now());
  const { detail } = adminOperations({
    doc: 'docs/backoffice/audit.md',
    base: '/api/admin',
    read: 'analytics',
    scope: LIST_SCOPE,
  });
  return {
    group: {
      name: 'admin-analytics',
      routes: [
        detail('/analytics', {
          summary: 'Issuance, verification, enrolment and offer conversion over time, per tenant and per type.',
          query: {
            tenant: Type.Optional(Slug),
            typeId: Type.Optional(TypeId),
            since: Type.Optional(Instant),
            until: Type.Optional(Instant),
            bucket: Type.Optional(Type.Union(BUCKETS.map((b) => Type.Literal(b)))),
          },
          answer: [
            'Totals and series over the window.',
            Type.Object({
              since: DateTimeView,
              until: DateTimeView,
              bucket: Type.String(),
              tenant: Nullable(Type.String()),
              typeId: Nullable(Type.String()),
              totals: TotalsView,
              points: Type.Array(PointView),
              tenants: SeriesList('Per tenant.'),
              types: SeriesList('Per tenant and credential type.'),
            }),
          ],
          read: async ({ request, query: { typeId, bucket } }) => {
            const { tenant, since, until } = listParams(request);
            const answer = await service.counts({
              tenant,
              ...(typeId === undefined ? {} : { typeId }),
              ...(since === undefined ? {} : { since }),
              ...(until === undefined ? {} : { until }),
              ...(bucket === undefined ? {} : { bucket }),
            });
            return { ...answer, since: iso(answer.since), until: iso(answer.until) };
          },
        }),
      ],
    },
  };
};
