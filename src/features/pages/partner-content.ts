/**
 * What the public partner pages say (docs/partner-pages.md): each kind of partner, what it gets
 * and needs from this service, and what each stage of an application means. Every sentence states
 * what the code does today; the scopes and rate classes are read from core/integration-scopes.ts
 * and the moves between stages from core/partner-pipeline.ts, so the pages cannot drift from them.
 */
import type { IntegrationScope } from '../../core/integration-scopes.ts';
import type { PartnerKind, PartnerStage } from '../../core/partner-pipeline.ts';
import { html, type SafeHtml } from '../../web/html.ts';

export interface KindContent {
  kind: PartnerKind;
  /** The page's heading, plural ("Issuers"). */
  title: string;
  /** One of the kind, as a label ("Issuer"). */
  name: string;
  /** One partner of the kind, with its article ("an issuer"), for "Apply as …". */
  one: string;
  /** The option of the application form's kind select. */
  option: string;
  /** One sentence for the programme page's card. */
  summary: string;
  lead: SafeHtml;
  gets: SafeHtml[];
  needs: SafeHtml[];
  /** The scopes a grant for this kind usually holds; empty when the kind works without a key. */
  scopes: IntegrationScope[];
  /** What the scopes mean for this kind, or why it needs none. */
  scopesNote: SafeHtml;
}

