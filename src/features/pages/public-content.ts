/**
 * What the public pages say (docs/public-pages.md): the four readers' pages, the capabilities, the
 * standards and the regulations. Every statement is a fact about this service that its code and
 * tests hold; each capability and standard names the document that says more. Rendered by
 * public-pages.ts.
 */
import { html, type SafeHtml } from '../../web/html.ts';

/** A link to one of the documents the deployment serves at /developers/docs (docs-reader.ts). */
export const doc = (name: string, label: string): SafeHtml => html`<a href="/developers/docs/${name}">${label}</a>`;

export interface AudiencePage {
  path: string;
  title: string;
  /** The card on the home page. */
  card: string;
  lead: string;
  problems: ReadonlyArray<{ title: string; text: SafeHtml }>;
  private: readonly SafeHtml[];
  start: readonly SafeHtml[];
}

export const AUDIENCES: readonly AudiencePage[] = [
  {
    path: '/for-people',
    title: 'For people',
    card: 'Keep your cards, passes and bills in a wallet you control, and show only what is asked.',
    lead: 'Your resident card, a transit pass or a membership lives in a wallet on your phone. When someone needs to check it, you choose what to show: often a single fact, never the whole card.',
    problems: [
      {
        title: 'Show one fact, not the whole card',
        text: html`A shop that needs to know you live in the city can ask for your district and nothing else. Each claim of a credential is disclosed on its own (selective disclosure), and your wallet tells you who asks for what before you answer.`,
      },
      {
        title: 'Nobody needs an account to check you',
        text: html`A checker verifies your credential against the issuer's published keys and status list. You do not sign in anywhere to show it, and no account is opened for the checker either.`,
      },
      {
        title: 'Bills, receipts and tickets in the same place',
        text: html`Organisations you join can deposit documents into your wallet. You see an envelope first and open it only if you accept it; what you share with them afterwards is your choice, element by element.`,
      },
      {
        title: 'Your data, your say',
        text: html`The account portal shows what the service holds about you, lets you take it away as a file, and erases your account with a receipt that proves it is gone.`,
      },
    ],
    private: [
      html`Your claims travel from the issuer to your wallet once. The issuer's offer keeps them only until your wallet collects them or the offer expires, then erases them.`,
      html`The service's record of issued credentials holds no claim values: a status index and dates, so that a credential can be revoked.`,
      html`A presentation carries only the claims you disclose, bound to your wallet's key and to the checker's one-time nonce, so it cannot be replayed elsewhere.`,
    ],
    start: [
      html`Try it now: the <a href="/demo">demo</a> gives your wallet a sample transit pass, asks you to present it, and then revokes it.`,
      html`Use any wallet that speaks OpenID for Verifiable Credentials, or the reference wallet that comes with openrail (${doc('wallet-cli', 'the wallet guide')}).`,
      html`Sign in to the account portal at <a href="/account">/account</a> with your wallet to see and manage what is held about you.`,
    ],
  },
  {
    path: '/for-business',
    title: 'For business',
    card: 'Check a customer’s age, residence or membership in seconds, and deliver receipts and bills to their wallet.',
    lead: 'Check what you need to know about a customer from a credential their city, school or club issued, without storing copies of documents. Put receipts, tickets and bills straight into their wallet.',
    problems: [
      {
        title: 'Checks without paperwork',
        text: html`Ask for exactly the claims you need, such as a concession type or a membership tier. The answer is a cryptographic check of the issuer's signature, the holder's key and the revocation status, not a photo of a card.`,
      },
      {
        title: 'No account and no integration to start',
        text: html`The hosted <a href="/verify">verifier</a> works in a browser: pick a credential type, show the QR code, read the result. When you integrate, it is one call to open a request and one to read the result.`,
      },
      {
        title: 'Issue your own credentials',
        text: html`Loyalty cards, staff badges, tickets: a tenant of the service has its own signing key and <code>did:web</code> identity, registers its credential types, and revokes what it issued when it has to.`,
      },
      {
        title: 'Documents your customers keep',
        text: html`Deposit bills, receipts and statements into customers' wallets through approved products, and receive only the elements a customer agrees to share back over a data channel.`,
      },
    ],
    private: [
      html`The verifier answers you with the disclosed claims, or the one check that failed, and keeps a completed request only ten minutes for your poller.`,
      html`You never receive the claims the holder did not disclose; the credential's other claims stay hidden behind salted digests.`,
      html`Webhooks to your systems are signed, so you can tell them from forgeries (${doc('webhooks', 'webhooks')}).`,
    ],
    start: [
      html`Open the <a href="/verify">verifier</a> and check a credential from the <a href="/demo">demo</a>.`,
      html`Read the <a href="/developers">developer guide</a> for the two calls of hosted verification and the issuance API.`,
      html`Become a partner, as a relying party or an issuer: <a href="/partners">the partner programme</a>.`,
    ],
  },
  {
    path: '/for-cities',
    title: 'For cities',
    card: 'Issue resident cards, passes and permits that residents carry on their phones and shops can check.',
    lead: 'Give residents a digital resident card, a transit pass or a parking permit they keep in their own wallet. Local shops and services check it without calling city hall, and you can revoke it the moment it stops being valid.',
    problems: [
      {
        title: 'One issuing service for many schemes',
        text: html`Each department or agency can be its own tenant, with its own key and identity, its own credential types and its own operators, on one deployment.`,
      },
      {
        title: 'Revocation that reaches every checker',
        text: html`Revoking a credential sets its bit in a published status list. Every verifier reads the list, so a revoked permit stops verifying everywhere within minutes (the list's cache time, five minutes at most), without a phone call.`,
      },
      {
        title: 'Residents take part',
        text: html`Residents who present a resident card can enrol as members, receive notices and bills in their wallet, and vote once on proposals, with one vote per member.`,
      },
      {
        title: 'Operations you can account for',
        text: html`Every operator change is written to a hash-chained audit log that can be checked without the service. Sensitive actions need a second operator's approval.`,
      },
    ],
    private: [
      html`Residents decide what each checker sees: a shop can learn the district without the birth date.`,
      html`Checkers verify against the city's published keys and status lists, without calling the city or holding an account with it.`,
      html`Data-subject requests, erasure and the record of processing are handled in the back office (${doc('backoffice-compliance', 'compliance')}).`,
    ],
    start: [
      html`Run the <a href="/demo">demo</a> to see issuance, presentation and revocation end to end.`,
      html`Apply as an issuer in the <a href="/partners/issuer">partner programme</a>, or run your own deployment from the open-source code.`,
      html`Operators work in the browser: the back office at <a href="/admin">/admin</a> and each organisation's console at <a href="/console">/console</a>.`,
    ],
  },
  {
    path: '/for-government',
    title: 'For government',
    card: 'Run an open, auditable credential service that speaks the standards European wallets use.',
    lead: 'Issue official credentials on open standards, under operational controls you can audit: separation of duties, four-eyes approvals, signed statements, and a record of every change.',
    problems: [
      {
        title: 'Open standards, no lock-in',
        text: html`Credentials are SD-JWT VCs issued over OpenID for Verifiable Credential Issuance 1.0 and presented over OpenID for Verifiable Presentations 1.0; issuers are <code>did:web</code> identities; revocation uses IETF token status lists. See <a href="/standards">standards</a>.`,
      },
      {
        title: 'Separation of duties',
        text: html`Operators have roles (<code>owner</code>, <code>ops</code>, <code>auditor</code>, <code>analyst</code>, <code>support</code>, and per organisation <code>tenant-admin</code>, <code>issuer</code> and <code>verifier</code>). Key rotation, suspensions, bulk revocation and token grants need one operator to ask and another to approve.`,
      },
      {
        title: 'Evidence, not assurances',
        text: html`The audit log is a hash chain an auditor can export and check offline; backups are restored and proved by drills; statements of what is held about a person are signed with the platform's key.`,
      },
      {
        title: 'Hosted verification for anyone',
        text: html`Relying parties need no account to check a credential, so public services and small businesses can accept it from the first day.`,
      },
    ],
    private: [
      html`The service stores claim values only while an offer waits for its wallet, and never in the record of issued credentials.`,
      html`No log line carries a secret, a code, a handle or a token; sign-in secrets are kept as hashes.`,
      html`How the service supports data-protection duties is set out on <a href="/regulations">regulations</a>.`,
    ],
    start: [
      html`Read the <a href="/capabilities">capabilities</a> and the <a href="/standards">standards</a> pages.`,
      html`Review the security model: ${doc('security', 'security')} and ${doc('backoffice', 'the back office')}.`,
      html`Deploy it yourself on PostgreSQL (${doc('scaling', 'scaling')}, ${doc('operations', 'operations')}).`,
    ],
  },
];

