import type { IntegrationScope, RateClass } from '../core/integration-scopes.ts';
import type { PartnerKind, PartnerStage, TeamRole } from '../core/partner-pipeline.ts';

/**
 * Partner onboarding (docs/partners.md). An application belongs to no tenant until an operator
 * links it to one; its grant (scopes and a rate class) bounds every key its team mints.
 */
export interface ApplicationRecord {
  id: string;
  kind: PartnerKind;
  organisation: string;
  contactName: string;
  /** Lower-cased. */
  contactEmail: string;
  country: string | null;
  website: string | null;
  useCase: string;
  stage: PartnerStage;
  stageAt: number;
  statusTokenHash: string;
  tenant: string | null;
  grant: { scopes: IntegrationScope[]; rateClass: RateClass } | null;
  /** `public` for the intake, or the operator's actor label. */
  createdBy: string;
  createdAt: number;
  updatedAt: number;
}

export interface StageEntry {
  applicationId: string;
  seq: number;
  from: PartnerStage | null;
  to: PartnerStage;
  actor: string;
  /** Internal: operators see it, the applicant never does. */
  note: string | null;
  at: number;
}

export interface TeamMember {
  id: string;
  applicationId: string;
  email: string;
  role: TeamRole;
  addedBy: string;
  addedAt: number;
}

/** A page of applications, newest first: (createdAt, id) descending. */
export interface ApplicationPage {
  limit: number;
  /** The last application of the page before: [createdAt, id]. */
  after?: readonly [number, string];
  /** createdAt window, milliseconds: since inclusive, until exclusive. */
  since?: number;
  until?: number;
  stage?: PartnerStage;
  kind?: PartnerKind;
  /** Applications linked to this tenant only. */
  tenant?: string;
}

/** Per kind and stage: how many, and since when they have been in it. */
export interface PortfolioCell {
  kind: PartnerKind;
  stage: PartnerStage;
  count: number;
  oldestStageAt: number;
  meanStageAt: number;
}

/** @tenantOwned (a granted application records its tenant) */
export interface PartnerStore {
  createApplication(application: ApplicationRecord): Promise<void>;
  application(id: string): Promise<ApplicationRecord | undefined>;
  applications(page: ApplicationPage): Promise<ApplicationRecord[]>;
  /** Moves the stage in one conditional write (only from `from`); false when it was moved meanwhile. */
  moveStage(id: string, from: PartnerStage, to: PartnerStage, now: number): Promise<boolean>;
  /** Appends the next entry of the application's history (numbered from 1). */
  appendHistory(entry: Omit<StageEntry, 'seq'>): Promise<void>;
  history(applicationId: string): Promise<StageEntry[]>;
  /**
   * Links the application to `tenant` with `grant`, in one conditional write: false (nothing
   * written) when it is linked to another tenant already, so the first link stands whoever races.
   */
  setGrant(id: string, tenant: string, grant: NonNullable<ApplicationRecord['grant']>, now: number): Promise<boolean>;
  portfolio(): Promise<PortfolioCell[]>;

  /**
   * Holds the partner's row until the transaction ends (PostgreSQL), so changes of its team, mints
   * of its keys (counted against their limit) and links to a tenant are one at a time.
   */
  lockTeam(applicationId: string): Promise<void>;
  addMember(member: TeamMember): Promise<boolean>;
  members(applicationId: string): Promise<TeamMember[]>;
  member(id: string): Promise<TeamMember | undefined>;
  /** The members with this address whose partner is at one of `stages`, newest partner first. */
  membersByEmail(email: string, stages: readonly PartnerStage[]): Promise<TeamMember[]>;
  removeMember(applicationId: string, memberId: string): Promise<boolean>;
  setRole(applicationId: string, memberId: string, role: TeamRole): Promise<boolean>;

  createSession(tokenHash: string, memberId: string, now: number, expiresAt: number): Promise<void>;
  /** The member of a live session. */
  session(tokenHash: string, now: number): Promise<TeamMember | undefined>;
  endSession(tokenHash: string): Promise<void>;
  /** Ends every session of a member (removed), or of a whole team (its partner left). */
  endSessions(by: { memberId: string } | { applicationId: string }): Promise<void>;
  /** Deletes sessions that ended before `before`. */
  prune(before: number): Promise<void>;
}
