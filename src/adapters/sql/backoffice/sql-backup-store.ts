import type { PageWindow } from '../../../core/page.ts';
import type { BackupRecord, BackupStore, DrillRecord } from '../../../ports/backup-store.ts';
import type { Db } from '../connect.ts';
import { bool, json, num, rowCodec } from '../row-codec.ts';
import type { BackupDrillsTable, BackupsTable } from '../schema.ts';
import { newestFirst } from '../windowed.ts';

const backups = rowCodec<BackupRecord, BackupsTable>()('id takenBy engine file sha256', {
  takenAt: num,
  bytes: num,
  tookMs: num,
  manifest: json,
});
const drills = rowCodec<DrillRecord, BackupDrillsTable>()('id backupId trigger', {
  startedAt: num,
  finishedAt: num,
  ok: bool,
  checks: json,
});

export class SqlBackupStore implements BackupStore {
  constructor(private readonly db: Db) {}

  async addBackup(record: BackupRecord): Promise<void> {
    await this.db.insertInto('backups').values(backups.row(record)).execute();
  }

  async backup(id: string): Promise<BackupRecord | undefined> {
    const row = await this.db.selectFrom('backups').selectAll().where('id', '=', id).executeTakeFirst();
    return row && backups.record(row);
  }

  async backups(page: PageWindow<readonly [number, string]>): Promise<BackupRecord[]> {
    const rows = await this.db
      .selectFrom('backups')
      .selectAll()
      .$call((q) => newestFirst(q, ['taken_at', 'id'], page))
      .execute();
    return rows.map(backups.record);
  }

  async addDrill(record: DrillRecord): Promise<void> {
    await this.db.insertInto('backup_drills').values(drills.row(record)).execute();
  }

  async drills(backupId: string | undefined, page: PageWindow<readonly [number, string]>): Promise<DrillRecord[]> {
    let query = this.db.selectFrom('backup_drills').selectAll();
    if (backupId !== undefined) query = query.where('backup_id', '=', backupId);
    const rows = await newestFirst(query, ['started_at', 'id'], page).execute();
    return rows.map(drills.record);
  }

  async undrilled(): Promise<BackupRecord | undefined> {
    const row = await this.db
      .selectFrom('backups as b')
      .selectAll('b')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('backup_drills as d').select('d.id').whereRef('d.backup_id', '=', 'b.id'))),
      )
      .orderBy('b.taken_at', 'desc')
      .orderBy('b.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && backups.record(row);
  }

  async lastDrillAt(): Promise<number | null> {
    const row = await this.db
      .selectFrom('backup_drills')
      .select((eb) => eb.fn.max('started_at').as('at'))
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? null : Number(row.at);
  }
}
