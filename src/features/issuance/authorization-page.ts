/**
 * The holder's approval step of the authorization code flow (docs/haip.md, "The approval step"):
 * what the wallet asks for and from whom, with Approve and Decline; and, once decided, the way
 * back to the wallet. The way back is a link, not a redirect: a form's answer may not redirect to
 * another origin under the pages' `form-action 'self'`, and a wallet's redirect_uri is one.
 */
import type { CredentialTypeRecord } from '../../ports/credential-type-store.ts';
import { html } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';

export function renderApprovalPage(
  siteName: string,
  o: {
    /** The issuer's display name, else its name. */
    issuerName: string;
    type: CredentialTypeRecord;
    action: string;
    authorizationId: string;
    demo: boolean;
  },
): RenderedPage {
  const claims = o.type.claims.map((c) => html`<li><code>${c.key}</code></li>`);
  const main = html`<h1>Add ${o.type.name} to your wallet</h1>
<p class="lead">${o.issuerName} offers your wallet a <strong>${o.type.name}</strong>. It holds these claims, and you choose which of them to show each time you use it:</p>
<ul>
${claims}
</ul>
${
  o.demo
    ? html`<p class="muted">This is a demonstration issuer: approving issues made-up example values, not anything about you.</p>`
    : html``
}
<form method="post" action="${o.action}">
<input type="hidden" name="authorization" value="${o.authorizationId}">
<p>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline" class="secondary">Decline</button>
</p>
</form>
<p class="muted">Only this browser, which opened the request, can answer it. It ends in 10 minutes.</p>`;
  return renderPage({ title: `Add ${o.type.name}`, main, siteName });
}

/** The way back to the wallet, with the code (or the refusal) in its redirect_uri. */
export function renderReturnPage(siteName: string, o: { location: string; approved: boolean }): RenderedPage {
  const main = html`<h1>${o.approved ? 'Approved' : 'Declined'}</h1>
<p class="lead">${
    o.approved ? 'Your wallet can now collect the credential.' : 'Your wallet is told that you declined; nothing is issued.'
  }</p>
<p><a class="button" href="${o.location}">Return to your wallet</a></p>`;
  return renderPage({ title: o.approved ? 'Approved' : 'Declined', main, siteName });
}
