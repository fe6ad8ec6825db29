import type { Kysely, Migration } from 'kysely';

/**
 * Backups and their drills (docs/operations.md, "Backups and restore drills"). A backup's row
 * names its file and carries its manifest (checksum, row counts, status-list digests); the file
 * and the manifest also lie side by side in the backup folder, where a restore finds them without
 * the database. A drill's row says what restoring that backup into a scratch database proved.
 */
export const backups: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('backups')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('taken_at', 'bigint', (c) => c.notNull())
      .addColumn('taken_by', 'text', (c) => c.notNull())
      .addColumn('engine', 'text', (c) => c.notNull())
      .addColumn('file', 'text', (c) => c.notNull())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('took_ms', 'bigint', (c) => c.notNull())
      .addColumn('manifest', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('backups_taken').on('backups').columns(['taken_at', 'id']).execute();
    await db.schema
      .createTable('backup_drills')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('backup_id', 'text', (c) => c.notNull())
      .addColumn('trigger', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint', (c) => c.notNull())
      .addColumn('ok', 'integer', (c) => c.notNull())
      .addColumn('checks', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('backup_drills_started').on('backup_drills').columns(['started_at', 'id']).execute();
    await db.schema.createIndex('backup_drills_backup').on('backup_drills').columns(['backup_id']).execute();
  },
};