export interface Capability {
  title: string;
  what: SafeHtml;
  docs: readonly SafeHtml[];
}

export const CAPABILITIES: readonly Capability[] = [
  {
    title: 'Organisations with their own identity',
    what: html`Each tenant has its own P-256 signing key, a <code>did:web</code> identity with a DID document, issuer metadata and branding. Keys rotate with four-eyes approval; the old key stays in the DID document while what it signed can still be presented.`,
    docs: [doc('tenants', 'Tenants'), doc('trust-artifacts', 'Trust artifacts')],
  },
  {
    title: 'Credential types',
    what: html`A type is a name and a list of claim specs (text, dates, money, enumerations), published as SD-JWT VC Type Metadata at its <code>vct</code> URL, with an optional validity period.`,
    docs: [doc('credential-types', 'Credential types')],
  },
  {
    title: 'Issuance',
    what: html`Offers by value or by reference, with an optional transaction code; OpenID4VCI 1.0 pre-authorized code flow with nonce and key proofs; holder-bound SD-JWT VCs, each claim disclosable on its own.`,
    docs: [doc('offers', 'Offers'), doc('issuance', 'Issuance')],
  },
  {
    title: 'Revocation and status lists',
    what: html`Every credential has an entry in its tenant's token status list, a signed and compressed bit list that any verifier can cache. A revocation flips exactly that entry; the hosted verifier sees it at once, and a verifier that caches the list within five minutes.`,
    docs: [doc('status-lists', 'Status lists')],
  },
  {
    title: 'Verification without an account',
    what: html`Hosted OpenID4VP 1.0 verification with DCQL queries: open a request, show its QR code, read the outcome. The reference verifier reports each of its ten checks.`,
    docs: [doc('verification', 'Hosted verification'), doc('verifier', 'The reference verifier')],
  },
  {
    title: 'A conformance kit',
    what: html`A published set of test vectors and a runner that checks any verifier, in any language, against the reference verifier.`,
    docs: [doc('conformance', 'Conformance')],
  },
  {
    title: 'Wallets and the holder plane',
    what: html`A reference wallet on the command line; wallet items, deposits of bills and receipts, data channels a holder controls, membership and one-member-one-vote proposals.`,
    docs: [
      doc('wallet-cli', 'Wallet CLI'),
      doc('wallet', 'Wallet items'),
      doc('deposits', 'Deposits'),
      doc('membership', 'Membership'),
    ],
  },
  {
    title: 'The account portal',
    what: html`Holders sign in with their wallet, see what is held about them, export it and erase it with a receipt.`,
    docs: [doc('account', 'Account portal'), doc('holder-data', 'Holder data')],
  },
  {
    title: 'Integration',
    what: html`Signed webhooks with retries, tenant-scoped tokens with scopes and rate classes, and a catalogue of the events they carry.`,
    docs: [doc('webhooks', 'Webhooks'), doc('integration', 'Integration'), doc('events', 'Events')],
  },
  {
    title: 'Partners',
    what: html`A partner programme with applications, staged review and a partner portal with keys and team members.`,
    docs: [doc('partners', 'Partners'), html`<a href="/partners">The programme</a>`],
  },
  {
    title: 'Operators and the back office',
    what: html`Operators sign in with a password or through the organisation's OpenID provider; roles and tenant scope are checked on every call; sensitive actions need four eyes; everything is in a hash-chained audit log. The back office and the console work in the browser.`,
    docs: [
      doc('operators', 'Operators'),
      doc('backoffice', 'Back office'),
      doc('admin-app', 'The browser apps'),
      doc('audit', 'Audit log'),
    ],
  },
  {
    title: 'Operations',
    what: html`Health and metrics, backups with restore drills, key rotation, expiry, stuck work, and one process per core on SQLite or PostgreSQL.`,
    docs: [doc('operations', 'Operations'), doc('scaling', 'Scaling')],
  },
];

