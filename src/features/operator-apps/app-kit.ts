/**
 * What /admin and /console share (docs/admin-app.md): the page shell with the app's navigation and
 * the signed-in operator, the call of an operation on the API as the session's operator, the forms
 * with their anti-forgery token, and the page that says what a form did (the `auditSeq` it
 * produced, or the refusal and that nothing changed).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import {
  appBearer,
  assertSessionForm,
  type EnterpriseSessionPrincipal,
  formToken,
  sessionCookie,
} from '../../http/auth/enterprise-session.ts';
import { html, raw, type SafeHtml } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import { qrSvg } from '../../web/qr-code.ts';
import { sendPage } from '../../web/serve.ts';
import type { Operation } from './contract.ts';
import { type Linker, renderValue } from './render-json.ts';
import { type FormField, fieldsOf, humanize, renderField } from './schema-form.ts';

export interface AppSite {
  name: string;
  origin: string;
}

export interface NavSection {
  label: string;
  /** `terms`: other names the filter finds the page by (the pages it shows besides its own). */
  items: Array<{ href: string; label: string; terms?: string }>;
}

/** A navigation longer than this gets the filter box (operator-nav.js). */
const FILTER_FROM = 15;

export interface ShellSpec {
  app: 'admin' | 'console';
  title: string;
  /** Where the page sits: each crumb links, but the last, which is the page. */
  crumbs?: Array<{ label: string; href?: string }>;
  nav: NavSection[];
  /** The href of the page, to mark it current in the navigation. */
  current: string;
  main: SafeHtml;
}

const APP_TITLE = { admin: 'Back office', console: 'Console' } as const;

/** A page of an operator app: its navigation beside the content, the operator and a way out above it. */
export function renderShell(site: AppSite, who: EnterpriseSessionPrincipal, spec: ShellSpec): RenderedPage {
  const scope = who.tenant === null ? 'platform' : `organisation ${who.tenant}`;
  // Every section starts open (a person may fold one away); on a phone the navigation follows the content.
  const nav = spec.nav.map((section) => {
    return html`<details open><summary>${section.label}</summary><ul>${section.items.map((item) => {
      const current = item.href === spec.current ? html` aria-current="page"` : null;
      const terms = item.terms ? html` data-terms="${item.terms}"` : null;
      return html`<li><a href="${item.href}"${current}${terms}>${item.label}</a></li>`;
    })}</ul></details>`;
  });
  const links = spec.nav.reduce((n, section) => n + section.items.length, 0);
  const filter = links > FILTER_FROM;
  // Shown by its script, which is what makes it work; without the script every link is there anyway.
  const filterBox = filter
    ? html`<div class="nav-filter" hidden>
<label for="nav-filter">Find a page</label>
<input id="nav-filter" type="search" autocomplete="off" spellcheck="false" aria-describedby="nav-filter-status">
<p id="nav-filter-status" class="muted" role="status"></p>
</div>`
    : null;
  const crumbs = spec.crumbs?.length
    ? html`<nav class="crumbs" aria-label="You are here"><ol>${spec.crumbs.map((c) =>
        c.href ? html`<li><a href="${c.href}">${c.label}</a></li>` : html`<li aria-current="page">${c.label}</li>`,
      )}</ol></nav>`
    : null;
  const main = html`<div class="app-bar">
<p><strong>${APP_TITLE[spec.app]}</strong> · signed in as <strong>${who.username}</strong> (${who.roles.join(', ') || 'no role'}; ${scope})</p>
<div class="app-bar-actions">
${nav.length > 0 ? html`<a class="to-nav" href="#app-nav">All pages</a>` : null}
<a href="${spec.app === 'admin' ? '/console' : '/admin'}">${spec.app === 'admin' ? 'Console' : 'Back office'}</a>
<form method="post" action="/auth/logout"><input type="hidden" name="_csrf" value="${who.formToken}"><button class="button" type="submit">Sign out</button></form>
</div>
</div>
<div class="app-layout${nav.length === 0 ? ' single' : ''}">
${nav.length === 0 ? null : html`<nav class="app-nav" id="app-nav" aria-label="${APP_TITLE[spec.app]}">${filterBox}${nav}</nav>`}
<div class="app-content">
${crumbs}
${spec.main}
</div>
</div>`;
  return renderPage({
    title: spec.title,
    main,
    siteName: site.name,
    stylesheets: ['/assets/operator-app.css'],
    ...(filter ? { scripts: ['operator-nav.js'] } : {}),
    mainClass: 'operator-app',
  });
}

