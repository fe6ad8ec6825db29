import {
  type DiskState,
  ERASURE_PARTS,
  type ErasureCounts,
  type ErasurePart,
  type ErasureReceipt,
} from '../../ports/account-erasure-store.ts';
import type { CoinEntry } from '../../ports/membership-store.ts';
import { html, raw } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import { qrSvg } from '../../web/qr-code.ts';
import type { Membership } from './account-data.ts';

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

/** The sign-in page: a QR code of the approve URL for the wallet, the same URL as a link, and Continue. */
export async function renderSigninPage(siteName: string, approveUrl: string, notice?: string): Promise<RenderedPage> {
  const qr = await qrSvg(approveUrl);
  const main = html`<h1>Sign in to your account</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p class="lead">Scan this code with your wallet and approve the sign-in there. No password, nothing to type.</p>
<figure class="qr-figure"><div class="qr" role="img" aria-label="QR code of the sign-in approval: scan it with your wallet">${raw(qr)}</div>
<figcaption>The request lasts ten minutes and works once.</figcaption></figure>
<p>Wallet on this device? <a id="signin-approve" href="${approveUrl}">Open the approval in your wallet</a>.</p>
<p id="signin-wait" class="wait" role="status" hidden>Waiting for your wallet’s approval: this page continues by itself.</p>
<form id="signin-continue" method="post" action="/account/signin/continue"><p><button class="button primary" type="submit">I approved it: continue</button></p></form>`;
  return renderPage({ title: 'Sign in', main, siteName, scripts: ['signin.js'] });
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
      : html`<table><caption>Coin ledger</caption><thead><tr><th scope="col">When (UTC)</th><th scope="col" class="num">Change</th><th scope="col">Reason</th><th scope="col" class="num">Balance</th></tr></thead>
<tbody>${entries.map((e) => html`<tr><td>${when(e.createdAt)}</td><td class="num">${e.delta > 0 ? `+${e.delta}` : e.delta}</td><td>${e.reason}</td><td class="num">${e.balanceAfter}</td></tr>`)}</tbody></table>`;
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
<p><a href="/account/data">Your data: what we hold, export or erase it</a></p>
<form method="post" action="/account/signout"><p><button class="button" type="submit">Sign out</button></p></form>`;
  return renderPage({ title: 'Your account', main, siteName });
}

/** What each part of the account's data is, in the holder's words (the data page and the receipt). */
const PART_LABELS: Record<ErasurePart, string> = {
  members: 'Memberships of programmes',
  coinEntries: 'Coin ledger entries',
  votes: 'Votes cast (they stay in their results, linked to nobody)',
  walletItems: 'Wallet items: offers, deposits and requests sent to you',
  offers: 'Credential offers made out to you and not collected (ended)',
  deposits: 'Deposits: bills, receipts, tickets and statements (their contents)',
  channels: 'Channels with organisations',
  shareSettings: 'Sharing settings',
  sharingLog: 'Sharing log entries',
  directoryListings: 'Directory listing',
  directoryContacts: 'Directory contact entries',
  credentials: 'Credentials issued to your key (they stay revocable, linked to no key)',
  presentations: 'Verifications that recorded your key',
  signinTickets: 'Sign-in approvals',
  sessions: 'Signed-in browsers',
  rateWindows: 'Usage counters',
  approvals: 'Exports of your data that operators asked for',
  complianceRequests: 'Requests about your data made to the operators (they stay, linked to nobody)',
};

const partsTable = (caption: string, counts: ErasureCounts, parts: readonly ErasurePart[]) =>
  html`<table><caption>${caption}</caption><thead><tr><th scope="col">What</th><th scope="col" class="num">Rows</th></tr></thead>
<tbody>${parts.map((p) => html`<tr><td>${PART_LABELS[p]}</td><td class="num">${counts[p]}</td></tr>`)}</tbody></table>`;

/** The parts the data page lists: what is held of the account now (offers end only by erasure). */
const HELD_PARTS: readonly ErasurePart[] = ERASURE_PARTS.filter((p) => p !== 'offers' && p !== 'rateWindows');

/** GET /account/data: what is held of the account, its export, and its erasure. */
export function renderDataPage(siteName: string, accountId: string, held: ErasureCounts, notice?: string): RenderedPage {
  const main = html`<h1>Your data</h1>
${notice ? html`<p class="notice" role="alert">${notice}</p>` : ''}
<p class="lead">What ${siteName} holds about account <code>${accountId}</code>, the key your wallet holds.</p>
${partsTable('What we hold', held, HELD_PARTS)}
<section aria-labelledby="export"><h2 id="export">Take it with you</h2>
<p>A JSON file with your memberships and their whole coin ledgers.</p>
<form method="post" action="/account/export"><p><button class="button" type="submit">Download my data (JSON)</button></p></form></section>
<section aria-labelledby="erase"><h2 id="erase">Erase it</h2>
<p>Erasing removes every row above, in one step, then checks that none is left and that the erased bytes are gone from the database files. It cannot be undone. Organisations you belonged to are told, so that they erase their copies too.</p>
<p>What stays: the audit log and event records that name your key (they record what happened, never a name, a contact or a claim), and credentials already issued to you, which their issuers can still revoke. Your wallet keeps its key: signing in again starts an empty account.</p>
<form method="post" action="/account/erase">
<p><input type="checkbox" id="confirm" name="confirm" value="erase" required> <label for="confirm">I understand that my data is erased for good</label></p>
<p><button class="button danger" type="submit">Erase my data</button></p></form></section>
<p><a href="/account">Back to your account</a></p>`;
  return renderPage({ title: 'Your data', main, siteName });
}

/** The answer to POST /account/erase: the receipt, shown once; the session has ended. */
export function renderErasedPage(siteName: string, receipt: ErasureReceipt): RenderedPage {
  const disk: Record<DiskState, string> = {
    zeroed: 'The erased bytes were overwritten in the database files.',
    pending: 'The database files are being rewritten; the erased bytes are gone within a minute.',
    'not-checked':
      'This deployment runs on PostgreSQL, whose files the service cannot inspect: the erased rows are gone, and the space they used is reclaimed and overwritten by the database over time.',
  };
  const main = html`<h1>Your data is erased</h1>
<p class="lead">Receipt <code>${receipt.id}</code>, ${when(receipt.completedAt)} UTC. Keep it: it is how ${siteName} can show that this erasure happened, and it holds nothing about you.</p>
<p role="status">Checked before the erasure was committed: no row naming your account is left. ${disk[receipt.disk]}</p>
${partsTable('What was erased', receipt.counts, ERASURE_PARTS)}
<p>You are signed out. <a href="/account/signin">Sign in again</a> to start an empty account.</p>`;
  return renderPage({ title: 'Your data is erased', main, siteName });
}
