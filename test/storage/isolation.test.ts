import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { NonceMinter } from '../../src/adapters/crypto/c-nonce.ts';
import { AesKeyVault } from '../../src/adapters/crypto/key-vault.ts';
import { SealedKeyBackend } from '../../src/adapters/crypto/keys/sealed-backend.ts';
import { TenantKeyStore } from '../../src/adapters/crypto/tenant-key-store.ts';
import { SqlApprovalStore } from '../../src/adapters/sql/approvals/sql-approval-store.ts';
import { SqlOrgStore } from '../../src/adapters/sql/backoffice/sql-org-store.ts';
import { type Db, migrate } from '../../src/adapters/sql/connect.ts';
import { SqlCredentialTypeStore } from '../../src/adapters/sql/credential-types/sql-credential-type-store.ts';
import { SqlDepositStore } from '../../src/adapters/sql/deposits/sql-deposit-store.ts';
import { SqlDirectoryStore } from '../../src/adapters/sql/directory/sql-directory-store.ts';
import { SqlIntegrationTokenStore } from '../../src/adapters/sql/integration/sql-integration-token-store.ts';
import { SqlAccessTokenStore } from '../../src/adapters/sql/issuance/sql-access-token-store.ts';
import { SqlAttestationPopReplayStore } from '../../src/adapters/sql/issuance/sql-attestation-pop-replay-store.ts';
import { SqlAuthorizationRequestStore } from '../../src/adapters/sql/issuance/sql-authorization-request-store.ts';
import { SqlIssuedCredentialStore } from '../../src/adapters/sql/issuance/sql-issued-credential-store.ts';
import { privateKeyColumns } from '../../src/adapters/sql/kernel/private-key-columns.ts';
import { SqlSigningKeyStore } from '../../src/adapters/sql/kernel/sql-signing-key-store.ts';
import { SqlMembershipStore } from '../../src/adapters/sql/membership/sql-membership-store.ts';
import { SqlOfferStore } from '../../src/adapters/sql/offers/sql-offer-store.ts';
import { SqlOperatorStore } from '../../src/adapters/sql/operators/sql-operator-store.ts';
import { SqlTenantStore } from '../../src/adapters/sql/tenants/sql-tenant-store.ts';
import { SqlPresentationTransactionStore } from '../../src/adapters/sql/verification/sql-presentation-transaction-store.ts';
import { SqlChannelStore } from '../../src/adapters/sql/wallet/sql-channel-store.ts';
import { SqlWalletItemStore } from '../../src/adapters/sql/wallet/sql-wallet-item-store.ts';
import { SqlWebhookLanes } from '../../src/adapters/sql/webhooks/sql-webhook-lanes.ts';
import { SqlWebhookStore } from '../../src/adapters/sql/webhooks/sql-webhook-store.ts';
import { systemClock } from '../../src/core/clock.ts';
import type { ApprovalRecord } from '../../src/ports/approval-store.ts';
import type { AuthorizationRequestRecord } from '../../src/ports/authorization-request-store.ts';
import type { ChannelRecord, ShareLogEntry } from '../../src/ports/channel-store.ts';
import type { CredentialTypeRecord } from '../../src/ports/credential-type-store.ts';
import type { DepositRecord, ProductRecord } from '../../src/ports/deposit-store.ts';
import type { IntegrationTokenRecord } from '../../src/ports/integration-token-store.ts';
import type { Collection, IssuedCredentialRecord, StatusAllocation } from '../../src/ports/issued-credential-store.ts';
import type { KeyCertifier } from '../../src/ports/key-certifier.ts';
import type { MemberRecord, ProposalRecord } from '../../src/ports/membership-store.ts';
import type { OfferRecord } from '../../src/ports/offer-store.ts';
import type { OrgDomain } from '../../src/ports/org-store.ts';
import type { PresentationTransactionRecord } from '../../src/ports/presentation-transaction-store.ts';
import type { TenantOwnedPorts } from '../../src/ports/tenant-owned.ts';
import type { WalletItemRecord } from '../../src/ports/wallet-item-store.ts';
import type { WebhookRecord } from '../../src/ports/webhook-store.ts';
import { certifierOn } from '../helpers/certifier.ts';
import { insertAccessToken, openTestDb, type TestDatabase, tenantRecord, testDatabases } from '../helpers/databases.ts';
import { uriNames } from '../helpers/x5c.ts';
import { BACKOFFICE_CASES as B, backofficeIsolation } from './isolation-backoffice.ts';
import { COMPLIANCE_CASES as C, complianceIsolation } from './isolation-compliance.ts';
import { OPS_CASES as O, opsIsolation } from './isolation-ops.ts';
import { OWNER_PART_CASES as OP, ownerPartsIsolation } from './isolation-owner-parts.ts';
import { AUDIT_VIEW_CASES as AV, auditViewsIsolation } from './isolation-views-audit.ts';
import { COMPLIANCE_VIEW_CASES as CV, complianceViewsIsolation } from './isolation-views-compliance.ts';
import { FEATURE_STORE_CASES as F, featureStoresIsolation } from './isolation-views-feature-stores.ts';
import { OPS_VIEW_CASES as OV, opsViewsIsolation } from './isolation-views-ops.ts';
import { PEOPLE_SEARCH_CASES as PS, peopleSearchIsolation } from './isolation-views-people-search.ts';

/** A fixed time base for the issuance stores (they take `now` from the caller). */
const T0 = 1_700_000_000_000;
const REDEEMED_AT = T0 + 100;
const TOKEN_EXPIRY = T0 + 300_000;
const COLLECT_AT = T0 + 1_000;

function offerRecord(tenant: string, id: string, over: Partial<OfferRecord> = {}): OfferRecord {
  return {
    id,
    tenant,
    typeId: 'membership',
    codeHash: `code-${id}`,
    refHash: `ref-${id}`,
    txCode: { input_mode: 'numeric', length: 6, description: 'Code from the letter' },
    txCodeHash: `tx-${id}`,
    txAttempts: 0,
    subject: { name: `holder of ${id}`, tenant },
    createdAt: T0,
    expiresAt: T0 + 600_000,
    eraseAfter: T0 + 600_000,
    redeemedAt: null,
    collectedAt: null,
    ...over,
  };
}

/**
 * A deterministic stand-in for the random index source: hands out `first` in order, then counts
 * upwards; records every size it was asked for.
 */
function picker(first: number[] = []) {
  const queue = [...first];
  const sizes: number[] = [];
  let next = 0;
  return {
    sizes,
    randomIndex: (size: number) => {
      sizes.push(size);
      const v = queue.shift();
      return v ?? next++ % size;
    },
  };
}

const T = {
  tenantReads:
    'TenantStore: get, list, updateProfile and slugsStartingWith touch only the named tenant (an unnarrowed list is the platform’s, by design)',
  tenantCreate: 'TenantStore.create writes tenant and keys together or not at all',
  tenantStatus: 'TenantStore: status and setStatus read and move only the named tenant, from the state named only',
  authorizationFlow: 'TenantStore.setAuthorizationFlow changes only the named tenant’s settings',
  authorizations:
    'AuthorizationRequestStore: a request is opened, approved, granted a code, found, declined and redeemed within its own tenant only, each move once, by its own browser and client only',
  pops: 'AttestationPopReplayStore: a proof of possession used at one issuer is still unused at another',
  signingKeys: 'SigningKeyStore: insert, active and published are scoped to the tenant',
  keyStore: 'KeyStore: keys are made, found, published and opened as their own tenant only',
  keyCertificates: 'KeyCertifier: a key’s certificate names its own tenant’s DID and issuer URL, never another’s',
  cNonces: 'CNonces: a c_nonce one tenant minted is never recognised for another, however fresh',
  keyRotation: 'SigningKeyStore and KeyStore: a rotation supersedes, and a retirement removes, the named tenant’s own key only',
  accessTokens: 'AccessTokenStore.findUsable reads a token whichever tenant owns it, and never spends it',
  types:
    'CredentialTypeStore: create, get, list and the validity calls keep each tenant to its own types; catalog is every tenant’s, by design',
  offers: 'OfferStore: create, get, findByCode, findByRef and atIssuer answer only the owning tenant',
  txAttempts: "OfferStore.claimTxAttempt counts only the owning tenant's attempts",
  withdraw: "OfferStore.withdraw ends only the owning tenant's unredeemed offer",
  items:
    'WalletItemStore: an item is visible to its own account only, an offer or deposit only while the account is a member of the item’s tenant',
  products:
    'DepositStore: products are per tenant and kind; setRequireChannel changes only the named tenant’s; product, approve and an unfiltered list find by id alone (platform operations), by design',
  deposits: 'DepositStore: a depositId is the tenant’s own; another tenant reads nothing under it and may use the same id',
  channels:
    'ChannelStore: a channel is one tenant’s with one account; no tenant reads, moves, renews or lists another’s; an unfiltered list is the platform’s, by design',
  shares:
    'ChannelStore: share settings and the sharing log are the account’s own; sharedWith answers one tenant only what is set for it',
  redeem: 'AccessTokenStore.redeem: a tenant spends only its own code, issues only its own token, and writes no nonce',
  allocation:
    'IssuedCredentialStore.reserveSlots counts entries per tenant and opens seq+1 when full; collect draws indices from randomIndex in the reserved list and skips taken ones',
  collectIsolation:
    "IssuedCredentialStore.collect: a tenant can never spend or collect with another tenant's token, spent nonces or offer, nor a token collect another offer",
  collectAtomic: 'IssuedCredentialStore.collect is all or nothing',
  revocation: 'IssuedCredentialStore: revoke, revokedIndices and list never reach across tenants',
  members:
    'MembershipStore: enrolment types, members, coin entries and their keys are per tenant; membershipsOf is the account’s own view across tenants, by design',
  proposals:
    'MembershipStore: proposals, votes and tallies are per tenant; findProposal finds by id alone (a holder vote names no tenant), by design',
  depositChain:
    'DepositStore: each tenant’s deposits form their own chain; deposits, chain and chainHead read one tenant’s only; chainTenants lists every tenant with a chain, by design',
  directory:
    'DirectoryStore: a listing is its account’s own (put, remove, mine); lookup, byCommunity and byName answer only the communities they are given, active members only, and count only those toward a limit or page',
  webhooks:
    'WebhookStore: endpoints, deliveries, attempts and re-drives are seen and changed within a tenant only; within null is the platform’s view, by design',
  approvals:
    'ApprovalStore: a scoped caller gets and lists its tenant’s approvals only, never a platform one; decide, saveResult and the two jobs act by id or time for every tenant alike, the desk having checked who may, by design',
  orgs: 'OrgStore: one organisation’s domain and history are its own; a live domain is one tenant’s',
  integrationTokens:
    'IntegrationTokenStore: tokens are read, revoked and rotated within their tenant only, a page filter never widening it; within null is the platform’s view; findActive finds by hash alone (authentication), and partner keys by partner, by design',
  transactions:
    'PresentationTransactionStore: the hosted verifier’s transactions are the platform’s, found by id or state alone, by design; completing, enrolling (MembershipStore.spendTransaction), sweeping or evicting one never changes another, whichever tenant’s type each asked for',
  sweeps:
    'the sweeps are global: OfferStore.eraseDue erases subjects past erase_after, and pruneSpentNonces and AccessTokenStore.prune drop expired marks and tokens, of every tenant alike',
} as const;

/**
 * Which test below calls each method of each tenant-owned port as two tenants. Typed by the
 * ports: a method added to a port does not compile until it names the test that covers it, and
 * the last test checks that every test named here ran and passed.
 */
