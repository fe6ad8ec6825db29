import type { Actor } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import { type Ids, idLikePattern } from '../../../core/ids.ts';
import { decodeJws, verifyEs256 } from '../../../core/jose/es256.ts';
import type { BackupEngine, ScratchDatabase } from '../../../ports/backup-engine.ts';
import type { BackupFolder } from '../../../ports/backup-folder.ts';
import type {
  BackupContents,
  BackupManifest,
  BackupRecord,
  BackupStore,
  DrillCheck,
  DrillRecord,
  DrillTrigger,
} from '../../../ports/backup-store.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { KeyStore } from '../../../ports/key-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import type { DepositViews } from '../../deposits/deposit-views.ts';
import { type AuditLogReader, verifyAuditChain } from '../audit/audit-reader.ts';
import type { StatusChecks } from './status-checks.ts';

/** The service started on a drill's scratch database, as far as the drill looks at it. */
export interface Replica {
  audit: AuditLogReader;
  deposits: Pick<DepositViews, 'integrity'>;
  status: Pick<StatusChecks, 'lists' | 'integrity'>;
  /** The keys that sign on the restored copy, each made to sign where this deployment keeps keys. */
  keys: {
    active: Pick<KernelViews, 'activeKeys'>;
    store: Pick<KeyStore, 'signer'>;
    /** The copy's platform roots made to sign (null under an operator's chain). */
    roots(): Promise<{ checked: number; problems: string[] } | null>;
  };
  close(): Promise<void>;
}

/** Keys a drill makes sign, at most: one signature each. */
const KEYS_DRILLED = 5000;

/**
 * Every key that signs on the restored copy, and each platform root that still holds a key, signs
 * a probe where this deployment keeps keys (the token, with OPENRAIL_KEYS=pkcs11), and the
 * signature verifies with the key's stored public key: the problems, each naming the key (and its
 * token object).
 */
