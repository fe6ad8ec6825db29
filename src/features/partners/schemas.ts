import { type Static, Type } from '@sinclair/typebox';
import { idPattern } from '../../core/ids.ts';
import { SCOPE_NAMES } from '../../core/integration-scopes.ts';
import { PARTNER_KINDS, PARTNER_STAGES, TEAM_ROLES } from '../../core/partner-pipeline.ts';
import { DateTimeView, DisplayName, DisplayText, EmailAddress, Nullable } from '../../http/schemas/common.ts';

/** Bodies of partner onboarding (docs/partners.md), shared by the API routes and the pages. */
const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const Kind = literals(PARTNER_KINDS);
export const Stage = literals(PARTNER_STAGES);
export const TeamRoleSchema = literals(TEAM_ROLES);
export const ScopeName = literals(SCOPE_NAMES);
export const ApplicationId = Type.String({ pattern: idPattern('application') });
export const StatusToken = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' });
export const Email = EmailAddress;
export const Code = Type.String({ pattern: '^[0-9]{6}$' });

/** The intake's fixed body: any other field (a stage, a tenant, a scope, a token) is refused by name. */
export const ApplicationBody = Type.Object(
  {
    kind: Kind,
    organisation: DisplayName(200),
    contactName: DisplayName(200),
    contactEmail: Email,
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2.' })),
    website: Type.Optional(Type.String({ maxLength: 300, pattern: '^https://[^\\s<>"]+$' })),
    useCase: DisplayText(4000),
  },
  { additionalProperties: false },
);

export const StatusBody = Type.Object(
  { applicationId: ApplicationId, statusToken: StatusToken },
  { additionalProperties: false },
);

export const StatusView = Type.Object({
  applicationId: Type.String(),
  kind: Type.String(),
  organisation: Type.String(),
  stage: Type.String(),
  stageSince: DateTimeView,
  submittedAt: DateTimeView,
  history: Type.Array(Type.Object({ stage: Type.String(), at: DateTimeView })),
});
export type StatusView = Static<typeof StatusView>;

export const Grant = Type.Object({
  scopes: Type.Array(Type.String()),
  rateClass: Type.String(),
});

export const ApplicationView = Type.Object({
  applicationId: Type.String(),
  kind: Type.String(),
  organisation: Type.String(),
  contactName: Type.String(),
  contactEmail: Type.String(),
  country: Nullable(Type.String()),
  website: Nullable(Type.String()),
  useCase: Type.String(),
  stage: Type.String(),
  stageSince: DateTimeView,
  tenant: Nullable(Type.String()),
  grant: Nullable(Grant),
  createdBy: Type.String(),
  createdAt: DateTimeView,
  updatedAt: DateTimeView,
});

export const TeamMemberView = Type.Object({
  memberId: Type.String(),
  email: Type.String(),
  role: Type.String(),
  addedAt: DateTimeView,
});

export const KeyView = Type.Object({
  id: Type.String(),
  label: Type.String(),
  tenant: Type.String(),
  scopes: Type.Array(Type.String()),
  rateClass: Type.String(),
  state: Type.String({ description: 'active or revoked' }),
  createdBy: Type.String(),
  createdAt: DateTimeView,
  rotatedAt: Nullable(DateTimeView),
  revokedAt: Nullable(DateTimeView),
});

export const KeyWithSecret = Type.Object({
  ...KeyView.properties,
  secret: Type.String({ description: 'The key, shown this once: a bearer for the participation plane.' }),
});

export const KeyId = Type.String({ pattern: idPattern('integrationToken') });
export const MemberId = Type.String({ pattern: idPattern('teamMember') });
export const KeyLabel = DisplayName(100);