export const KIND_CONTENT: Readonly<Record<PartnerKind, KindContent>> = {
  issuer: {
    kind: 'issuer',
    title: 'Issuers',
    name: 'Issuer',
    one: 'an issuer',
    option: 'Issuer: we issue credentials',
    summary: 'Issue SD-JWT VC credentials to your holders’ wallets over OpenID4VCI, under your own did:web identity.',
    lead: html`Issue selectively disclosable credentials (SD-JWT VC) to your holders’ wallets over
OpenID4VCI, sign them under your own <code>did:web</code> identity, and revoke them when they stop being true.`,
    gets: [
      html`<strong>A tenant of your own, which is a credential issuer.</strong> It lives under
<code>/t/&lt;slug&gt;</code> with its issuer metadata, authorization server metadata, token, nonce and
credential endpoints (OpenID4VCI 1.0, pre-authorized code flow).`,
      html`<strong>A <code>did:web</code> identity.</strong> <code>did:web:&lt;host&gt;:t:&lt;slug&gt;</code>,
with your ES256 (P-256) issuer key in its DID document at <code>/t/&lt;slug&gt;/did.json</code>. The
private key is sealed at rest under the deployment’s master key.`,
      html`<strong>Credential types.</strong> Register a type by its name and claims (text, dates,
booleans, numbers, money, enumerations, arrays). Each type gets a <code>vct</code> URL that serves its
SD-JWT VC Type Metadata, with a label for every claim.`,
      html`<strong>Offers.</strong> <code>POST /api/offers</code> with the holder’s claim values answers an
<code>openid-credential-offer://</code> URI for a QR code or a link, valid from one minute to seven
days, optionally with a transaction code you send by another channel. An offer can also go straight to a
holder account’s wallet as an item.`,
      html`<strong>Credentials wallets can check.</strong> Format <code>dc+sd-jwt</code>: every subject claim
is selectively disclosable, bound to the holder’s key by an OpenID4VCI key proof; up to ten credentials per
request.`,
      html`<strong>Token status lists and revocation.</strong> Every credential names a random entry of a
signed status list (131,072 entries, for herd privacy) at <code>/t/&lt;slug&gt;/status/&lt;n&gt;</code>.
Revoke one credential, or every credential collected from an offer; verifiers see it within five minutes,
the list’s time to live.`,
    ],
    needs: [
      html`The claims you will issue and the system of record their values come from.`,
      html`A way to hand the offer to the holder: a QR code at a counter or on your site, a link, a letter.`,
      html`A backend that calls the API with a key minted inside your grant, kept as a secret.`,
      html`If you use transaction codes, a second channel to deliver them (a letter, an SMS).`,
    ],
    scopes: ['issuance', 'revocation', 'membership'],
    scopesNote: html`<code>issuance</code> and <code>revocation</code> cover the credential’s life;
<code>membership</code> matters only if you also run a programme of members.`,
  },
  'relying-party': {
    kind: 'relying-party',
    title: 'Relying parties',
    name: 'Relying party',
    one: 'a relying party',
    option: 'Relying party: we verify credentials',
    summary: 'Ask a holder to present a credential and get a verified answer, with hosted OpenID4VP and no metering.',
    lead: html`Ask a holder to present a credential from their wallet and get a verified answer, without
running a verifier of your own and without an account.`,
    gets: [
      html`<strong>Hosted OpenID4VP 1.0 verification.</strong> <code>POST /verify/request</code> names a
credential type, the claims you need and your nonce, and answers a request URI for a QR code and a result
token. The wallet fetches a request object signed with the platform’s <code>did:web</code> key, carrying a
DCQL query, and answers with <code>direct_post</code>.`,
      html`<strong>A verified outcome.</strong> <code>GET /verify/result/{id}</code> with your result token
answers the disclosed claims, the type and the issuer’s DID, or the failure code and the check that failed.
The holder’s key is never returned.`,
      html`<strong>Every check, every time.</strong> The reference verifier checks the issuer’s signature
against its DID document, the holder’s key binding, your nonce and the audience, freshness, the requested
claims and the status list. Its contract is published, so your own verifier can agree with it.`,
      html`<strong>The conformance set.</strong> <code>/conformance/vectors</code> is public; <code>openrail
conformance --verifier "&lt;command&gt;"</code> runs any verifier against it, and <code>openrail verify</code>
is the reference verifier on the same line protocol.`,
      html`<strong>The <a href="/verify">verify page</a></strong>, for a counter or for trying it out: pick a
type and claims, show the QR code, read the result.`,
      html`<strong>Never metered.</strong> The verification plane has no quota and needs no key.`,
    ],
    needs: [
      html`A server that creates each request with a fresh nonce (16 to 256 characters) and keeps the result
token on your side.`,
      html`The credential types you accept, from <code>GET /verify/catalog</code>.`,
      html`A place to show the QR code, or a link for a wallet on the same device.`,
    ],
    scopes: [],
    scopesNote: html`Verifying needs no key, so a relying party needs no scope for it. A grant matters only
for what your tenant does besides verifying, such as asking holders for data over channels.`,
  },
  'data-partner': {
    kind: 'data-partner',
    title: 'Data partners',
    name: 'Data partner',
    one: 'a data partner',
    option: 'Data partner: we deposit documents to wallets',
    summary: 'Deposit bills, receipts, tickets and statements into holders’ wallets, with their consent for sharing.',
    lead: html`Put bills, receipts, tickets and statements into your customers’ wallets, where they accept
them with their own key and decide who else may see them.`,
    gets: [
      html`<strong>The deposit rail, contract 0.3.0.</strong> <code>POST /api/tenants/{tenant}/bills</code>
takes a fixed body: your <code>depositId</code>, the holder’s account, a kind (<code>bill</code>,
<code>receipt</code>, <code>ticket</code>, <code>statement</code>), a title, dates, an amount in minor units
with its ISO 4217 currency, a reference and up to 100 lines. Delivering the same body again is answered
without a duplicate.`,
      html`<strong>Delivery into the wallet.</strong> The holder sees an envelope with your title and accepts
it with their device key to receive the document in full. A deposit reaches the holder once their account
is a member of your tenant.`,
      html`<strong>Channels and sharing consent.</strong> Ask a holder for named elements over a channel; the
holder accepts or declines in their wallet. Holders choose per document and per element which organisation
receives what; nothing is shared by default, and either side can revoke.`,
      html`<strong>A deposit hash chain.</strong> Each tenant’s deposits form a SHA-256 chain over their
canonical JSON (RFC 8785). The integrity check recomputes it and names the first deposit that was changed,
removed or slipped in.`,
      html`<strong>Products.</strong> One per kind of deposit (“Water bill”), approved by the platform before it
carries anything, optionally requiring an active channel.`,
    ],
    needs: [
      html`The holders’ account ids: the thumbprint of each holder’s wallet key, which you learn when they
enrol with you.`,
      html`Titles free of personal data: anyone who knows the account id sees the envelope. Amounts and details
belong in the fields only the holder receives.`,
      html`An approved product for each kind you deposit, set up with the platform’s operators.`,
    ],
    scopes: ['deposits', 'channels', 'membership'],
    scopesNote: html`<code>deposits</code> delivers documents, <code>channels</code> asks holders for
shared data, and <code>membership</code> enrols the holders your deposits are for.`,
  },
  wallet: {
    kind: 'wallet',
    title: 'Wallets',
    name: 'Wallet',
    one: 'a wallet',
    option: 'Wallet: we build a holder wallet',
    summary: 'Have your wallet admitted and listed to relying parties, and act for holders on the holder plane.',
    lead: html`Have your wallet app admitted by this service and listed to relying parties, and let it act
for its holders with nothing but their device keys.`,
    gets: [
      html`<strong>Admission as a wallet provider.</strong> An operator registers your wallet by its https
origin and admits it. Admitted wallets are listed on the <a href="/verify">verify page</a>, with a link to
your homepage.`,
      html`<strong>Standard flows.</strong> Issuers here speak OpenID4VCI 1.0 (pre-authorized code, ES256 key
proofs, a nonce endpoint); the verifier speaks OpenID4VP 1.0 with DCQL, signed request objects and
<code>direct_post</code>. Credentials are <code>dc+sd-jwt</code> with token status lists.`,
      html`<strong>The holder plane.</strong> The holder’s device key signs each request as a holder JWS
(<code>Authorization: Holder &lt;jws&gt;</code>, ES256, single-use <code>jti</code>); the account is the
key’s RFC 7638 thumbprint, with no password. With it your wallet lists and accepts offers, deposits and
channel requests, sets sharing per element, enrols in programmes by presentation and votes in them, and
approves a browser’s sign-in to the account portal.`,
      html`<strong>Interoperability you can check.</strong> The test suite drives issuance and presentation
with the OpenWallet Foundation’s libraries (oid4vc-ts, <code>dcql</code>, sd-jwt-js), and the reference
wallet, <code>openrail wallet</code>, is built from them: a working holder to compare yours with.`,
    ],
    needs: [
      html`An https homepage: its origin names your wallet.`,
      html`P-256 device keys and ES256 signatures.`,
      html`OpenID4VCI 1.0 and OpenID4VP 1.0 with DCQL, and SD-JWT VC with key binding.`,
    ],
    scopes: [],
    scopesNote: html`A wallet acts with its holder’s key on the holder plane, never with a partner key, so it
needs no scope.`,
  },
};

