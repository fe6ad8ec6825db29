import { type SqlBool, sql } from 'kysely';
import type { ApplicationInStage, PartnerHit, PartnerSession, PartnersViews } from '../../../ports/partners-views.ts';
import type { Counted } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { counted } from '../counted.ts';
import { containsCi, startsWith } from '../text-match.ts';
import { inTenant } from '../windowed.ts';
import { SqlPartnerStore } from './sql-partner-store.ts';

/** The partners module's published views (ports/partners-views.ts). */
export class SqlPartnersViews implements PartnersViews {
  constructor(private readonly db: Db) {}

  async inStages(stages: readonly string[], top: number): Promise<Counted<ApplicationInStage>> {
    const base = this.db.selectFrom('partner_applications').where('stage', 'in', [...stages]);
    return counted(
      base,
      (query) =>
        query.select(['id', 'organisation', 'kind', 'stage', 'stage_at']).orderBy('stage_at').orderBy('id').limit(top).execute(),
      (r) => ({
        applicationId: r.id,
        organisation: r.organisation,
        kind: r.kind,
        stage: r.stage,
        stageAt: Number(r.stage_at),
      }),
    );
  }

  async search(q: string, tenant: string | null, cap: number): Promise<PartnerHit[]> {
    const rows = await this.db
      .selectFrom('partner_applications')
      .select(['id', 'organisation', 'kind', 'stage', 'tenant'])
      .where((eb) => eb.or([startsWith('id', q), containsCi('organisation', q)]))
      .where(inTenant(tenant))
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(cap)
      .execute();
    return rows.map((r) => ({
      applicationId: r.id,
      organisation: r.organisation,
      kind: r.kind,
      stage: r.stage,
      tenant: r.tenant,
    }));
  }

  async memberIdsByEmail(email: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('partner_team')
      .select('id')
      .where(sql<SqlBool>`lower(email) = ${email.toLowerCase()}`)
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  async partnerSession(tokenHash: string, now: number): Promise<PartnerSession | undefined> {
    const store = new SqlPartnerStore(this.db);
    const member = await store.session(tokenHash, now);
    const partner = member && (await store.application(member.applicationId));
    if (!member || !partner) return undefined;
    const { id: memberId, applicationId, email, role } = member;
    return { memberId, applicationId, email, role, stage: partner.stage, tenant: partner.tenant, grant: partner.grant };
  }
}
