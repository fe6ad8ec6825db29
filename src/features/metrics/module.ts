import { Type } from '@sinclair/typebox';
import { defineModule } from '../../app/module.ts';
import { ServiceError } from '../../core/errors.ts';
import { defineRoute } from '../../http/route.ts';
import { refusal } from '../../http/schemas/common.ts';
import { metricsPlane } from './metrics-plane.ts';

/**
 * `GET /metrics` (docs/operations.md, "Metrics"): what this process counted, in Prometheus text,
 * for a scraper holding OPENRAIL_METRICS_TOKEN, on a plane of its own. Each process answers its
 * own counts; a scraper scrapes every process.
 */
export const metricsModule = defineModule({
  name: 'metrics',
  groups: ['metrics'],
  planes: ['metrics'],
  build(ctx) {
    return {
      services: {},
      planes: { metrics: metricsPlane(ctx.config.metricsToken) },
      routes: () => [
        {
          name: 'metrics',
          routes: [
            defineRoute({
              method: 'GET',
              path: '/metrics',
              auth: 'metrics',
              stability: 'unpromised',
              internal: true,
              undocumented: 'Prometheus text exposition; docs/operations.md lists the metrics.',
              summary: 'This process’s metrics in Prometheus text (off unless OPENRAIL_METRICS_TOKEN is set).',
              responses: {
                200: { description: 'Prometheus text exposition format 0.0.4.', schema: Type.String() },
                401: refusal('unauthorized'),
                404: refusal('metrics_off'),
              },
              handler: async (_request, reply) => {
                const exposition = await ctx.meter.exposition();
                if (!exposition) throw new ServiceError('metrics_off');
                reply.header('content-type', exposition.contentType);
                reply.header('cache-control', 'no-store');
                return exposition.text;
              },
            }),
          ],
        },
      ],
    };
  },
});