export interface Standard {
  name: string;
  version: string;
  /** What the service does with it. */
  use: SafeHtml;
  /** How that is shown: the tests and published artifacts that hold it. */
  evidence: SafeHtml;
}

export const STANDARDS: readonly Standard[] = [
  {
    name: 'OpenID for Verifiable Credential Issuance',
    version: '1.0',
    use: html`Issuer and authorization-server metadata, credential offers by value and by reference, the pre-authorized code flow with transaction codes, the nonce endpoint and <code>jwt</code> key proofs.`,
    evidence: html`Tests collect credentials with the OpenWallet Foundation's wallet library (oid4vc-ts) over real HTTP, and with the reference wallet.`,
  },
  {
    name: 'OpenID for Verifiable Presentations',
    version: '1.0',
    use: html`Hosted verification with signed request objects fetched by <code>request_uri</code>, DCQL queries, <code>direct_post</code> and encrypted <code>direct_post.jwt</code> responses, nonce and audience binding; requests through the browser's Digital Credentials API (Appendix A) with <code>expected_origins</code> and origin binding (${doc('dc-api', 'Digital Credentials API')}).`,
    evidence: html`Tests answer requests with oid4vc-ts's presentation library and the <code>dcql</code> library, and with the reference wallet; the <code>/verify</code> page is tested in Chromium with a wallet answering through the browser's API.`,
  },
  {
    name: 'OpenID4VC High Assurance Interoperability Profile',
    version: 'HAIP 1.0, in part',
    use: html`Every signing key has an X.509 certificate, carried in <code>x5c</code> on credentials and status lists; hosted verification offers a HAIP profile (<code>x509_hash</code> requests, responses encrypted to a key of each transaction's own, the issuer key confirmed by its certificate, a same-device wallet sent back to the page that asked). Issuers that turn HAIP issuance on also serve the authorization code flow with PAR, PKCE, DPoP and wallet attestation, and any credential type may require a wallet provider's key attestation of the holder's key (${doc('haip', 'HAIP')}).`,
    evidence: html`Tests verify issued credentials and status lists by their certificate chain with Node's X.509 support and read certificates back with openssl; oid4vc-ts answers HAIP requests and collects credentials through the authorization code flow, and each refused request or answer changes nothing. The conformance set of schema /2 judges any verifier on the certificate cases.`,
  },
  {
    name: 'ISO/IEC 18013-5 mdoc',
    version: 'as OID4VCI 1.0 and OpenID4VP 1.0 profile it',
    use: html`A credential type may be issued as an mdoc as well as, or instead of, an SD-JWT VC: a Mobile Security Object signed under COSE with the key's certificate chain, bound to the holder's device key and referencing the same status lists; hosted verification asks for it by doctype and checks the device signature over the OpenID4VP session transcript (${doc('mdoc', 'mdoc')}).`,
    evidence: html`An independent library (@auth0/mdl) verifies the mdocs the service issues and builds a presentation the service accepts; the wallet libraries collect mdocs in both flows and answer mdoc requests through QR codes and the browser's API. The conformance set of schema /3 judges any verifier on mdoc cases.`,
  },
  {
    name: 'Selective Disclosure for JWTs',
    version: 'RFC 9901',
    use: html`Every claim is a salted disclosure; presentations carry a key-binding JWT with <code>sd_hash</code>.`,
    evidence: html`The RFC's published disclosures and digests are reproduced in tests, and credentials are checked with the sd-jwt-js libraries.`,
  },
  {
    name: 'SD-JWT-based Verifiable Credentials',
    version: 'draft 19',
    use: html`<code>dc+sd-jwt</code> credentials with <code>vct</code>, <code>cnf</code> and <code>status</code>; Type Metadata served at each <code>vct</code> URL.`,
    evidence: html`sd-jwt-js's SD-JWT VC verifier accepts what the service issues; the conformance set covers each way a presentation can break.`,
  },
  {
    name: 'Token Status List',
    version: 'draft 20',
    use: html`One signed, compressed status list per tenant list, referenced from every credential; revocation sets a bit.`,
    evidence: html`The draft's encoding examples are reproduced in tests, and sd-jwt-js's status-list library reads the lists the service signs.`,
  },
  {
    name: 'did:web',
    version: 'W3C DID method',
    use: html`A DID document for the platform and for each tenant, listing every key that can still verify.`,
    evidence: html`Verifiers in the tests resolve issuers by <code>did:web</code> over HTTP.`,
  },
  {
    name: 'OAuth 2.0 and OpenID Connect',
    version: 'RFC 6749, RFC 8414, OpenID Connect Core',
    use: html`The token endpoint of issuance and its metadata; operators sign in through their organisation's OpenID provider with PKCE.`,
    evidence: html`Sign-in is tested against a real OpenID provider (oidc-provider) in a real browser.`,
  },
  {
    name: 'Security.txt',
    version: 'RFC 9116',
    use: html`A security contact at <a href="/.well-known/security.txt"><code>/.well-known/security.txt</code></a>.`,
    evidence: html`Served by every deployment.`,
  },
];

