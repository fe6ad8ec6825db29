import { type Static, Type } from '@sinclair/typebox';
import { DateTimeView, Nullable } from '../../../http/schemas/common.ts';
import { State } from './health-schemas.ts';

/** The views of the operations group (docs/operations.md); each type is its schema's `Static`. */

export const CloudView = Type.Object({
  engine: Type.String({ description: 'sqlite or postgres' }),
  storage: Type.String({ description: 'Where the data is, in words; never a connection string.' }),
  version: Type.String(),
  commit: Type.String(),
  sourceDigest: Type.String(),
  nodeVersion: Type.String(),
  processes: Type.Array(
    Type.Object({
      holder: Type.String({ description: 'node:pid:nonce' }),
      node: Type.String({ description: 'Its node (OPENRAIL_NODE_ID).' }),
      lastSeenAt: DateTimeView,
    }),
    { description: 'Processes that ran a background job in the last ten minutes.' },
  ),
  nodes: Type.Array(Type.String(), { description: 'The nodes those processes run on.' }),
  thisProcess: Type.String(),
  thisNode: Type.String(),
  mountedGroups: Type.Array(Type.String()),
  metrics: Type.Boolean({ description: 'GET /metrics is on (OPENRAIL_METRICS_TOKEN).' }),
});
export type CloudView = Static<typeof CloudView>;

export const CommsHealthView = Type.Object({
  windowHours: Type.Integer(),
  since: DateTimeView,
  mail: Type.Object({
    state: State,
    transport: Type.String(),
    sent: Type.Integer(),
    refused: Type.Integer(),
    failureRate: Nullable(Type.Number({ description: 'refused / (sent + refused); null when nothing was sent.' })),
    failures: Type.Record(Type.String(), Type.Integer(), { description: 'Refusals by SMTP reply code or transport error.' }),
    lastRefusedAt: Nullable(DateTimeView),
  }),
  webhooks: Type.Object({
    state: State,
    attempts: Type.Integer(),
    failed: Type.Integer(),
    failureRate: Nullable(Type.Number()),
    deadLetters: Type.Integer(),
    endpointsFailing: Type.Integer(),
    endpointsDisabled: Type.Integer(),
  }),
});
export type CommsHealthView = Static<typeof CommsHealthView>;

export const AuditCheckView = Type.Object({
  verified: Type.Boolean(),
  checked: Type.Integer(),
  lastSeq: Type.Integer(),
  firstBroken: Nullable(Type.Integer({ description: 'The first entry whose hash, link or number is wrong.' })),
  reason: Nullable(Type.String()),
  checkedAt: DateTimeView,
});

export const KeyView = Type.Object({
  tenant: Type.String(),
  issuerDid: Type.String(),
  kid: Type.String(),
  purpose: Type.String({ description: 'issuer or verifier' }),
  createdAt: DateTimeView,
  supersededAt: Nullable(DateTimeView),
  retiredAt: Nullable(DateTimeView),
  inUse: Type.Boolean({ description: 'The key that signs now.' }),
  ageDays: Type.Integer(),
  credentialsSigned: Nullable(
    Type.Integer({
      description: 'Issuer keys: credentials the tenant issued while this key was its signing key (to its supersession).',
    }),
  ),
  backend: Type.String({
    description: 'Where its private part is: sealed (under the master key) or pkcs11 (a token; docs/keys.md).',
  }),
  keyObject: Nullable(
    Type.Object(
      {
        token: Type.String({ description: 'The token’s label.' }),
        label: Type.String({ description: 'The key object’s label (CKA_LABEL).' }),
        present: Nullable(Type.Boolean({ description: 'Found in the token; null when the token cannot be asked just now.' })),
        sensitive: Nullable(Type.Boolean()),
        extractable: Nullable(Type.Boolean({ description: 'false: the token never lets the private key out.' })),
      },
      { description: 'A key in a PKCS#11 token, as the token reports it now; null for a sealed key.' },
    ),
  ),
});
export type KeyView = Static<typeof KeyView>;

export const StatusListView = Type.Object({
  tenant: Type.String(),
  issuerDid: Type.String(),
  seq: Type.Integer(),
  uri: Type.String(),
  size: Type.Integer(),
  capacity: Type.Integer(),
  allocated: Type.Integer(),
  revoked: Type.Integer(),
  revokedShare: Type.Number({ description: 'revoked / allocated (0 when nothing is allocated).' }),
  revision: Type.Integer({ description: 'Raised by every revocation in the list: a token is signed again for each.' }),
  createdAt: DateTimeView,
});
export type StatusListView = Static<typeof StatusListView>;

