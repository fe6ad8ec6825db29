/**
 * Partner onboarding (docs/partners.md): the kinds of partner, the eight stages of an application
 * and the moves between them, and the roles of a partner's team in its portal.
 */
export const PARTNER_KINDS = ['issuer', 'relying-party', 'data-partner', 'wallet'] as const;
export type PartnerKind = (typeof PARTNER_KINDS)[number];

export const PARTNER_STAGES = [
  'applied',
  'screening',
  'due-diligence',
  'approved',
  'onboarding',
  'live',
  'rejected',
  'withdrawn',
] as const;
export type PartnerStage = (typeof PARTNER_STAGES)[number];

/** The stages an application goes through when all goes well, in order. */
export const FORWARD_STAGES: readonly PartnerStage[] = PARTNER_STAGES.filter((s) => s !== 'rejected' && s !== 'withdrawn');

/**
 * Where an application may go from each stage. Forward one stage at a time; out (`rejected` by
 * the platform, `withdrawn` by the partner's word) from anywhere before `live`, and a live partner
 * can only withdraw. `rejected` and `withdrawn` are final.
 */
export const TRANSITIONS: Readonly<Record<PartnerStage, readonly PartnerStage[]>> = {
  applied: ['screening', 'rejected', 'withdrawn'],
  screening: ['due-diligence', 'rejected', 'withdrawn'],
  'due-diligence': ['approved', 'rejected', 'withdrawn'],
  approved: ['onboarding', 'rejected', 'withdrawn'],
  onboarding: ['live', 'rejected', 'withdrawn'],
  live: ['withdrawn'],
  rejected: [],
  withdrawn: [],
};

/** Stages an application waits in for the platform's review, before it is approved. */
export const REVIEW_STAGES: readonly PartnerStage[] = FORWARD_STAGES.slice(0, FORWARD_STAGES.indexOf('approved'));

export const canMove = (from: PartnerStage, to: PartnerStage): boolean => TRANSITIONS[from].includes(to);

/** Stages from which a partner's team signs in to the portal and its keys work: approved or later. */
export const SIGNED_IN_STAGES: readonly PartnerStage[] = ['approved', 'onboarding', 'live'];

/**
 * A partner's team in the portal: `admin` manages the team and keys, `developer` mints, rotates
 * and revokes keys, `viewer` reads the overview and the keys' list. The applicant's contact is the
 * first admin.
 */
export const TEAM_ROLES = ['admin', 'developer', 'viewer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** A partner session's roles on the operator plane: the team role, named so no operator role can be confused with it. */
export type PartnerRole = `partner-${TeamRole}`;
export const partnerRole = (role: TeamRole): PartnerRole => `partner-${role}`;
export const PARTNER_READ: readonly PartnerRole[] = ['partner-admin', 'partner-developer', 'partner-viewer'];
export const PARTNER_KEYS: readonly PartnerRole[] = ['partner-admin', 'partner-developer'];
export const PARTNER_TEAM: readonly PartnerRole[] = ['partner-admin'];
