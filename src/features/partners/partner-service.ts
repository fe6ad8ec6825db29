import type { Static } from '@sinclair/typebox';
import { type Actor, actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { IntegrationScope, RateClass } from '../../core/integration-scopes.ts';
import { canMove, type PartnerKind, type PartnerStage, SIGNED_IN_STAGES, TRANSITIONS } from '../../core/partner-pipeline.ts';
import type { Random } from '../../core/random.ts';
import { constantTimeEqual, hashToken } from '../../core/secrets.ts';
import type { PartnerKeyWrites } from '../../ports/integration-token-store.ts';
import type { Mailer } from '../../ports/mailer.ts';
import type { ApplicationPage, ApplicationRecord, PartnerStore, StageEntry, TeamMember } from '../../ports/partner-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { PreparedTenant } from '../tenants/tenant-service.ts';
import type { ApplicationBody } from './schemas.ts';

/** What an applicant (or an operator on its behalf) gives: the intake's fixed body. */
export type ApplicationInput = Static<typeof ApplicationBody>;

export interface GrantInput {
  tenant?: string | undefined;
  tenantName?: string | undefined;
  scopes: IntegrationScope[];
  rateClass: RateClass;
}

const iso = (ms: number) => new Date(ms).toISOString();
const unknownApplication = () =>
  new ServiceError('unknown_application', 'No partner application matches this id and status token.');
/** The same refusal for an id that does not exist, for the operator views. */
const unknownPartner = () => new ServiceError('unknown_application', 'No partner application has this id.');

/** The applicant's view of the history: stages and times, never who moved it or the internal note. */
const publicHistory = (history: StageEntry[]) => history.map((h) => ({ stage: h.to, at: iso(h.at) }));

export const applicationView = (a: ApplicationRecord) => ({
  applicationId: a.id,
  kind: a.kind,
  organisation: a.organisation,
  contactName: a.contactName,
  contactEmail: a.contactEmail,
  country: a.country,
  website: a.website,
  useCase: a.useCase,
  stage: a.stage,
  stageSince: iso(a.stageAt),
  tenant: a.tenant,
  grant: a.grant,
  createdBy: a.createdBy,
  createdAt: iso(a.createdAt),
  updatedAt: iso(a.updatedAt),
});

const memberView = (m: TeamMember) => ({ memberId: m.id, email: m.email, role: m.role, addedAt: iso(m.addedAt) });

export interface PartnerServiceDeps {
  store: PartnerStore;
  uow: UnitOfWork;
  tenants: {
    exists(slug: string): Promise<boolean>;
    /** Checks a new tenant's name and makes its slug and key, before the unit of work opens. */
    prepareCreation(name: string): Promise<PreparedTenant>;
    /** Makes the prepared tenant in the caller's unit of work (the tenants module's service joins it). */
    createIn(prepared: PreparedTenant, actor: Actor): Promise<{ slug: string }>;
  };
  mailer: Mailer;
  platform: { name: string; origin: string };
  clock: Clock;
  random: Random;
  ids: Ids;
  warn: (message: string, err: unknown) => void;
  /** The integration module's service: a partner's keys revoked when it leaves or its grant narrows. */
  keys: Pick<PartnerKeyWrites, 'revokePartnerKeys'>;
}

/**
 * Partner onboarding (docs/partners.md): the public intake and status, and the pipeline operators
 * run: stages moved by the transition table, each move recorded with its actor and audited, and
 * the link to a tenant with the grant that bounds the partner's keys.
 */
export class PartnerService {
  constructor(private readonly deps: PartnerServiceDeps) {}

  /**
   * A new application at stage `applied`, with its contact as the first admin of its team. The
   * status token is answered once; only its hash is kept. The acknowledgement is mailed after the
   * commit: a mail that fails is logged, and the applicant still has its id and token.
   */
  async apply(input: ApplicationInput, actor: Actor) {
    const now = this.deps.clock.now();
    const statusToken = this.deps.random.text(32);
    const application: ApplicationRecord = {
      id: this.deps.ids.mint('application'),
      kind: input.kind,
      organisation: input.organisation.trim(),
      contactName: input.contactName.trim(),
      contactEmail: input.contactEmail.trim().toLowerCase(),
      country: input.country?.toUpperCase() ?? null,
      website: input.website ?? null,
      useCase: input.useCase.trim(),
      stage: 'applied',
      stageAt: now,
      statusTokenHash: hashToken(statusToken),
      tenant: null,
      grant: null,
      createdBy: actorLabel(actor),
      createdAt: now,
      updatedAt: now,
    };
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      await this.deps.store.createApplication(application);
      await this.deps.store.appendHistory({
        applicationId: application.id,
        from: null,
        to: 'applied',
        actor: application.createdBy,
        note: null,
        at: now,
      });
      await this.deps.store.addMember({
        id: this.deps.ids.mint('teamMember'),
        applicationId: application.id,
        email: application.contactEmail,
        role: 'admin',
        addedBy: application.createdBy,
        addedAt: now,
      });
      return audit.append(
        { actor, action: 'partner.applied', tenant: null, target: application.id, detail: { kind: application.kind } },
        [
          {
            type: 'partner.stage_changed',
            tenant: 'root',
            data: { applicationId: application.id, kind: application.kind, from: null, to: 'applied' },
          },
        ],
      );
    });
    await this.deps.mailer
      .send({
        to: application.contactEmail,
        subject: `${this.deps.platform.name}: we received your partner application`,
        text: [
          `Hello ${application.contactName},`,
          '',
          `Thank you for applying to the ${this.deps.platform.name} partner programme as ${kindWords[application.kind]} for ${application.organisation}.`,
          `Your application is ${application.id}. It starts at the "applied" stage; our operators screen it next.`,
          '',
          `Follow it at ${this.deps.platform.origin}/partners/status with the application id and the status token you were shown when you applied.`,
          'We never send the status token by mail: keep it where you keep other credentials.',
          '',
          `${this.deps.platform.name} (${this.deps.platform.origin})`,
        ].join('\n'),
      })
      .catch((err) => this.deps.warn('the partner application acknowledgement could not be mailed', err));
    return { applicationId: application.id, statusToken, auditSeq };
  }

  /** The applicant reads its own application; a wrong id and a wrong token are one refusal. */
  async status(applicationId: string, statusToken: string) {
    const found = await this.deps.store.application(applicationId);
    const presented = hashToken(statusToken);
    if (!found || !constantTimeEqual(presented, found.statusTokenHash)) throw unknownApplication();
    return {
      applicationId: found.id,
      kind: found.kind,
      organisation: found.organisation,
      stage: found.stage,
      stageSince: iso(found.stageAt),
      submittedAt: iso(found.createdAt),
      history: publicHistory(await this.deps.store.history(found.id)),
    };
  }

  /** Newest first, on the back office's list convention (`tenant`: the applications linked to it). */
  applications(page: ApplicationPage): Promise<ApplicationRecord[]> {
    return this.deps.store.applications(page);
  }

  async get(id: string) {
    const found = await this.deps.store.application(id);
    if (!found) throw unknownPartner();
    const history = await this.deps.store.history(id);
    return {
      ...applicationView(found),
      allowedStages: [...TRANSITIONS[found.stage]],
      history: history.map((h) => ({ from: h.from, to: h.to, actor: h.actor, note: h.note, at: iso(h.at) })),
      team: (await this.deps.store.members(id)).map(memberView),
    };
  }

  /**
   * Moves the application by the transition table, in one conditional write, with its history
   * entry, audit entry and `partner.stage_changed` event. A partner that is rejected or withdraws
   * loses its keys and its team's sessions in the same transaction.
   */
  async move(actor: Actor, id: string, to: PartnerStage, note: string | null) {
    const found = await this.deps.store.application(id);
    if (!found) throw unknownPartner();
    if (!canMove(found.stage, to)) throw illegal(found.stage, to);
    const now = this.deps.clock.now();
    const label = actorLabel(actor);
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.store.moveStage(id, found.stage, to, now))) {
        const current = (await this.deps.store.application(id))?.stage ?? found.stage;
        throw illegal(current, to);
      }
      await this.deps.store.appendHistory({ applicationId: id, from: found.stage, to, actor: label, note, at: now });
      let revokedKeys: string[] = [];
      if (!SIGNED_IN_STAGES.includes(to)) {
        revokedKeys = await this.deps.keys.revokePartnerKeys(id, label, now);
        await this.deps.store.endSessions({ applicationId: id });
      }
      return audit.append(
        {
          actor,
          action: 'partner.stage_changed',
          tenant: found.tenant,
          target: id,
          detail: { from: found.stage, to, ...(revokedKeys.length > 0 ? { revokedKeys } : {}) },
        },
        [{ type: 'partner.stage_changed', tenant: 'root', data: { applicationId: id, kind: found.kind, from: found.stage, to } }],
      );
    });
    return { ok: true as const, auditSeq, partner: applicationView((await this.deps.store.application(id)) ?? found) };
  }

  /**
   * Links an approved (or later) partner to a tenant, created here when `tenantName` is given, and
   * attaches its grant. Keys already minted outside a narrowed grant are revoked with it. A partner
   * stays with the tenant it was first linked to.
   */
  async linkTenant(actor: Actor, id: string, input: GrantInput) {
    const found = await this.deps.store.application(id);
    if (!found) throw unknownPartner();
    if (!SIGNED_IN_STAGES.includes(found.stage)) {
      throw new ServiceError('partner_not_approved', `The partner is at stage ${found.stage}; link it once it is approved.`);
    }
    if ((input.tenant === undefined) === (input.tenantName === undefined)) {
      throw new ServiceError('invalid_request', 'Name exactly one of tenant (an existing one) and tenantName (a new one).');
    }
    if (input.tenant !== undefined && !(await this.deps.tenants.exists(input.tenant))) {
      throw new ServiceError('unknown_tenant', `No tenant has the slug "${input.tenant}".`);
    }
    const linked = (to: string) =>
      new ServiceError('partner_linked', `The partner is linked to tenant ${to}; its grant can change, its tenant cannot.`);
    const refused = (to: string | null) => to !== null && (input.tenantName !== undefined || input.tenant !== to);
    if (refused(found.tenant)) throw linked(found.tenant as string);
    const scopes = [...new Set(input.scopes)].sort();
    const grant = { scopes, rateClass: input.rateClass };
    const now = this.deps.clock.now();
    const label = actorLabel(actor);
    // A new tenant's slug and key are made before the transaction, which never waits for them.
    const prepared = input.tenantName === undefined ? undefined : await this.deps.tenants.prepareCreation(input.tenantName);
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      // The row is held, then read again: of links at once, each waits here for the one before
      // and finds its tenant, as it would one after another. So a refused link makes no tenant:
      // the new one is made in this transaction, after the check.
      await this.deps.store.lockTeam(id);
      const current = (await this.deps.store.application(id))?.tenant ?? null;
      if (refused(current)) throw linked(current as string);
      const tenant = input.tenant ?? (await this.deps.tenants.createIn(prepared as PreparedTenant, actor)).slug;
      // Conditional as well: the first link stands even for a caller that does not hold the row.
      if (!(await this.deps.store.setGrant(id, tenant, grant, now))) throw linked(current ?? 'another tenant');
      const inside = (t: { scopes: IntegrationScope[]; rateClass: RateClass }) =>
        t.rateClass === grant.rateClass && t.scopes.every((s) => scopes.includes(s));
      const revokedKeys = await this.deps.keys.revokePartnerKeys(id, label, now, inside);
      return audit.append({
        actor,
        action: 'partner.linked',
        tenant,
        target: id,
        detail: { scopes, rateClass: grant.rateClass, created: input.tenantName !== undefined, revokedKeys },
      });
    });
    return { ok: true as const, auditSeq, partner: applicationView((await this.deps.store.application(id)) ?? found) };
  }

  /** Partners by kind and stage, and how long they have been in their stage (days). */
  async portfolio() {
    const now = this.deps.clock.now();
    const days = (ms: number) => Math.round((ms / 86_400_000) * 10) / 10;
    const cells = await this.deps.store.portfolio();
    return {
      total: cells.reduce((n, c) => n + c.count, 0),
      cells: cells
        .sort((a, b) => a.kind.localeCompare(b.kind) || a.stage.localeCompare(b.stage))
        .map((c) => ({
          kind: c.kind,
          stage: c.stage,
          count: c.count,
          meanDaysInStage: days(now - c.meanStageAt),
          longestDaysInStage: days(now - c.oldestStageAt),
        })),
    };
  }
}

const kindWords: Record<PartnerKind, string> = {
  issuer: 'an issuer',
  'relying-party': 'a relying party',
  'data-partner': 'a data partner',
  wallet: 'a wallet',
};

function illegal(from: PartnerStage, to: PartnerStage): ServiceError {
  const allowed = TRANSITIONS[from];
  return new ServiceError(
    'illegal_transition',
    `A partner at stage ${from} cannot move to ${to}; ${allowed.length === 0 ? `${from} is final` : `it can move to: ${allowed.join(', ')}`}.`,
  );
}
