import { INTEGRATION_SCOPES, type IntegrationScope } from '../../../core/integration-scopes.ts';
import { TEAM_ROLES, type TeamRole } from '../../../core/partner-pipeline.ts';
import { html, type SafeHtml } from '../../../web/html.ts';
import { type RenderedPage, renderPage } from '../../../web/layout.ts';
import type { keyView, PartnerAccess, teamView } from '../partner-access.ts';

type Key = ReturnType<typeof keyView>;
type Member = ReturnType<typeof teamView>;
type Overview = Awaited<ReturnType<PartnerAccess['overview']>>;

const when = (iso: string | null) => (iso === null ? '' : iso.replace('T', ' ').slice(0, 16));

/** The portal's own navigation, under the page heading, and sign-out. */
function portalNav(current: '/portal' | '/portal/keys' | '/portal/team'): SafeHtml {
  const item = (href: string, label: string) =>
    href === current
      ? html`<li><a href="${href}" aria-current="page">${label}</a></li>`
      : html`<li><a href="${href}">${label}</a></li>`;
  return html`<nav class="portal-nav" aria-label="Partner portal"><ul>${item('/portal', 'Overview')}${item('/portal/keys', 'API keys')}${item('/portal/team', 'Team')}</ul>
<form method="post" action="/portal/signout"><button class="button" type="submit">Sign out</button></form></nav>`;
}

const page = (siteName: string, title: string, main: SafeHtml) =>
  renderPage({ title, main, siteName, mainClass: 'portal', stylesheets: ['/assets/portal.css'] });

export function renderSigninPage(siteName: string, notice?: string): RenderedPage {
  const main = html`<h1>Partner portal</h1>
${notice ? html`<p class="notice" role="alert">${notice}</p>` : ''}
<p class="lead">Sign in with the e-mail address your team uses with ${siteName}. We mail you a six-digit code; no password.</p>
<form method="post" action="/portal/signin" class="stacked">
<p><label for="email">E-mail address</label><input id="email" name="contactEmail" type="email" required maxlength="254" autocomplete="email"></p>
<p><button class="button primary" type="submit">Mail me a code</button></p></form>
<p>Not a partner yet? <a href="/partners">Read about the programme</a> or <a href="/partners/apply">apply</a>.</p>`;
  return page(siteName, 'Partner portal: sign in', main);
}

export function renderCodePage(siteName: string, email: string, notice?: string): RenderedPage {
  const main = html`<h1>Enter your code</h1>
${notice ? html`<p class="notice" role="alert">${notice}</p>` : html`<p class="notice" role="status">If <strong>${email}</strong> is on the team of an approved partner, a code is on its way. It works once, for ten minutes.</p>`}
<form method="post" action="/portal/verify" class="stacked">
<input type="hidden" name="contactEmail" value="${email}">
<p><label for="code">Six-digit code</label><input id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" required autocomplete="one-time-code"></p>
<p><button class="button primary" type="submit">Sign in</button></p></form>
<p><a href="/portal/signin">Use another address, or ask for a new code</a></p>`;
  return page(siteName, 'Partner portal: your code', main);
}

export function renderOverviewPage(siteName: string, o: Overview): RenderedPage {
  const p = o.partner;
  const grant = p.grant
    ? html`<dl><dt>Tenant</dt><dd><code>${p.tenant ?? ''}</code></dd><dt>Scopes</dt><dd>${p.grant.scopes.join(', ')}</dd><dt>Rate class</dt><dd>${p.grant.rateClass}: ${p.grant.quota} requests per ${p.grant.windowSeconds} s, per key</dd></dl>`
    : html`<p>No tenant or grant yet: an operator links your partner to a tenant and attaches its grant after approval. You can mint keys then.</p>`;
  const usage =
    o.usage.length === 0
      ? html`<p>No active keys. <a href="/portal/keys">Mint one</a>.</p>`
      : html`<div class="table-scroll" role="region" aria-label="Usage" tabindex="0"><table><caption>Use of each active key in its current window</caption><thead><tr><th scope="col">Key</th><th scope="col" class="num">Used</th><th scope="col" class="num">Of</th><th scope="col">Window ends (UTC)</th></tr></thead>
<tbody>${o.usage.map((u) => html`<tr><td>${u.label}</td><td class="num">${u.used}</td><td class="num">${u.quota}</td><td>${when(u.windowEndsAt)}</td></tr>`)}</tbody></table></div>`;
  const main = html`<h1>${p.organisation}</h1>
${portalNav('/portal')}
<p class="lead">Signed in as ${o.signedInAs.email}.</p>
<section aria-labelledby="stage"><h2 id="stage">Your partnership</h2>
<dl><dt>Kind</dt><dd>${p.kind}</dd><dt>Stage</dt><dd>${p.stage}, since ${when(p.stageSince)} UTC</dd><dt>Application</dt><dd><code>${p.applicationId}</code></dd></dl></section>
<section aria-labelledby="grant"><h2 id="grant">Your grant</h2>${grant}</section>
<section aria-labelledby="usage"><h2 id="usage">Usage</h2>${usage}</section>`;
  return page(siteName, 'Partner portal', main);
}

