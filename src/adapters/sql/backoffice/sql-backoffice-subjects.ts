import type {
  AuditMark,
  CredentialFilter,
  CredentialRow,
  OfferRow,
  Subject,
  SubjectViews,
  TimelineCursor,
  TimelineEntry,
} from '../../../ports/backoffice-views.ts';
import type { Db } from '../connect.ts';
import { inTenant, inWindow, pastCursor } from '../windowed.ts';
import { CREDENTIAL_COLUMNS, num, OFFER_COLUMNS, toCredential, toOffer } from './sql-backoffice-rows.ts';
import { readTimeline } from './sql-backoffice-timeline.ts';

/**
 * One credential, offer or subject as the support desk reads it: its row, the audit entries that
 * mark it, its timeline (backoffice/sql-backoffice-timeline.ts), and the credentials list
 * (docs/backoffice/views.md). Read-only. The offers' `subject` column (claim values until the
 * credential is collected) is never selected.
 */
export class SqlSubjectViews implements SubjectViews {
  constructor(private readonly db: Db) {}

  async offer(id: string, tenant: string | null): Promise<OfferRow | undefined> {
    const row = await this.db
      .selectFrom('offers')
      .select(OFFER_COLUMNS)
      .where('id', '=', id)
      .where(inTenant(tenant))
      .executeTakeFirst();
    return row && toOffer(row);
  }

  async credential(id: string, tenant: string | null): Promise<CredentialRow | undefined> {
    const row = await this.db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .where('id', '=', id)
      .where(inTenant(tenant))
      .executeTakeFirst();
    return row && toCredential(row);
  }

  async auditMark(action: string, target: string, tenant: string | null): Promise<AuditMark | undefined> {
    const row = await this.db
      .selectFrom('audit_log')
      .select(['seq', 'at', 'actor'])
      .where('target', '=', target)
      .where('action', '=', action)
      .where(inTenant(tenant))
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    return row && { seq: num(row.seq), at: num(row.at), actor: row.actor };
  }

  timeline(subject: Subject, tenant: string | null, cursor: TimelineCursor | undefined, limit: number): Promise<TimelineEntry[]> {
    return readTimeline(this.db, subject, tenant, cursor, limit, (id) => this.credential(id, tenant));
  }

  async credentials(f: CredentialFilter): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .where(inTenant(f.tenant))
      .$if(f.typeId !== undefined, (qb) => qb.where('type_id', '=', f.typeId as string))
      .$if(f.status === 'valid', (qb) => qb.where('revoked_at', 'is', null))
      .$if(f.status === 'revoked', (qb) => qb.where('revoked_at', 'is not', null))
      .where(inWindow('issued_at', f))
      .where(pastCursor(['issued_at', 'id'], f.after, 'desc'))
      .orderBy('issued_at', 'desc')
      .orderBy('id', 'desc')
      .limit(f.limit)
      .execute();
    return rows.map(toCredential);
  }
}
