import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { BackupEngine, ScratchDatabase } from '../../../ports/backup-engine.ts';
import type { BackupContents, KeyReference, ListDigest } from '../../../ports/backup-store.ts';
import { openDatabase } from '../connect.ts';
import { REVOKED_ENTRIES, STATUS_LIST_SIZES } from '../issuance/issuance-statements.ts';
import { KEY_REFERENCES } from '../kernel/kernel-statements.ts';

/** Runs one read-only statement and answers its rows. */
export type RawQuery = (text: string) => Promise<Record<string, unknown>[]>;

const TABLES = {
  sqlite: "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
  postgres:
    "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name",
};

/** A table name read from the catalogue, quoted for use in a statement. */
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** SHA-256 (hex) of a list's revoked indices, ascending and comma-separated. */
export const revokedDigest = (indices: readonly number[]) => createHash('sha256').update(indices.join(',')).digest('hex');

/**
 * What a database holds, read through `query` inside one snapshot (the caller's): the last
 * migration, every table's row count, each status list's revoked indices as a digest, and where
 * each key that may sign is (never its private part, sealed or not). The
 * same statements on both engines, so a backup's manifest and its drill count alike.
 */
export async function contentsOf(engine: 'sqlite' | 'postgres', query: RawQuery): Promise<BackupContents> {
  const counts: Record<string, number> = {};
  for (const { name } of await query(TABLES[engine])) {
    const [row] = await query(`select count(*) as n from ${quoted(String(name))}`);
    counts[String(name)] = Number(row?.n);
  }
  const [last] = await query('select name from kysely_migration order by name desc limit 1');
  const revoked = new Map<string, number[]>();
  for (const r of await query(REVOKED_ENTRIES)) {
    const key = `${r.tenant}\u0000${Number(r.list_seq)}`;
    const indices = revoked.get(key) ?? [];
    indices.push(Number(r.idx));
    revoked.set(key, indices);
  }
  const statusLists: ListDigest[] = [];
  for (const l of await query(STATUS_LIST_SIZES)) {
    const indices = revoked.get(`${l.tenant}\u0000${Number(l.seq)}`) ?? [];
    statusLists.push({
      tenant: String(l.tenant),
      seq: Number(l.seq),
      size: Number(l.size),
      revoked: indices.length,
      digest: revokedDigest(indices),
    });
  }
  const keys: KeyReference[] = (await query(KEY_REFERENCES)).map((k) => ({
    tenant: k.tenant === null ? null : String(k.tenant),
    kid: k.kid === null ? null : String(k.kid),
    purpose: String(k.purpose),
    backend: String(k.key_backend),
    token: k.token_label === null ? null : String(k.token_label),
    label: k.object_label === null ? null : String(k.object_label),
  }));
  return { schemaVersion: String(last?.name ?? ''), counts, statusLists, keys };
}

/** What a restored database holds, counted as its backup's manifest was (contents.ts). */
export async function restoredContents(engine: BackupEngine['engine'], scratch: ScratchDatabase): Promise<BackupContents> {
  const db = openDatabase(scratch.location, { ...(scratch.schema ? { schema: scratch.schema } : {}), poolSize: 1 });
  try {
    return await contentsOf(engine, async (text) => (await sql.raw<Record<string, unknown>>(text).execute(db)).rows);
  } finally {
    await db.destroy();
  }
}