/** What one list's integrity check found: `ok`, or every way the served token differs from the record. */
export const IntegrityView = Type.Object({
  tenant: Type.String(),
  issuerDid: Type.String(),
  seq: Type.Integer(),
  uri: Type.String(),
  ok: Type.Boolean(),
  /** What failed, in words: the signature, the key, the subject, an index whose bit differs. */
  problems: Type.Array(Type.String()),
  mismatched: Type.Array(Type.Integer(), { description: 'Indices whose served bit is not the recorded one (the first 20).' }),
});
export type IntegrityView = Static<typeof IntegrityView>;

export const RevocationLogView = Type.Object({
  auditSeq: Type.Integer(),
  at: DateTimeView,
  actor: Type.String(),
  tenant: Type.String(),
  credentialId: Type.String(),
  typeId: Nullable(Type.String()),
  reason: Nullable(Type.String()),
});

export const TrustedIssuerView = Type.Object({
  did: Type.String(),
  label: Type.String(),
  state: Type.String({ description: 'active, suspended or removed' }),
  keys: Type.Array(Type.String(), { description: 'The verification methods of its DID document, as resolved.' }),
  addedBy: Type.String(),
  addedAt: DateTimeView,
  changedBy: Type.String(),
  changedAt: DateTimeView,
  reason: Nullable(Type.String()),
});
export type TrustedIssuerView = Static<typeof TrustedIssuerView>;

/** A superseded key still published, and what it signed that is live. */
export const AwaitingRetirement = Type.Object({
  tenant: Type.String(),
  issuerDid: Type.String(),
  kid: Type.String(),
  supersededAt: DateTimeView,
  outstanding: Type.Integer({ description: 'Credentials it signed that are not revoked: it stays published while any is.' }),
});

/** A rotation made, from the audit log. */
export const Rotation = Type.Object({
  auditSeq: Type.Integer(),
  at: DateTimeView,
  actor: Type.String(),
  tenant: Type.String(),
  kid: Type.String({ description: 'The key that signs since.' }),
  previousKid: Nullable(Type.String()),
});

export const DriftView = Type.Object({
  tenant: Type.String(),
  did: Type.String(),
  ok: Type.Boolean(),
  documents: Type.Array(
    Type.Object({
      url: Type.String(),
      ok: Type.Boolean(),
      missing: Type.Array(Type.String(), {
        description: 'Stored keys the document does not list where their purpose needs them.',
      }),
      extra: Type.Array(Type.String(), { description: 'Keys the document lists that are not the tenant’s.' }),
      changed: Type.Array(Type.String(), { description: 'Stored kids listed with other key material.' }),
      /** Why the document could not be compared (unreachable, not JSON, not the DID's own). */
      error: Nullable(Type.String()),
    }),
  ),
});
export type DriftView = Static<typeof DriftView>;

export const StuckView = Type.Object({
  checkedAt: DateTimeView,
  complete: Type.Boolean({ description: 'False when a kind had more than the 50 shown.' }),
  items: Type.Array(
    Type.Object({
      kind: Type.String({ description: 'presentation, offer, delivery, lane, request or approval' }),
      id: Type.String(),
      tenant: Nullable(Type.String()),
      dueAt: DateTimeView,
      overdueS: Type.Integer(),
      action: Type.String({ description: 'What to do about it.' }),
    }),
  ),
});

export const DemoHygieneView = Type.Object({
  ok: Type.Boolean(),
  checkedAt: DateTimeView,
  breaches: Type.Array(
    Type.Object({
      rule: Type.String({ description: 'demo-name, marked-real or demo-item-flag' }),
      tenant: Type.String(),
      subject: Type.String({ description: 'The name, or the wallet item, that breaks the rule.' }),
      what: Type.String(),
    }),
  ),
});

export const ConsoleStateView = Type.Object({
  tenant: Type.String(),
  name: Type.String(),
  did: Type.String(),
  status: Type.Object({ status: Type.String(), since: Nullable(DateTimeView), reason: Nullable(Type.String()) }),
  counts: Type.Object({
    types: Type.Integer(),
    credentials: Type.Integer({ description: 'Issued, revoked ones included.' }),
    revoked: Type.Integer(),
    members: Type.Integer(),
    statusLists: Type.Integer(),
  }),
  keys: Type.Array(
    Type.Object({
      kid: Type.String(),
      purpose: Type.String(),
      signing: Type.Boolean({ description: 'False for a key a rotation superseded, still published.' }),
    }),
  ),
  domain: Nullable(Type.Object({ domain: Type.String(), state: Type.String() })),
  agents: Type.Array(Type.Object({ agent: Type.String(), lastSeenAt: DateTimeView, beats: Type.Integer() }), {
    description: 'Its automation agents, most recently seen first.',
  }),
  checkedAt: DateTimeView,
});

