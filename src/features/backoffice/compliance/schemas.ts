import { type Static, Type } from '@sinclair/typebox';
import { idPattern } from '../../../core/ids.ts';
import { AccountId, DateTimeView, DisplayText, EmailAddress, Nullable } from '../../../http/schemas/common.ts';
import { REFUSAL_GROUNDS } from '../../../ports/compliance-store.ts';
import { Username } from '../orgs/schemas.ts';

/** Schemas of the compliance group (docs/backoffice/compliance.md). */

export const AccessRequestId = Type.String({ pattern: idPattern('accessRequest') });
export const ErasureRequestId = Type.String({ pattern: idPattern('erasureRequest') });
export const IncidentId = Type.String({ pattern: idPattern('incident') });

/** Who the request is about, as the requester named them: exactly one identifier. */
export const Subject = Type.Union(
  [
    Type.Object({ accountId: AccountId }, { additionalProperties: false }),
    Type.Object({ email: EmailAddress }, { additionalProperties: false }),
    Type.Object({ username: Username }, { additionalProperties: false }),
  ],
  { description: 'Exactly one of accountId, email, username.' },
);
export type Subject = Static<typeof Subject>;

/** How the request reached the operators: a mail, a letter, a call, the holder's own words. */
export const Source = DisplayText(200);
/** How the requester's identity was checked before acting. */
export const IdentityCheck = DisplayText(500);
/** When the request was received, if before it was filed: at most a year ago, never in the future. */
export const ReceivedAt = Type.String({ format: 'date-time', description: 'RFC 3339; when the requester asked.' });

export const SubjectView = Type.Object({
  kind: Type.String({ description: 'account, email or username' }),
  value: Nullable(Type.String({ description: 'null once the account was erased' })),
});

export const PlaceView = Type.Object({
  table: Type.String(),
  column: Type.String(),
  category: Type.String(),
  count: Type.Integer(),
  erasure: Type.String({ description: "What an account's erasure does to it: delete, unlink, end, expires or kept." }),
  erasureNote: Nullable(Type.String({ description: 'Why an erasure keeps it, or how long it stays.' })),
});

export const LookupView = Type.Object({
  subject: SubjectView,
  held: Type.Boolean({ description: 'Whether any registered place holds the subject.' }),
  places: Type.Array(PlaceView),
  categories: Type.Array(Type.Object({ category: Type.String(), count: Type.Integer() })),
});
export type LookupView = Static<typeof LookupView>;

export const AccessRequestView = Type.Object({
  requestId: Type.String(),
  state: Type.String({ description: 'received, answered or refused' }),
  subject: SubjectView,
  source: Type.String(),
  receivedAt: DateTimeView,
  dueAt: DateTimeView,
  overdue: Type.Boolean(),
  filedBy: Type.String(),
  filedAt: DateTimeView,
  answeredBy: Nullable(Type.String()),
  answeredAt: Nullable(DateTimeView),
  outcome: Nullable(Type.String({ description: 'negative or exported' })),
  ground: Nullable(Type.String({ description: 'A refusal’s ground: legal-hold, cannot-identify or manifestly-unfounded.' })),
  note: Nullable(Type.String()),
  export: Nullable(Type.Object({ approvalId: Type.String(), state: Nullable(Type.String()) })),
  statement: Nullable(Type.String({ description: 'The signed negative response (a JWS).' })),
});
export type AccessRequestView = Static<typeof AccessRequestView>;

export const Ground = Type.Union(REFUSAL_GROUNDS.map((g) => Type.Literal(g)));

export const ErasureRequestView = Type.Object({
  requestId: Type.String(),
  state: Type.String({ description: 'received, verified (erased, disk check pending), completed or refused' }),
  subject: SubjectView,
  source: Type.String(),
  identityCheck: Nullable(Type.String()),
  receivedAt: DateTimeView,
  dueAt: DateTimeView,
  overdue: Type.Boolean(),
  filedBy: Type.String(),
  filedAt: DateTimeView,
  decidedBy: Nullable(Type.String()),
  decidedAt: Nullable(DateTimeView),
  ground: Nullable(Type.String()),
  note: Nullable(Type.String()),
  receiptId: Nullable(Type.String()),
  disk: Nullable(Type.String({ description: "the receipt's disk check: zeroed, pending or not-checked" })),
});
export type ErasureRequestView = Static<typeof ErasureRequestView>;

