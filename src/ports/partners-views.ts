import type { IntegrationScope, RateClass } from '../core/integration-scopes.ts';
import type { PartnerStage, TeamRole } from '../core/partner-pipeline.ts';
import type { Counted } from './view-records.ts';

/**
 * What the partners module's tables (the applications and their pipeline) publish to other
 * modules (docs/architecture.md, "Tables, owners and views"): reads only, never a contact (but a
 * signed-in member's own address, which the session's principal carries). An
 * application has no tenant before it is linked: `inStages` is the platform's read; a `tenant`
 * narrows to the applications linked to it (null: every application).
 *
 * @tenantOwned
 */
export interface PartnersViews {
  /** Applications in one of `stages`: how many, and the `top` longest in their stage. */
  inStages(stages: readonly string[], top: number): Promise<Counted<ApplicationInStage>>;
  /** Applications whose id starts with `q` or whose organisation contains it (any case), newest first, at most `cap`. */
  search(q: string, tenant: string | null, cap: number): Promise<PartnerHit[]>;
  /** The ids of the partner team members with this e-mail address (any case), by id. */
  memberIdsByEmail(email: string): Promise<string[]>;
  /**
   * The team member a partner session bearer (by its hash) signs in, while the session lives, with
   * its partner's stage, tenant and grant, whatever the stage: the operator plane admits a partner
   * approved or later only (http/auth/operator-bearer.ts).
   */
  partnerSession(tokenHash: string, now: number): Promise<PartnerSession | undefined>;
}

export interface PartnerSession {
  memberId: string;
  applicationId: string;
  email: string;
  role: TeamRole;
  stage: PartnerStage;
  tenant: string | null;
  grant: { scopes: IntegrationScope[]; rateClass: RateClass } | null;
}

export interface ApplicationInStage {
  applicationId: string;
  organisation: string;
  kind: string;
  stage: string;
  stageAt: number;
}

export interface PartnerHit {
  applicationId: string;
  organisation: string;
  kind: string;
  stage: string;
  tenant: string | null;
}
