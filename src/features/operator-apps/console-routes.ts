/**
 * /console: an organisation's own workspace (docs/admin-app.md, "The console"). Each page reads
 * one of the organisation's lists and offers the forms of the operations that change it, always
 * for the operator's own organisation: the tenant is filled in by the console and checked again
 * by every operation's tenant scope. A platform operator picks the organisation first.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import { SLUG_PATTERN } from '../../core/slug.ts';
import { enterpriseSessionOf } from '../../http/auth/enterprise-session.ts';
import { requestTarget } from '../../http/request-target.ts';
import type { RouteDef } from '../../http/route.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import {
  type AppSite,
  assertAppForm,
  callApi,
  csrfOf,
  formOf,
  renderActionForm,
  renderAnswer,
  renderOutcome,
  renderShell,
  sendAppPage,
} from './app-kit.ts';
import { appRouteDefs, nextPage, renderFilterForm, runForm } from './app-routes.ts';
import { admits, fillTemplate, MissingParam, type Operation, operatorOperations } from './contract.ts';
import type { Linker } from './render-json.ts';
import { humanize, renderField } from './schema-form.ts';

const CONSOLE = '/console';

interface ConsoleView {
  slug: string;
  label: string;
  intro: string;
  /** The list the page shows (a GET operation). */
  read?: string;
  /** A GET operation that finds one thing by a path parameter, asked for on the page. */
  lookup?: { path: string; param: string };
  /** The POST operations whose forms the page shows. */
  actions: string[];
}

export const CONSOLE_VIEWS: readonly ConsoleView[] = [
  { slug: '', label: 'Overview', intro: 'The organisation at a glance.', read: '/api/state', actions: [] },
  {
    slug: 'types',
    label: 'Credential types',
    intro: 'The kinds of credential the organisation issues, each with the claims it carries and the rules they follow.',
    read: '/api/admin/credential-types',
    actions: ['/api/types'],
  },
  {
    slug: 'offers',
    label: 'Offers',
    intro:
      'An offer hands one credential to one holder: the answer shows its QR code and link. A collected offer appears under Issued credentials.',
    actions: ['/api/offers'],
  },
  {
    slug: 'credentials',
    label: 'Issued credentials',
    intro: 'Every credential issued, with its status; find one by its status list index, and revoke it with a reason.',
    read: '/api/admin/credentials',
    lookup: { path: '/api/admin/support/credential/{statusIndex}', param: 'statusIndex' },
    actions: ['/api/revoke'],
  },
  {
    slug: 'deposits',
    label: 'Deposits',
    intro: 'Deposits made to the organisation’s holders.',
    read: '/api/admin/integration/deposits',
    actions: [],
  },
  {
    slug: 'products',
    label: 'Products',
    intro: 'The products holders can take up, and their approval.',
    read: '/api/products',
    actions: ['/api/products', '/api/products/{productId}/approve', '/api/products/{productId}/require-channel'],
  },
  {
    slug: 'channels',
    label: 'Channels',
    intro: 'Channels between the organisation and holders’ accounts: requested, accepted, declined or revoked.',
    read: '/api/org-channels',
    actions: [
      '/api/org-channels/request',
      '/api/org-channels/{tenant}/{accountId}/accept',
      '/api/org-channels/{tenant}/{accountId}/decline',
      '/api/org-channels/{tenant}/{accountId}/revoke',
    ],
  },
  {
    slug: 'members',
    label: 'Members',
    intro: 'The organisation’s members, and enrolling or updating one.',
    read: '/api/admin/people/members',
    actions: ['/api/members/enroll', '/api/members/update'],
  },
  {
    slug: 'proposals',
    label: 'Proposals',
    intro: 'Governance proposals put to the members, and their votes.',
    read: '/api/admin/people/governance',
    actions: ['/api/proposals', '/api/proposals/vote'],
  },
  {
    slug: 'webhooks',
    label: 'Webhooks',
    intro: 'Where the organisation’s events are delivered, signed.',
    read: '/api/admin/integration/webhooks',
    actions: [
      '/api/admin/integration/webhooks',
      '/api/admin/integration/webhooks/{webhookId}/active',
      '/api/admin/integration/webhooks/{webhookId}/rotate-secret',
    ],
  },
];

