import { Type } from '@sinclair/typebox';
import { iso, LIST_SCOPE } from '../../../http/admin/kit.ts';
import { boundedCount, CountQuery, Slug } from '../../../http/schemas/common.ts';
import type { OpsReads } from './reads.ts';
import { opsOperations } from './routes-common.ts';
import { FunnelsView } from './schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far back a funnel may look, in days: the window, and so the rows counted, is bounded. */
export const FUNNEL_MAX_DAYS = 90;
/** Funnels (tenant and type) shown per kind, the busiest first. */
const SHOWN = 200;

/** A step's share of the step before it, or null when nothing reached that one. */
const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 1000) / 1000);

/** Wire funnels (docs/operations.md, "Wire funnels"). */
export function funnelRoutes(reads: Pick<OpsReads, 'offers' | 'verification'>, clockNow: () => number) {
  return [
    opsOperations.detail('/wire-funnels', {
      scope: LIST_SCOPE,
      summary: 'Offer → token → credential and request → response → accepted, per tenant and type, over whole UTC days.',
      query: {
        tenant: Type.Optional(Slug),
        days: Type.Optional(CountQuery(`Whole UTC days back, today included: 1 to ${FUNNEL_MAX_DAYS}; default 7.`)),
      },
      answer: ['The funnels of the window.', FunnelsView],
      read: async ({ query, tenant }) => {
        const now = clockNow();
        const days = boundedCount(query.days, 7, FUNNEL_MAX_DAYS, 'days');
        const since = now - (now % DAY_MS) - (days - 1) * DAY_MS;
        const [issuance, verification] = await Promise.all([
          reads.offers.funnel(tenant, since, SHOWN + 1),
          reads.verification.funnel(tenant, since, SHOWN + 1),
        ]);
        return {
          since: iso(since),
          until: iso(now),
          complete: issuance.length <= SHOWN && verification.length <= SHOWN,
          issuance: issuance.slice(0, SHOWN).map(({ tenant, typeId, steps: [offers, tokens, credentials] }) => ({
            tenant,
            typeId,
            offers,
            tokens,
            credentials,
            tokensRate: rate(tokens, offers),
            credentialsRate: rate(credentials, tokens),
          })),
          verification: verification.slice(0, SHOWN).map(({ tenant, typeId, steps: [requests, responses, accepted] }) => ({
            tenant,
            typeId,
            requests,
            responses,
            accepted,
            responsesRate: rate(responses, requests),
            acceptedRate: rate(accepted, responses),
          })),
        };
      },
    }),
  ];
}