/** Sends an app page: never cached, it shows one operator's view. */
export const sendAppPage = (reply: FastifyReply, page: RenderedPage, status = 200) =>
  sendPage(reply.code(status), page, 'no-store');

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/**
 * Calls an operator-plane operation in this process as the session's operator, through the same
 * route table, roles, tenant scope, validation and audit as any other caller (docs/admin-app.md,
 * "How a page acts"). `path` must be a path of this service (it is given by the app, never taken
 * from the browser whole).
 */
export async function callApi(request: FastifyRequest, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> {
  const cookie = sessionCookie(request.headers);
  if (!cookie) throw new ServiceError('unauthorized', 'This browser is not signed in as an operator: sign in at /auth/login.');
  const answer = await request.server.inject({
    method,
    url: path,
    headers: {
      authorization: `Bearer ${appBearer(cookie)}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  let parsed: unknown;
  try {
    parsed = answer.json();
  } catch {
    parsed = undefined;
  }
  return { status: answer.statusCode, body: parsed };
}

/**
 * A form of an app must come from our own pages (the web kit's origin check) and carry this
 * session's anti-forgery token; else 403 cross_origin_form and nothing is done.
 */
export function assertAppForm(request: FastifyRequest, origin: string, form: Readonly<Record<string, string>>): void {
  assertSessionForm(request, origin, form._csrf);
}

/** The posted form as text fields (what the form parser gives; anything else is not a form). */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return {};
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export interface ActionForm {
  /** Where the form posts (the page's own path). */
  action: string;
  op: Operation;
  /** The operation's template as the form names it in `_op`. */
  opName: string;
  /** Path parameters the page knows already: not asked for. */
  known: Readonly<Record<string, string>>;
  /** Body fields the app fills itself: not asked for. */
  fixed?: ReadonlySet<string>;
  /** Extra hidden fields (the console's tenant for a platform operator). */
  hidden?: Readonly<Record<string, string>>;
  csrf: string;
  idPrefix: string;
}

/** A form for one operation: its summary, the path parameters and body fields it still needs. */
export function renderActionForm(form: ActionForm): SafeHtml {
  const pathFields: FormField[] = form.op.pathParams
    .filter((p) => form.known[p] === undefined)
    .map((name) => ({ name, kind: 'text', required: true, schema: {} }));
  const fields = fieldsOf(form.op.body, form.fixed);
  const literals = form.opName.split('/').filter((s) => s && !s.startsWith('{'));
  const last = literals.at(-1) ?? 'send';
  // An operation on a collection itself (POST /orgs, /api/types) creates one of it.
  const verb = form.op.pathParams.length === 0 && /[^s]s$/.test(last) ? 'Create' : humanize(last);
  // The summary's first clause names the action better than a path segment, when it is short.
  const clause = form.op.summary.split(/[.:;(]/)[0]?.trim() ?? '';
  const heading = clause.length > 0 && clause.length <= 60 ? clause : verb;
  return html`<section class="action-form" aria-labelledby="${form.idPrefix}-title">
<h3 id="${form.idPrefix}-title">${heading}</h3>
<p class="muted">${form.op.summary}</p>
<form method="post" action="${form.action}">
<input type="hidden" name="_csrf" value="${form.csrf}">
<input type="hidden" name="_op" value="${form.opName}">
${Object.entries(form.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${pathFields.map((f) => renderField(f, form.idPrefix, `p_${f.name}`))}
${fields.map((f) => renderField(f, form.idPrefix))}
<p><button class="button primary" type="submit">${verb}</button></p>
</form>
</section>`;
}

/** This session's anti-forgery token, for the forms of a page. */
export function csrfOf(request: FastifyRequest): string {
  const cookie = sessionCookie(request.headers);
  return cookie ? formToken(cookie) : '';
}

/** An offer URI in an answer is shown as its QR code too, for a wallet's camera. */
async function offerQr(body: unknown): Promise<SafeHtml | null> {
  const uri = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).offerUri : undefined;
  if (typeof uri !== 'string' || uri.length > 2048) return null;
  const svg = await qrSvg(uri);
  return html`<figure class="qr-figure"><div class="qr" role="img" aria-label="QR code of the credential offer">${raw(svg)}</div>
<figcaption>Scan with a wallet, or open <a href="${uri}">the offer link</a> on the holder’s device.</figcaption></figure>`;
}

/** What the API answered to a form: done with its audit entry, or refused with nothing changed. */
export async function renderOutcome(
  answer: ApiAnswer,
  links: { back: string; backLabel: string; audit?: (seq: number) => string | undefined },
  link: Linker,
): Promise<{ main: SafeHtml; title: string }> {
  const body = answer.body as Record<string, unknown> | undefined;
  if (answer.status >= 400) {
    const code = typeof body?.error === 'string' ? body.error : `http_${answer.status}`;
    const message = typeof body?.message === 'string' ? body.message : 'The operation was refused.';
    return {
      title: 'Not done',
      main: html`<h1>Not done</h1>
<div class="notice error" role="alert"><p>${message}</p><p class="muted">Error <code>${code}</code> (HTTP ${answer.status}). Nothing was changed.</p></div>
<p><a href="${links.back}">Back to ${links.backLabel}</a></p>`,
    };
  }
  const seq = typeof body?.auditSeq === 'number' ? body.auditSeq : undefined;
  const auditHref = seq === undefined ? undefined : links.audit?.(seq);
  // 202: the action needs four eyes and was filed as an approval (docs/backoffice.md, "Four eyes").
  const filed = answer.status === 202;
  const title = filed ? 'Filed for approval' : 'Done';
  return {
    title,
    main: html`<h1>${title}</h1>
${filed ? html`<p class="lead">This change needs a second operator: it happens when another operator approves it on the approvals desk. You cannot approve it yourself.</p>` : null}
<div class="notice success" role="status"><p>${
      seq === undefined
        ? 'The operation was carried out.'
        : html`Recorded in the audit log as entry ${auditHref ? html`<a href="${auditHref}">${seq}</a>` : seq}.`
    }</p><p class="muted">Anything shown once below (a secret, a code) is not shown again: keep it now.</p></div>
${await offerQr(body)}
${body === undefined ? null : renderValue('answer', body, link)}
<p><a href="${links.back}">Back to ${links.backLabel}</a></p>`,
  };
}

/** An answer shown on a view page: the data, a next-page link, or the refusal in words. */
export function renderAnswer(answer: ApiAnswer, link: Linker, nextHref: (cursor: string) => string): SafeHtml {
  const body = answer.body as Record<string, unknown> | undefined;
  if (answer.status >= 400) {
    const message = typeof body?.message === 'string' ? body.message : `HTTP ${answer.status}`;
    const code = typeof body?.error === 'string' ? body.error : `http_${answer.status}`;
    return html`<div class="notice error" role="alert"><p>${message}</p><p class="muted">Error <code>${code}</code> (HTTP ${answer.status}).</p></div>`;
  }
  const next = typeof body?.nextCursor === 'string' ? body.nextCursor : undefined;
  // The cursor is the pager's link, not data to read.
  const shown =
    body && 'nextCursor' in body ? Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'nextCursor')) : body;
  return html`${renderValue('answer', shown, link)}${next ? html`<p class="pager"><a href="${nextHref(next)}" rel="next">Next page</a></p>` : null}`;
}