const TENANT = new RegExp(SLUG_PATTERN);

export function consoleRoutes(site: AppSite, openApi: () => Record<string, unknown>): RouteDef[] {
  let operations: Operation[] | undefined;
  const op = (method: 'GET' | 'POST', path: string) => {
    operations ??= operatorOperations(openApi());
    return operations.find((o) => o.method === method && o.path === path);
  };
  /**
   * A console action: only an operation whose tenant the console fills in itself (the body's
   * `tenant`, or the path's), that names none (a webhook by its id, which the API holds to its
   * tenant), or that only a platform credential may call (approving a product), so no action
   * carries a tenant of the form's choosing past a tenant operator.
   */
  const action = (path: string) => {
    const found = op('POST', path);
    return found && ['body.tenant', 'params.tenant', 'none', 'platform'].includes(found.scope ?? '') ? found : undefined;
  };

  /** The organisation the page is for: the operator's own, or the one a platform operator picked. */
  const tenantOf = (request: FastifyRequest, chosen: string | null | undefined): string | undefined => {
    const who = enterpriseSessionOf(request);
    if (who.tenant !== null) return who.tenant;
    return chosen && TENANT.test(chosen) ? chosen : undefined;
  };
  const href = (slug: string, tenant: string, request: FastifyRequest) =>
    `${CONSOLE}${slug ? `/${slug}` : ''}${enterpriseSessionOf(request).tenant === null ? `?tenant=${encodeURIComponent(tenant)}` : ''}`;

  const shell = (
    request: FastifyRequest,
    reply: FastifyReply,
    tenant: string | undefined,
    view: ConsoleView | undefined,
    main: SafeHtml,
    status = 200,
  ) => {
    const who = enterpriseSessionOf(request);
    const items = tenant
      ? CONSOLE_VIEWS.filter((v) =>
          [v.read, ...v.actions].some((p) => p && [op('GET', p), action(p)].some((o) => o && admits(o, who))),
        ).map((v) => ({
          href: href(v.slug, tenant, request),
          label: v.label,
        }))
      : [];
    const nav = items.length ? [{ label: tenant ? `Organisation ${tenant}` : 'Organisation', items }] : [];
    const current = tenant && view ? href(view.slug, tenant, request) : '';
    return sendAppPage(
      reply,
      renderShell(site, who, { app: 'console', title: view?.label ?? 'Console', current, nav, main }),
      status,
    );
  };

  const noLinks: Linker = () => undefined;

  async function picker(request: FastifyRequest, reply: FastifyReply) {
    const cursor = new URLSearchParams(requestTarget(request.url).query).get('cursor');
    const orgs = await callApi(request, 'GET', `/api/admin/orgs${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
    const link: Linker = (key, value) => (key === 'slug' ? `${CONSOLE}?tenant=${encodeURIComponent(value)}` : undefined);
    // What tells organisations apart, to choose one: the back office's list shows the rest.
    const body = orgs.body as { orgs?: unknown } | undefined;
    const shown =
      orgs.status < 400 && Array.isArray(body?.orgs)
        ? {
            ...body,
            orgs: (body.orgs as Array<Record<string, unknown>>).map(({ name, slug, did, status }) => ({
              name,
              slug,
              did,
              status,
            })),
          }
        : orgs.body;
    const main = html`<h1>Choose an organisation</h1>
<p class="lead">The console is an organisation’s own workspace. You sign in for the whole platform, so choose the organisation to work in.</p>
${renderAnswer({ ...orgs, body: shown }, link, (next) => `${CONSOLE}?cursor=${encodeURIComponent(next)}`)}`;
    return shell(request, reply, undefined, undefined, main, orgs.status >= 400 ? orgs.status : 200);
  }

  const viewOf = (request: FastifyRequest) => {
    const slug = requestTarget(request.url)
      .path.slice(CONSOLE.length)
      .replace(/^\/+|\/+$/g, '');
    const view = CONSOLE_VIEWS.find((v) => v.slug === slug);
    if (!view) throw new ServiceError('not_found', 'The console has no page at this address.');
    return view;
  };

  async function page(request: FastifyRequest, reply: FastifyReply) {
    const view = viewOf(request);
    const search = new URLSearchParams(requestTarget(request.url).query);
    const tenant = tenantOf(request, search.get('tenant'));
    if (!tenant) return picker(request, reply);
    const who = enterpriseSessionOf(request);
    const read = view.read ? op('GET', view.read) : undefined;
    const lookup = view.lookup && op('GET', view.lookup.path);
    const lookupValue = view.lookup ? search.get(view.lookup.param) : null;
    let answer: Awaited<ReturnType<typeof callApi>> | undefined;
    if (lookup && view.lookup && lookupValue) {
      const { param } = view.lookup;
      answer = await (async () => {
        try {
          const path = fillTemplate(lookup.path, { [param]: lookupValue });
          return callApi(request, 'GET', `${path}?tenant=${encodeURIComponent(tenant)}`);
        } catch (err) {
          if (!(err instanceof MissingParam)) throw err;
          return { status: 400, body: { error: 'invalid_request', message: `${humanize(param)} is not a value to look up.` } };
        }
      })();
    } else if (read) {
      const query = new URLSearchParams();
      for (const q of read.query) {
        const value = q.name === 'tenant' ? tenant : search.get(q.name);
        if (value) query.set(q.name, value);
      }
      answer = await callApi(request, 'GET', `${fillTemplate(read.path, { tenant })}${query.size ? `?${query}` : ''}`);
    }
    const hiddenTenant = who.tenant === null ? html`<input type="hidden" name="tenant" value="${tenant}">` : null;
    const lookupField =
      view.lookup &&
      renderField(
        {
          name: view.lookup.param,
          kind: 'text',
          required: false,
          schema: { description: 'Shows this one instead of the list.' },
        },
        'filter',
        view.lookup.param,
        lookupValue ?? undefined,
      );
    const filterForm = renderFilterForm(
      `${CONSOLE}/${view.slug}`,
      read?.query.filter((q) => q.name !== 'tenant' && q.name !== 'cursor') ?? [],
      search,
      { legend: 'Find', open: lookupValue !== null, extra: html`${hiddenTenant}${lookupField ?? null}` },
    );
    const forms = view.actions
      .map((path) => action(path))
      .filter((o): o is Operation => o !== undefined && admits(o, who))
      .map((o, i) =>
        renderActionForm({
          action: `${CONSOLE}/${view.slug}`,
          op: o,
          opName: o.path,
          known: { tenant },
          fixed: new Set(['tenant']),
          ...(who.tenant === null ? { hidden: { tenant } } : {}),
          csrf: csrfOf(request),
          idPrefix: `form${i}`,
        }),
      );
    // The page's own query, where a platform operator's tenant is one parameter, never repeated.
    const pageQuery = new URLSearchParams(search);
    if (who.tenant === null) pageQuery.set('tenant', tenant);
    const nextHref = nextPage(`${CONSOLE}/${view.slug}`, pageQuery);
    const main = html`<h1>${view.label}</h1>
<p class="lead">${view.intro}</p>
${forms.length > 0 ? html`<h2>Actions</h2>${forms}` : null}
${filterForm}
${answer ? html`<h2>${lookupValue ? 'Found' : humanize(view.slug || 'summary')}</h2>${renderAnswer(answer, noLinks, nextHref)}` : null}`;
    return shell(request, reply, tenant, view, main, answer && answer.status >= 400 ? answer.status : 200);
  }

  async function act(request: FastifyRequest, reply: FastifyReply) {
    const form = formOf(request);
    assertAppForm(request, site.origin, form);
    const view = viewOf(request);
    const tenant = tenantOf(request, form.tenant);
    const post = view.actions.includes(form._op ?? '') ? action(form._op ?? '') : undefined;
    if (!post || !tenant) throw new ServiceError('invalid_request', 'This form names no operation of this page.');
    // The tenant is the console's to fill, in the path and the body: never the form's.
    const answer = await runForm(request, post, { tenant }, form, { tenant });
    const outcome = await renderOutcome(answer, { back: href(view.slug, tenant, request), backLabel: view.label }, noLinks);
    return shell(request, reply, tenant, view, outcome.main, answer.status >= 400 ? answer.status : 200);
  }

  return appRouteDefs({ base: CONSOLE, name: 'the console', home: page, page, act });
}