/** The keys: a list, and (for admins and developers) the mint form and each key's rotate and revoke. */
export function renderKeysPage(
  siteName: string,
  input: {
    keys: Key[];
    grantScopes: IntegrationScope[] | null;
    canManage: boolean;
    notice?: string;
    minted?: Key & { secret: string };
  },
): RenderedPage {
  const { keys, grantScopes, canManage, minted } = input;
  const shown = minted
    ? html`<section class="secret" aria-labelledby="new-key"><h2 id="new-key">Your new key</h2>
<p role="status">Copy it now: it is shown this once and cannot be shown again. Use it as <code>Authorization: Bearer …</code> on the API for your tenant.</p>
<p><label for="secret">Key “${minted.label}”</label><input id="secret" class="secret-value" readonly value="${minted.secret}"></p></section>`
    : '';
  const actions = (k: Key) =>
    canManage && k.state === 'active'
      ? html`<form method="post" action="/portal/keys/rotate"><input type="hidden" name="id" value="${k.id}"><button class="button" type="submit">Rotate<span class="visually-hidden"> ${k.label}</span></button></form>
<form method="post" action="/portal/keys/revoke"><input type="hidden" name="id" value="${k.id}"><button class="button danger" type="submit">Revoke<span class="visually-hidden"> ${k.label}</span></button></form>`
      : '';
  const list =
    keys.length === 0
      ? html`<p>No keys yet.</p>`
      : html`<div class="table-scroll" role="region" aria-label="Keys of your partner" tabindex="0"><table><caption>Keys of your partner</caption><thead><tr><th scope="col">Label</th><th scope="col">Scopes</th><th scope="col">State</th><th scope="col">Created (UTC)</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${keys.map((k) => html`<tr><td>${k.label}</td><td>${k.scopes.join(', ')}</td><td>${k.state}</td><td>${when(k.createdAt)}</td><td class="actions">${actions(k)}</td></tr>`)}</tbody></table></div>`;
  const mint = !canManage
    ? html`<p>Your role reads keys; an admin or developer of your team mints them.</p>`
    : grantScopes === null
      ? html`<p>You can mint keys once an operator has linked your partner to a tenant and attached its grant.</p>`
      : html`<form method="post" action="/portal/keys/mint" class="stacked">
<p><label for="label">Label</label><input id="label" name="label" required maxlength="100" placeholder="Billing system, production"></p>
<fieldset><legend>Scopes (inside your grant)</legend>
${grantScopes.map((s) => html`<p><input type="checkbox" id="scope-${s}" name="scope_${s}" value="on"> <label for="scope-${s}"><strong>${s}</strong>: ${INTEGRATION_SCOPES[s]}</label></p>`)}
</fieldset>
<p><button class="button primary" type="submit">Mint a key</button></p></form>`;
  const main = html`<h1>API keys</h1>
${portalNav('/portal/keys')}
${input.notice ? html`<p class="notice" role="alert">${input.notice}</p>` : ''}
${shown}
${list}
<section aria-labelledby="mint"><h2 id="mint">Mint a key</h2>${mint}</section>`;
  return page(siteName, 'Partner portal: API keys', main);
}

export function renderTeamPage(
  siteName: string,
  input: { members: Member[]; me: string; canManage: boolean; notice?: string },
): RenderedPage {
  const { members, canManage } = input;
  const roleOptions = (selected: TeamRole) =>
    TEAM_ROLES.map((r) =>
      r === selected ? html`<option value="${r}" selected>${r}</option>` : html`<option value="${r}">${r}</option>`,
    );
  const row = (m: Member) => {
    const manage = canManage
      ? html`<form method="post" action="/portal/team/role" class="inline"><input type="hidden" name="memberId" value="${m.memberId}"><label class="visually-hidden" for="role-${m.memberId}">Role of ${m.email}</label><select id="role-${m.memberId}" name="role">${roleOptions(m.role as TeamRole)}</select> <button class="button" type="submit">Change<span class="visually-hidden"> the role of ${m.email}</span></button></form>
<form method="post" action="/portal/team/remove" class="inline"><input type="hidden" name="memberId" value="${m.memberId}"><button class="button danger" type="submit">Remove<span class="visually-hidden"> ${m.email}</span></button></form>`
      : '';
    return html`<tr><td>${m.email}${m.memberId === input.me ? ' (you)' : ''}</td><td>${m.role}</td><td>${when(m.addedAt)}</td><td class="actions">${manage}</td></tr>`;
  };
  const add = canManage
    ? html`<form method="post" action="/portal/team/add" class="stacked">
<p><label for="new-email">E-mail address</label><input id="new-email" name="email" type="email" required maxlength="254"></p>
<p><label for="new-role">Role</label><select id="new-role" name="role">${roleOptions('developer')}</select></p>
<p><button class="button primary" type="submit">Add to the team</button></p></form>`
    : html`<p>Only an admin of your team adds and removes members.</p>`;
  const main = html`<h1>Team</h1>
${portalNav('/portal/team')}
${input.notice ? html`<p class="notice" role="alert">${input.notice}</p>` : ''}
<p class="lead">Everyone here signs in with a code mailed to their address. <strong>admin</strong>: the team and keys; <strong>developer</strong>: keys; <strong>viewer</strong>: reads.</p>
<div class="table-scroll" role="region" aria-label="Members" tabindex="0"><table><caption>Members</caption><thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Added (UTC)</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${members.map(row)}</tbody></table></div>
<section aria-labelledby="add"><h2 id="add">Add a member</h2>${add}</section>`;
  return page(siteName, 'Partner portal: team', main);
}
