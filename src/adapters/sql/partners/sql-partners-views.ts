import type { ApplicationInStage, PartnersViews } from '../../../ports/partners-views.ts';
import type { Counted } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { counted } from '../counted.ts';

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
}
