import { Type } from '@sinclair/typebox';
import { actorLabel } from '../../../core/actor.ts';
import { ServiceError } from '../../../core/errors.ts';
import { idPattern } from '../../../core/ids.ts';
import { iso } from '../../../http/admin/kit.ts';
import type { BackupRecord, BackupStore, DrillRecord } from '../../../ports/backup-store.ts';
import type { Backups } from './backups.ts';
import { opsOperations } from './routes-common.ts';
import { BackupView, DrillView } from './schemas.ts';

const drillView = (d: DrillRecord) => ({
  drillId: d.id,
  backupId: d.backupId,
  trigger: d.trigger,
  startedAt: iso(d.startedAt),
  finishedAt: iso(d.finishedAt),
  ok: d.ok,
  checks: d.checks,
});

const BackupId = Type.String({ pattern: idPattern('backup'), description: 'A backup’s id.' });

/** Backups and restore drills (docs/operations.md, "Backups and restore drills"). */
export function backupRoutes(backups: Backups, store: BackupStore) {
  const backupView = async (b: BackupRecord) => {
    const [last] = await store.drills(b.id, { limit: 1 });
    return {
      backupId: b.id,
      takenAt: iso(b.takenAt),
      takenBy: b.takenBy,
      engine: b.engine,
      file: b.file,
      bytes: b.bytes,
      sha256: b.sha256,
      tookMs: b.tookMs,
      schemaVersion: b.manifest.schemaVersion,
      counts: b.manifest.counts,
      statusLists: b.manifest.statusLists.length,
      lastDrill: last ? { drillId: last.id, ok: last.ok, finishedAt: iso(last.finishedAt) } : null,
    };
  };
  const { list, action } = opsOperations;
  return [
    action('/backup', {
      summary: 'Take an online backup with the engine’s own method, with a manifest and checksum; a restore drill of it follows.',
      body: {},
      answer: [
        200,
        'The backup taken. The drill job restores and proves it within a minute (GET /ops/backup-drills).',
        BackupView.properties,
      ],
      refusals: { 409: 'backup_unavailable' },
      write: async ({ actor }) => {
        const { backup, auditSeq } = await backups.take(actor, actorLabel(actor));
        return { auditSeq, ...(await backupView(backup)) };
      },
    }),
    list('/backups', {
      tenanted: false,
      summary: 'The backups taken, newest first, each with its manifest’s counts and its newest drill.',
      page: ['backups', BackupView, 'A page of backups.'],
      cursor: ['number', 'string'],
      read: (window) => store.backups(window),
      order: (b) => [b.takenAt, b.id],
      views: async (rows) => {
        const views = [];
        for (const b of rows) views.push(await backupView(b));
        return views;
      },
    }),
    list('/backup-drills', {
      tenanted: false,
      summary: 'Each restore drill, newest first: what it proved of its backup, check by check.',
      filters: { backupId: Type.Optional(BackupId) },
      page: ['drills', DrillView, 'A page of drills.'],
      refusals: { 404: 'unknown_backup' },
      cursor: ['number', 'string'],
      read: async ({ backupId, ...window }) => {
        if (backupId !== undefined && !(await store.backup(backupId))) {
          throw new ServiceError('unknown_backup', `No backup has the id ${backupId}.`);
        }
        return store.drills(backupId, window);
      },
      order: (d) => [d.startedAt, d.id],
      view: drillView,
    }),
  ];
}
