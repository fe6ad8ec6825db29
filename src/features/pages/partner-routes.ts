/**
 * The public partner pages (docs/partner-pages.md): the programme, a page per kind of partner,
 * and two forms that work without a script. POST /partners/apply files an application as the JSON
 * intake does, under the same schema and the same per-address budget (one count for both); POST
 * /partners/status reads one under the status read's budget. The status token travels only in a
 * form body and in the one answer that shows it, never in a URL.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ANONYMOUS_BUDGETS } from '../../core/anonymous-budgets.ts';
import { ServiceError } from '../../core/errors.ts';
import { PARTNER_KINDS, type PartnerKind } from '../../core/partner-pipeline.ts';
import type { AnonymousGate } from '../../http/auth/anonymous-gate.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { htmlResponse } from '../../http/schemas/common.ts';
import { assertSameOriginForm } from '../../web/forms.ts';
import type { RenderedPage } from '../../web/layout.ts';
import { sendPage } from '../../web/serve.ts';
import type { PartnerService } from '../partners/partner-service.ts';
import { renderApplyPage, renderFiledPage, renderTooManyPage } from './partner-apply-page.ts';
import { ApplicationForm, readApplicationForm, StatusForm, wellFormedStatus } from './partner-form.ts';
import { renderKindPage, renderProgrammePage } from './partner-pages.ts';
import { renderStatusFormPage, renderStatusPage } from './partner-status-page.ts';

export interface PartnerPageDeps {
  siteName: string;
  /** PUBLIC_URL's origin: the only origin the forms are accepted from. */
  origin: string;
  partners: Pick<PartnerService, 'apply' | 'status'>;
  /** The anonymous budgets: the forms spend the JSON intake's and status read's. */
  budgets: AnonymousGate;
}

const HTML = htmlResponse;