const Counts = Type.Record(Type.String(), Type.Integer(), { description: 'Rows per table.' });

export const BackupView = Type.Object({
  backupId: Type.String(),
  takenAt: DateTimeView,
  takenBy: Type.String({ description: 'The actor who asked for it, as the audit log names actors.' }),
  engine: Type.String({ description: 'sqlite or postgres.' }),
  file: Type.String({ description: 'The file in the backup folder; its manifest is <backupId>.manifest.json beside it.' }),
  bytes: Type.Integer(),
  sha256: Type.String(),
  tookMs: Type.Integer(),
  schemaVersion: Type.String({ description: 'The last migration the backup holds.' }),
  counts: Counts,
  statusLists: Type.Integer({ description: 'Status lists whose revoked bits the manifest records.' }),
  lastDrill: Nullable(
    Type.Object(
      { drillId: Type.String(), ok: Type.Boolean(), finishedAt: DateTimeView },
      { description: 'The newest drill of it.' },
    ),
  ),
});

export const DrillView = Type.Object({
  drillId: Type.String(),
  backupId: Type.String(),
  trigger: Type.String({ description: 'after-backup or scheduled.' }),
  startedAt: DateTimeView,
  finishedAt: DateTimeView,
  ok: Type.Boolean(),
  checks: Type.Array(
    Type.Object({
      check: Type.String({ description: 'file, checksum, restore, counts, audit-chain, deposit-chains or status-lists.' }),
      ok: Type.Boolean(),
      detail: Type.String({ description: 'What held, or what broke and where.' }),
    }),
  ),
});

const Expiring = Type.Object({
  tenant: Type.String(),
  typeId: Type.String(),
  count: Type.Integer(),
  firstExpiresAt: DateTimeView,
});

export const ExpiryView = Type.Object({
  checkedAt: DateTimeView,
  until: DateTimeView,
  complete: Type.Boolean({ description: 'False when a list was cut at 200 entries.' }),
  credentials: Type.Array(Expiring, { description: 'Unrevoked credentials expiring in the window, per tenant and type.' }),
  offers: Type.Array(Expiring, { description: 'Offers not collected yet that expire in the window.' }),
  keys: Type.Array(
    Type.Object({
      tenant: Type.String(),
      issuerDid: Type.String(),
      kid: Type.String(),
      createdAt: DateTimeView,
      rotateBy: DateTimeView,
      overdue: Type.Boolean(),
    }),
    { description: 'Signing keys whose rotation falls due in the window (or is overdue).' },
  ),
  types: Type.Array(
    Type.Object({
      tenant: Type.String(),
      typeId: Type.String(),
      validityDays: Type.Integer(),
      setAt: DateTimeView,
      setBy: Type.String(),
    }),
    { description: 'Every type with a validity.' },
  ),
});

const Rate = Nullable(Type.Number({ description: 'This step’s count over the step before; null when that was 0.' }));

export const FunnelsView = Type.Object({
  since: DateTimeView,
  until: DateTimeView,
  complete: Type.Boolean({ description: 'False when a list was cut at 200 funnels.' }),
  issuance: Type.Array(
    Type.Object({
      tenant: Type.String(),
      typeId: Type.String(),
      offers: Type.Integer({ description: 'Offers created in the window.' }),
      tokens: Type.Integer({ description: 'Of those, redeemed for an access token.' }),
      credentials: Type.Integer({ description: 'Of those, collected as credentials.' }),
      tokensRate: Rate,
      credentialsRate: Rate,
    }),
  ),
  verification: Type.Array(
    Type.Object({
      tenant: Type.String(),
      typeId: Type.String(),
      requests: Type.Integer({ description: 'Hosted presentations opened in the window.' }),
      responses: Type.Integer({ description: 'Of those, answered by a wallet.' }),
      accepted: Type.Integer({ description: 'Of those, accepted.' }),
      responsesRate: Rate,
      acceptedRate: Rate,
    }),
  ),
});
