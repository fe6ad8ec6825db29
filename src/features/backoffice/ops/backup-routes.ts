import { Type } from '@sinclair/typebox';
import { actorLabel } from '../../../core/actor.ts';
import { ServiceError } from '../../../core/errors.ts';
import { idPattern } from '../../../core/ids.ts';
import { cursorOf, iso, page } from '../../../http/admin/kit.ts';
import { ListPage, PageQuery, pageParams } from '../../../http/list.ts';
import { defineRoute } from '../../../http/route.ts';
import { AdminMutation, errorResponse, OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import type { BackupRecord, BackupStore, DrillRecord } from '../../../ports/backup-store.ts';
import type { Backups } from './backups.ts';
import { actorOf, BASE, opsGet, opsPost } from './routes-common.ts';
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
  return [
    defineRoute({
      ...opsPost(`${BASE}/backup`),
      summary: 'Take an online backup with the engine’s own method, with a manifest and checksum; a restore drill of it follows.',
      body: Type.Object({}, { additionalProperties: false }),
      responses: {
        200: {
          description: 'The backup taken. The drill job restores and proves it within a minute (GET /ops/backup-drills).',
          schema: AdminMutation(BackupView.properties),
        },
        ...OPERATOR_ERRORS,
        409: errorResponse('backup_unavailable'),
      },
      handler: async (request) => {
        const actor = actorOf(request);
        const { backup, auditSeq } = await backups.take(actor, actorLabel(actor));
        return { ok: true as const, auditSeq, ...(await backupView(backup)) };
      },
    }),
    defineRoute({
      ...opsGet(`${BASE}/backups`),
      summary: 'The backups taken, newest first, each with its manifest’s counts and its newest drill.',
      querystring: PageQuery(),
      responses: { 200: { description: 'A page of backups.', schema: ListPage('backups', BackupView) }, ...OPERATOR_ERRORS },
      handler: async (request) => {
        const p = pageParams(request.query);
        const rows = await store.backups({ ...p, after: cursorOf(p.after, ['number', 'string'] as const), limit: p.limit + 1 });
        const shown = page(
          rows,
          p.limit,
          (b) => [b.takenAt, b.id],
          (b) => b,
        );
        const views = [];
        for (const b of shown.rows) views.push(await backupView(b));
        return { backups: views, nextCursor: shown.nextCursor };
      },
    }),
    defineRoute({
      ...opsGet(`${BASE}/backup-drills`),
      summary: 'Each restore drill, newest first: what it proved of its backup, check by check.',
      querystring: PageQuery({ backupId: Type.Optional(BackupId) }),
      responses: {
        200: { description: 'A page of drills.', schema: ListPage('drills', DrillView) },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_backup'),
      },
      handler: async (request) => {
        const p = pageParams(request.query);
        const { backupId } = request.query;
        if (backupId !== undefined && !(await store.backup(backupId))) {
          throw new ServiceError('unknown_backup', `No backup has the id ${backupId}.`);
        }
        const rows = await store.drills(backupId, {
          ...p,
          after: cursorOf(p.after, ['number', 'string'] as const),
          limit: p.limit + 1,
        });
        const shown = page(rows, p.limit, (d) => [d.startedAt, d.id], drillView);
        return { drills: shown.rows, nextCursor: shown.nextCursor };
      },
    }),
  ];
}