export function partnerPageRoutes(deps: PartnerPageDeps): RouteDef[] {
  const { siteName } = deps;
  const common = { auth: 'public', stability: 'unpromised', surface: 'page' } as const;
  // Rendered once: they depend only on the deployment.
  const intake = ANONYMOUS_BUDGETS['partner-intake'].perAddress;
  const programme = renderProgrammePage(siteName, { intakeQuota: intake.quota, intakeWindowSeconds: intake.windowSeconds });
  const kindPage = (kind: PartnerKind) => {
    const rendered = renderKindPage(siteName, kind);
    return defineRoute({
      ...common,
      method: 'GET',
      path: `/partners/${kind}`,
      summary: `What ${kind} partners get from this service and need for it.`,
      responses: { 200: HTML('HTML page.') },
      handler: async (_request, reply) => sendPage(reply, rendered),
    });
  };
  /** Over the budget: a page that says so, with Retry-After; any other refusal is the error page. */
  const tooMany = (what: string) => async (_request: FastifyRequest, reply: FastifyReply, refusal: ServiceError) => {
    if (refusal.code !== 'rate_limited') throw refusal;
    const retry = Number(refusal.headers['retry-after']);
    const rendered = renderTooManyPage(siteName, what, Number.isFinite(retry) ? retry : undefined);
    return sendPage(reply.code(429).headers(refusal.headers), rendered, 'no-store');
  };
  const noStore = (reply: FastifyReply, rendered: RenderedPage, status = 200) =>
    sendPage(reply.code(status), rendered, 'no-store');

  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: '/partners',
      summary: 'The partner programme: the kinds of partner, how onboarding works, scopes and rate classes.',
      responses: { 200: HTML('HTML page.') },
      handler: async (_request, reply) => sendPage(reply, programme),
    }),
    ...PARTNER_KINDS.map(kindPage),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/partners/apply',
      summary: 'The application form; ?kind= preselects a kind of partner.',
      querystring: Type.Object({ kind: Type.Optional(Type.String({ maxLength: 32 })) }),
      responses: { 200: HTML('HTML page.') },
      handler: async (request, reply) => {
        const kind = request.query.kind;
        const values = kind && (PARTNER_KINDS as readonly string[]).includes(kind) ? { kind } : {};
        return sendPage(reply, renderApplyPage(siteName, { values }));
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/partners/apply',
      accepts: 'form',
      spends: ['partner-intake'],
      bodyOptional: true,
      summary:
        'The application form’s action: files an application as POST /api/partners/applications does and shows its id and status token, once.',
      body: ApplicationForm,
      beforeValidation: (request) => assertSameOriginForm(request, deps.origin),
      responses: {
        200: HTML('Filed, at stage applied: the application id and the status token, shown this once.'),
        400: HTML(
          'The form again with the values kept and an error beside each bad field, nothing stored; the error page for a field the form does not have, or one sent twice.',
        ),
        403: HTML('cross_origin_form: the form was not posted from this service’s own pages.'),
        429: HTML('rate_limited: the address has filed its applications for the hour (one count with the JSON intake).'),
      },
      onRefusal: tooMany(
        `This address has filed the ${intake.quota} applications it may file in an hour, on this form and through the API together (or the service takes no more just now).`,
      ),
      handler: async (request, reply) => {
        const reading = readApplicationForm(request.body ?? {});
        if (!reading.ok) return noStore(reply, renderApplyPage(siteName, reading), 400);
        // The JSON intake's budget, once the form reads well (as the API's schema comes first): the
        // form and the API count together (docs/security.md).
        reply.headers(await deps.budgets.spend('partner-intake', request.ip));
        const { applicationId, statusToken } = await deps.partners.apply(reading.input, { kind: 'public' });
        const { kind, organisation, contactEmail } = reading.input;
        return noStore(reply, renderFiledPage(siteName, { applicationId, statusToken, kind, organisation, contactEmail }));
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/partners/status',
      summary: 'The form to follow an application with its id and status token (posted, never in a URL).',
      responses: { 200: HTML('HTML page.') },
      handler: async (_request, reply) => sendPage(reply, renderStatusFormPage(siteName)),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/partners/status',
      accepts: 'form',
      spends: ['partner-status'],
      bodyOptional: true,
      summary: 'The status form’s action: the application’s stage, what it means and comes next, and its history.',
      body: StatusForm,
      beforeValidation: (request) => assertSameOriginForm(request, deps.origin),
      responses: {
        200: HTML('The application as its applicant sees it.'),
        400: HTML('The form again, naming the empty field; nothing read.'),
        403: HTML('cross_origin_form'),
        404: HTML('The form again with one message for an unknown id and a wrong token alike.'),
        429: HTML('rate_limited: too many status reads from this address (one count with the JSON status read).'),
      },
      onRefusal: tooMany('This address has read the status of applications too often this hour.'),
      handler: async (request, reply) => {
        const applicationId = (request.body?.applicationId ?? '').trim();
        const statusToken = (request.body?.statusToken ?? '').trim();
        const errors = {
          ...(applicationId ? {} : { applicationId: 'Enter the application id.' }),
          ...(statusToken ? {} : { statusToken: 'Enter the status token.' }),
        };
        if (Object.keys(errors).length > 0) return noStore(reply, renderStatusFormPage(siteName, { applicationId, errors }), 400);
        reply.headers(await deps.budgets.spend('partner-status', request.ip));
        // A malformed id or token matches nothing: the same answer as a wrong one, with no lookup.
        const view = wellFormedStatus({ applicationId, statusToken })
          ? await deps.partners.status(applicationId, statusToken).catch((e: unknown) => {
              if (e instanceof ServiceError && e.code === 'unknown_application') return undefined;
              throw e;
            })
          : undefined;
        if (!view) return noStore(reply, renderStatusFormPage(siteName, { applicationId, notFound: true }), 404);
        return noStore(reply, renderStatusPage(siteName, view));
      },
    }),
  ];
}