export interface StageContent {
  label: string;
  meaning: SafeHtml;
}

export const STAGE_CONTENT: Readonly<Record<PartnerStage, StageContent>> = {
  applied: {
    label: 'Applied',
    meaning: html`We have your application. Nothing has been checked yet: an operator screens it next.`,
  },
  screening: {
    label: 'Screening',
    meaning: html`Operators read your application: who you are, the kind of partner you applied as, and
whether your use case fits the service.`,
  },
  'due-diligence': {
    label: 'Due diligence',
    meaning: html`A closer look at your organisation before a decision to approve it.`,
  },
  approved: {
    label: 'Approved',
    meaning: html`Your organisation is approved. The contact on your application can sign in to the
<a href="/portal/signin">partner portal</a> with a code mailed to them. An operator links you to a tenant
and attaches your grant (its scopes and rate class); your team then mints its own keys inside it.`,
  },
  onboarding: {
    label: 'Onboarding',
    meaning: html`You are building your integration, with keys your team mints inside its grant in the
partner portal.`,
  },
  live: {
    label: 'Live',
    meaning: html`Your integration is in production.`,
  },
  rejected: {
    label: 'Rejected',
    meaning: html`The application was not accepted. This is final: it moves to no other stage, and any keys
of the partner were revoked and its portal sessions ended.`,
  },
  withdrawn: {
    label: 'Withdrawn',
    meaning: html`The application or partnership was withdrawn at the partner’s word. This is final: it moves
to no other stage, and any keys of the partner were revoked and its portal sessions ended.`,
  },
};