export interface RegulationSection {
  id: string;
  title: string;
  points: readonly SafeHtml[];
}

export const REGULATIONS: readonly RegulationSection[] = [
  {
    id: 'minimisation',
    title: 'Data minimisation',
    points: [
      html`Claim values are held only in an offer: they are erased in the same step that issues the credential, or by a job within a minute of the offer ending; on SQLite the erased bytes are overwritten in the database files, and on PostgreSQL the operator's vacuum removes them (${doc('offers', 'offers')}).`,
      html`The record of issued credentials holds a status index, dates and the holder key's thumbprint, never a claim value.`,
      html`Holders disclose claim by claim, so a relying party receives only what it asked for and the holder agreed to give.`,
      html`Hosted verification keeps a completed request for ten minutes, for the relying party's poller, and then forgets it.`,
    ],
  },
  {
    id: 'access',
    title: 'Access and portability',
    points: [
      html`A holder signs in to the account portal with their wallet and downloads everything held about their account as one file (${doc('account', 'account portal')}).`,
      html`Operators answer a data-subject request with counts of where a person is held, or with a statement, signed with the platform's key, that nothing is held.`,
    ],
  },
  {
    id: 'erasure',
    title: 'Erasure',
    points: [
      html`A holder erases their account from the portal in one step, with a receipt; operators handle erasure requests received by other means, checking who asked.`,
      html`One registry lists every place that names a person, and says for each whether it is deleted, blanked or kept and why (${doc('holder-data', 'holder data')}).`,
    ],
  },
  {
    id: 'records',
    title: 'Records and accountability',
    points: [
      html`Every operator change is an entry in a hash-chained audit log, exportable and checkable without the service (${doc('audit', 'audit log')}).`,
      html`The back office keeps the record of processing, retention rules, incidents and attestations of role separation (${doc('backoffice-compliance', 'compliance')}).`,
      html`Sensitive actions need two operators: the one who asks cannot approve.`,
    ],
  },
  {
    id: 'eidas',
    title: 'eIDAS 2 and the EU Digital Identity Wallet',
    points: [
      html`The credential format (SD-JWT VC) and the issuance and presentation protocols (OpenID4VCI 1.0, OpenID4VP 1.0) are those the EU Digital Identity Wallet architecture names for SD-JWT VC credentials.`,
      html`Of the high-assurance profile of those protocols (HAIP 1.0), certificates for issuer keys, certificate-named verifier requests and encrypted responses are served, and so is presentation through the browser's Digital Credentials API and, for issuers that turn it on, HAIP's authorization code flow with wallet attestation, and key attestation in key proofs for the types that require it (${doc('haip', 'HAIP')}).`,
      html`Whether a deployment acts as a qualified trust service, or any particular provider's obligations, is a matter for its operator and supervisory body; this page describes what the software does.`,
    ],
  },
];
