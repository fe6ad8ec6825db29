import { STATUS_CODES } from 'node:http';
import type { ServiceError } from '../core/errors.ts';
import { html } from './html.ts';
import { type RenderedPage, renderPage } from './layout.ts';

/** A refusal on a browser route, as a page of the site: what went wrong, in words, and a way on. */
export function renderErrorPage(e: ServiceError, siteName: string): RenderedPage {
  const reason = STATUS_CODES[e.status] ?? 'Error';
  const main = html`<h1>${reason}</h1>
<p class="lead">${e.message}</p>
<p class="muted">Error <code>${e.code}</code> (HTTP ${e.status}).</p>
<p><a href="/">Back to the home page</a></p>`;
  return renderPage({ title: reason, main, siteName });
}