/** The methods of a port (its plain values, such as a certifier's anchor, take no tenant). */
type Methods<P> = { [M in keyof P as P[M] extends (...args: never[]) => unknown ? M : never]-?: string };
const ISOLATION_CASES: { [P in keyof TenantOwnedPorts]: Methods<TenantOwnedPorts[P]> } = {
  TenantStore: {
    create: T.tenantCreate,
    get: T.tenantReads,
    list: T.tenantReads,
    updateProfile: T.tenantReads,
    slugsStartingWith: T.tenantReads,
    status: T.tenantStatus,
    setStatus: T.tenantStatus,
    setAuthorizationFlow: T.authorizationFlow,
  },
  AuthorizationRequestStore: {
    push: T.authorizations,
    get: T.authorizations,
    open: T.authorizations,
    approve: T.authorizations,
    grantCode: T.authorizations,
    decline: T.authorizations,
    atIssuerByCode: T.authorizations,
    redeem: T.authorizations,
    prune: T.authorizations,
  },
  AttestationPopReplayStore: { burn: T.pops, prune: T.pops },
  SigningKeyStore: {
    insert: T.signingKeys,
    active: T.signingKeys,
    published: T.signingKeys,
    supersede: T.keyRotation,
    retire: T.keyRotation,
  },
  KeyCertifier: { certify: T.keyCertificates },
  CNonces: { mint: T.cNonces, check: T.cNonces },
  KeyStore: {
    prepareKey: T.keyStore,
    discard: T.keyStore,
    ensureKey: T.keyStore,
    activeKey: T.keyStore,
    publishedKeys: T.keyStore,
    signer: T.keyStore,
    signJwt: T.keyStore,
    rotate: T.keyRotation,
    retire: T.keyRotation,
  },
  AccessTokenStore: { redeem: T.redeem, findUsable: T.accessTokens, prune: T.sweeps },
  CredentialTypeStore: {
    create: T.types,
    get: T.types,
    list: T.types,
    catalog: T.types,
    validity: T.types,
    setValidity: T.types,
    validities: T.types,
    keyAttestation: T.types,
    setKeyAttestation: T.types,
    keyAttestations: T.types,
  },
  OfferStore: {
    create: T.offers,
    get: T.offers,
    findByCode: T.offers,
    findByRef: T.offers,
    atIssuer: T.offers,
    claimTxAttempt: T.txAttempts,
    withdraw: T.withdraw,
    eraseDue: T.sweeps,
    putInWallet: OP.walletParts,
  },
  IssuedCredentialStore: {
    reserveSlots: T.allocation,
    collect: T.collectIsolation,
    list: T.revocation,
    revokedIndices: T.revocation,
    touchLists: T.keyRotation,
    revoke: T.revocation,
    pruneSpentNonces: T.sweeps,
  },
  MembershipStore: {
    setEnrolmentTypes: T.members,
    enrolmentTypes: T.members,
    enrol: T.members,
    getMember: T.members,
    membershipsOf: T.members,
    coinLedger: T.members,
    updateMember: T.members,
    applyCoins: T.members,
    createProposal: T.proposals,
    getProposal: T.proposals,
    findProposal: T.proposals,
    moveProposal: T.proposals,
    openProposals: T.proposals,
    castVote: T.proposals,
    votedOn: T.proposals,
    tally: T.proposals,
    spendTransaction: T.transactions,
  },
  WalletItemStore: { add: T.items, get: T.items, list: T.items, decide: T.items, hold: T.items },
  ChannelStore: {
    get: T.channels,
    request: T.channels,
    move: T.channels,
    list: T.channels,
    sharesOf: T.shares,
    setShares: T.shares,
    sharedWith: T.shares,
    logOf: T.shares,
  },
  DepositStore: {
    addProduct: T.products,
    product: T.products,
    productFor: T.products,
    products: T.products,
    approve: T.products,
    setRequireChannel: T.products,
    addDeposit: T.deposits,
    deposit: T.deposits,
    putInWallet: OP.walletParts,
    itemState: OP.walletParts,
    channelState: OP.walletParts,
    deposits: T.depositChain,
    chain: T.depositChain,
    chainHead: T.depositChain,
    chainTenants: T.depositChain,
  },
  WebhookStore: {
    create: T.webhooks,
    get: T.webhooks,
    list: T.webhooks,
    listActive: T.webhooks,
    setActive: T.webhooks,
    setSecret: T.webhooks,
    deliveries: T.webhooks,
    delivery: T.webhooks,
    redrive: T.webhooks,
  },
  DirectoryStore: {
    put: T.directory,
    remove: T.directory,
    mine: T.directory,
    lookup: T.directory,
    byCommunity: T.directory,
    byName: T.directory,
  },
  ApprovalStore: {
    create: T.approvals,
    get: T.approvals,
    list: T.approvals,
    pending: T.approvals,
    decide: T.approvals,
    saveResult: T.approvals,
    markExpired: T.approvals,
    clearResults: T.approvals,
  },
  OrgStore: {
    domains: T.orgs,
    history: T.orgs,
    appendHistory: T.orgs,
    domain: T.orgs,
    domainHolder: T.orgs,
    putPending: T.orgs,
    moveDomain: T.orgs,
  },
  IntegrationTokenStore: {
    findActive: T.integrationTokens,
    createToken: T.integrationTokens,
    token: T.integrationTokens,
    tokens: T.integrationTokens,
    activePartnerKeys: T.integrationTokens,
    revoke: T.integrationTokens,
    revokePartnerKeys: T.integrationTokens,
    rotate: T.integrationTokens,
  },
  OperatorStore: {
    create: B.operators,
    creatorOf: B.operators,
    issueInvitation: B.operators,
    findByInvitation: B.operators,
    acceptInvitation: B.operators,
    relatedTo: B.operators,
    get: B.operators,
    setRoles: B.operators,
    setStatus: B.operators,
    recordFailedLogin: B.operators,
    clearFailedLogins: B.operators,
    list: B.operators,
    setPassword: B.operators,
    identityOf: B.operators,
    linkIdentity: B.operators,
    unlinkIdentity: B.operators,
    findByIdentity: B.operators,
    lock: B.operators,
    platformOwners: B.operators,
    holdPlatformOwners: B.operators,
  },
  PartnerStore: {
    createApplication: B.partners,
    application: B.partners,
    applications: B.partners,
    moveStage: B.partners,
    appendHistory: B.partners,
    history: B.partners,
    setGrant: B.partners,
    portfolio: B.partners,
    lockTeam: B.partners,
    addMember: B.partners,
    members: B.partners,
    member: B.partners,
    membersByEmail: B.partners,
    removeMember: B.partners,
    setRole: B.partners,
    createSession: B.partners,
    session: B.partners,
    endSession: B.partners,
    endSessions: B.partners,
    prune: B.partners,
  },
  ComplianceStore: {
    add: C.compliance,
    get: C.compliance,
    list: C.compliance,
    decide: C.compliance,
    addNegative: C.compliance,
    decideAccess: C.compliance,
    byApproval: C.compliance,
    aboutAccounts: C.compliance,
    openRequests: C.compliance,
    addAttestation: C.compliance,
    findAttestation: C.compliance,
    attestations: C.compliance,
    newestVersions: C.compliance,
    attestedBy: C.compliance,
    purposesOf: C.compliance,
    bindPurpose: C.compliance,
  },
  IncidentStore: {
    add: C.incidents,
    get: C.incidents,
    list: C.incidents,
    update: C.incidents,
    touching: C.incidents,
  },
  AgentStore: { beat: O.agents, agents: O.agents },
  DemoFixtureStore: { clear: O.fixtures },
  KernelViews: {
    auditEntries: OV.kernel,
    auditOfActions: CV.compliance,
    auditOfAction: OV.kernel,
    jobLeases: OV.kernel,
    unroutedEvents: OV.kernel,
    mailRates: OV.kernel,
    signingKeys: OV.kernel,
    supersededKeys: OV.kernel,
    activeKeys: OV.kernel,
    signingKeysOlderThan: OV.kernel,
    issuerKeys: OV.kernel,
    auditHead: AV.kernelAudit,
    auditEntry: AV.kernelAudit,
    auditPage: AV.kernelAudit,
    auditMark: AV.kernelAudit,
    auditNaming: AV.kernelAudit,
    activity: AV.kernelAudit,
    eventsNaming: AV.kernelAudit,
    verificationsPerDay: AV.kernelAudit,
    lastSignIn: PS.kernel,
    collate: PS.kernel,
    eventCoverage: F.coverage,
  },
  IssuanceViews: {
    credential: AV.issuance,
    credentials: AV.issuance,
    credentialsOf: AV.issuance,
    knownCredentials: AV.issuance,
    validOfType: AV.issuance,
    issuedPerDay: AV.issuance,
    issuedIn: OV.issuance,
    outstandingIn: OV.issuance,
    statusLists: OV.issuance,
    expiring: OV.issuance,
    touched: OV.issuance,
    byStatus: PS.issuance,
    byIdPrefix: PS.issuance,
    countsByType: PS.issuance,
    countsOfHolder: PS.issuance,
    issuedPerTenant: CV.orgs,
    statusList: F.statusLists,
    revokedIndices: F.statusLists,
  },
  OffersViews: {
    offer: AV.offers,
    offersIn: AV.offers,
    offersPerDay: AV.offers,
    expiringUnused: OV.offers,
    expiring: OV.offers,
    unerasedSubjects: OV.offers,
    funnel: OV.offers,
    countsByType: PS.offers,
  },
  MembershipViews: {
    membershipsOf: AV.membership,
    enrolledPerDay: AV.membership,
    membersPerTenant: CV.orgs,
    members: PS.membership,
    coinEntries: PS.membership,
    proposals: PS.membership,
    optionCounts: PS.membership,
    economies: PS.membership,
    accountsByPrefix: PS.membership,
    accounts: PS.membership,
    memberships: PS.membership,
  },
  WalletViews: {
    offersAddressedTo: AV.wallet,
    itemsOf: AV.wallet,
    channelsOf: AV.wallet,
    demoMarkMismatches: OV.wallet,
    activeChannels: CV.compliance,
    item: PS.wallet,
    accountsByPrefix: PS.wallet,
    accounts: PS.wallet,
    itemCounts: PS.wallet,
    itemStates: PS.wallet,
    channelsByTenant: PS.wallet,
    consent: PS.wallet,
  },
  DepositsViews: { depositsOf: AV.deposits, byDepositId: PS.deposits, countsOf: PS.deposits, body: F.depositBody },
  VerificationViews: {
    expiredTransactions: OV.verification,
    funnel: OV.verification,
    transaction: PS.verification,
    enrolment: F.enrolment,
  },
  WebhooksViews: {
    backlog: OV.webhooks,
    rates: OV.webhooks,
    overdueDeliveries: OV.webhooks,
    heldLanes: OV.webhooks,
    deadDeliveries: OV.webhooks,
    endpoints: CV.compliance,
  },
  ApprovalsViews: { pending: OV.approvals, overdue: OV.approvals, states: CV.compliance, reciprocal: CV.compliance },
  TenantsViews: {
    names: PS.tenants,
    slugsStartingWith: PS.tenants,
    search: PS.tenants,
    slugs: PS.tenants,
    suspended: CV.orgs,
    status: F.tenantStatus,
  },
  CredentialTypesViews: { search: PS.types, types: PS.types, type: PS.types, byTypeId: PS.types, typesPerTenant: CV.orgs },
  PartnersViews: {
    inStages: PS.partners,
    search: PS.partners,
    memberIdsByEmail: CV.compliance,
    partnerSession: OP.operatorPlane,
  },
  OperatorsViews: {
    byPrefix: PS.operators,
    activeHolding: CV.compliance,
    tenantAdmins: CV.orgs,
    offboarded: CV.orgs,
    sessionOperator: OP.operatorPlane,
  },
  DirectoryViews: { listed: PS.directory },
  PresentationTransactionStore: {
    create: T.transactions,
    get: T.transactions,
    findByState: T.transactions,
    complete: T.transactions,
    sweep: T.transactions,
    evictBeyond: T.transactions,
  },
  IntegrationViews: { partnerKeys: F.partnerKeys, key: F.partnerKeys, activeKey: OP.operatorPlane },
};

const ACCOUNT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

function memberRecord(tenant: string, over: Partial<MemberRecord> = {}): MemberRecord {
  return {
    tenant,
    accountId: ACCOUNT,
    displayName: `member of ${tenant}`,
    tier: 'member',
    status: 'active',
    balance: 0,
    joinedAt: T0,
    updatedAt: T0,
    ...over,
  };
}

function proposalRecord(tenant: string, id: string, over: Partial<ProposalRecord> = {}): ProposalRecord {
  return {
    id,
    tenant,
    title: `${tenant} question`,
    options: ['yes', 'no'],
    tiers: null,
    opensAt: T0,
    closesAt: T0 + 600_000,
    state: 'open',
    votesCast: 0,
    createdAt: T0,
    openedAt: T0,
    closedAt: null,
    ...over,
  };
}

/**
 * Every tenant-owned repository method, called as tenant A and as tenant B: neither ever sees
 * or changes the other's rows.
 */