/** A statement of the deployment an operator attests: a policy, a training, a code of conduct. */
export const StatementId = Type.String({
  pattern: '^[a-z0-9][a-z0-9._-]{0,63}$',
  description: 'The statement: lowercase letters, digits, dot, dash, underscore.',
});
export const StatementVersion = Type.String({
  pattern: '^[A-Za-z0-9._-]{1,32}$',
  description: 'Its version, as the statement names it.',
});

export const AttestationView = Type.Object({
  attestationId: Type.String(),
  operator: Type.String(),
  tenant: Nullable(Type.String()),
  statementId: Type.String(),
  version: Type.String(),
  note: Nullable(Type.String()),
  attestedAt: DateTimeView,
  auditSeq: Type.Integer(),
});

export const RoleChangeView = Type.Object({
  seq: Type.Integer(),
  at: DateTimeView,
  actor: Type.String(),
  action: Type.String({ description: 'operator.created, roles_changed, suspended, enabled or removed' }),
  operator: Type.String(),
  tenant: Nullable(Type.String()),
  roles: Nullable(Type.Array(Type.String(), { description: 'The roles after a creation or a change.' })),
});

const RolePair = Type.Array(Type.String(), { minItems: 2, maxItems: 2 });

export const RoleSeparationView = Type.Object({
  checkedAt: DateTimeView,
  operators: Type.Integer({ description: 'Operators read (removed ones left out).' }),
  truncated: Type.Boolean({ description: 'More operators than one report reads (2000).' }),
  separatedRoles: Type.Array(RolePair),
  conflicts: Type.Array(
    Type.Object({
      operator: Type.String(),
      roles: Type.Array(Type.String()),
      linked: Type.Array(Type.String(), { description: 'Accounts that may be the same person.' }),
      heldTogether: Type.Array(RolePair),
    }),
  ),
  reciprocalApprovals: Type.Array(
    Type.Object({
      first: Type.String(),
      second: Type.String(),
      firstApprovedSecond: Type.Integer(),
      secondApprovedFirst: Type.Integer(),
    }),
  ),
});

export const InventoryView = Type.Object({
  checkedAt: DateTimeView,
  columns: Type.Array(
    Type.Object({
      table: Type.String(),
      column: Type.String(),
      names: Type.String({ description: 'account, partner-contact or operator' }),
      category: Type.String(),
      erasure: Type.String({ description: 'delete, unlink, end, expires or kept' }),
      erasureNote: Nullable(Type.String()),
      exported: Nullable(Type.String()),
      rows: Type.Integer(),
    }),
  ),
});

export const PurgeRunView = Type.Object({
  runId: Type.String(),
  state: Type.String({ description: 'running or done' }),
  requestedBy: Type.String(),
  requestedAt: DateTimeView,
  cutoffs: Type.Record(Type.String(), DateTimeView),
  counts: Type.Record(Type.String(), Type.Integer()),
  finished: Type.Array(Type.String()),
  finishedAt: Nullable(DateTimeView),
});

/** An incident's 72-hour notification clock (docs/backoffice/compliance.md, "Incidents"). */
export const IncidentClock = Type.Object({
  notifyBy: DateTimeView,
  stoppedAt: Nullable(DateTimeView),
  hoursLeft: Nullable(Type.Integer()),
  overdue: Type.Boolean(),
});

const OpenRequests = Type.Object({ open: Type.Integer(), overdue: Type.Integer(), nextDue: Nullable(DateTimeView) });

