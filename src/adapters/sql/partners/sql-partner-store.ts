import { type Selectable, sql } from 'kysely';
import type { IntegrationScope, RateClass } from '../../../core/integration-scopes.ts';
import type { PartnerKind, PartnerStage, TeamRole } from '../../../core/partner-pipeline.ts';
import type {
  ApplicationPage,
  ApplicationRecord,
  PartnerStore,
  PortfolioCell,
  StageEntry,
  TeamMember,
} from '../../../ports/partner-store.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';
import { rowCodec } from '../row-codec.ts';
import type { PartnerApplicationsTable, PartnerTeamTable } from '../schema.ts';
import { newestFirst } from '../windowed.ts';

/** Everything but the grant, which two columns hold (both null: no grant yet). */
const applications = rowCodec<Omit<ApplicationRecord, 'grant'>, PartnerApplicationsTable>()(
  'id kind organisation contactName contactEmail country website useCase stage stageAt statusTokenHash tenant createdBy createdAt updatedAt',
  {},
);
const toApplication = (r: Selectable<PartnerApplicationsTable>): ApplicationRecord => ({
  ...applications.record(r),
  grant:
    r.grant_scopes === null || r.grant_rate_class === null
      ? null
      : { scopes: JSON.parse(r.grant_scopes) as IntegrationScope[], rateClass: r.grant_rate_class as RateClass },
});

const team = rowCodec<TeamMember, PartnerTeamTable>()('id applicationId email role addedBy addedAt', {});
const toMember = team.record;

const changed = (result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }) =>
  Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0n) === 1;

export class SqlPartnerStore implements PartnerStore {
  constructor(private readonly db: Db) {}

  async createApplication(a: ApplicationRecord): Promise<void> {
    await this.db
      .insertInto('partner_applications')
      .values({
        ...applications.row(a),
        grant_scopes: a.grant ? JSON.stringify(a.grant.scopes) : null,
        grant_rate_class: a.grant?.rateClass ?? null,
      })
      .execute();
  }

  async application(id: string): Promise<ApplicationRecord | undefined> {
    const row = await this.db.selectFrom('partner_applications').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toApplication(row);
  }

  async applications(page: ApplicationPage): Promise<ApplicationRecord[]> {
    let q = this.db.selectFrom('partner_applications').selectAll();
    if (page.stage !== undefined) q = q.where('stage', '=', page.stage);
    if (page.kind !== undefined) q = q.where('kind', '=', page.kind);
    if (page.tenant !== undefined) q = q.where('tenant', '=', page.tenant);
    const rows = await newestFirst(q, ['created_at', 'id'], page).execute();
    return rows.map(toApplication);
  }

  async moveStage(id: string, from: PartnerStage, to: PartnerStage, now: number): Promise<boolean> {
    return changed(
      await this.db
        .updateTable('partner_applications')
        .set({ stage: to, stage_at: now, updated_at: now })
        .where('id', '=', id)
        .where('stage', '=', from)
        .executeTakeFirst(),
    );
  }

  async appendHistory(e: Omit<StageEntry, 'seq'>): Promise<void> {
    // Called after the conditional move of the same application in the same transaction, which
    // holds its row: the next number cannot be taken twice.
    await this.db
      .insertInto('partner_stage_history')
      .columns(['application_id', 'seq', 'from_stage', 'to_stage', 'actor', 'note', 'at'])
      .expression(
        this.db
          .selectFrom('partner_stage_history')
          .select([
            sql.val(e.applicationId).as('application_id'),
            sql<number>`coalesce(max(seq), 0) + 1`.as('seq'),
            sql.val(e.from).as('from_stage'),
            sql.val(e.to).as('to_stage'),
            sql.val(e.actor).as('actor'),
            sql.val(e.note).as('note'),
            sql.val(e.at).as('at'),
          ])
          .where('application_id', '=', e.applicationId),
      )
      .execute();
  }

  async history(applicationId: string): Promise<StageEntry[]> {
    const rows = await this.db
      .selectFrom('partner_stage_history')
      .selectAll()
      .where('application_id', '=', applicationId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({
      applicationId: r.application_id,
      seq: Number(r.seq),
      from: r.from_stage as PartnerStage | null,
      to: r.to_stage as PartnerStage,
      actor: r.actor,
      note: r.note,
      at: Number(r.at),
    }));
  }

