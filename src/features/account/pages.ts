import QRCode from 'qrcode';
import type { CoinEntry } from '../../ports/membership-store.ts';
import { html, raw } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import type { Membership } from './account-data.ts';

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

/** The sign-in page: a QR code of the approve URL for the wallet, the same URL as a link, and Continue. */
export async function renderSigninPage(siteName: string, approveUrl: string, notice?: string): Promise<RenderedPage> {
  const qr = await QRCode.toString(approveUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  const main = html`<h1>Sign in to your account</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p class="lead">Scan this code with your wallet and approve the sign-in there. No password, nothing to type.</p>
<figure class="qr-figure"><div class="qr" role="img" aria-label="QR code of the sign-in approval: scan it with your wallet">${raw(qr)}</div>
<figcaption>The request lasts ten minutes and works once.</figcaption></figure>
<p>Wallet on this device? <a href="${approveUrl}">Open the approval in your wallet</a>.</p>
<form method="post" action="/account/signin/continue"><p><button class="button primary" type="submit">I approved it: continue</button></p></form>`;
  return renderPage({ title: 'Sign in', main, siteName });
}

/**
 * The sign-in page without a ticket, for a refused request (a handoff that failed, a browser with
 * no ticket): it explains, and opening a code is one step away. A refusal stores nothing.
 */
export function renderSigninNeededPage(siteName: string, notice: string): RenderedPage {
  const main = html`<h1>Sign in to your account</h1>
<p class="notice" role="status">${notice}</p>
<p class="lead">Sign in by scanning a code with your wallet: no password, nothing to type.</p>
<p><a class="button primary" href="/account/signin">Show me a sign-in code</a></p>`;
  return renderPage({ title: 'Sign in', main, siteName });
}

/** What the wallet (or a person following the link) sees before approving. */
export function renderApprovePage(siteName: string, askedBy: string, askedAt: number, approved: boolean): RenderedPage {
  const main = html`<h1>Approve a sign-in</h1>
<p class="lead">${askedBy} asked to sign in to your account at ${when(askedAt)} UTC.</p>
${
  approved
    ? html`<p role="status">It is approved: go back to that browser and continue.</p>`
    : html`<p>If that was you, approve it in your wallet. Your wallet signs the approval with its own key; this page never asks for a password or a code.</p>
<p>If it was not you, do nothing: the request ends by itself in ten minutes.</p>`
}`;
  return renderPage({ title: 'Approve a sign-in', main, siteName });
}

export function renderGonePage(siteName: string): RenderedPage {
  const main = html`<h1>This sign-in request has ended</h1>
<p class="lead">It was used already, or its ten minutes are over. Nothing was approved with it.</p>
<p><a href="/account/signin">Start a new sign-in</a> in the browser you want to use.</p>`;
  return renderPage({ title: 'Sign-in ended', main, siteName });
}

/** GET /account: who the holder is to each programme, and its coins. Never credentials, claims or the sharing log. */
export function renderOverviewPage(siteName: string, accountId: string, memberships: Membership[]): RenderedPage {
  const ledger = (entries: CoinEntry[]) =>
    entries.length === 0
      ? html`<p>No coin entries yet.</p>`
      : html`<table><caption>Coin ledger</caption><thead><tr><th scope="col">When (UTC)</th><th scope="col">Change</th><th scope="col">Reason</th><th scope="col">Balance</th></tr></thead>
<tbody>${entries.map((e) => html`<tr><td>${when(e.createdAt)}</td><td>${e.delta > 0 ? `+${e.delta}` : e.delta}</td><td>${e.reason}</td><td>${e.balanceAfter}</td></tr>`)}</tbody></table>`;
  const sections =
    memberships.length === 0
      ? html`<p>You are not a member of any programme yet.</p>`
      : memberships.map(
          (m) => html`<section aria-labelledby="m-${m.member.tenant}"><h2 id="m-${m.member.tenant}">${m.tenantName}</h2>
<dl><dt>Name</dt><dd>${m.member.displayName ?? 'not set'}</dd><dt>Tier</dt><dd>${m.member.tier}</dd><dt>Status</dt><dd>${m.member.status}</dd><dt>Coins</dt><dd>${m.member.balance}</dd></dl>
${ledger(m.ledger)}</section>`,
        );
  const main = html`<h1>Your account</h1>
<p class="lead">Account <code>${accountId}</code>: the key your wallet holds.</p>
${sections}
<form method="post" action="/account/export"><p><button class="button" type="submit">Download my data (JSON)</button></p></form>
<form method="post" action="/account/signout"><p><button class="button" type="submit">Sign out</button></p></form>`;
  return renderPage({ title: 'Your account', main, siteName });
}