async function drillKeys(keys: Replica['keys'], backupId: string): Promise<{ checked: number; problems: string[] }> {
  const active = await keys.active.activeKeys(KEYS_DRILLED);
  const problems: string[] = [];
  for (const key of active) {
    const name = `${key.tenant}/${key.purpose} ${key.kid}${key.keyObject ? ` (object ${key.keyObject.label} in ${key.keyObject.token})` : ''}`;
    try {
      const signer = await keys.store.signer(key.tenant, key.purpose);
      if (signer.kid !== key.kid) throw new Error(`signs as ${signer.kid}`);
      const decoded = decodeJws(await signer.sign({ typ: 'openrail-drill+jwt' }, { drill: backupId }));
      if (!decoded || !verifyEs256(decoded, signer.publicJwk))
        throw new Error('its signature does not verify with its public key');
    } catch (err) {
      problems.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const roots = (await keys.roots()) ?? { checked: 0, problems: [] };
  return { checked: active.length + roots.checked, problems: [...problems, ...roots.problems] };
}

export interface BackupDeps {
  engine: BackupEngine;
  /** Where the drill job says which leftovers it removed. */
  log?: { info(fields: object, message: string): void };
  store: BackupStore;
  /** The backup folder (OPENRAIL_BACKUP_DIR). */
  folder: BackupFolder;
  uow: UnitOfWork;
  ids: Ids;
  clock: Clock;
  /** The service started on a restored database. */
  replicaOn(scratch: ScratchDatabase): Promise<Replica>;
}

export const DRILLS = {
  /** How often the drill job looks for a backup no drill has looked at. */
  everyMs: 60 * 1000,
  /** A scheduled drill of the newest backup once no drill has run for this long. */
  scheduleMs: 24 * 60 * 60 * 1000,
};
/** Differences named per check, at most. */
const NAMED = 10;
const LIST_PAGE = 200;

export const manifestFile = (id: string) => `${id}.manifest.json`;

/**
 * What a file is written under until it is whole (`<name>.partial`); SQLite may leave its journal
 * or log beside one (`-journal`, `-wal`, `-shm`).
 */
const PARTIAL = '.partial';
/**
 * A leftover older than this (by its last write) belongs to a backup whose process died: the
 * drill job removes it. A backup being written is younger (pg_dump is stopped after 30 minutes,
 * and writes until then; a finished copy is renamed and its manifest written within moments).
 */
export const LEFTOVERS_AFTER_MS = 60 * 60 * 1000;
/** The files of one backup, by its id: the copy (any engine's), its checksum line, its manifest. */
const BACKUP_ID = idLikePattern('backup').slice(1, -1);
const BACKUP_FILE = new RegExp(`^(${BACKUP_ID})\\.(?:sha256|manifest\\.json|[a-z0-9]+)$`);
const MANIFEST = new RegExp(`^(${BACKUP_ID})\\.manifest\\.json$`);
const TEMPORARY = new RegExp(`^${BACKUP_ID}\\.[a-z0-9.]+\\.partial(?:-journal|-wal|-shm)?$`);

/** The first `NAMED` of `problems`, joined, saying how many more there are. */
function named(problems: string[]): string {
  const more = problems.length > NAMED ? `; and ${problems.length - NAMED} more` : '';
  return `${problems.slice(0, NAMED).join('; ')}${more}`;
}

/** Counts and status-list digests that differ between a manifest and what was restored. */
export function contentDifferences(expected: BackupContents, found: BackupContents) {
  const counts: string[] = [];
  if (expected.schemaVersion !== found.schemaVersion) {
    counts.push(`the last migration is ${found.schemaVersion || 'none'}, the manifest says ${expected.schemaVersion}`);
  }
  for (const table of new Set([...Object.keys(expected.counts), ...Object.keys(found.counts)])) {
    const want = expected.counts[table];
    const got = found.counts[table];
    if (want !== got) counts.push(`${table}: ${got ?? 'no table'} rows restored, ${want ?? 'no table'} in the manifest`);
  }
  const lists: string[] = [];
  const restored = new Map(found.statusLists.map((l) => [`${l.tenant}/${l.seq}`, l]));
  for (const l of expected.statusLists) {
    const r = restored.get(`${l.tenant}/${l.seq}`);
    restored.delete(`${l.tenant}/${l.seq}`);
    if (!r) lists.push(`list ${l.seq} of ${l.tenant} is missing`);
    else if (r.size !== l.size || r.digest !== l.digest) {
      lists.push(`list ${l.seq} of ${l.tenant} has ${r.revoked} revoked of ${r.size}, the manifest ${l.revoked} of ${l.size}`);
    }
  }
  for (const r of restored.values()) lists.push(`list ${r.seq} of ${r.tenant} is not in the manifest`);
  return { counts, lists };
}

/**
 * Backups and restore drills (docs/operations.md, "Backups and restore drills"). A backup is
 * written with the engine's own online method into the backup folder, with its manifest and a
 * `sha256sum` line beside it, then recorded and audited. A drill restores it into a scratch
 * database and proves it: the file is the one taken, every table has the rows the manifest
 * counted, the audit chain and every deposit chain verify, and each status list, signed by the
 * restored service, decodes, verifies and carries the bits the manifest recorded.
 */
export class Backups {
  constructor(private readonly deps: BackupDeps) {}

  async take(actor: Actor, actorName: string): Promise<{ backup: BackupRecord; auditSeq: number }> {
    const { engine, folder, clock } = this.deps;
    const id = this.deps.ids.mint('backup');
    const file = `${id}.${engine.extension}`;
    await folder.ensure();
    const partial = `${file}${PARTIAL}`;
    const manifestName = manifestFile(id);
    const sidecar = `${id}.sha256`;
    // Written whole or not at all: under a temporary name until complete, then renamed, then its
    // checksum line and (renamed into place last) its manifest. A backup killed on the way leaves a
    // temporary file, or a copy no manifest names, which nothing lists and the drill job removes
    // (removeLeftovers); a refusal removes what it wrote.
    const written = [partial, file, sidecar, `${manifestName}${PARTIAL}`, manifestName];
    const takenAt = clock.now();
    try {
      // The copy holds what the database holds (sealed keys, personal data): its owner's only from
      // its first byte. The engine writes into this file (pg_dump and SQLite keep its mode).
      await folder.create(partial, '');
      let contents: BackupContents & { schema?: string };
      try {
        contents = await engine.take(folder.path(partial));
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        throw new ServiceError('backup_unavailable', 'The backup could not be written.', { cause: err });
      }
      const { sha256, bytes } = await engine.digest(folder.path(partial));
      await folder.rename(partial, file);
      const { schema, ...held } = contents;
      const manifest: BackupManifest & { schema?: string } = {
        format: 'openrail-backup/1',
        backupId: id,
        takenAt: new Date(takenAt).toISOString(),
        engine: engine.engine,
        file,
        bytes,
        sha256,
        ...(schema ? { schema } : {}),
        ...held,
      };
      await folder.create(sidecar, `${sha256}  ${file}\n`);
      await folder.create(`${manifestName}${PARTIAL}`, `${JSON.stringify(manifest, null, 2)}\n`);
      await folder.rename(`${manifestName}${PARTIAL}`, manifestName);
      const backup: BackupRecord = {
        id,
        takenAt,
        takenBy: actorName,
        engine: engine.engine,
        file,
        bytes,
        sha256,
        tookMs: clock.now() - takenAt,
        manifest,
      };
      const auditSeq = await this.deps.uow.run(async ({ audit }) => {
        await this.deps.store.addBackup(backup);
        return audit.append({
          actor,
          action: 'ops.backup.taken',
          tenant: null,
          target: id,
          detail: { engine: engine.engine, bytes, sha256 },
        });
      });
      return { backup, auditSeq };
    } catch (err) {
      for (const f of written) await folder.remove(f);
      throw err;
    }
  }

  /**
   * What backups killed on the way left in the backup folder (run by the drill job): temporary
   * files, a copy or checksum line no manifest names, once LEFTOVERS_AFTER_MS have passed since
   * their last write. Only files named as a backup's are looked at; nothing else in the folder is
   * touched. Answers the names removed.
   */
  async removeLeftovers(): Promise<string[]> {
    const { folder, clock } = this.deps;
    const files = await folder.files();
    // A backup whose manifest is here keeps every file of its id, and whatever its manifest names.
    const kept = new Set<string>();
    for (const name of files) {
      const id = MANIFEST.exec(name)?.[1];
      if (!id) continue;
      kept.add(id);
      const text = await folder.read(name);
      const named = text === undefined ? undefined : (JSON.parse(text) as { file?: unknown }).file;
      if (typeof named === 'string') kept.add(named);
    }
    const removed: string[] = [];
    for (const name of files) {
      const id = BACKUP_FILE.exec(name)?.[1];
      const leftover = TEMPORARY.test(name) || (id !== undefined && !kept.has(id) && !kept.has(name));
      if (!leftover) continue;
      const at = await folder.modifiedAt(name);
      if (at === undefined || clock.now() - at <= LEFTOVERS_AFTER_MS) continue;
      await folder.remove(name);
      removed.push(name);
    }
    if (removed.length > 0) this.deps.log?.info({ removed }, 'backup leftovers removed from the backup folder');
    return removed;
  }

  /** The drill job: the newest backup no drill has looked at; else, once a day, the newest backup again. */
  async drillDue(): Promise<DrillRecord | undefined> {
    await this.removeLeftovers();
    const fresh = await this.deps.store.undrilled();
    if (fresh) return this.drill(fresh, 'after-backup');
    const last = await this.deps.store.lastDrillAt();
    if (last !== null && this.deps.clock.now() - last < DRILLS.scheduleMs) return undefined;
    const [newest] = await this.deps.store.backups({ limit: 1 });
    return newest && this.drill(newest, 'scheduled');
  }

  async drill(backup: BackupRecord, trigger: DrillTrigger): Promise<DrillRecord> {
    const startedAt = this.deps.clock.now();
    const checks: DrillCheck[] = [];
    const pass = (check: DrillCheck['check'], ok: boolean, detail: string) => {
      checks.push({ check, ok, detail });
      return ok;
    };
    try {
      await this.prove(backup, pass);
    } catch (err) {
      pass('restore', false, `the drill stopped: ${err instanceof Error ? err.message : 'error'}`);
    }
    const record: DrillRecord = {
      id: this.deps.ids.mint('drill'),
      backupId: backup.id,
      trigger,
      startedAt,
      finishedAt: this.deps.clock.now(),
      ok: checks.every((c) => c.ok),
      checks,
    };
    await this.deps.store.addDrill(record);
    return record;
  }

  private async prove(backup: BackupRecord, pass: (check: DrillCheck['check'], ok: boolean, detail: string) => boolean) {
    const { folder } = this.deps;
    const text = await folder.read(manifestFile(backup.id));
    const manifest = text === undefined ? undefined : (JSON.parse(text) as BackupManifest);
    const path = folder.path(backup.file);
    const digest = await this.deps.engine.digest(path).catch(() => undefined);
    if (
      !pass(
        'file',
        manifest !== undefined && digest !== undefined && manifest.sha256 === backup.sha256,
        !digest
          ? `${backup.file} is not in the backup folder`
          : !manifest
            ? `${manifestFile(backup.id)} is not in the backup folder`
            : manifest.sha256 === backup.sha256
              ? 'the file and its manifest are in the backup folder'
              : 'the manifest in the folder is not the one recorded when the backup was taken',
      )
    ) {
      return;
    }
    const { sha256, bytes } = digest as { sha256: string; bytes: number };
    if (
      !pass(
        'checksum',
        sha256 === backup.sha256,
        sha256 === backup.sha256
          ? `SHA-256 ${sha256} over ${bytes} bytes, as recorded`
          : `the file's SHA-256 is ${sha256} over ${bytes} bytes; ${backup.sha256} over ${backup.bytes} was recorded: the file changed after it was taken`,
      )
    ) {
      return;
    }
    const scratch = await this.deps.engine.scratch(path, backup.id);
    try {
      pass(
        'restore',
        true,
        `restored into a scratch ${scratch.location.kind === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'}`,
      );
      const found = await this.deps.engine.contents(scratch);
      const differ = contentDifferences(backup.manifest, found);
      const rows = Object.values(found.counts).reduce((a, b) => a + b, 0);
      pass(
        'counts',
        differ.counts.length === 0,
        differ.counts.length === 0
          ? `${Object.keys(found.counts).length} tables, ${rows} rows, as the manifest counted`
          : named(differ.counts),
      );
      const replica = await this.deps.replicaOn(scratch);
      try {
        const chain = await verifyAuditChain(replica.audit);
        pass(
          'audit-chain',
          chain.verified,
          chain.verified
            ? `${chain.checked} entries verify up to seq ${chain.lastSeq}`
            : `broken at seq ${chain.firstBroken} (${chain.reason}); ${chain.checked} entries verify before it`,
        );
        const deposits = await replica.deposits.integrity(undefined);
        const broken = deposits.tenants.filter((t) => !t.intact);
        pass(
          'deposit-chains',
          deposits.intact,
          deposits.intact
            ? `${deposits.tenants.length} tenant chains, ${deposits.tenants.reduce((a, t) => a + t.deposits, 0)} deposits, verify`
            : named(broken.map((t) => `${t.tenant}: broken at seq ${t.firstBreak?.seq} (${t.firstBreak?.reason})`)),
        );
        const keys = await drillKeys(replica.keys, backup.id);
        pass(
          'keys',
          keys.problems.length === 0,
          keys.problems.length === 0
            ? `${keys.checked} keys that sign sign where this deployment keeps keys, and verify`
            : named(keys.problems),
        );
        const problems = [...differ.lists];
        let lists = 0;
        let after: readonly [string, number] | undefined;
        for (;;) {
          const rows = await replica.status.lists(null, { limit: LIST_PAGE, after });
          for (const row of rows) {
            lists++;
            const integrity = await replica.status.integrity(row);
            if (!integrity.ok) problems.push(`list ${row.seq} of ${row.tenant}: ${integrity.problems.join(', ')}`);
          }
          const last = rows.at(-1);
          if (rows.length < LIST_PAGE || !last) break;
          after = [last.tenant, last.seq];
        }
        pass(
          'status-lists',
          problems.length === 0,
          problems.length === 0
            ? `${lists} lists decode, verify with the restored DID keys and match the manifest`
            : named(problems),
        );
      } finally {
        await replica.close();
      }
    } finally {
      await scratch.drop();
    }
  }
}
