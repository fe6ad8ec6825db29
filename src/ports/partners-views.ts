import type { Counted } from './view-records.ts';

/**
 * What the partners module's tables (the applications and their pipeline) publish to other
 * modules (docs/architecture.md, "Tables, owners and views"): reads only, never a contact. An
 * application has no tenant before it is linked: these reads are the platform's.
 */
export interface PartnersViews {
  /** Applications in one of `stages`: how many, and the `top` longest in their stage. */
  inStages(stages: readonly string[], top: number): Promise<Counted<ApplicationInStage>>;
}

export interface ApplicationInStage {
  applicationId: string;
  organisation: string;
  kind: string;
  stage: string;
  stageAt: number;
}
