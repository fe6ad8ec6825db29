/**
 * /admin: the platform back office in the browser (docs/admin-app.md). Every page is an /api/admin
 * operation at the same path under /admin, called as the signed-in operator; every form posts to
 * its page and runs one operation, answering what it did and the `auditSeq` it produced.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden, ServiceError } from '../../core/errors.ts';
import type { EnterpriseSessionPrincipal } from '../../http/auth/enterprise-session.ts';
import { enterpriseSessionOf } from '../../http/auth/enterprise-session.ts';
import { requestTarget } from '../../http/request-target.ts';
import type { RouteDef } from '../../http/route.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { ADMIN_API, ADMIN_APP, AdminCatalogue, adminHref, apiPathOf, type Opener, pageLabel } from './admin-catalogue.ts';
import { START_LINKS, START_PAGE } from './admin-nav.ts';
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
import {
  admits,
  fillTemplate,
  findOperation,
  MissingParam,
  matchTemplate,
  type Operation,
  operatorOperations,
} from './contract.ts';
import type { Linker } from './render-json.ts';
import { humanize, renderField } from './schema-form.ts';

/** What a page says above its data, where the data alone would not tell an operator the rule. */
const NOTES: Readonly<Record<string, string>> = {
  '/approvals':
    'Four eyes: an action that needs a second operator is filed here and runs only when another operator approves it. The operator who asked, or one linked to them, cannot decide it (same_operator).',
  '/approvals/{approvalId}':
    'Four eyes: you can approve or reject only a request that you did not file and that no operator linked to you filed; the requester may withdraw it.',
  '/orgs/{slug}':
    'Suspending an organisation files an approval: it takes effect when a second operator approves it on the approvals desk.',
  '/audit':
    'Every change is an entry of the hash-chained audit log. The audit chain check, in this section, verifies the whole chain.',
  '/ops/audit': 'Verifies the audit chain from its first entry: each entry’s hash over its content and the hash before it.',
};

/** Query parameters a page passes on: bounded, so a URL cannot make a page without end. */
const MAX_QUERY = 20;

function searchOf(url: string): URLSearchParams {
  const search = new URLSearchParams(requestTarget(url).query);
  return new URLSearchParams([...search].slice(0, MAX_QUERY));
}

/** A form that opens one thing by its identifier: a GET to `action`, which sends the browser on to it. */
const openForm = ({ op, param }: Opener, action: string, idPrefix: string) =>
  html`<form class="filter-form" method="get" action="${action}"><fieldset><legend>${op.summary}</legend>
${renderField({ name: param, kind: 'text', required: true, schema: {} }, idPrefix, param)}
<p><button class="button" type="submit">Open</button></p></fieldset></form>`;