for (const factory of testDatabases()) {
  describe(`tenant isolation in every repository (${factory.name})`, () => {
    /**
     * PostgreSQL writes a collection in one statement (write-batch.ts): it draws every slot and
     * signs first, then writes, and draws again only a slot whose entry was taken. SQLite writes
     * slot by slot and signs last. Either way a refusal changes nothing.
     */
    const signsBeforeWriting = factory.name === 'postgres';
    let target: TestDatabase;
    let db: Db;
    let tenants: SqlTenantStore;
    let signingKeys: SqlSigningKeyStore;
    let keys: TenantKeyStore;
    let certifier: KeyCertifier;
    let tokens: SqlAccessTokenStore;
    let types: SqlCredentialTypeStore;
    let offers: SqlOfferStore;
    let ledger: SqlIssuedCredentialStore;
    let membership: SqlMembershipStore;
    let credentialIds = 0;
    const passed = new Set<string>();
    /** A test of this suite, recorded when it passes. */
    const isolated = (name: string, fn: () => Promise<void>) =>
      test(name, async () => {
        await fn();
        passed.add(name);
      });

    before(async () => {
      target = await factory.create();
      db = openTestDb(target);
      await migrate(db);
      tenants = new SqlTenantStore(db);
      signingKeys = new SqlSigningKeyStore(db);
      const vault = new AesKeyVault(Buffer.alloc(32, 3));
      certifier = await certifierOn(db, vault);
      keys = new TenantKeyStore(signingKeys, new SealedKeyBackend(vault), systemClock, certifier);
      tokens = new SqlAccessTokenStore(db);
      types = new SqlCredentialTypeStore(db);
      offers = new SqlOfferStore(db);
      ledger = new SqlIssuedCredentialStore(db);
      membership = new SqlMembershipStore(db);
      for (const slug of ['alpha', 'beta']) {
        assert.equal(await tenants.create(tenantRecord(slug), [await keys.prepareKey(slug, 'issuer')]), true);
      }
    });
    after(async () => {
      await db.destroy();
      await target.drop();
    });

    isolated(T.tenantReads, async () => {
      assert.equal((await tenants.get('alpha'))?.name, 'ALPHA');
      assert.equal((await tenants.get('beta'))?.name, 'BETA');
      assert.deepEqual(
        (await tenants.list({ tenant: 'beta', limit: 10 })).map((t) => t.slug),
        ['beta'],
        'a list narrowed to one tenant shows that tenant only',
      );
      assert.deepEqual(
        (await tenants.list({ tenant: null, limit: 10 })).map((t) => t.slug),
        ['alpha', 'beta'],
        'the platform’s list shows every tenant',
      );
      await tenants.updateProfile('alpha', { displayName: 'Alpha Inc' }, 2);
      assert.equal((await tenants.get('alpha'))?.displayName, 'Alpha Inc');
      assert.equal((await tenants.get('beta'))?.displayName, null);
      assert.equal((await tenants.get('beta'))?.updatedAt, 1);
      assert.deepEqual(await tenants.slugsStartingWith('alp'), ['alpha']);
      assert.equal(await tenants.create(tenantRecord('alpha'), []), false, 'a taken slug is refused');
      assert.equal((await tenants.get('alpha'))?.displayName, 'Alpha Inc', 'and the refused insert changed nothing');
    });

    isolated(T.tenantStatus, async () => {
      assert.deepEqual(await tenants.status('beta'), { status: 'active', since: null, reason: null });
      assert.equal(
        await tenants.setStatus('alpha', 'suspended', 'active', 'not suspended', 5),
        false,
        'only from the state named',
      );
      assert.equal(await tenants.setStatus('alpha', 'active', 'suspended', 'fraud report', 5), true);
      assert.deepEqual(await tenants.status('alpha'), { status: 'suspended', since: 5, reason: 'fraud report' });
      assert.deepEqual(await tenants.status('beta'), { status: 'active', since: null, reason: null }, 'beta is untouched');
      assert.equal(await tenants.setStatus('gamma', 'active', 'suspended', 'x', 5), false, 'an unknown tenant');
      assert.equal(await tenants.status('gamma'), undefined);
      assert.equal(await tenants.setStatus('alpha', 'suspended', 'active', 'cleared', 6), true);
      assert.deepEqual(await tenants.status('alpha'), { status: 'active', since: 6, reason: 'cleared' });
    });

    isolated(T.authorizationFlow, async () => {
      const before = await tenants.get('beta');
      const after = await tenants.setAuthorizationFlow('alpha', { haipIssuance: true, signInUrl: 'https://alpha.example/in' }, 3);
      assert.equal(after?.haipIssuance, true);
      assert.equal(after?.signInUrl, 'https://alpha.example/in');
      assert.deepEqual(await tenants.get('beta'), before, 'beta is untouched');
      assert.equal(await tenants.setAuthorizationFlow('gamma', { haipIssuance: true }, 3), undefined, 'an unknown tenant');
      await tenants.setAuthorizationFlow('alpha', { haipIssuance: false, signInUrl: null }, 4);
      assert.equal((await tenants.get('alpha'))?.signInUrl, null, 'null clears the hook');
    });

    isolated(T.pops, async () => {
      const store = new SqlAttestationPopReplayStore(db);
      assert.equal(await store.burn('alpha', 'jti-hash', T0 + 300_000, T0), true);
      assert.equal(await store.burn('alpha', 'jti-hash', T0 + 300_000, T0 + 1), false, 'once at alpha');
      assert.equal(await store.burn('beta', 'jti-hash', T0 + 300_000, T0 + 1), true, "alpha's mark is not beta's");
      assert.equal(await store.prune(T0 + 300_000), 2);
      assert.equal(await store.burn('alpha', 'jti-hash', T0 + 600_000, T0 + 300_000), true, 'a pruned mark is gone');
    });

    isolated(T.authorizations, async () => {
      const store = new SqlAuthorizationRequestStore(db);
      // A page moves a request only while its issuer serves the flow: both do here.
      for (const slug of ['alpha', 'beta']) await tenants.setAuthorizationFlow(slug, { haipIssuance: true }, T0);
      const request = (tenant: string, id: string): AuthorizationRequestRecord => ({
        id,
        tenant,
        requestUriHash: `uri-${id}`,
        clientId: `client-${tenant}`,
        redirectUri: 'https://wallet.example/cb',
        state: null,
        codeChallenge: 'c'.repeat(43),
        typeId: 'membership',
        attestationJkt: 'jkt',
        dpopJkt: null,
        offerId: null,
        phase: 'pushed',
        browserHash: null,
        codeHash: null,
        continueHash: null,
        createdAt: T0,
        expiresAt: T0 + 60_000,
      });
      const pop = (jtiHash: string) => ({ jtiHash, expiresAt: T0 + 300_000, now: T0 });
      assert.equal(await store.push(request('alpha', 'azr-a'), pop('pop-1')), true);
      assert.equal(await store.push(request('beta', 'azr-b'), pop('pop-1')), true, "alpha's proof mark is not beta's");
      assert.equal(await store.push(request('alpha', 'azr-c'), pop('pop-1')), false, 'a proof lets one request in at alpha');
      assert.equal(await store.get('alpha', 'azr-c'), undefined, 'and the request it was replayed with is not stored');
      const later = T0 + 600_000;
      assert.equal(
        await store.open('beta', 'uri-azr-a', 'client-alpha', 'browser', T0, later),
        undefined,
        'beta cannot open alpha’s',
      );
      assert.equal(await store.open('alpha', 'uri-azr-a', 'client-beta', 'browser', T0, later), undefined, 'nor another client');
      assert.equal((await store.get('alpha', 'azr-a'))?.phase, 'pushed', 'and neither spent the request_uri');
      await tenants.setAuthorizationFlow('alpha', { haipIssuance: false }, T0);
      assert.equal(
        await store.open('alpha', 'uri-azr-a', 'client-alpha', 'browser-a', T0, later),
        undefined,
        'not while alpha’s flow is off',
      );
      await tenants.setAuthorizationFlow('alpha', { haipIssuance: true }, T0);
      const opened = await store.open('alpha', 'uri-azr-a', 'client-alpha', 'browser-a', T0, later);
      const alpha = await tenants.get('alpha');
      assert.deepEqual(
        [opened?.record.phase, opened?.record.id, opened?.issuer],
        ['opened', 'azr-a', { signInUrl: null, name: alpha?.displayName ?? alpha?.name }],
        "answered with alpha's sign-in hook and shown name",
      );
      assert.equal(await store.open('alpha', 'uri-azr-a', 'client-alpha', 'browser-x', T0, later), undefined, 'opened once');
      assert.equal(await store.get('beta', 'azr-a'), undefined);
      assert.equal(await store.approve('beta', 'azr-a', 'off-x', null, T0), false, 'beta cannot approve alpha’s');
      assert.equal(await store.approve('alpha', 'azr-a', 'off-a', 'continue-hash', T0), true);
      assert.equal((await store.get('alpha', 'azr-a'))?.continueHash, 'continue-hash');
      assert.equal(await store.approve('alpha', 'azr-a', 'off-other', null, T0), false, 'approved once');
      assert.equal(
        await store.grantCode('alpha', 'azr-a', 'approved', 'browser-x', 'code-a', T0, T0 + 60_000),
        undefined,
        'another browser',
      );
      assert.equal(await store.grantCode('beta', 'azr-a', 'approved', 'browser-a', 'code-a', T0, T0 + 60_000), undefined);
      await tenants.setAuthorizationFlow('alpha', { haipIssuance: false }, T0);
      assert.equal(
        await store.grantCode('alpha', 'azr-a', 'approved', 'browser-a', 'code-a', T0, T0 + 60_000),
        undefined,
        'not while alpha’s flow is off',
      );
      await tenants.setAuthorizationFlow('alpha', { haipIssuance: true }, T0);
      const granted = await store.grantCode('alpha', 'azr-a', 'approved', 'browser-a', 'code-a', T0, T0 + 60_000);
      assert.deepEqual([granted?.phase, granted?.codeHash, granted?.offerId], ['code', 'code-a', 'off-a'], 'answered as granted');
      const atBeta = await store.atIssuerByCode('beta', 'code-a');
      assert.equal(atBeta.request, undefined, 'a code is found in its tenant only');
      assert.equal(atBeta.issuer?.status, 'active', "with beta's issuer");
      assert.equal((await store.atIssuerByCode('alpha', 'code-a')).request?.id, 'azr-a');
      assert.deepEqual(await store.atIssuerByCode('gamma', 'code-a'), {}, 'no tenant has the slug');
      assert.equal(await store.decline('alpha', 'azr-a', 'browser-a', T0), false, 'a granted request is not declined');
      // beta's request: opened and declined by its browser, which alpha's calls never move.
      assert.ok(await store.open('beta', 'uri-azr-b', 'client-beta', 'browser-b', T0, later));
      assert.equal(await store.decline('alpha', 'azr-b', 'browser-b', T0), false);
      assert.equal(await store.decline('beta', 'azr-b', 'browser-a', T0), false, 'not by another browser');
      assert.equal(await store.decline('beta', 'azr-b', 'browser-b', T0), true);
      // Redemption spends the code and the offer together, within the tenant.
      const offer = offerRecord('alpha', 'off-azr', { txCode: null, txCodeHash: null, codeHash: 'code-off-azr', refHash: null });
      await offers.create(offer);
      const redemption = {
        offer,
        now: REDEEMED_AT,
        eraseAfter: TOKEN_EXPIRY,
        token: {
          tenant: 'alpha',
          tokenHash: 'tok-azr',
          grantId: offer.id,
          createdAt: REDEEMED_AT,
          expiresAt: TOKEN_EXPIRY,
          dpopJkt: 'k',
        },
      };
      const asBeta = { ...redemption, offer: { id: offer.id, tenant: 'beta' }, token: { ...redemption.token, tenant: 'beta' } };
      assert.equal(await store.redeem('beta', 'azr-a', asBeta, pop('pop-2')), 'spent', 'beta cannot redeem alpha’s code');
      assert.equal((await offers.get('alpha', 'off-azr'))?.redeemedAt, null, 'and the offer stays unredeemed');
      assert.equal(await store.redeem('alpha', 'azr-a', redemption, pop('pop-1')), 'proof_used', 'a proof used at alpha');
      assert.equal((await store.get('alpha', 'azr-a'))?.phase, 'code', 'and the code stays unspent');
      assert.equal(await store.redeem('alpha', 'azr-a', redemption, pop('pop-2')), 'redeemed', 'with a fresh proof');
      assert.equal((await tokens.findUsable('tok-azr', REDEEMED_AT))?.dpopJkt, 'k', 'the token is bound to the DPoP key');
      assert.equal((await store.get('alpha', 'azr-a'))?.phase, 'redeemed');
      assert.equal(await store.redeem('alpha', 'azr-a', redemption, pop('pop-3')), 'spent', 'a code is redeemed once');
      assert.equal(await store.prune(later + 1), 2, 'both requests are swept once ended');
      for (const slug of ['alpha', 'beta']) await tenants.setAuthorizationFlow(slug, { haipIssuance: false }, T0);
    });

    isolated(T.tenantCreate, async () => {
      const wrongOwner = await keys.prepareKey('beta', 'issuer');
      await assert.rejects(tenants.create(tenantRecord('gamma'), [wrongOwner]));
      assert.equal(await tenants.get('gamma'), undefined, 'the tenant row was rolled back');
      assert.equal((await signingKeys.published('beta')).length, 1, 'no key was added to beta');
    });

    isolated(T.signingKeys, async () => {
      const a = await signingKeys.active('alpha', 'issuer');
      const b = await signingKeys.active('beta', 'issuer');
      assert.ok(a && b);
      assert.notEqual(a.kid, b.kid);
      assert.deepEqual(
        (await signingKeys.published('alpha')).map((k) => k.kid),
        [a.kid],
      );
      assert.deepEqual(
        (await signingKeys.published('beta')).map((k) => k.kid),
        [b.kid],
      );
      assert.equal(await signingKeys.active('alpha', 'verifier'), undefined);
      // A second active issuer key for alpha is refused, and beta is untouched by alpha's insert.
      assert.equal(await signingKeys.insert(await keys.prepareKey('alpha', 'issuer')), false);
      assert.equal(await signingKeys.insert(await keys.prepareKey('alpha', 'verifier')), true);
      assert.equal(await signingKeys.active('beta', 'verifier'), undefined);
      assert.equal((await signingKeys.published('beta')).length, 1);
    });

    isolated(T.keyCertificates, async () => {
      const names = async (tenant: string) => {
        const key = await keys.activeKey(tenant, 'issuer');
        assert.ok(key);
        const [leaf] = (await certifier.certify(tenant, 'issuer', key.publicJwk)).chain;
        return uriNames(new X509Certificate(Buffer.from(leaf ?? '', 'base64')));
      };
      assert.deepEqual(await names('alpha'), ['did:web:rail.example.org:t:alpha', 'https://rail.example.org/t/alpha']);
      assert.deepEqual(await names('beta'), ['did:web:rail.example.org:t:beta', 'https://rail.example.org/t/beta']);
      // What the store holds for each tenant's key names that tenant too.
      for (const tenant of ['alpha', 'beta']) {
        const stored = await signingKeys.active(tenant, 'issuer');
        const leaf = new X509Certificate(Buffer.from(stored?.certificate?.chain[0] ?? '', 'base64'));
        assert.ok(uriNames(leaf).every((n) => n.endsWith(`:t:${tenant}`) || n.endsWith(`/t/${tenant}`)));
      }
    });

    isolated(T.cNonces, async () => {
      const nonces = new NonceMinter(Buffer.alloc(32, 9));
      const expires = 2_000_000_000_000;
      const alpha = nonces.mint('alpha', expires);
      const beta = nonces.mint('beta', expires);
      assert.equal(nonces.check('alpha', alpha, expires - 1000), expires);
      assert.equal(nonces.check('beta', beta, expires - 1000), expires);
      assert.equal(nonces.check('beta', alpha, expires - 1000), undefined);
      assert.equal(nonces.check('alpha', beta, expires - 1000), undefined);
    });

    isolated(T.keyStore, async () => {
      const jws = await keys.signJwt('alpha', 'issuer', { typ: 'JWT' }, { sub: 'x' });
      assert.match(jws, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      // Each tenant's key is its own: made for it, found as it, published under it, signing as it.
      const prepared = await keys.prepareKey('beta', 'verifier');
      assert.equal(prepared.tenant, 'beta');
      // A prepared key discarded was never stored: no tenant's keys change.
      const before = [...(await keys.publishedKeys('alpha')), ...(await keys.publishedKeys('beta'))].map((k) => k.kid);
      await keys.discard(prepared);
      assert.deepEqual(
        [...(await keys.publishedKeys('alpha')), ...(await keys.publishedKeys('beta'))].map((k) => k.kid),
        before,
      );
      const alphaIssuer = await keys.activeKey('alpha', 'issuer');
      const betaIssuer = await keys.activeKey('beta', 'issuer');
      assert.ok(alphaIssuer && betaIssuer);
      assert.notEqual(alphaIssuer.kid, betaIssuer.kid);
      assert.deepEqual((await keys.ensureKey('beta', 'issuer')).kid, betaIssuer.kid, 'ensureKey finds beta its own key');
      assert.ok(!(await keys.publishedKeys('alpha')).some((k) => k.kid === betaIssuer.kid));
      assert.ok(!(await keys.publishedKeys('beta')).some((k) => k.kid === alphaIssuer.kid));
      assert.equal((await keys.signer('beta', 'issuer')).kid, betaIssuer.kid);
      assert.equal((await keys.signer('alpha', 'issuer')).kid, alphaIssuer.kid);
      const beta = await signingKeys.active('beta', 'issuer');
      assert.ok(beta);
      // Move beta's sealed key onto a row claiming to be alpha's: the vault refuses to open it.
      await db.deleteFrom('signing_keys').where('tenant', '=', 'alpha').where('purpose', '=', 'verifier').execute();
      await db
        .insertInto('signing_keys')
        .values({
          tenant: 'alpha',
          kid: beta.kid,
          purpose: 'verifier',
          public_jwk: JSON.stringify(beta.publicJwk),
          ...privateKeyColumns(beta.privateKey),
          created_at: 3,
          retired_at: null,
        })
        .execute();
      const fresh = new TenantKeyStore(
        signingKeys,
        new SealedKeyBackend(new AesKeyVault(Buffer.alloc(32, 3))),
        systemClock,
        certifier,
      );
      await assert.rejects(fresh.signJwt('alpha', 'verifier', { typ: 'JWT' }, {}));
    });

    isolated(T.keyRotation, async () => {
      for (const slug of ['rot-a', 'rot-b']) {
        assert.equal(await tenants.create(tenantRecord(slug), [await keys.prepareKey(slug, 'issuer')]), true);
      }
      const a = await signingKeys.active('rot-a', 'issuer');
      const b = await signingKeys.active('rot-b', 'issuer');
      assert.ok(a && b);
      assert.equal(await signingKeys.supersede('rot-b', a.kid, 5), false, 'not rot-b’s key');
      assert.equal(await signingKeys.supersede('rot-a', a.kid, 5), true);
      assert.equal(await signingKeys.active('rot-a', 'issuer'), undefined, 'superseded: no longer signing');
      assert.deepEqual(
        (await signingKeys.published('rot-a')).map((k) => k.kid),
        [a.kid],
        'superseded: still published',
      );
      assert.equal((await signingKeys.active('rot-b', 'issuer'))?.kid, b.kid, 'rot-b untouched');
      assert.equal(await signingKeys.retire('rot-b', a.kid, 6), false, 'not rot-b’s key');
      assert.equal(await signingKeys.retire('rot-a', a.kid, 6), true);
      assert.deepEqual(await signingKeys.published('rot-a'), []);
      const rotated = await keys.rotate('rot-b', 'issuer');
      assert.equal(rotated.previous, b.kid);
      assert.deepEqual((await keys.publishedKeys('rot-b')).map((k) => k.kid).sort(), [b.kid, rotated.current].sort());
      assert.equal((await keys.activeKey('rot-b', 'issuer'))?.kid, rotated.current);
      assert.equal(await keys.activeKey('rot-a', 'issuer'), undefined, 'rot-a untouched by rot-b’s rotation');
      await assert.rejects(keys.rotate('rot-a', 'issuer'), /no issuer key to rotate/);
      assert.equal(await keys.retire('rot-a', b.kid), false, 'rot-b’s superseded key is not rot-a’s to retire');
      assert.equal(await keys.retire('rot-b', b.kid), true);
      assert.deepEqual(
        (await keys.publishedKeys('rot-b')).map((k) => k.kid),
        [rotated.current],
      );
      // Status lists are signed again after a rotation: only the rotated tenant's.
      for (const slug of ['rot-a', 'rot-b']) {
        await db
          .insertInto('status_lists')
          .values({ tenant: slug, seq: 1, size: 16, capacity: 8, allocated: 0, created_at: 1 })
          .execute();
      }
      assert.equal(await ledger.touchLists('rot-b'), 1);
      assert.equal((await ledger.list('rot-b', 1))?.revision, 1);
      assert.equal((await ledger.list('rot-a', 1))?.revision, 0);
    });

    isolated(T.accessTokens, async () => {
      const now = Date.now();
      await insertAccessToken(db, {
        tenant: 'alpha',
        tokenHash: 'hash-a',
        grantId: 'ga',
        createdAt: now,
        expiresAt: now + 60_000,
      });
      await insertAccessToken(db, {
        tenant: 'beta',
        tokenHash: 'hash-b',
        grantId: 'gb',
        createdAt: now,
        expiresAt: now + 60_000,
      });
      assert.equal((await tokens.findUsable('hash-a', now))?.tenant, 'alpha');
      assert.equal((await tokens.findUsable('hash-b', now))?.tenant, 'beta');
      assert.equal((await tokens.findUsable('hash-a', now))?.grantId, 'ga', 'reading twice still finds it');
      assert.equal(await tokens.findUsable('hash-a', now + 60_000), undefined, 'expired');
      // Spending is IssuedCredentialStore.collect's, by tenant and grant: see the collect tests below.
    });

    /** Creates and redeems an offer of `tenant`: its access token is `tok-<id>`, granted for `<id>`. */
    async function redeemed(tenant: string, id: string): Promise<OfferRecord> {
      const offer = offerRecord(tenant, id);
      await offers.create(offer);
      const ok = await tokens.redeem({
        offer,
        now: REDEEMED_AT,
        eraseAfter: TOKEN_EXPIRY,
        token: { tenant, tokenHash: `tok-${id}`, grantId: id, createdAt: REDEEMED_AT, expiresAt: TOKEN_EXPIRY },
      });
      assert.equal(ok, true, `redeeming ${id}`);
      return offer;
    }

    /**
     * A collection of `offerId` with its own token, spending the given (distinct) nonce hashes, each
     * expiring with the token, one holder key per nonce, each drawing from list 1 of 8 entries.
     */
    function collection(tenant: string, offerId: string, nonceHashes: string[], over: Partial<Collection> = {}): Collection {
      const c: Collection = {
        tenant,
        typeId: 'membership',
        offerId,
        tokenHash: `tok-${offerId}`,
        nonces: nonceHashes.map((hash) => ({ hash, expiresAt: TOKEN_EXPIRY })),
        holderThumbprints: nonceHashes.map((n) => `thumb-${n}`),
        lists: [],
        expiresAt: null,
        now: COLLECT_AT,
        randomIndex: picker().randomIndex,
        newCredentialId: () => `crd-${++credentialIds}`,
        ...over,
      };
      return over.lists ? c : { ...c, lists: c.holderThumbprints.map(() => ({ listSeq: 1, size: 8 })) };
    }

    const slotsOf = async (slots: StatusAllocation[]) => slots;

    /** The spent mark of a nonce hash; undefined while it is unspent. */
    const spentNonce = (hash: string) =>
      db.selectFrom('spent_nonces').selectAll().where('nonce_hash', '=', hash).executeTakeFirst();

    /** Every spent mark, of every tenant. */
    const allSpentNonces = () => db.selectFrom('spent_nonces').selectAll().orderBy('nonce_hash').execute();

    /** Everything of a tenant that a collection spends, erases or allocates. */
    async function ledgerState(tenant: string) {
      return {
        lists: await db
          .selectFrom('status_lists')
          .select(['seq', 'size', 'capacity', 'allocated'])
          .where('tenant', '=', tenant)
          .orderBy('seq')
          .execute(),
        credentials: await db
          .selectFrom('issued_credentials')
          .select(['id', 'offer_id', 'list_seq', 'idx', 'revoked_at'])
          .where('tenant', '=', tenant)
          .orderBy('id')
          .execute(),
        spentNonces: await db
          .selectFrom('spent_nonces')
          .select(['nonce_hash', 'expires_at', 'spent_at'])
          .where('tenant', '=', tenant)
          .orderBy('nonce_hash')
          .execute(),
        tokens: await db
          .selectFrom('access_tokens')
          .select(['token_hash', 'spent_at'])
          .where('tenant', '=', tenant)
          .orderBy('token_hash')
          .execute(),
        offers: await db
          .selectFrom('offers')
          .select(['id', 'subject', 'redeemed_at', 'collected_at'])
          .where('tenant', '=', tenant)
          .orderBy('id')
          .execute(),
      };
    }

    isolated(T.types, async () => {
      const alphaType: CredentialTypeRecord = {
        tenant: 'alpha',
        typeId: 'membership',
        name: 'Alpha membership',
        claims: [
          { key: 'name', kind: 'text' },
          { key: 'since', kind: 'date' },
        ],
        formats: ['dc+sd-jwt', 'mso_mdoc'],
        mdoc: {
          doctype: 'org.example.alpha.membership',
          elements: { name: ['org.example.alpha', 'name'], since: ['org.example.alpha', 'since'] },
        },
        createdAt: T0,
      };
      const betaType: CredentialTypeRecord = {
        tenant: 'beta',
        typeId: 'membership',
        name: 'Beta membership',
        claims: [{ key: 'level', kind: 'enum', options: ['gold', 'silver'] }],
        formats: ['dc+sd-jwt'],
        mdoc: null,
        createdAt: T0,
      };
      const betaBadge: CredentialTypeRecord = {
        tenant: 'beta',
        typeId: 'badge',
        name: 'Beta badge',
        claims: [{ key: 'skills', kind: 'array(text)' }],
        formats: ['mso_mdoc'],
        mdoc: { doctype: 'org.example.beta.badge', elements: { skills: ['org.example.beta', 'skills'] } },
        createdAt: T0 + 1,
      };
      assert.equal(await types.create(alphaType), true);
      assert.equal(await types.create(betaType), true, 'the same type id is free in another tenant');
      assert.equal(await types.create(betaBadge), true);
      assert.deepEqual(await types.get('alpha', 'membership'), alphaType);
      assert.deepEqual(await types.get('beta', 'membership'), betaType);
      assert.equal(await types.get('alpha', 'badge'), undefined, "alpha cannot read beta's type");
      assert.deepEqual(await types.list('alpha'), [alphaType]);
      assert.deepEqual(await types.list('beta'), [betaType, betaBadge]);
      assert.equal(
        await types.create({ ...alphaType, name: 'Renamed', claims: [{ key: 'x', kind: 'bool' }] }),
        false,
        'a taken id is refused',
      );
      assert.deepEqual(await types.get('alpha', 'membership'), alphaType, 'and nothing was overwritten');
      assert.deepEqual(await types.get('beta', 'membership'), betaType, "nor beta's type of the same id");
      assert.deepEqual(await types.list('gamma'), []);
      // The one cross-tenant read, on purpose: the public verification catalog lists every type.
      const catalog = await types.catalog();
      assert.deepEqual(
        catalog.filter((t) => ['alpha', 'beta'].includes(t.tenant)).map((t) => [t.tenant, t.typeId]),
        [
          ['alpha', 'membership'],
          ['beta', 'membership'],
          ['beta', 'badge'],
        ],
      );
      // A validity is the type's of its own tenant: setting alpha's leaves beta's same type id alone.
      assert.equal(await types.setValidity('alpha', 'membership', 30, T0, 'operator:ana'), null);
      assert.equal(await types.validity('alpha', 'membership'), 30);
      assert.equal(await types.validity('beta', 'membership'), null, "alpha's validity is not beta's");
      assert.equal(await types.setValidity('beta', 'membership', 7, T0, 'operator:ana'), null);
      assert.equal(await types.setValidity('alpha', 'membership', null, T0 + 1, 'operator:ana'), 30);
      assert.equal(await types.validity('beta', 'membership'), 7, "clearing alpha's leaves beta's");
      assert.deepEqual(await types.validities('alpha'), []);
      assert.deepEqual(
        (await types.validities('beta')).map((v) => [v.tenant, v.typeId, v.validityDays]),
        [['beta', 'membership', 7]],
      );
      // So is a key attestation requirement.
      const strict = { keyStorage: ['iso_18045_high'] };
      assert.equal(await types.setKeyAttestation('alpha', 'membership', strict, T0, 'operator:ana'), null);
      assert.deepEqual(await types.keyAttestation('alpha', 'membership'), strict);
      assert.equal(await types.keyAttestation('beta', 'membership'), null, "alpha's requirement is not beta's");
      assert.deepEqual([...(await types.keyAttestations('beta')).keys()], []);
      assert.equal(await types.setKeyAttestation('beta', 'membership', {}, T0, 'operator:ana'), null);
      assert.deepEqual(await types.setKeyAttestation('alpha', 'membership', null, T0 + 1, 'operator:ana'), strict);
      assert.deepEqual(await types.keyAttestation('beta', 'membership'), {}, "clearing alpha's leaves beta's");
      assert.deepEqual([...(await types.keyAttestations('alpha')).keys()], []);
      assert.deepEqual([...(await types.keyAttestations('beta')).entries()], [['membership', {}]]);
    });

    isolated(T.offers, async () => {
      const a = offerRecord('alpha', 'off-a');
      const b = offerRecord('beta', 'off-b', { refHash: null, txCode: null, txCodeHash: null, subject: { level: 'gold' } });
      await offers.create(a);
      await offers.create(b);
      assert.deepEqual(await offers.get('alpha', 'off-a'), a);
      assert.deepEqual(await offers.get('beta', 'off-b'), b);
      assert.equal(await offers.get('beta', 'off-a'), undefined);
      assert.equal(await offers.get('alpha', 'off-b'), undefined);
      assert.deepEqual(await offers.findByCode('alpha', 'code-off-a'), a);
      assert.deepEqual(await offers.findByCode('beta', 'code-off-b'), b);
      assert.equal(
        await offers.findByCode('beta', 'code-off-a'),
        undefined,
        "beta cannot find alpha's offer by alpha's code hash",
      );
      assert.equal(await offers.findByCode('alpha', 'code-off-b'), undefined);
      assert.deepEqual(await offers.findByRef('alpha', 'ref-off-a'), a);
      assert.equal(await offers.findByRef('beta', 'ref-off-a'), undefined, "nor by alpha's reference hash");
      // The token and credential endpoints' read: the issuer, and its offer only.
      const active = { status: 'active', haipIssuance: false, signInUrl: null };
      assert.deepEqual(await offers.atIssuer('alpha', { codeHash: 'code-off-a' }), { issuer: active, offer: a });
      assert.deepEqual(await offers.atIssuer('alpha', { id: 'off-a' }), { issuer: active, offer: a });
      assert.deepEqual(await offers.atIssuer('beta', { codeHash: 'code-off-a' }), { issuer: active }, "beta's issuer, no offer");
      assert.deepEqual(await offers.atIssuer('beta', { id: 'off-a' }), { issuer: active });
      assert.deepEqual(await offers.atIssuer('gamma', { id: 'off-a' }), {}, 'no tenant has the slug');
      // Ids, code and reference hashes are unique across tenants: beta cannot plant an offer under alpha's.
      await assert.rejects(offers.create(offerRecord('beta', 'off-a')));
      await assert.rejects(offers.create(offerRecord('beta', 'off-shadow', { codeHash: 'code-off-a', refHash: null })));
      await assert.rejects(offers.create(offerRecord('beta', 'off-shadow', { refHash: 'ref-off-a' })));
      assert.equal(await offers.get('beta', 'off-a'), undefined);
      assert.equal(await offers.get('beta', 'off-shadow'), undefined);
      assert.deepEqual(await offers.get('alpha', 'off-a'), a, "and alpha's offer is unchanged");
    });

    isolated(T.txAttempts, async () => {
      assert.equal(await offers.claimTxAttempt('beta', 'off-a', 5), false, "beta cannot claim an attempt on alpha's offer");
      assert.equal((await offers.get('alpha', 'off-a'))?.txAttempts, 0, "and alpha's count is untouched");
      assert.equal(await offers.claimTxAttempt('alpha', 'off-a', 2), true);
      assert.equal(await offers.claimTxAttempt('alpha', 'off-a', 2), true);
      assert.equal(await offers.claimTxAttempt('alpha', 'off-a', 2), false, 'the bound holds');
      assert.equal((await offers.get('alpha', 'off-a'))?.txAttempts, 2);
      assert.equal(await offers.claimTxAttempt('alpha', 'off-b', 5), false, "alpha cannot claim an attempt on beta's offer");
      assert.equal((await offers.get('beta', 'off-b'))?.txAttempts, 0);
      assert.equal(await offers.claimTxAttempt('beta', 'off-b', 5), true);
      assert.equal((await offers.get('beta', 'off-b'))?.txAttempts, 1);
      assert.equal((await offers.get('alpha', 'off-a'))?.txAttempts, 2, "beta's attempt did not count against alpha");
    });

    isolated(T.redeem, async () => {
      const a = await offers.get('alpha', 'off-a');
      const b = await offers.get('beta', 'off-b');
      assert.ok(a && b);
      const redemption = (tenant: string, offer: OfferRecord, suffix: string) => ({
        offer,
        now: REDEEMED_AT,
        eraseAfter: TOKEN_EXPIRY,
        token: { tenant, tokenHash: `tok-${suffix}`, grantId: offer.id, createdAt: REDEEMED_AT, expiresAt: TOKEN_EXPIRY },
      });
      assert.equal(
        await tokens.redeem(redemption('beta', { ...a, tenant: 'beta' }, 'stolen')),
        false,
        "beta cannot redeem alpha's offer",
      );
      assert.equal((await offers.get('alpha', 'off-a'))?.redeemedAt, null, 'which stays redeemable');
      assert.equal(await tokens.findUsable('tok-stolen', REDEEMED_AT), undefined, 'and no token was minted');

      assert.equal(await tokens.redeem(redemption('alpha', a, 'off-a')), true);
      const spent = await offers.get('alpha', 'off-a');
      assert.equal(spent?.redeemedAt, REDEEMED_AT);
      assert.equal(spent?.eraseAfter, TOKEN_EXPIRY);
      assert.equal(spent?.txAttempts, 2, 'redemption leaves the attempt count as it was');
      assert.deepEqual(spent?.subject, a.subject, 'the subject is held until collection');
      assert.deepEqual(await tokens.findUsable('tok-off-a', REDEEMED_AT), {
        tenant: 'alpha',
        tokenHash: 'tok-off-a',
        grantId: 'off-a',
        createdAt: REDEEMED_AT,
        expiresAt: TOKEN_EXPIRY,
        dpopJkt: null,
      });
      assert.equal(await tokens.redeem(redemption('alpha', a, 'again')), false, 'a code is redeemed once');
      assert.equal(await tokens.findUsable('tok-again', REDEEMED_AT), undefined);
      assert.equal(await offers.claimTxAttempt('alpha', 'off-a', 5), false, 'no tx attempts after redemption');
      assert.equal((await offers.get('alpha', 'off-a'))?.txAttempts, 2, 'and the refused claim counted nothing');

      assert.equal((await offers.get('beta', 'off-b'))?.redeemedAt, null, "redeeming alpha's offer left beta's alone");
      assert.equal(await tokens.redeem(redemption('beta', b, 'off-b')), true);
      assert.equal((await tokens.findUsable('tok-off-b', REDEEMED_AT))?.tenant, 'beta');
      assert.equal((await tokens.findUsable('tok-off-b', REDEEMED_AT))?.grantId, 'off-b');
      assert.deepEqual(await allSpentNonces(), [], 'c_nonces are stateless: redeeming records none');
    });

    isolated(T.allocation, async () => {
      await redeemed('alpha', 'alloc-a1');
      await redeemed('beta', 'alloc-b1');
      await redeemed('alpha', 'alloc-a2');

      // Reservations count entries of each tenant's own lists: lists of 8 with room for 2.
      const small = { size: 8, capacity: 2 };
      assert.deepEqual(await ledger.reserveSlots('alpha', 1, small, COLLECT_AT), { listSeq: 1, size: 8, granted: 1 });
      assert.deepEqual(await ledger.reserveSlots('beta', 1, small, COLLECT_AT), { listSeq: 1, size: 8, granted: 1 });
      assert.deepEqual(
        await ledger.reserveSlots('alpha', 5, small, COLLECT_AT),
        { listSeq: 1, size: 8, granted: 1 },
        'no more than the capacity left is granted',
      );
      // List 1 is full: the next reservation opens list 2, of the shape it asks for.
      assert.deepEqual(await ledger.reserveSlots('alpha', 1, { size: 16, capacity: 2 }, COLLECT_AT), {
        listSeq: 2,
        size: 16,
        granted: 1,
      });

      const first = picker([5]);
      const a1 = await ledger.collect(
        collection('alpha', 'alloc-a1', ['n-alloc-a1'], {
          randomIndex: first.randomIndex,
          newCredentialId: () => 'crd-alloc-a1',
        }),
        slotsOf,
      );
      assert.deepEqual(a1, { ok: true, value: [{ credentialId: 'crd-alloc-a1', listSeq: 1, idx: 5 }] });
      assert.deepEqual(first.sizes, [8], 'the index is drawn over the whole list');

      // Beta has lists of its own: seq 1 and index 5 are free for it although alpha holds them.
      const b1 = await ledger.collect(
        collection('beta', 'alloc-b1', ['n-alloc-b1'], {
          randomIndex: picker([5]).randomIndex,
          newCredentialId: () => 'crd-alloc-b1',
        }),
        slotsOf,
      );
      assert.deepEqual(b1, { ok: true, value: [{ credentialId: 'crd-alloc-b1', listSeq: 1, idx: 5 }] });

      // Two holder keys, with two nonces of different expiry, drawing from lists 2 and 1. The first
      // key draws 6 over list 2's 16 entries; the second's first pick in list 1 (5) is taken and
      // drawn again (3), with a new credential id. Both engines draw in this order: SQLite slot by
      // slot, PostgreSQL all slots first and then again only the one whose entry was taken.
      const picks = picker([6, 5, 3]);
      const ids = ['crd-alloc-a2-1', 'crd-skipped', 'crd-alloc-a2-2'];
      const a2 = await ledger.collect(
        collection('alpha', 'alloc-a2', [], {
          nonces: [
            { hash: 'n-alloc-a2', expiresAt: TOKEN_EXPIRY },
            { hash: 'n-alloc-a2-second', expiresAt: TOKEN_EXPIRY + 7 },
          ],
          holderThumbprints: ['thumb-x', 'thumb-y'],
          lists: [
            { listSeq: 2, size: 16 },
            { listSeq: 1, size: 8 },
          ],
          randomIndex: picks.randomIndex,
          newCredentialId: () => ids.shift() ?? 'crd-unexpected',
        }),
        slotsOf,
      );
      assert.deepEqual(a2, {
        ok: true,
        value: [
          { credentialId: 'crd-alloc-a2-1', listSeq: 2, idx: 6 },
          { credentialId: 'crd-alloc-a2-2', listSeq: 1, idx: 3 },
        ],
      });
      assert.deepEqual(picks.sizes, [16, 8, 8], 'each pick is drawn over the size of the list it lands in');

      const alpha = await ledgerState('alpha');
      assert.deepEqual(alpha.lists, [
        { seq: 1, size: 8, capacity: 2, allocated: 2 },
        { seq: 2, size: 16, capacity: 2, allocated: 1 },
      ]);
      assert.deepEqual(alpha.credentials, [
        { id: 'crd-alloc-a1', offer_id: 'alloc-a1', list_seq: 1, idx: 5, revoked_at: null },
        { id: 'crd-alloc-a2-1', offer_id: 'alloc-a2', list_seq: 2, idx: 6, revoked_at: null },
        { id: 'crd-alloc-a2-2', offer_id: 'alloc-a2', list_seq: 1, idx: 3, revoked_at: null },
      ]);
      const beta = await ledgerState('beta');
      assert.deepEqual(beta.lists, [{ seq: 1, size: 8, capacity: 2, allocated: 1 }], "alpha's full list opened nothing for beta");
      assert.deepEqual(beta.credentials, [{ id: 'crd-alloc-b1', offer_id: 'alloc-b1', list_seq: 1, idx: 5, revoked_at: null }]);
      assert.deepEqual(
        alpha.offers.find((o) => o.id === 'alloc-a2'),
        { id: 'alloc-a2', subject: null, redeemed_at: REDEEMED_AT, collected_at: COLLECT_AT },
        'the subject is erased at collection',
      );
      // Every spent nonce is recorded once, under the collecting tenant, with its own expiry.
      assert.deepEqual(alpha.spentNonces, [
        { nonce_hash: 'n-alloc-a1', expires_at: TOKEN_EXPIRY, spent_at: COLLECT_AT },
        { nonce_hash: 'n-alloc-a2', expires_at: TOKEN_EXPIRY, spent_at: COLLECT_AT },
        { nonce_hash: 'n-alloc-a2-second', expires_at: TOKEN_EXPIRY + 7, spent_at: COLLECT_AT },
      ]);
      assert.deepEqual(beta.spentNonces, [{ nonce_hash: 'n-alloc-b1', expires_at: TOKEN_EXPIRY, spent_at: COLLECT_AT }]);
      assert.deepEqual(await spentNonce('n-alloc-a2-second'), {
        nonce_hash: 'n-alloc-a2-second',
        tenant: 'alpha',
        expires_at: TOKEN_EXPIRY + 7,
        spent_at: COLLECT_AT,
      });
      assert.equal(await tokens.findUsable('tok-alloc-a2', COLLECT_AT), undefined, 'the token is spent');

      assert.deepEqual(await ledger.list('alpha', 1), { size: 8, revision: 0 });
      assert.deepEqual(await ledger.list('alpha', 2), { size: 16, revision: 0 });
      assert.deepEqual(await ledger.list('beta', 1), { size: 8, revision: 0 });
      assert.equal(await ledger.list('beta', 2), undefined, "beta cannot read alpha's list 2");
    });

    isolated(T.collectIsolation, async () => {
      await redeemed('alpha', 'iso-a');
      await redeemed('alpha', 'iso-a2');
      await redeemed('beta', 'iso-b');
      // A token of beta's whose grant names alpha's offer: only the offer's tenant stands in the way.
      await insertAccessToken(db, {
        tenant: 'beta',
        tokenHash: 'tok-beta-grant-iso-a',
        grantId: 'iso-a',
        createdAt: REDEEMED_AT,
        expiresAt: TOKEN_EXPIRY,
      });
      const before = { alpha: await ledgerState('alpha'), beta: await ledgerState('beta') };
      const spentBefore = await allSpentNonces();
      let finished = 0;
      const finish = async (slots: StatusAllocation[]) => {
        finished++;
        return slots;
      };
      // 'n-alloc-a1' and 'n-alloc-b1' were spent by alpha and beta in the test before.
      const refusals: [Collection, 'nonce' | 'token'][] = [
        // beta's own offer and a fresh nonce, alpha's token
        [collection('beta', 'iso-b', ['n-iso-b'], { tokenHash: 'tok-iso-a' }), 'token'],
        // beta's own token and a fresh nonce, then a nonce alpha already spent
        [collection('beta', 'iso-b', ['n-iso-b', 'n-alloc-a1']), 'nonce'],
        // beta's own token (granted for beta's offer) and a fresh nonce, alpha's offer
        [collection('beta', 'iso-a', ['n-iso-b'], { tokenHash: 'tok-iso-b' }), 'token'],
        // beta's token granted for alpha's offer: the offer is still not beta's
        [collection('beta', 'iso-a', ['n-iso-b'], { tokenHash: 'tok-beta-grant-iso-a' }), 'token'],
        // everything of alpha's, named as beta
        [collection('beta', 'iso-a', ['n-iso-a']), 'token'],
        [collection('beta', 'iso-a', [], { holderThumbprints: ['thumb-z'] }), 'token'],
        [collection('beta', 'iso-a', ['n-alloc-a1']), 'nonce'],
        // and the other way round
        [collection('alpha', 'iso-a', ['n-iso-a'], { tokenHash: 'tok-iso-b' }), 'token'],
        [collection('alpha', 'iso-b', ['n-iso-a'], { tokenHash: 'tok-iso-b' }), 'token'],
        [collection('alpha', 'iso-b', ['n-iso-a'], { tokenHash: 'tok-iso-a' }), 'token'],
        [collection('alpha', 'iso-a', ['n-iso-a', 'n-alloc-b1']), 'nonce'],
        // the grant: a token collects only the offer it was granted for, even within its tenant
        [collection('alpha', 'iso-a', ['n-iso-a'], { tokenHash: 'tok-iso-a2' }), 'token'],
        [collection('alpha', 'iso-a2', ['n-iso-a'], { tokenHash: 'tok-iso-a' }), 'token'],
        [collection('alpha', 'alloc-a1', ['n-iso-a'], { tokenHash: 'tok-iso-a' }), 'token'],
      ];
      for (const [c, reason] of refusals) {
        assert.deepEqual(await ledger.collect(c, finish), { ok: false, reason }, JSON.stringify(c));
      }
      // SQLite signs last, so a refusal signs nothing there; PostgreSQL signs first and discards it.
      if (!signsBeforeWriting) assert.equal(finished, 0, 'nothing was signed');
      finished = 0;
      assert.deepEqual(await allSpentNonces(), spentBefore, 'no refusal recorded a nonce, nor changed a recorded one');
      assert.deepEqual(await ledgerState('alpha'), before.alpha, 'nothing of alpha was spent, erased or allocated');
      assert.deepEqual(await ledgerState('beta'), before.beta, "and the refusals spent none of beta's own nonces or tokens");
      for (const token of ['tok-iso-a', 'tok-iso-a2', 'tok-iso-b', 'tok-beta-grant-iso-a']) {
        assert.ok(await tokens.findUsable(token, COLLECT_AT), `${token} is still usable`);
      }

      const a = await ledger.collect(collection('alpha', 'iso-a', ['n-iso-a'], { lists: [{ listSeq: 2, size: 16 }] }), finish);
      assert.equal(
        a.ok && a.value.length === 1 && a.value[0]?.listSeq,
        2,
        "alpha's collection lands in the list reserved for it",
      );
      const b = await ledger.collect(collection('beta', 'iso-b', ['n-iso-b'], { randomIndex: picker([7]).randomIndex }), finish);
      assert.deepEqual(b.ok && b.value.map((s) => [s.listSeq, s.idx]), [[1, 7]], "beta's lands in beta's");
      assert.equal(finished, 2);
      assert.equal((await spentNonce('n-iso-a'))?.tenant, 'alpha');
      assert.equal((await spentNonce('n-iso-b'))?.tenant, 'beta');

      // Once spent, a nonce refuses every later collection, of its own tenant or another.
      const betaNow = await ledgerState('beta');
      const alphaNow = await ledgerState('alpha');
      assert.deepEqual(
        await ledger.collect(collection('beta', 'iso-a', ['n-iso-a'], { tokenHash: 'tok-beta-grant-iso-a' }), finish),
        { ok: false, reason: 'nonce' },
      );
      assert.deepEqual(await ledger.collect(collection('alpha', 'iso-a2', ['n-iso-a']), finish), { ok: false, reason: 'nonce' });
      if (!signsBeforeWriting) assert.equal(finished, 2);
      assert.deepEqual(await ledgerState('beta'), betaNow);
      assert.deepEqual(await ledgerState('alpha'), alphaNow);
      assert.ok(await tokens.findUsable('tok-iso-a2', COLLECT_AT), "alpha's other token is still unspent");
    });

    isolated(T.collectAtomic, async () => {
      await redeemed('alpha', 'aon-0');
      await redeemed('alpha', 'aon-1');
      assert.equal((await ledger.collect(collection('alpha', 'aon-0', ['n-aon-0', 'n-aon-used']), slotsOf)).ok, true);
      // A second, unspent token of the collected offer: it spends, then the offer refuses.
      await insertAccessToken(db, {
        tenant: 'alpha',
        tokenHash: 'tok-aon-0-again',
        grantId: 'aon-0',
        createdAt: REDEEMED_AT,
        expiresAt: TOKEN_EXPIRY,
      });
      const before = { alpha: await ledgerState('alpha'), beta: await ledgerState('beta') };
      const spentBefore = await allSpentNonces();
      const unchanged = async (why: string) => {
        assert.deepEqual(await ledgerState('alpha'), before.alpha, why);
        assert.deepEqual(await ledgerState('beta'), before.beta, why);
        assert.deepEqual(await allSpentNonces(), spentBefore, `${why}: no nonce recorded`);
        for (const hash of ['n-aon-1', 'n-aon-fresh', 'n-aon-extra']) {
          assert.equal(await spentNonce(hash), undefined, `${why}: ${hash} unspent`);
        }
        assert.ok(await tokens.findUsable('tok-aon-1', COLLECT_AT), `${why}: token unspent`);
        assert.ok(await tokens.findUsable('tok-aon-0-again', COLLECT_AT), `${why}: the other token unspent`);
        assert.deepEqual(
          (await offers.get('alpha', 'aon-1'))?.subject,
          offerRecord('alpha', 'aon-1').subject,
          `${why}: subject kept`,
        );
        assert.equal((await offers.get('alpha', 'aon-1'))?.collectedAt, null, `${why}: not collected`);
      };

      let finished = 0;
      const counted = async (slots: StatusAllocation[]) => {
        finished++;
        return slots;
      };
      assert.deepEqual(await ledger.collect(collection('alpha', 'aon-1', ['n-aon-1', 'n-aon-fresh', 'n-aon-used']), counted), {
        ok: false,
        reason: 'nonce',
      });
      if (!signsBeforeWriting) assert.equal(finished, 0);
      await unchanged('a third nonce already spent');
      assert.deepEqual(await ledger.collect(collection('alpha', 'aon-1', ['n-aon-0']), counted), { ok: false, reason: 'nonce' });
      await unchanged('the only nonce already spent');

      // The nonces are recorded before the token is tried: a refused token takes them back.
      assert.deepEqual(await ledger.collect(collection('alpha', 'aon-0', ['n-aon-1', 'n-aon-fresh']), counted), {
        ok: false,
        reason: 'token',
      });
      await unchanged('a spent token');
      assert.deepEqual(await ledger.collect(collection('alpha', 'aon-1', ['n-aon-1'], { now: TOKEN_EXPIRY }), counted), {
        ok: false,
        reason: 'token',
      });
      await unchanged('an expired token');
      // The token spends, then the offer (already collected) refuses: token and nonces come back.
      assert.deepEqual(
        await ledger.collect(collection('alpha', 'aon-0', ['n-aon-1', 'n-aon-fresh'], { tokenHash: 'tok-aon-0-again' }), counted),
        { ok: false, reason: 'token' },
      );
      await unchanged('an offer already collected');
      if (!signsBeforeWriting) assert.equal(finished, 0);

      await assert.rejects(
        ledger.collect(collection('alpha', 'aon-1', ['n-aon-1', 'n-aon-fresh']), async () => {
          throw new Error('signing failed');
        }),
        /signing failed/,
      );
      await unchanged('finish threw');

      // A list with room but no free index to be found: the allocation fails and takes the rest with it.
      await assert.rejects(
        ledger.collect(collection('alpha', 'aon-1', ['n-aon-1', 'n-aon-extra'], { randomIndex: () => 1 }), slotsOf),
        /no free status index/,
      );
      await unchanged('allocation failed');

      const ok = await ledger.collect(collection('alpha', 'aon-1', ['n-aon-1']), slotsOf);
      assert.equal(ok.ok, true, 'the untouched artifacts still collect once');
      assert.deepEqual(await spentNonce('n-aon-1'), {
        nonce_hash: 'n-aon-1',
        tenant: 'alpha',
        expires_at: TOKEN_EXPIRY,
        spent_at: COLLECT_AT,
      });
      assert.equal(await spentNonce('n-aon-fresh'), undefined, 'nonces of refused collections stay unspent');
      assert.equal(await spentNonce('n-aon-extra'), undefined);
      assert.equal(await tokens.findUsable('tok-aon-1', COLLECT_AT), undefined);
      assert.ok(await tokens.findUsable('tok-aon-0-again', COLLECT_AT));
      assert.equal((await offers.get('alpha', 'aon-1'))?.collectedAt, COLLECT_AT);
      assert.equal((await offers.get('alpha', 'aon-1'))?.subject, null);
      assert.deepEqual(await ledgerState('beta'), before.beta);
      const credentials = (await ledgerState('alpha')).credentials;
      const refs = credentials.map((c) => `${c.list_seq}/${c.idx}`);
      assert.equal(new Set(refs).size, refs.length, 'no status index was handed out twice');
    });

    isolated(T.revocation, async () => {
      const R1 = T0 + 5_000;
      const R2 = T0 + 6_000;
      const revokedAt = async (id: string) =>
        (await db.selectFrom('issued_credentials').select('revoked_at').where('id', '=', id).executeTakeFirstOrThrow())
          .revoked_at;
      const betaIso = await db
        .selectFrom('issued_credentials')
        .select('id')
        .where('offer_id', '=', 'iso-b')
        .executeTakeFirstOrThrow();

      // Selectors that name only alpha's credentials revoke nothing as beta.
      assert.deepEqual(await ledger.revoke('beta', { by: 'credential', id: 'crd-alloc-a1' }, R1), {
        matched: [],
        newlyRevoked: [],
      });
      assert.deepEqual(await ledger.revoke('beta', { by: 'offer', offerId: 'alloc-a2' }, R1), { matched: [], newlyRevoked: [] });
      assert.deepEqual(await ledger.revoke('beta', { by: 'status', listSeq: 1, idx: 3 }, R1), { matched: [], newlyRevoked: [] });
      assert.deepEqual(await ledger.revoke('beta', { by: 'status', listSeq: 2, idx: 6 }, R1), { matched: [], newlyRevoked: [] });
      for (const id of ['crd-alloc-a1', 'crd-alloc-a2-1', 'crd-alloc-a2-2']) assert.equal(await revokedAt(id), null, id);
      assert.deepEqual(await ledger.revokedIndices('alpha', 1), []);
      assert.deepEqual(await ledger.revokedIndices('alpha', 2), []);

      // Coordinates both tenants hold resolve to the caller's own credential.
      assert.deepEqual(await ledger.revoke('beta', { by: 'status', listSeq: 1, idx: 5 }, R1), {
        matched: [
          {
            id: 'crd-alloc-b1',
            tenant: 'beta',
            typeId: 'membership',
            offerId: 'alloc-b1',
            listSeq: 1,
            idx: 5,
            holderThumbprint: 'thumb-n-alloc-b1',
            issuedAt: COLLECT_AT,
            revokedAt: R1,
            expiresAt: null,
          } satisfies IssuedCredentialRecord,
        ],
        newlyRevoked: ['crd-alloc-b1'],
      });
      assert.deepEqual(await ledger.revokedIndices('beta', 1), [5]);
      assert.deepEqual(await ledger.revokedIndices('alpha', 1), [], "beta's index 5 is not alpha's index 5");
      assert.equal(await revokedAt('crd-alloc-a1'), null);

      // Alpha by offer: every credential of that offer, across lists.
      const byOffer = await ledger.revoke('alpha', { by: 'offer', offerId: 'alloc-a2' }, R1);
      assert.deepEqual(byOffer.newlyRevoked, ['crd-alloc-a2-1', 'crd-alloc-a2-2']);
      assert.deepEqual(
        byOffer.matched.map((r) => [r.id, r.tenant, r.listSeq, r.idx, r.holderThumbprint, r.revokedAt]),
        [
          ['crd-alloc-a2-1', 'alpha', 2, 6, 'thumb-x', R1],
          ['crd-alloc-a2-2', 'alpha', 1, 3, 'thumb-y', R1],
        ],
      );
      // By credential; a second revocation answers the record but keeps the first time, and says
      // it revoked nothing now.
      const first = await ledger.revoke('alpha', { by: 'credential', id: 'crd-alloc-a1' }, R1);
      assert.deepEqual(
        first.matched.map((r) => [r.id, r.revokedAt]),
        [['crd-alloc-a1', R1]],
      );
      assert.deepEqual(first.newlyRevoked, ['crd-alloc-a1']);
      const again = await ledger.revoke('alpha', { by: 'status', listSeq: 1, idx: 5 }, R2);
      assert.deepEqual(
        again.matched.map((r) => [r.id, r.revokedAt]),
        [['crd-alloc-a1', R1]],
      );
      assert.deepEqual(again.newlyRevoked, []);

      // Alpha cannot reach beta's remaining credential by any selector either.
      assert.deepEqual(await ledger.revoke('alpha', { by: 'credential', id: betaIso.id }, R2), { matched: [], newlyRevoked: [] });
      assert.deepEqual(await ledger.revoke('alpha', { by: 'offer', offerId: 'iso-b' }, R2), { matched: [], newlyRevoked: [] });
      assert.deepEqual(await ledger.revoke('alpha', { by: 'status', listSeq: 1, idx: 7 }, R2), { matched: [], newlyRevoked: [] });
      assert.equal(await revokedAt(betaIso.id), null);

      const sorted = async (tenant: string, seq: number) => (await ledger.revokedIndices(tenant, seq)).sort((x, y) => x - y);
      assert.deepEqual(await sorted('alpha', 1), [3, 5]);
      assert.deepEqual(await sorted('alpha', 2), [6]);
      assert.deepEqual(await sorted('beta', 1), [5]);
      assert.deepEqual(await sorted('beta', 2), []);
      // Each revocation that set a bit raised its list's revision once; repeats and refusals did not.
      assert.deepEqual(await ledger.list('alpha', 1), { size: 8, revision: 2 });
      assert.deepEqual(await ledger.list('alpha', 2), { size: 16, revision: 1 });
      assert.deepEqual(await ledger.list('beta', 1), { size: 8, revision: 1 });
      assert.equal(await ledger.list('beta', 2), undefined);
      assert.equal(await ledger.list('alpha', 99), undefined);
    });

    isolated(T.sweeps, async () => {
      const S = 1_000_000; // long before T0: no other row of this suite is due
      const elsewhere = async () => ({
        offers: await db.selectFrom('offers').select(['id', 'subject']).where('id', 'not like', 'sw-%').orderBy('id').execute(),
        spentNonces: await db
          .selectFrom('spent_nonces')
          .selectAll()
          .where('nonce_hash', 'not like', 'sw-%')
          .orderBy('nonce_hash')
          .execute(),
        tokens: await db
          .selectFrom('access_tokens')
          .select(['token_hash', 'spent_at'])
          .where('token_hash', 'not like', 'sw-%')
          .orderBy('token_hash')
          .execute(),
      });
      const untouched = await elsewhere();
      assert.ok(untouched.spentNonces.length > 0, 'the suite has spent nonces the sweep must keep');
      const due = [
        ['past', S - 1],
        ['edge', S],
        ['future', S + 1],
      ] as const;
      for (const tenant of ['alpha', 'beta']) {
        for (const [when, at] of due) {
          await offers.create(
            offerRecord(tenant, `sw-${tenant}-${when}`, { createdAt: S - 10, expiresAt: S + 1_000, eraseAfter: at }),
          );
          await insertAccessToken(db, {
            tenant,
            tokenHash: `sw-t-${tenant}-${when}`,
            grantId: 'g',
            createdAt: S - 10,
            expiresAt: at,
          });
        }
        // Spent marks exist only once a collection spends a nonce: one collection spends three,
        // expiring before, at and after the sweep.
        const offer = offerRecord(tenant, `sw-${tenant}-collect`, {
          createdAt: S - 10,
          expiresAt: S + 1_000,
          eraseAfter: S + 1_000,
        });
        await offers.create(offer);
        const token = { tenant, tokenHash: `sw-k-${tenant}`, grantId: offer.id, createdAt: S - 8, expiresAt: S + 1_000 };
        assert.equal(await tokens.redeem({ offer, now: S - 8, eraseAfter: S + 1_000, token }), true);
        const spent = await ledger.collect(
          collection(tenant, offer.id, [], {
            tokenHash: token.tokenHash,
            nonces: due.map(([when, at]) => ({ hash: `sw-n-${tenant}-${when}`, expiresAt: at })),
            holderThumbprints: ['thumb-sw'],
            now: S - 5,
          }),
          slotsOf,
        );
        assert.equal(spent.ok, true, `${tenant} spends its sweep nonces`);
      }

      const erased = await offers.eraseDue(S, 100);
      assert.equal(erased.length, 4, 'past and now, of both tenants');
      assert.deepEqual([...new Set(erased.map((o) => o.tenant))].sort(), ['alpha', 'beta']);
      await ledger.pruneSpentNonces(S);
      await tokens.prune(S);

      for (const tenant of ['alpha', 'beta']) {
        for (const [when, at] of due) {
          const offer = await offers.get(tenant, `sw-${tenant}-${when}`);
          const expected = offerRecord(tenant, `sw-${tenant}-${when}`, {
            createdAt: S - 10,
            expiresAt: S + 1_000,
            eraseAfter: at,
          });
          assert.deepEqual(offer, when === 'future' ? expected : { ...expected, subject: null }, `${tenant} ${when}`);
        }
      }
      const spentLeft = await db
        .selectFrom('spent_nonces')
        .selectAll()
        .where('nonce_hash', 'like', 'sw-n-%')
        .orderBy('nonce_hash')
        .execute();
      assert.deepEqual(spentLeft, [
        { nonce_hash: 'sw-n-alpha-future', tenant: 'alpha', expires_at: S + 1, spent_at: S - 5 },
        { nonce_hash: 'sw-n-beta-future', tenant: 'beta', expires_at: S + 1, spent_at: S - 5 },
      ]);
      const tokensLeft = await db
        .selectFrom('access_tokens')
        .select('token_hash')
        .where('token_hash', 'like', 'sw-t-%')
        .orderBy('token_hash')
        .execute();
      assert.deepEqual(
        tokensLeft.map((r) => r.token_hash),
        ['sw-t-alpha-future', 'sw-t-beta-future'],
      );
      const collectTokens = await db
        .selectFrom('access_tokens')
        .select(['token_hash', 'spent_at'])
        .where('token_hash', 'like', 'sw-k-%')
        .orderBy('token_hash')
        .execute();
      assert.deepEqual(
        collectTokens,
        [
          { token_hash: 'sw-k-alpha', spent_at: S - 5 },
          { token_hash: 'sw-k-beta', spent_at: S - 5 },
        ],
        'a spent token not yet expired is kept',
      );
      assert.deepEqual(await elsewhere(), untouched, 'rows not yet due are left alone');
    });

    isolated(T.members, async () => {
      await membership.setEnrolmentTypes('alpha', ['pass', 'card'], T0);
      await membership.setEnrolmentTypes('beta', ['ticket'], T0);
      await membership.setEnrolmentTypes('alpha', ['pass'], T0 + 1);
      assert.deepEqual(await membership.enrolmentTypes('alpha'), ['pass']);
      assert.deepEqual(await membership.enrolmentTypes('beta'), ['ticket'], 'alpha’s replacement left beta’s set alone');

      assert.equal(await membership.enrol(memberRecord('alpha', { tier: 'gold' })), true);
      assert.equal(await membership.enrol(memberRecord('alpha')), false, 'once per tenant');
      assert.equal(await membership.getMember('beta', ACCOUNT), undefined);
      assert.equal(await membership.updateMember('beta', ACCOUNT, { tier: 'x' }, T0 + 2), false, 'no beta member to change');
      assert.equal(await membership.enrol(memberRecord('beta')), true, 'the same account may join beta');
      assert.equal(await membership.updateMember('alpha', ACCOUNT, { tier: 'silver' }, T0 + 2), true);
      assert.equal((await membership.getMember('alpha', ACCOUNT))?.tier, 'silver');
      assert.equal((await membership.getMember('beta', ACCOUNT))?.tier, 'member');
      assert.deepEqual(
        (await membership.membershipsOf(ACCOUNT)).map((m) => m.tenant),
        ['alpha', 'beta'],
      );

      const entry = (tenant: string, key: string, delta: number) => ({
        id: `coin-${tenant}-${key}-${delta}`,
        tenant,
        accountId: ACCOUNT,
        idempotencyKey: key,
        delta,
        reason: 'r',
        createdAt: T0 + 3,
      });
      assert.equal((await membership.applyCoins(entry('alpha', 'k1', 10))).kind, 'applied');
      // The same key in beta is beta's own entry, and moves beta's balance only.
      assert.equal((await membership.applyCoins(entry('beta', 'k1', 3))).kind, 'applied');
      assert.equal((await membership.applyCoins(entry('alpha', 'k1', 99))).kind, 'replayed');
      assert.equal(
        (await membership.applyCoins(entry('beta', 'k2', -4))).kind,
        'insufficient',
        'alpha’s coins do not pay for beta',
      );
      assert.equal((await membership.getMember('alpha', ACCOUNT))?.balance, 10);
      assert.equal((await membership.getMember('beta', ACCOUNT))?.balance, 3);
      const k2 = await db.selectFrom('coin_entries').select('id').where('idempotency_key', '=', 'k2').execute();
      assert.equal(k2.length, 0, 'a refused debit leaves no entry');
      assert.equal((await membership.applyCoins(entry('alpha', 'k3', 5))).kind, 'applied');
      assert.deepEqual(
        (await membership.coinLedger('alpha', ACCOUNT, 10)).map((e) => [e.tenant, e.delta, e.balanceAfter]),
        [
          ['alpha', 10, 10],
          ['alpha', 5, 15],
        ],
        'in the order applied, though made in the same millisecond',
      );
      assert.deepEqual(
        (await membership.coinLedger('beta', ACCOUNT, 10)).map((e) => [e.tenant, e.delta]),
        [['beta', 3]],
      );
    });

    isolated(T.proposals, async () => {
      await membership.createProposal(proposalRecord('alpha', 'p-alpha'));
      await membership.createProposal(proposalRecord('beta', 'p-beta', { state: 'draft', openedAt: null }));
      assert.equal(await membership.getProposal('beta', 'p-alpha'), undefined);
      assert.equal((await membership.getProposal('alpha', 'p-alpha'))?.tenant, 'alpha');
      assert.equal((await membership.findProposal('p-beta'))?.tenant, 'beta');
      assert.equal(await membership.moveProposal('alpha', 'p-beta', 'draft', 'open', T0), false, 'alpha cannot open beta’s');
      assert.equal((await membership.getProposal('beta', 'p-beta'))?.state, 'draft');
      assert.deepEqual(
        (await membership.openProposals('alpha', T0 + 1)).map((p) => p.id),
        ['p-alpha'],
      );
      assert.deepEqual(await membership.openProposals('beta', T0 + 1), []);
      const vote = { proposalId: 'p-alpha', accountId: ACCOUNT, option: 'yes', assisted: false, castAt: T0 + 1 };
      assert.equal(await membership.castVote({ ...vote, tenant: 'alpha' }), true);
      assert.equal(await membership.castVote({ ...vote, tenant: 'alpha', option: 'no' }), false, 'one vote');
      // Named under beta, alpha's proposal takes no vote, and beta's draft takes none either: nothing is written.
      const other = 'other-account-0123456789-abcdefghijklmnopq';
      await assert.rejects(membership.castVote({ ...vote, accountId: other, tenant: 'beta' }));
      await assert.rejects(membership.castVote({ ...vote, accountId: other, tenant: 'beta', proposalId: 'p-beta' }));
      assert.equal((await db.selectFrom('votes').select('account_id').where('account_id', '=', other).execute()).length, 0);
      assert.deepEqual(await membership.votedOn('alpha', ACCOUNT, ['p-alpha', 'p-beta']), ['p-alpha']);
      assert.deepEqual(await membership.votedOn('beta', ACCOUNT, ['p-alpha', 'p-beta']), []);
      assert.deepEqual(await membership.tally('alpha', 'p-alpha'), [{ option: 'yes', assisted: false, votes: 1 }]);
      assert.deepEqual(await membership.tally('beta', 'p-alpha'), []);
      assert.equal((await membership.getProposal('alpha', 'p-alpha'))?.votesCast, 1);
    });

    isolated(T.withdraw, async () => {
      await offers.create(offerRecord('alpha', 'off-w-a', { codeHash: 'code-w-a', refHash: null }));
      assert.equal(await offers.withdraw('beta', 'off-w-a', T0 + 5), false, "beta cannot end alpha's offer");
      assert.equal((await offers.get('alpha', 'off-w-a'))?.expiresAt, T0 + 600_000);
      assert.equal(await offers.withdraw('alpha', 'off-w-a', T0 + 5), true);
      const ended = await offers.get('alpha', 'off-w-a');
      assert.equal(ended?.expiresAt, T0 + 5);
      assert.equal(ended?.eraseAfter, T0 + 5);
    });

    isolated(T.items, async () => {
      const items = new SqlWalletItemStore(db);
      const holder = 'wallet-holder-0123456789-abcdefghijklmnopqr';
      const stranger = 'wallet-strgr-0123456789-abcdefghijklmnopqr';
      const item = (tenant: string, id: string, over: Partial<WalletItemRecord> = {}): WalletItemRecord => ({
        id,
        tenant,
        accountId: holder,
        kind: 'offer',
        ref: `ref-${id}`,
        title: `${tenant} offer`,
        state: 'pending',
        demo: false,
        createdAt: T0,
        updatedAt: T0,
        expiresAt: T0 + 600_000,
        ...over,
      });
      await items.add(item('alpha', 'itm-a1'));
      await items.add(item('alpha', 'itm-a2', { createdAt: T0 + 1 }));
      await items.add(item('beta', 'itm-b1'));
      await items.add(item('beta', 'itm-c1', { kind: 'channel-request' as WalletItemRecord['kind'], ref: 'chan' }));
      // Not yet a member anywhere: only the channel request is visible.
      assert.deepEqual(
        (await items.list(holder, { limit: 10 })).map((i) => i.id),
        ['itm-c1'],
      );
      assert.equal(await items.get(holder, 'itm-a1'), undefined);
      await membership.enrol(memberRecord('alpha', { accountId: holder }));
      const listed = await items.list(holder, { limit: 10 });
      assert.deepEqual(
        listed.map((i) => i.id),
        ['itm-a2', 'itm-c1', 'itm-a1'],
      );
      assert.equal(listed[0]?.tenantName, 'ALPHA');
      assert.deepEqual(
        (await items.list(holder, { limit: 10, after: [T0, 'itm-c1'] })).map((i) => i.id),
        ['itm-a1'],
        'the cursor continues after the last item of the page',
      );
      assert.equal(await items.get(holder, 'itm-b1'), undefined, 'beta’s offer waits until the holder joins beta');
      assert.deepEqual(await items.list(stranger, { limit: 10 }), [], 'another account sees nothing');
      assert.equal(await items.get(stranger, 'itm-a1'), undefined);
      assert.equal(await items.hold(holder, 'itm-b1'), true, 'an item is held whether or not it is visible yet');
      assert.equal(await items.hold(stranger, 'itm-a1'), false, 'another account holds nothing of it');
      await assert.rejects(items.add(item('alpha', 'itm-dup', { ref: 'ref-itm-a1' })), 'one item per record');
      assert.equal(await items.decide('itm-a1', 'accepted', T0 + 4), true);
      assert.equal(await items.decide('itm-a1', 'declined', T0 + 5), false, 'decided once');
      assert.equal(await items.decide('itm-a2', 'accepted', T0 + 600_001), false, 'an expired item is not decided');
      assert.equal((await items.get(holder, 'itm-a1'))?.state, 'accepted');
      assert.equal((await items.get(holder, 'itm-a2'))?.state, 'pending');
      // An erased membership hides the tenant's offers again.
      await membership.updateMember('alpha', holder, { status: 'erased' }, T0 + 6);
      assert.deepEqual(
        (await items.list(holder, { limit: 10 })).map((i) => i.id),
        ['itm-c1'],
      );
    });

    isolated(T.channels, async () => {
      const channels = new SqlChannelStore(db);
      const holder = 'channel-holder-0123456789-abcdefghijklmnop';
      await db
        .insertInto('channels')
        .values({
          tenant: 'alpha',
          account_id: holder,
          state: 'active',
          elements: '["email"]',
          requested_by: 'tenant',
          created_at: T0,
          updated_at: T0,
        })
        .execute();
      assert.deepEqual(await channels.get('alpha', holder), {
        tenant: 'alpha',
        accountId: holder,
        state: 'active',
        elements: ['email'],
        requestedBy: 'tenant',
        createdAt: T0,
        updatedAt: T0,
      });
      assert.equal(await channels.get('beta', holder), undefined, 'beta has no channel with alpha’s holder');
      assert.equal(await channels.get('alpha', ACCOUNT), undefined);
      const ask = (tenant: string, over: Partial<ChannelRecord> = {}): ChannelRecord => ({
        tenant,
        accountId: holder,
        state: 'requested',
        elements: ['title'],
        requestedBy: 'tenant',
        createdAt: T0 + 1,
        updatedAt: T0 + 1,
        ...over,
      });
      assert.equal(await channels.request(ask('alpha')), false, 'alpha’s active channel is not asked again');
      assert.equal(await channels.request(ask('beta')), true, 'beta asks for its own');
      assert.equal((await channels.get('alpha', holder))?.state, 'active', 'and alpha’s is untouched');
      assert.equal(await channels.move('beta', holder, ['active'], 'revoked', T0 + 2), false, 'beta’s is only requested');
      assert.equal(await channels.move('alpha', holder, ['active'], 'revoked', T0 + 2), true);
      assert.equal((await channels.get('beta', holder))?.state, 'requested');
      assert.equal(await channels.request(ask('alpha', { elements: ['amount'] })), true, 'a revoked channel is asked again');
      assert.deepEqual((await channels.get('alpha', holder))?.elements, ['amount']);
      assert.deepEqual(
        (await channels.list({ tenant: 'alpha' }, { limit: 10 })).map((c) => c.tenant),
        ['alpha'],
      );
      assert.deepEqual(
        (await channels.list({ tenant: 'beta', state: 'requested' }, { limit: 10 })).map((c) => c.tenant),
        ['beta'],
      );
      assert.deepEqual(await channels.list({ tenant: 'beta', state: 'active' }, { limit: 10 }), []);
      assert.deepEqual(
        (await channels.list({}, { limit: 10, after: ['alpha', holder] })).map((c) => c.tenant),
        ['beta'],
      );
    });

    isolated(T.shares, async () => {
      const channels = new SqlChannelStore(db);
      const holder = 'sharing-holder-0123456789-abcdefghijklmnop';
      const other = 'sharing-other--0123456789-abcdefghijklmnop';
      const entry = (tenant: string, elements: string[], id: string): ShareLogEntry => ({
        id,
        accountId: holder,
        itemId: 'itm-s1',
        tenant,
        elements,
        at: T0,
      });
      await channels.setShares(
        holder,
        'itm-s1',
        [
          { itemId: 'itm-s1', tenant: 'alpha', elements: ['amount', 'title'] },
          { itemId: 'itm-s1', tenant: 'beta', elements: ['title'] },
        ],
        [entry('alpha', ['amount', 'title'], 'shl-1'), entry('beta', ['title'], 'shl-2')],
      );
      assert.deepEqual(
        (await channels.sharedWith('alpha', holder, 10)).map((s) => s.elements),
        [['amount', 'title']],
      );
      assert.deepEqual(
        (await channels.sharedWith('beta', holder, 10)).map((s) => s.elements),
        [['title']],
      );
      assert.deepEqual(await channels.sharedWith('alpha', other, 10), [], 'another account shares nothing');
      // Another account cannot overwrite this item's settings.
      await channels.setShares(other, 'itm-s1', [], []);
      assert.equal((await channels.sharesOf('itm-s1')).length, 2);
      await channels.setShares(
        holder,
        'itm-s1',
        [{ itemId: 'itm-s1', tenant: 'beta', elements: [] }],
        [entry('alpha', [], 'shl-3')],
      );
      assert.deepEqual(await channels.sharesOf('itm-s1'), [], 'empty elements keep no row');
      assert.equal((await channels.logOf(holder, 'itm-s1', 10)).length, 3);
      assert.deepEqual(await channels.logOf(other, 'itm-s1', 10), [], 'the log is the account’s own');
    });

    isolated(T.products, async () => {
      const store = new SqlDepositStore(db);
      const product = (tenant: string, id: string): ProductRecord => ({
        id,
        tenant,
        kind: 'bill',
        name: `${tenant} bill`,
        requireChannel: false,
        approvedAt: null,
        createdAt: T0,
        updatedAt: T0,
      });
      assert.equal(await store.addProduct(product('alpha', 'prd-a')), true);
      assert.equal(await store.addProduct(product('beta', 'prd-b')), true, 'each tenant has its own bill product');
      assert.equal(await store.addProduct(product('alpha', 'prd-a2')), false, 'one per tenant and kind');
      assert.equal((await store.productFor('alpha', 'bill'))?.id, 'prd-a');
      assert.equal((await store.productFor('beta', 'bill'))?.id, 'prd-b');
      assert.equal(await store.productFor('alpha', 'ticket'), undefined);
      assert.deepEqual(
        (await store.products('alpha', { limit: 10 })).map((p) => p.id),
        ['prd-a'],
      );
      assert.deepEqual(
        (await store.products(undefined, { limit: 10 })).map((p) => p.id),
        ['prd-b', 'prd-a'],
      );
      assert.deepEqual(
        (await store.products(undefined, { limit: 10, after: [T0, 'prd-b'] })).map((p) => p.id),
        ['prd-a'],
      );
      assert.equal(await store.setRequireChannel('beta', 'prd-a', true, T0 + 1), false, 'beta cannot change alpha’s');
      assert.equal((await store.product('prd-a'))?.requireChannel, false);
      assert.equal(await store.setRequireChannel('alpha', 'prd-a', true, T0 + 1), true);
      assert.equal((await store.product('prd-a'))?.requireChannel, true);
      assert.equal(await store.approve('prd-a', T0 + 2), true);
      assert.equal(await store.approve('prd-a', T0 + 3), false, 'approved once');
      assert.equal((await store.product('prd-a'))?.approvedAt, T0 + 2);
      assert.equal((await store.product('prd-b'))?.approvedAt, null);
    });

    isolated(T.deposits, async () => {
      const store = new SqlDepositStore(db);
      const deposit = (tenant: string, over: Partial<DepositRecord> = {}): DepositRecord => ({
        tenant,
        depositId: 'dep-1',
        accountId: ACCOUNT,
        productId: `prd-${tenant}`,
        itemId: `itm-dep-${tenant}`,
        body: `{"tenant":"${tenant}"}`,
        bodyHash: `hash-${tenant}`,
        createdAt: T0,
        ...over,
      });
      assert.equal(await store.addDeposit(deposit('alpha')), true);
      assert.equal(await store.addDeposit(deposit('alpha', { bodyHash: 'other' })), false, 'one per tenant and id');
      assert.equal(await store.deposit('beta', 'dep-1'), undefined, 'beta reads nothing under alpha’s id');
      assert.equal(await store.addDeposit(deposit('beta')), true, 'and may use the same id');
      assert.equal((await store.deposit('alpha', 'dep-1'))?.bodyHash, 'hash-alpha');
      assert.equal((await store.deposit('beta', 'dep-1'))?.bodyHash, 'hash-beta');
    });

    isolated(T.depositChain, async () => {
      const store = new SqlDepositStore(db);
      const add = (tenant: string, depositId: string) =>
        store.addDeposit({
          tenant,
          depositId,
          accountId: ACCOUNT,
          productId: `prd-${tenant}`,
          itemId: `itm-${tenant}-${depositId}`,
          body: '{}',
          bodyHash: 'h',
          createdAt: T0,
        });
      const alphaBefore = (await store.chainHead('alpha'))?.seq ?? 0;
      const betaBefore = await store.chainHead('beta');
      assert.equal(await add('alpha', 'chain-a1'), true);
      assert.equal(await add('alpha', 'chain-a2'), true);
      assert.equal(await add('alpha', 'chain-a2'), false, 'a taken id leaves the chain as it was');
      assert.equal((await store.chainHead('alpha'))?.seq, alphaBefore + 2);
      assert.deepEqual(await store.chainHead('beta'), betaBefore, 'beta’s chain did not move');
      const alphaRun = await store.chain('alpha', alphaBefore, 10);
      assert.deepEqual(
        alphaRun.map((d) => d.depositId),
        ['chain-a1', 'chain-a2'],
      );
      assert.equal(alphaRun[1]?.prevHash, alphaRun[0]?.chainHash);
      assert.ok((await store.chain('beta', 0, 100)).every((d) => d.tenant === 'beta'));
      assert.ok((await store.deposits('beta', 100)).every((d) => d.tenant === 'beta'));
      assert.deepEqual(
        (await store.deposits('alpha', 2)).map((d) => d.depositId),
        ['chain-a2', 'chain-a1'],
      );
    });

    isolated(T.directory, async () => {
      const store = new SqlDirectoryStore(db);
      const inAlpha = 'dirAlphaAccount'.padEnd(43, 'A');
      const inBeta = 'dirBetaAccount'.padEnd(43, 'B');
      // Beta listings that carry alpha's entry and sort before it: outside a scope of alpha they
      // must neither be answered nor take a place in a limit or page.
      const crowd = [0, 1, 2].map((i) => `dirCrowd${i}`.padEnd(43, 'C'));
      // Listed in alpha while a member of beta only: not an active member of its listing's community.
      const stray = 'dirStrayAccount'.padEnd(43, 'S');
      assert.equal(await membership.enrol(memberRecord('alpha', { accountId: inAlpha })), true);
      assert.equal(await membership.enrol(memberRecord('beta', { accountId: inBeta })), true);
      for (const accountId of [...crowd, stray]) {
        assert.equal(await membership.enrol(memberRecord('beta', { accountId })), true);
      }
      const listing = (accountId: string, community: string, displayName = `Dir ${community}`) => ({
        accountId,
        community,
        displayName,
        createdAt: T0,
        updatedAt: T0,
      });
      const shared = [{ kind: 'email' as const, entry: 'shared-entry', pepperId: 'p1' }];
      await store.put(listing(inAlpha, 'alpha'), shared);
      await store.put(listing(inBeta, 'beta'), shared);
      for (const [i, accountId] of crowd.entries()) await store.put(listing(accountId, 'beta', `Dir Aa ${i}`), shared);
      await store.put(listing(stray, 'alpha', 'Dir Aa stray'), shared);
      const ids = (rows: Array<{ accountId: string }>) => rows.map((l) => l.accountId);

      assert.deepEqual(ids(await store.lookup('shared-entry', 'p1', ['alpha'], 1)), [inAlpha], 'beta’s listings take no place');
      assert.deepEqual(ids(await store.lookup('shared-entry', 'p1', ['beta'], 10)), [...crowd, inBeta]);
      assert.deepEqual(ids(await store.lookup('shared-entry', 'p1', ['alpha', 'beta'], 10)), [...crowd, inAlpha, inBeta]);
      assert.deepEqual(ids(await store.byCommunity(['alpha'], { limit: 10 })), [inAlpha]);
      assert.deepEqual(ids(await store.byCommunity(['beta'], { limit: 10 })), [...crowd, inBeta]);
      assert.deepEqual(ids(await store.byName('dir', ['alpha'], { limit: 1 })), [inAlpha], 'beta’s listings take no place');
      assert.deepEqual(ids(await store.byName('dir', ['beta'], { limit: 10 })), [...crowd, inBeta]);
      assert.deepEqual(ids(await store.byName('dir al', ['beta'], { limit: 10 })), [], 'alpha’s name is not found in beta');
      // Several communities are one order, paged by one keyset; a page counts only listings in scope.
      const paged: string[] = [];
      let after: { nameKey: string; accountId: string } | undefined;
      for (let i = 0; i < 10; i++) {
        const rows = await store.byName('dir', ['alpha', 'beta'], { limit: 2, ...(after ? { after } : {}) });
        paged.push(...ids(rows));
        const last = rows.at(-1);
        if (rows.length < 2 || !last) break;
        after = { nameKey: last.nameKey, accountId: last.accountId };
      }
      assert.deepEqual(paged, [...crowd, inAlpha, inBeta]);
      for (const scope of [[], ['gamma']]) {
        assert.deepEqual(await store.lookup('shared-entry', 'p1', scope, 10), [], `scope ${JSON.stringify(scope)}`);
        assert.deepEqual(await store.byCommunity(scope, { limit: 10 }), [], `scope ${JSON.stringify(scope)}`);
        assert.deepEqual(await store.byName('dir', scope, { limit: 10 }), [], `scope ${JSON.stringify(scope)}`);
      }

      assert.equal((await store.mine(inBeta))?.listing.community, 'beta');
      assert.equal((await store.mine(stray))?.listing.community, 'alpha', 'a listing not shown is still its holder’s own');
      assert.equal(await store.remove(inAlpha), true);
      assert.equal((await store.mine(inBeta))?.contacts.length, 1, 'removing one account’s listing leaves the other’s');
      assert.equal(await store.remove(inAlpha), false);
      for (const accountId of [inBeta, ...crowd, stray]) assert.equal(await store.remove(accountId), true);
    });

    isolated(T.webhooks, async () => {
      const store = new SqlWebhookStore(db);
      const hook = (tenant: string): WebhookRecord => ({
        id: `whk-${tenant}`,
        tenant,
        url: `https://${tenant}.example/hook`,
        events: ['org.created'],
        active: true,
        inactiveReason: null,
        sealedSecret: `sealed-${tenant}`,
        createdBy: 'owner-token',
        createdAt: T0,
        updatedAt: T0,
        deadStreak: 0,
        lastSuccessAt: null,
      });
      assert.equal(await store.create(hook('alpha'), 20), true);
      assert.equal(await store.create(hook('beta'), 1), true, 'alpha’s endpoint does not count against beta’s limit');
      assert.equal(await store.create({ ...hook('beta'), id: 'whk-beta-2' }, 1), false, 'beta is at its limit');
      assert.equal(await store.get('whk-alpha', 'beta'), undefined, 'beta cannot read alpha’s endpoint');
      assert.equal((await store.get('whk-alpha', 'alpha'))?.url, 'https://alpha.example/hook');
      assert.equal((await store.get('whk-alpha', null))?.tenant, 'alpha', 'the platform sees every tenant');
      assert.deepEqual(
        (await store.list('beta', { limit: 10 })).map((w) => w.id),
        ['whk-beta'],
      );
      assert.deepEqual(
        (await store.list('alpha', { limit: 10 })).map((w) => w.id),
        ['whk-alpha'],
      );
      assert.deepEqual(
        (await store.listActive('alpha')).map((w) => w.id),
        ['whk-alpha'],
      );
      assert.equal((await store.list(null, { limit: 10 })).length, 2);
      assert.equal(await store.setActive('whk-alpha', 'beta', false, T0 + 1), false);
      assert.equal(await store.setSecret('whk-alpha', 'beta', 'stolen', T0 + 1), false);
      assert.equal((await store.get('whk-alpha', null))?.active, true);
      assert.equal((await store.get('whk-alpha', null))?.sealedSecret, 'sealed-alpha');
      assert.equal(await store.setActive('whk-beta', 'beta', false, T0 + 1), true);
      assert.equal(await store.setSecret('whk-beta', 'beta', 'sealed-beta-2', T0 + 1), true);

      // One event of each tenant, routed: alpha's reaches alpha's endpoint; beta's goes nowhere (inactive).
      await db.transaction().execute(async (trx) => {
        for (const tenant of ['alpha', 'beta']) {
          await trx
            .insertInto('outbox')
            .values({ id: `evt-${tenant}`, type: 'org.created', tenant, created_at: T0 + 5, data: '{}' })
            .execute();
        }
        await new SqlWebhookLanes(trx).route(T0 + 10, 10);
      });
      const [delivery] = await store.deliveries('alpha', { limit: 10 });
      assert.equal(delivery?.webhookId, 'whk-alpha');
      assert.deepEqual(await store.deliveries('beta', { limit: 10 }), []);
      assert.equal(await store.delivery(delivery?.id ?? '', 'beta'), undefined);
      assert.equal((await store.delivery(delivery?.id ?? '', 'alpha'))?.state, 'pending');
      await db
        .updateTable('webhook_deliveries')
        .set({ state: 'dead', finished_at: T0 + 20, failures: 3 })
        .execute();
      assert.equal(await store.redrive(delivery?.id ?? '', 'beta', T0 + 30), false, 'beta cannot re-drive alpha’s delivery');
      assert.equal((await store.delivery(delivery?.id ?? '', null))?.state, 'dead');
      assert.equal(await store.redrive(delivery?.id ?? '', 'alpha', T0 + 30), true);
    });

    isolated(T.approvals, async () => {
      const store = new SqlApprovalStore(db);
      const approval = (id: string, tenant: string | null, over: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
        id,
        action: 'credentials.revoke-bulk',
        params: { tenant },
        tenant,
        accountId: null,
        state: 'pending',
        reason: null,
        requestedBy: 'operator:asker',
        requestedAt: T0,
        expiresAt: T0 + 1_000,
        decidedBy: null,
        decidedAt: null,
        note: null,
        result: null,
        resultPrivate: false,
        resultExpiresAt: null,
        ...over,
      });
      await store.create(approval('apr-alpha', 'alpha'));
      await store.create(approval('apr-beta', 'beta', { requestedAt: T0 + 1 }));
      await store.create(approval('apr-platform', null, { requestedAt: T0 + 2 }));
      const ids = (rows: ApprovalRecord[]) => rows.map((r) => r.id);
      assert.equal(await store.get('apr-alpha', 'beta'), undefined);
      assert.equal(await store.get('apr-platform', 'alpha'), undefined, 'a scoped caller never sees a platform approval');
      assert.equal((await store.get('apr-alpha', 'alpha'))?.tenant, 'alpha');
      assert.equal((await store.get('apr-platform', null))?.tenant, null);
      assert.deepEqual(ids(await store.list({ tenant: 'beta', limit: 10, now: T0 })), ['apr-beta']);
      assert.deepEqual(ids(await store.list({ tenant: null, limit: 10, now: T0 })), ['apr-platform', 'apr-beta', 'apr-alpha']);
      const pending = (tenant: string | null) =>
        store.pending({ tenant, actions: ['credentials.revoke-bulk'], notRequestedBy: ['operator:other'], now: T0, limit: 10 });
      assert.deepEqual(ids(await pending('alpha')), ['apr-alpha']);
      assert.deepEqual(ids(await pending(null)), ['apr-alpha', 'apr-beta', 'apr-platform']);
      // By id, for whoever the desk let through; only a pending, unexpired approval is decided.
      assert.equal(await store.decide('apr-alpha', { state: 'approved', by: 'operator:other', note: null, now: T0 }), true);
      assert.equal(await store.decide('apr-alpha', { state: 'rejected', by: 'operator:other', note: null, now: T0 }), false);
      await store.saveResult('apr-alpha', { revoked: 1 }, true, T0 + 10);
      assert.equal((await store.get('apr-beta', 'beta'))?.result, null, 'a result is saved on its own approval only');
      assert.equal(await store.clearResults(T0 + 10), 1);
      assert.equal((await store.get('apr-alpha', 'alpha'))?.result, null);
      assert.equal(await store.markExpired(T0 + 1_000), 2, 'beta’s and the platform’s pending approvals expire alike');
      assert.equal((await store.get('apr-alpha', 'alpha'))?.state, 'approved');
      assert.equal((await store.get('apr-beta', 'beta'))?.state, 'expired');
    });

    isolated(T.orgs, async () => {
      const store = new SqlOrgStore(db);
      const operators = new SqlOperatorStore(db);
      for (const [username, tenant] of [
        ['alpha-admin', 'alpha'],
        ['beta-admin', 'beta'],
      ] as const) {
        const op = { username, passwordHash: 'x', roles: ['tenant-admin' as const], tenant, status: 'active' as const };
        const fresh = { failedAttempts: 0, lockedUntil: null, createdAt: T0, updatedAt: T0 };
        const unlinked = { email: null, invitationExpiresAt: null };
        assert.equal(await operators.create({ ...op, ...fresh, ...unlinked }), true);
      }
      const domain = (tenant: string, name: string): OrgDomain => ({
        tenant,
        domain: name,
        state: 'pending',
        token: `token-${tenant}`,
        requestedAt: T0,
        verifiedAt: null,
        activatedAt: null,
        revokedAt: null,
        updatedAt: T0,
      });
      assert.equal(await store.putPending(domain('alpha', 'id.alpha.example'), [null]), true);
      assert.equal(await store.putPending(domain('beta', 'id.beta.example'), [null]), true);
      assert.equal(await store.domainHolder('id.alpha.example', 'beta'), 'alpha', 'a live name is another tenant’s');
      assert.equal(await store.domainHolder('id.alpha.example', 'alpha'), undefined);
      assert.equal(
        await store.moveDomain('alpha', ['pending'], 'verified', T0 + 1, 'token-beta'),
        false,
        'beta’s token moves nothing of alpha’s',
      );
      assert.equal(await store.moveDomain('alpha', ['pending'], 'verified', T0 + 1, 'token-alpha'), true);
      assert.equal((await store.domain('beta'))?.state, 'pending', 'beta’s domain did not move');
      assert.deepEqual([...(await store.domains(['alpha', 'beta'])).entries()].map(([t, d]) => [t, d.domain, d.state]).sort(), [
        ['alpha', 'id.alpha.example', 'verified'],
        ['beta', 'id.beta.example', 'pending'],
      ]);
      await store.appendHistory({
        tenant: 'alpha',
        status: 'suspended',
        actor: 'operator:x',
        reason: 'r',
        approvalId: null,
        at: T0,
      });
      const betaChange = await store.appendHistory({
        tenant: 'beta',
        status: 'suspended',
        actor: 'operator:x',
        reason: 'r',
        approvalId: null,
        at: T0,
      });
      assert.equal(betaChange.seq, 1, 'each tenant has its own sequence');
      assert.deepEqual(
        (await store.history('beta', 10)).map((c) => c.tenant),
        ['beta'],
      );
    });

    isolated(T.integrationTokens, async () => {
      const store = new SqlIntegrationTokenStore(db);
      const token = (tenant: string, id: string, hash: string, partnerId: string | null): IntegrationTokenRecord => ({
        id,
        tenant,
        label: `${tenant} key`,
        scopes: ['issuance'],
        rateClass: 'standard',
        tokenHash: hash,
        state: 'active',
        requestId: null,
        createdBy: `${tenant}-admin`,
        createdAt: T0,
        rotatedAt: null,
        revokedAt: null,
        revokedBy: null,
        partnerId,
      });
      await store.createToken(token('alpha', 'itk_alpha', 'hash-alpha', 'pap_alpha'));
      await store.createToken(token('beta', 'itk_beta', 'hash-beta', null));
      assert.equal((await store.findActive('hash-beta'))?.tenant, 'beta', 'authentication finds a key by its hash alone');
      assert.equal(await store.token('itk_beta', 'alpha'), undefined);
      assert.equal((await store.token('itk_beta', null))?.id, 'itk_beta');
      assert.deepEqual(
        (await store.tokens('alpha', { limit: 10 })).map((t) => t.id),
        ['itk_alpha'],
      );
      assert.equal((await store.tokens('alpha', { tenant: 'beta', limit: 10 })).length, 0, 'a page filter cannot widen');
      assert.deepEqual((await store.tokens(null, { limit: 10 })).map((t) => t.id).sort(), ['itk_alpha', 'itk_beta']);
      assert.equal(await store.revoke('itk_beta', 'alpha', 'alpha-admin', T0 + 2), false);
      assert.equal(await store.rotate('itk_beta', 'alpha', 'hash-stolen', T0 + 2), false);
      assert.equal((await store.findActive('hash-beta'))?.id, 'itk_beta', "alpha neither revoked nor rotated beta's key");
      assert.equal(await store.findActive('hash-stolen'), undefined);
      assert.equal(await store.rotate('itk_alpha', 'alpha', 'hash-alpha-2', T0 + 3), true);
      assert.equal(await store.findActive('hash-alpha'), undefined, 'the old hash stops at once');
      assert.equal(await store.activePartnerKeys('pap_alpha'), 1);
      assert.deepEqual(await store.revokePartnerKeys('pap_alpha', 'platform', T0 + 4), ['itk_alpha']);
      assert.equal(await store.activePartnerKeys('pap_alpha'), 0);
      assert.equal((await store.findActive('hash-beta'))?.state, 'active', "the partner's revocation left beta's key");
      assert.equal(await store.revoke('itk_beta', 'beta', 'beta-admin', T0 + 5), true);
      assert.equal(await store.findActive('hash-beta'), undefined);
    });

    isolated(T.transactions, async () => {
      const store = new SqlPresentationTransactionStore(db);
      const tx = (id: string, typeTenant: string, createdAt: number): PresentationTransactionRecord => ({
        id,
        state: `state-${id}`,
        nonce: `nonce-${id}`,
        resultTokenHash: `result-${id}`,
        callerAud: 'https://rp.example',
        typeTenant,
        typeId: 'membership',
        vct: `https://${typeTenant}.example/membership`,
        claims: ['name'],
        requestedBy: null,
        createdAt,
        expiresAt: createdAt + 600_000,
        completedAt: null,
        outcome: null,
        holder: null,
        enrolledAt: null,
        issuerDid: null,
        profile: 'openid4vp',
        responseKey: null,
        dcOrigin: null,
        verifierChain: null,
        redirectUri: null,
        responseCodeHash: null,
      });
      assert.equal(await store.create(tx('vtx_alpha', 'alpha', T0)), true);
      assert.equal(await store.create(tx('vtx_beta', 'beta', T0 + 1)), true);
      assert.equal(await store.create({ ...tx('vtx_copy', 'beta', T0 + 1), nonce: 'nonce-vtx_alpha' }), false, 'a live nonce');
      assert.equal((await store.get('vtx_beta'))?.typeTenant, 'beta');
      assert.equal((await store.findByState('state-vtx_alpha'))?.id, 'vtx_alpha');
      assert.equal(await store.complete('vtx_alpha', { valid: true }, T0 + 2, T0 + 600_000, { holder: 'thumb' }), true);
      assert.equal((await store.get('vtx_beta'))?.completedAt, null, "completing alpha's left beta's pending");
      // Enrolment spends a transaction through the membership store (the verification module's statement).
      const members = new SqlMembershipStore(db);
      assert.equal(await members.spendTransaction('vtx_beta', T0 + 3), false, 'a pending transaction enrols no one');
      assert.equal(await members.spendTransaction('vtx_alpha', T0 + 3), true);
      assert.equal(await members.spendTransaction('vtx_alpha', T0 + 3), false, 'once');
      assert.equal((await store.get('vtx_beta'))?.enrolledAt, null);
      // The oldest beyond the newest one goes, whoever's type it asked for; the newest stays.
      assert.equal(await store.evictBeyond(1), 1);
      assert.equal(await store.get('vtx_alpha'), undefined);
      assert.equal((await store.get('vtx_beta'))?.id, 'vtx_beta');
      await store.sweep(T0 + 600_000);
      assert.equal((await store.get('vtx_beta'))?.id, 'vtx_beta', 'not yet past its expiry');
      await store.sweep(T0 + 600_001);
      assert.equal(await store.get('vtx_beta'), undefined);
    });

    // Each file seeds rows of its own (its ids, its time, a tenant of its own for a read with no end), so any order does.
    backofficeIsolation(isolated, () => db);
    complianceIsolation(isolated, () => db);
    opsIsolation(isolated, () => db);
    featureStoresIsolation(isolated, () => db);
    auditViewsIsolation(isolated, () => db);
    opsViewsIsolation(isolated, () => db);
    peopleSearchIsolation(isolated, () => db);
    complianceViewsIsolation(isolated, () => db);
    ownerPartsIsolation(isolated, () => db);

    test('every method of every tenant-owned port has its isolation case, and it passed', () => {
      const named = new Set(Object.values(ISOLATION_CASES).flatMap((methods) => Object.values(methods) as string[]));
      for (const name of named) assert.ok(passed.has(name), `the isolation case "${name}" did not pass`);
    });
  });
}