  async setGrant(id: string, tenant: string, grant: NonNullable<ApplicationRecord['grant']>, now: number): Promise<boolean> {
    // The tenant is part of the condition, not read before: two links at once to different
    // tenants cannot both pass a check of an unlinked row, the second one's write matches nothing.
    return changed(
      await this.db
        .updateTable('partner_applications')
        .set({ tenant, grant_scopes: JSON.stringify(grant.scopes), grant_rate_class: grant.rateClass, updated_at: now })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('tenant', 'is', null), eb('tenant', '=', tenant)]))
        .executeTakeFirst(),
    );
  }

  async portfolio(): Promise<PortfolioCell[]> {
    const rows = await this.db
      .selectFrom('partner_applications')
      .select((eb) => [
        'kind',
        'stage',
        eb.fn.countAll<number>().as('n'),
        eb.fn.min('stage_at').as('oldest'),
        eb.fn.avg('stage_at').as('mean'),
      ])
      .groupBy(['kind', 'stage'])
      .execute();
    return rows.map((r) => ({
      kind: r.kind as PartnerKind,
      stage: r.stage as PartnerStage,
      count: Number(r.n),
      oldestStageAt: Number(r.oldest),
      meanStageAt: Math.round(Number(r.mean)),
    }));
  }

  async lockTeam(applicationId: string): Promise<void> {
    // A write to the partner's own row takes its row lock on PostgreSQL; on SQLite the transaction
    // already holds the one writer's lock from its first write.
    await this.db
      .updateTable('partner_applications')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', applicationId)
      .execute();
  }

  async addMember(m: TeamMember): Promise<boolean> {
    return insertOnce(this.db, 'partner_team', team.row(m), ['application_id', 'email']);
  }

  async members(applicationId: string): Promise<TeamMember[]> {
    const rows = await this.db
      .selectFrom('partner_team')
      .selectAll()
      .where('application_id', '=', applicationId)
      .orderBy('added_at')
      .orderBy('id')
      .execute();
    return rows.map(toMember);
  }

  async member(id: string): Promise<TeamMember | undefined> {
    const row = await this.db.selectFrom('partner_team').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toMember(row);
  }

  async membersByEmail(email: string, stages: readonly PartnerStage[]): Promise<TeamMember[]> {
    const rows = await this.db
      .selectFrom('partner_team as t')
      .innerJoin('partner_applications as a', 'a.id', 't.application_id')
      .selectAll('t')
      .where('t.email', '=', email)
      .where('a.stage', 'in', [...stages])
      .orderBy('a.created_at', 'desc')
      .execute();
    return rows.map(toMember);
  }

  async removeMember(applicationId: string, memberId: string): Promise<boolean> {
    return changed(
      await this.db
        .deleteFrom('partner_team')
        .where('application_id', '=', applicationId)
        .where('id', '=', memberId)
        .executeTakeFirst(),
    );
  }

  async setRole(applicationId: string, memberId: string, role: TeamRole): Promise<boolean> {
    return changed(
      await this.db
        .updateTable('partner_team')
        .set({ role })
        .where('application_id', '=', applicationId)
        .where('id', '=', memberId)
        .executeTakeFirst(),
    );
  }

  async createSession(tokenHash: string, memberId: string, now: number, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('partner_sessions')
      .values({ token_hash: tokenHash, member_id: memberId, created_at: now, expires_at: expiresAt })
      .execute();
  }

  async session(tokenHash: string, now: number): Promise<TeamMember | undefined> {
    const row = await this.db
      .selectFrom('partner_sessions as s')
      .innerJoin('partner_team as t', 't.id', 's.member_id')
      .selectAll('t')
      .where('s.token_hash', '=', tokenHash)
      .where('s.expires_at', '>', now)
      .executeTakeFirst();
    return row && toMember(row);
  }

  async endSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('partner_sessions').where('token_hash', '=', tokenHash).execute();
  }

  async endSessions(by: { memberId: string } | { applicationId: string }): Promise<void> {
    if ('memberId' in by) {
      await this.db.deleteFrom('partner_sessions').where('member_id', '=', by.memberId).execute();
      return;
    }
    const team = this.db.selectFrom('partner_team').select('id').where('application_id', '=', by.applicationId);
    await this.db.deleteFrom('partner_sessions').where('member_id', 'in', team).execute();
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('partner_sessions').where('expires_at', '<', before).execute();
  }
}