export function adminAppRoutes(site: AppSite, openApi: () => Record<string, unknown>): RouteDef[] {
  let built: AdminCatalogue | undefined;
  // The contract is complete once the service has started, before any request.
  const catalogue = () => {
    built ??= new AdminCatalogue(operatorOperations(openApi()));
    return built;
  };

  const shell = (
    request: FastifyRequest,
    reply: FastifyReply,
    title: string,
    current: string,
    main: SafeHtml,
    status = 200,
    crumbs?: Array<{ label: string; href?: string }>,
  ) => {
    const who = enterpriseSessionOf(request);
    // The navigation's "Today" is the start page, which shows it.
    const marked = current === `${ADMIN_APP}${START_PAGE}` ? ADMIN_APP : current;
    return sendAppPage(
      reply,
      renderShell(site, who, {
        app: 'admin',
        title,
        current: marked,
        nav: catalogue().nav(who),
        main,
        ...(crumbs ? { crumbs } : {}),
      }),
      status,
    );
  };

  /** Links from a page's data to the pages that show what it names. */
  const linker = (who: EnterpriseSessionPrincipal, page?: { op: Operation; params: Record<string, string> }): Linker => {
    const detail = page && catalogue().detailOf(page.op);
    return (key, value, row) => {
      if (
        detail &&
        row &&
        (key === detail.param || (key === 'id' && row[detail.param] === undefined)) &&
        admits(detail.op, who)
      ) {
        try {
          return adminHref(fillTemplate(detail.op.path, { ...page.params, [detail.param]: value }));
        } catch {
          return undefined;
        }
      }
      return catalogue().linkFor(key, value, who);
    };
  };

  /** The trail of pages above this one: each prefix of the path that is a page itself links. */
  const crumbsOf = (appPath: string) => {
    const parts = appPath.slice(ADMIN_APP.length).split('/').filter(Boolean);
    const apiPath = apiPathOf(appPath);
    // A parameter's value (an id, a slug) is shown as it is; a path word is put into words.
    const template = (findOperation(catalogue().gets, 'GET', apiPath) ?? findOperation(catalogue().posts, 'POST', apiPath))?.op
      .path;
    const offset = ADMIN_API.split('/').length - 1;
    const isParam = (i: number) => template?.split('/').slice(1)[i + offset]?.startsWith('{') ?? false;
    const crumbs: Array<{ label: string; href?: string }> = [{ label: 'Back office', href: `${ADMIN_APP}/` }];
    parts.forEach((part, i) => {
      const path = `${ADMIN_APP}/${parts.slice(0, i + 1).join('/')}`;
      const label = (() => {
        try {
          return isParam(i) ? decodeURIComponent(part) : humanize(decodeURIComponent(part));
        } catch {
          return part;
        }
      })();
      const isPage = i < parts.length - 1 && findOperation(catalogue().gets, 'GET', apiPathOf(path)) !== undefined;
      crumbs.push(isPage ? { label, href: path } : { label });
    });
    return crumbs;
  };

  async function home(request: FastifyRequest, reply: FastifyReply) {
    const who = enterpriseSessionOf(request);
    const today = await callApi(request, 'GET', `${ADMIN_API}/today`);
    // The pages used most, a click away: those the operator's roles open.
    const starts = START_LINKS.filter((s) => {
      const op = catalogue().gets.find((g) => g.path === `${ADMIN_API}${s.path}`);
      return op !== undefined && admits(op, who);
    });
    const main = html`<h1>Today</h1>
${
  starts.length > 0
    ? html`<nav class="start-links" aria-label="Start here"><ul>${starts.map(
        (s) => html`<li><a href="${ADMIN_APP}${s.path}"><strong>${s.label}</strong> <span>${s.about}</span></a></li>`,
      )}</ul></nav>`
    : null
}
<form class="search-form" method="get" action="${ADMIN_APP}/search" role="search">
<label for="search-q">Search organisations, operators, credentials and holders</label>
<div class="search-row"><input id="search-q" name="q" type="search" maxlength="200" required><button class="button" type="submit">Search</button></div>
</form>
${renderAnswer(today, linker(who), () => `${ADMIN_APP}/`)}`;
    return shell(request, reply, 'Today', ADMIN_APP, main);
  }

  async function view(
    request: FastifyRequest,
    reply: FastifyReply,
    appPath: string,
    found: { op: Operation; params: Record<string, string> },
  ) {
    const who = enterpriseSessionOf(request);
    const search = searchOf(request.url);
    const { op } = found;
    const template = op.path.slice(ADMIN_API.length);
    const missing = op.query.filter((q) => q.required && !search.get(q.name));
    const apiQuery = new URLSearchParams();
    for (const q of op.query) {
      const value = search.get(q.name);
      if (value) apiQuery.set(q.name, value);
    }
    const answer =
      missing.length > 0
        ? undefined
        : await callApi(request, 'GET', `${fillTemplate(op.path, found.params)}${apiQuery.size ? `?${apiQuery}` : ''}`);
    const filterForm = renderFilterForm(
      appPath,
      op.query.filter((q) => q.name !== 'cursor'),
      search,
      { legend: missing.length > 0 ? 'Look up' : 'Filter', open: missing.length > 0 },
    );
    // The pages shown on this one (admin-nav.ts, MERGED): their look-ups, and their forms, which post to their own address.
    const merged = catalogue().mergedInto(op.path);
    const lookups = [
      ...merged.lookups
        .filter((get) => admits(get, who))
        .map((get, i) =>
          renderFilterForm(
            adminHref(get.path),
            get.query.filter((q) => q.name !== 'cursor'),
            new URLSearchParams(),
            { legend: pageLabel(get.path), open: false, idPrefix: `lookup${i}` },
          ),
        ),
      ...merged.openers
        .filter((o) => admits(o.op, who))
        .map((o, i) => openForm(o, adminHref(o.op.path.slice(0, o.op.path.lastIndexOf('/'))), `open${i}`)),
    ];
    const posts = [
      ...catalogue()
        .formsOn(op)
        .map((post) => ({ post, action: appPath, known: found.params })),
      ...merged.forms.map((post) => ({ post, action: adminHref(post.path), known: {} })),
    ];
    const forms = posts
      .filter(({ post }) => admits(post, who))
      .map(({ post, action, known }, i) =>
        renderActionForm({
          action,
          op: post,
          opName: post.path.slice(ADMIN_API.length),
          known,
          csrf: csrfOf(request),
          idPrefix: `form${i}`,
        }),
      );
    const last = Object.values(found.params).at(-1);
    const title = last ? `${pageLabel(op.path)}: ${last}` : pageLabel(op.path);
    const note = NOTES[template];
    const nextHref = nextPage(appPath, search);
    const main = html`<h1>${title}</h1>
<p class="lead">${op.summary}</p>
${note ? html`<p class="notice">${note}</p>` : null}
${filterForm}${lookups}
${answer ? renderAnswer(answer, linker(who, found), nextHref) : html`<p class="muted">Fill in ${missing.map((q) => humanize(q.name)).join(', ')} to see the answer.</p>`}
${forms.length > 0 ? html`<h2>Actions</h2>${forms}` : null}`;
    return shell(request, reply, title, appPath, main, answer && answer.status >= 400 ? answer.status : 200, crumbsOf(appPath));
  }

  async function page(request: FastifyRequest, reply: FastifyReply) {
    const appPath = requestTarget(request.url).path.replace(/\/+$/, '');
    if (appPath === ADMIN_APP) return home(request, reply);
    const apiPath = apiPathOf(appPath);
    const found = findOperation(catalogue().gets, 'GET', apiPath);
    if (found) return view(request, reply, appPath, found);
    // A page that opens a thing by its identifier, for GET operations no list links to.
    const openers = catalogue().openersAt(apiPath);
    if (openers.length > 0) {
      const search = searchOf(request.url);
      for (const { op, param } of openers) {
        const value = search.get(param);
        if (value) {
          const params = { ...(matchTemplate(op.path.slice(0, op.path.lastIndexOf('/')), apiPath) ?? {}), [param]: value };
          try {
            return reply
              .code(303)
              .header('location', adminHref(fillTemplate(op.path, params)))
              .header('cache-control', 'no-store')
              .send();
          } catch (err) {
            if (!(err instanceof MissingParam)) throw err;
          }
        }
      }
      const forms = openers.map((opener, i) => openForm(opener, appPath, `open${i}`));
      return shell(
        request,
        reply,
        pageLabel(apiPath),
        appPath,
        html`<h1>${pageLabel(apiPath)}</h1>${forms}`,
        200,
        crumbsOf(appPath),
      );
    }
    const post = findOperation(catalogue().posts, 'POST', apiPath);
    if (post && catalogue().formOnly(post.op)) {
      const who = enterpriseSessionOf(request);
      if (!admits(post.op, who)) throw new Forbidden(`This operation needs one of the roles: ${post.op.roles.join(', ')}.`);
      const form = renderActionForm({
        action: appPath,
        op: post.op,
        opName: post.op.path.slice(ADMIN_API.length),
        known: post.params,
        csrf: csrfOf(request),
        idPrefix: 'form0',
      });
      return shell(
        request,
        reply,
        pageLabel(apiPath),
        appPath,
        html`<h1>${pageLabel(apiPath)}</h1>${form}`,
        200,
        crumbsOf(appPath),
      );
    }
    throw new ServiceError('not_found', 'The back office has no page at this address.');
  }

  async function act(request: FastifyRequest, reply: FastifyReply) {
    const form = formOf(request);
    assertAppForm(request, site.origin, form);
    const appPath = requestTarget(request.url).path.replace(/\/+$/, '');
    const post = catalogue().posts.find((p) => p.path.slice(ADMIN_API.length) === form._op);
    const pageTemplate = post && (catalogue().home(post)?.path ?? post.path);
    const pageParams = pageTemplate && matchTemplate(pageTemplate, apiPathOf(appPath));
    if (!post || !pageParams) throw new ServiceError('invalid_request', 'This form names no operation of this page.');
    const answer = await runForm(request, post, pageParams, form);
    // A form shown on another page (admin-nav.ts, MERGED) leads back there.
    const shownOn = catalogue().shownOn(post);
    const back = {
      back: shownOn ? adminHref(shownOn) : appPath,
      backLabel: pageLabel(shownOn ?? pageTemplate),
      audit: (seq: number) => `${ADMIN_APP}/audit/${seq}`,
    };
    const outcome = await renderOutcome(answer, back, linker(enterpriseSessionOf(request)));
    return shell(request, reply, outcome.title, appPath, outcome.main, answer.status >= 400 ? answer.status : 200);
  }

  return appRouteDefs({ base: ADMIN_APP, name: 'the back office', home, page, act });
}