export const ProgrammeView = Type.Object({
  checkedAt: DateTimeView,
  lastPurge: Nullable(PurgeRunView),
  requests: Type.Object({ access: OpenRequests, erasure: OpenRequests }),
  incidents: Type.Array(
    Type.Object({
      incidentId: Type.String(),
      title: Type.String(),
      severity: Type.String(),
      state: Type.String(),
      clock: IncidentClock,
    }),
  ),
  attestationsDue: Type.Array(
    Type.Object({
      statementId: Type.String(),
      version: Type.String(),
      attested: Type.Integer(),
      missing: Type.Array(Type.String(), { description: 'Active operators who have not attested this version (at most 200).' }),
    }),
  ),
});

const PurposeHead = {
  purposeId: Type.String(),
  name: Type.String(),
  description: Type.String(),
  kind: Type.String({ description: 'activity (the service’s own) or credential (what a type is issued for)' }),
  subjects: Type.Array(Type.String()),
  retention: Type.String(),
};

export const PurposesView = Type.Object({
  purposes: Type.Array(
    Type.Object({ ...PurposeHead, types: Type.Array(Type.Object({ tenant: Type.String(), typeId: Type.String() })) }),
  ),
});

const BoundType = Type.Object({
  tenant: Type.String(),
  typeId: Type.String(),
  name: Type.String(),
  claims: Type.Array(Type.String()),
  purposeId: Nullable(Type.String()),
  boundAt: Nullable(DateTimeView),
  boundBy: Nullable(Type.String()),
});

export const RecordView = Type.Object({
  generatedAt: DateTimeView,
  controller: Type.Object({
    name: Type.String(),
    url: Type.String(),
    did: Type.String(),
    storage: Type.Object({ engine: Type.String(), where: Type.String() }),
  }),
  activities: Type.Array(
    Type.Object({
      ...PurposeHead,
      categories: Type.Array(
        Type.Object({ category: Type.String(), names: Type.String(), columns: Type.Array(Type.String()), rows: Type.Integer() }),
      ),
    }),
  ),
  credentialPurposes: Type.Array(
    Type.Object({ ...PurposeHead, types: Type.Array(BoundType), claims: Type.Array(Type.String()) }),
  ),
  unboundTypes: Type.Array(BoundType),
  recipients: Type.Object({
    webhooks: Type.Array(
      Type.Object({ tenant: Type.String(), origin: Type.String(), events: Type.Array(Type.String()), active: Type.Boolean() }),
    ),
    channels: Type.Array(Type.Object({ tenant: Type.String(), active: Type.Integer() })),
  }),
});

export const BindingView = Type.Object({
  tenant: Type.String(),
  typeId: Type.String(),
  purposeId: Type.String(),
  boundAt: DateTimeView,
  boundBy: Type.String(),
});

export const RulesView = Type.Object({
  rules: Type.Array(
    Type.Object({
      category: Type.String(),
      what: Type.String(),
      purgeable: Type.Boolean(),
      keepDays: Nullable(Type.Integer()),
      defaultDays: Nullable(Type.Integer()),
      floorDays: Nullable(Type.Integer()),
      why: Type.String(),
      updatedAt: Nullable(DateTimeView),
      updatedBy: Nullable(Type.String()),
    }),
  ),
  lastRun: Nullable(PurgeRunView),
});

export const ConsoleComplianceView = Type.Object({
  tenant: Type.String(),
  checkedAt: DateTimeView,
  requests: Type.Array(
    Type.Object({
      requestId: Type.String(),
      kind: Type.String({ description: 'access or erasure' }),
      state: Type.String(),
      accountId: Nullable(Type.String()),
      receivedAt: DateTimeView,
      dueAt: DateTimeView,
      overdue: Type.Boolean(),
    }),
  ),
  incidents: Type.Array(
    Type.Object({
      incidentId: Type.String(),
      title: Type.String(),
      severity: Type.String(),
      state: Type.String(),
      detectedAt: DateTimeView,
      clock: IncidentClock,
      affected: Type.Object({ credentials: Type.Integer(), revoked: Type.Integer(), accounts: Type.Integer() }),
    }),
  ),
  types: Type.Array(BoundType),
});
