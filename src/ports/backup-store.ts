import type { PageWindow } from '../core/page.ts';

/**
 * Backups and restore drills (docs/operations.md, "Backups and restore drills"). A platform
 * record: neither belongs to a tenant. Times are milliseconds.
 */

/** A status list as a backup saw it: its size and a digest of its revoked indices. */
export interface ListDigest {
  tenant: string;
  seq: number;
  size: number;
  revoked: number;
  /** SHA-256 (hex) of the revoked indices, ascending, comma-separated. */
  digest: string;
}

/** A key a restored deployment needs, and where its private part is (docs/keys.md, "Backups"). */
export interface KeyReference {
  /** The tenant; null for the platform's certificate authority. */
  tenant: string | null;
  kid: string | null;
  purpose: string;
  /** sealed: in the backup, under the master key; pkcs11: an object of the token named, not in the backup. */
  backend: string;
  token: string | null;
  label: string | null;
}

/** What a backup holds, computed from the same snapshot the file was written from. */
export interface BackupContents {
  /** The last migration applied. */
  schemaVersion: string;
  /** Rows per table. */
  counts: Record<string, number>;
  statusLists: ListDigest[];
  /** The keys that may sign, and the authority's; absent in a manifest written before keys could live in a token. */
  keys?: KeyReference[];
}

/** The manifest, written beside the file (`<id>.manifest.json`) and kept in the backup's row. */
export interface BackupManifest extends BackupContents {
  format: 'openrail-backup/1';
  backupId: string;
  takenAt: string;
  engine: 'sqlite' | 'postgres';
  /** The backup file's name, in the same folder as the manifest. */
  file: string;
  bytes: number;
  sha256: string;
}

export interface BackupRecord {
  id: string;
  takenAt: number;
  takenBy: string;
  engine: string;
  file: string;
  bytes: number;
  sha256: string;
  tookMs: number;
  manifest: BackupManifest;
}

export type DrillTrigger = 'after-backup' | 'scheduled';

/** One thing a drill proved or failed to prove. */
export interface DrillCheck {
  check: 'file' | 'checksum' | 'restore' | 'counts' | 'audit-chain' | 'deposit-chains' | 'keys' | 'status-lists';
  ok: boolean;
  /** What was found, in words: what held, or what broke and where. */
  detail: string;
}

export interface DrillRecord {
  id: string;
  backupId: string;
  trigger: DrillTrigger;
  startedAt: number;
  finishedAt: number;
  ok: boolean;
  checks: DrillCheck[];
}

export interface BackupStore {
  addBackup(record: BackupRecord): Promise<void>;
  backup(id: string): Promise<BackupRecord | undefined>;
  /** Newest first. */
  backups(page: PageWindow<readonly [number, string]>): Promise<BackupRecord[]>;
  addDrill(record: DrillRecord): Promise<void>;
  /** Newest first; of one backup when `backupId` is given. */
  drills(backupId: string | undefined, page: PageWindow<readonly [number, string]>): Promise<DrillRecord[]>;
  /** The newest backup that no drill has looked at yet, if any. */
  undrilled(): Promise<BackupRecord | undefined>;
  /** When the last drill started, or null before the first. */
  lastDrillAt(): Promise<number | null>;
}
