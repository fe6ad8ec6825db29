import { type Actor, actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import { type IntegrationScope, RATE_CLASSES, ratePolicyOf, windowStart } from '../../core/integration-scopes.ts';
import { SIGNED_IN_STAGES, type TeamRole } from '../../core/partner-pipeline.ts';
import type { Random } from '../../core/random.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import type { AnonymousGate } from '../../http/auth/anonymous-gate.ts';
import { INTEGRATION_TOKEN_PREFIX, PARTNER_SESSION_PREFIX, type PartnerSessionInfo } from '../../http/auth/operator-bearer.ts';
import type { IntegrationTokenRecord, PartnerKeyWrites, RateBudget } from '../../ports/integration-token-store.ts';
import type { IntegrationViews } from '../../ports/integration-views.ts';
import type { PartnerStore, TeamMember } from '../../ports/partner-store.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';
import { mintToken } from '../integration/token-service.ts';
import { CODE_TTL_MS, invalidCode, type MailedCodes } from '../onboarding/mailed-codes.ts';

export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
/** A partner may keep this many active keys. */
export const MAX_ACTIVE_KEYS = 20;
export const MAX_TEAM = 25;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const unknownKey = () => new ServiceError('unknown_token', 'Your partner has no key with this id.');
const unknownMember = () => new ServiceError('unknown_team_member', 'Your team has no member with this id.');
const lastAdmin = () => new ServiceError('last_admin', 'The team needs an admin: make another member admin first.');

export const keyView = (t: IntegrationTokenRecord) => ({
  id: t.id,
  label: t.label,
  tenant: t.tenant,
  scopes: t.scopes,
  rateClass: t.rateClass,
  state: t.state,
  createdBy: t.createdBy,
  createdAt: new Date(t.createdAt).toISOString(),
  rotatedAt: iso(t.rotatedAt),
  revokedAt: iso(t.revokedAt),
});

export const teamView = (m: TeamMember) => ({ memberId: m.id, email: m.email, role: m.role, addedAt: iso(m.addedAt) });

export interface PartnerAccessDeps {
  store: PartnerStore;
  /** The integration module's keys: its views to read a partner's, its service to change them. */
  integration: { views: IntegrationViews; keys: PartnerKeyWrites };
  uow: UnitOfWork;
  codes: MailedCodes;
  /** The keys' rate windows, read for their usage. */
  budget: RateBudget;
  budgets: AnonymousGate;
  platform: { name: string; origin: string };
  clock: Clock;
  random: Random;
  ids: Ids;
  warn: (message: string, err: unknown) => void;
}

/**
 * What a partner's team does for itself (docs/partners.md): signs in with a code mailed to a
 * member's address, mints, rotates and revokes keys inside the grant an operator attached, and
 * manages its members. The partner comes from the session, the tenant from the stored grant:
 * never from the request.
 */
export class PartnerAccess {
  constructor(private readonly deps: PartnerAccessDeps) {}

  private contactKey(email: string): string {
    return this.deps.codes.keyOf(`partner:${email}`);
  }

  /**
   * Answers at once and the same whether or not the address belongs to a partner's team: the
   * code is mailed afterwards, only to a member of an approved (or later) partner, so neither the
   * answer nor its timing tells who is a member.
   */
  async start(contactEmail: string, address: string): Promise<Record<string, string>> {
    const email = contactEmail.trim().toLowerCase();
    const key = this.contactKey(email);
    // Per address, per contact (whether or not it is a member) and for the deployment (docs/security.md).
    const limits = await this.deps.budgets.spend('partner-signin', address, key);
    void this.mailCode(email, key).catch((err) => this.deps.warn('a partner sign-in code could not be mailed', err));
    return limits;
  }

  private async mailCode(email: string, key: string): Promise<void> {
    const [member] = await this.deps.store.membersByEmail(email, SIGNED_IN_STAGES);
    if (!member) return;
    await this.deps.codes.send(key, email, `Your ${this.deps.platform.name} partner portal code`, (code) =>
      [
        `Your code is ${code}.`,
        '',
        `Enter it at ${this.deps.platform.origin}/portal/signin to sign in to the partner portal. It works once, for ${CODE_TTL_MS / 60_000} minutes.`,
        'If you did not ask for it, ignore this mail: nothing happens without the code.',
        '',
        `${this.deps.platform.name} (${this.deps.platform.origin})`,
      ].join('\n'),
    );
  }

  /** Exchanges a mailed code for a session bearer of the member's partner. */
  async verify(contactEmail: string, code: string) {
    const email = contactEmail.trim().toLowerCase();
    const challenge = await this.deps.codes.check(this.contactKey(email), code);
    const [member] = await this.deps.store.membersByEmail(email, SIGNED_IN_STAGES);
    if (!member) throw invalidCode();
    await this.deps.codes.spend(challenge);
    const partner = await this.deps.store.application(member.applicationId);
    const now = this.deps.clock.now();
    const token = newToken(this.deps.random, PARTNER_SESSION_PREFIX);
    await this.deps.store.createSession(hashToken(token), member.id, now, now + SESSION_TTL_MS);
    return { token, expiresIn: SESSION_TTL_MS / 1000, tenant: partner?.tenant ?? null };
  }

  async signOut(token: string): Promise<void> {
    await this.deps.store.endSession(hashToken(token));
  }

  /** The portal's overview: the partner, its grant, and each active key's use of its rate class now. */
  async overview(session: PartnerSessionInfo) {
    const partner = await this.deps.store.application(session.applicationId);
    if (!partner) throw new ServiceError('unknown_application', 'No partner application has this id.');
    const keys = await this.keys(session);
    const now = this.deps.clock.now();
    const usage = await Promise.all(
      keys
        .filter((k) => k.state === 'active')
        .map(async (k) => {
          const policy = ratePolicyOf(k.rateClass);
          const start = windowStart(now, policy);
          return {
            keyId: k.id,
            label: k.label,
            used: await this.deps.budget.used(k.id, start),
            quota: policy.quota,
            windowSeconds: policy.windowSeconds,
            windowEndsAt: new Date(start + policy.windowSeconds * 1000).toISOString(),
          };
        }),
    );
    return {
      partner: {
        applicationId: partner.id,
        organisation: partner.organisation,
        kind: partner.kind,
        stage: partner.stage,
        stageSince: new Date(partner.stageAt).toISOString(),
        tenant: partner.tenant,
        grant: partner.grant && {
          scopes: partner.grant.scopes,
          rateClass: partner.grant.rateClass,
          quota: RATE_CLASSES[partner.grant.rateClass].quota,
          windowSeconds: RATE_CLASSES[partner.grant.rateClass].windowSeconds,
        },
      },
      signedInAs: { email: session.email },
      usage,
    };
  }

  async keys(session: PartnerSessionInfo) {
    const rows = await this.deps.integration.views.partnerKeys(session.applicationId, 200);
    return rows.map(keyView);
  }

  /** A key inside the grant: its scopes a subset of the grant's, the grant's rate class and tenant. */
  async mint(session: PartnerSessionInfo, actor: Actor, input: { label: string; scopes: IntegrationScope[] }) {
    const partner = await this.deps.store.application(session.applicationId);
    if (!partner?.tenant || !partner.grant) {
      throw new ServiceError('no_grant', 'Your partner has no tenant and grant yet: an operator links it first.');
    }
    const scopes = [...new Set(input.scopes)].sort();
    const outside = scopes.filter((s) => !partner.grant?.scopes.includes(s));
    if (outside.length > 0) {
      throw new ServiceError(
        'outside_grant',
        `Your grant does not include: ${outside.join(', ')}. It allows: ${partner.grant.scopes.join(', ')}.`,
      );
    }
    const { record, secret } = mintToken(
      this.deps.random,
      this.deps.ids.mint('integrationToken'),
      {
        tenant: partner.tenant,
        label: input.label.trim(),
        scopes,
        rateClass: partner.grant.rateClass,
        requestId: null,
        createdBy: actorLabel(actor),
        partnerId: partner.id,
      },
      this.deps.clock.now(),
    );
    const tokens = this.deps.integration.keys;
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      // Counted under the partner's row: of mints at once, each counts the keys the ones before
      // it committed, so together they cannot pass the limit (a count read before the
      // transaction, or beside another's uncommitted key, would let them all through).
      await this.deps.store.lockTeam(session.applicationId);
      if ((await tokens.activePartnerKeys(session.applicationId)) >= MAX_ACTIVE_KEYS) {
        throw new ServiceError('conflict', `A partner keeps at most ${MAX_ACTIVE_KEYS} active keys; revoke one first.`);
      }
      await tokens.createToken(record);
      return audit.append({
        actor,
        action: 'partner_key.minted',
        tenant: record.tenant,
        target: record.id,
        detail: { partnerId: partner.id, scopes, rateClass: record.rateClass },
      });
    });
    return { ok: true as const, auditSeq, key: { ...keyView(record), secret } };
  }

  private async ownKey(session: PartnerSessionInfo, id: string): Promise<IntegrationTokenRecord> {
    const found = await this.deps.integration.views.key(id);
    if (!found || found.partnerId !== session.applicationId) throw unknownKey();
    return found;
  }

  async revoke(session: PartnerSessionInfo, actor: Actor, id: string) {
    const found = await this.ownKey(session, id);
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.integration.keys.revoke(id, found.tenant, actorLabel(actor), this.deps.clock.now()))) {
        throw new ServiceError('token_revoked', 'The key is already revoked.');
      }
      return audit.append({ actor, action: 'partner_key.revoked', tenant: found.tenant, target: id });
    });
    return { ok: true as const, auditSeq, key: keyView((await this.deps.integration.views.key(id)) ?? found) };
  }

  /** A new secret for the same key; the old one stops working at once, on every process. */
  async rotate(session: PartnerSessionInfo, actor: Actor, id: string) {
    const found = await this.ownKey(session, id);
    const secret = newToken(this.deps.random, INTEGRATION_TOKEN_PREFIX);
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.integration.keys.rotate(id, found.tenant, hashToken(secret), this.deps.clock.now()))) {
        throw new ServiceError('token_revoked', 'A revoked key cannot be rotated.');
      }
      return audit.append({ actor, action: 'partner_key.rotated', tenant: found.tenant, target: id });
    });
    return { ok: true as const, auditSeq, key: { ...keyView((await this.deps.integration.views.key(id)) ?? found), secret } };
  }

  async team(session: PartnerSessionInfo) {
    return (await this.deps.store.members(session.applicationId)).map(teamView);
  }

  /**
   * Runs a change of the team with the team held: the partner's row is locked first (on
   * PostgreSQL; SQLite has one writer), so the team read inside is the one the change applies to,
   * and two admins removing each other at once cannot leave the team without an admin.
   */
  private changeTeam<T>(session: PartnerSessionInfo, work: (recorders: Recorders, team: TeamMember[]) => Promise<T>) {
    return this.deps.uow.run(async (recorders) => {
      await this.deps.store.lockTeam(session.applicationId);
      return work(recorders, await this.deps.store.members(session.applicationId));
    });
  }

  async addMember(session: PartnerSessionInfo, actor: Actor, input: { email: string; role: TeamRole }) {
    const member: TeamMember = {
      id: this.deps.ids.mint('teamMember'),
      applicationId: session.applicationId,
      email: input.email.trim().toLowerCase(),
      role: input.role,
      addedBy: actorLabel(actor),
      addedAt: this.deps.clock.now(),
    };
    const auditSeq = await this.changeTeam(session, async ({ audit }, team) => {
      if (team.length >= MAX_TEAM) throw new ServiceError('conflict', `A team has at most ${MAX_TEAM} members.`);
      if (!(await this.deps.store.addMember(member))) {
        throw new ServiceError('team_member_exists', `${member.email} is already on your team.`);
      }
      return audit.append({
        actor,
        action: 'partner_team.added',
        tenant: null,
        target: member.id,
        detail: { partnerId: session.applicationId, role: member.role },
      });
    });
    return { ok: true as const, auditSeq, member: teamView(member) };
  }

  async removeMember(session: PartnerSessionInfo, actor: Actor, memberId: string) {
    const auditSeq = await this.changeTeam(session, async ({ audit }, team) => {
      const target = team.find((m) => m.id === memberId);
      if (!target) throw unknownMember();
      if (target.role === 'admin' && team.filter((m) => m.role === 'admin').length === 1) throw lastAdmin();
      if (!(await this.deps.store.removeMember(session.applicationId, memberId))) throw unknownMember();
      await this.deps.store.endSessions({ memberId });
      return audit.append({
        actor,
        action: 'partner_team.removed',
        tenant: null,
        target: memberId,
        detail: { partnerId: session.applicationId },
      });
    });
    return { ok: true as const, auditSeq };
  }

  async setRole(session: PartnerSessionInfo, actor: Actor, memberId: string, role: TeamRole) {
    let changed: TeamMember | undefined;
    const auditSeq = await this.changeTeam(session, async ({ audit }, team) => {
      const target = team.find((m) => m.id === memberId);
      if (!target) throw unknownMember();
      if (target.role === 'admin' && role !== 'admin' && team.filter((m) => m.role === 'admin').length === 1) {
        throw lastAdmin();
      }
      if (!(await this.deps.store.setRole(session.applicationId, memberId, role))) throw unknownMember();
      changed = { ...target, role };
      return audit.append({
        actor,
        action: 'partner_team.role_changed',
        tenant: null,
        target: memberId,
        detail: { partnerId: session.applicationId, role },
      });
    });
    return { ok: true as const, auditSeq, member: teamView(changed as TeamMember) };
  }

  prune(now: number): Promise<void> {
    return this.deps.store.prune(now - 24 * 60 * 60 * 1000);
  }
}
