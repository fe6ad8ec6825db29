import { sql } from 'kysely';
import { ServiceError } from '../../../core/errors.ts';
import type { ClusterState } from '../../../ports/cluster-state.ts';
import { type Db, onPostgres } from '../connect.ts';

/**
 * Answers when the database takes writes: on PostgreSQL a primary (not a standby in recovery)
 * whose sessions are not read-only; on SQLite, when it answers. `/readyz` and `ops/health` ask it,
 * so a node whose proxy still routes to a demoted primary says it is not ready.
 */
export async function pingWritable(db: Db): Promise<void> {
  if (!onPostgres(db)) {
    await sql`select 1`.execute(db);
    return;
  }
  const { rows } = await sql<{ standby: boolean; read_only: string }>`
    select pg_is_in_recovery() as standby, current_setting('transaction_read_only') as read_only`.execute(db);
  if (rows[0]?.standby || rows[0]?.read_only === 'on') {
    throw new ServiceError('database_unavailable', 'The database answers but takes no writes (a standby).', {
      headers: { 'retry-after': '5' },
    });
  }
}

interface ReplicaRow {
  application_name: string | null;
  state: string | null;
  sync_state: string | null;
  replay_lag_ms: number | string | null;
}

/**
 * The PostgreSQL cluster as this node sees it through its connection (docs/high-availability.md,
 * "Watching the cluster"): whether it reaches a primary, the standbys streaming from it, their
 * replay lag, and whether one acknowledges commits synchronously. The standbys' details need the
 * `pg_monitor` role (PostgreSQL hides them otherwise); `detailed` says whether they were seen.
 * Undefined on SQLite.
 */
export async function clusterState(db: Db): Promise<ClusterState | undefined> {
  if (!onPostgres(db)) return undefined;
  const { rows } = await sql<{
    standby: boolean;
    server: string | null;
    sync_names: string;
    sync_commit: string;
    detailed: boolean;
  }>`select pg_is_in_recovery() as standby,
      inet_server_addr()::text || ':' || inet_server_port()::text as server,
      current_setting('synchronous_standby_names') as sync_names,
      current_setting('synchronous_commit') as sync_commit,
      pg_has_role(current_user, 'pg_read_all_stats', 'member') as detailed`.execute(db);
  const self = rows[0];
  if (!self) throw new Error('the cluster state was not answered');
  const replicas = self.standby
    ? []
    : (
        await sql<ReplicaRow>`select application_name, state, sync_state,
            (extract(epoch from replay_lag) * 1000)::float8 as replay_lag_ms
          from pg_stat_replication order by application_name`.execute(db)
      ).rows;
  const standbys = replicas.map((r) => ({
    name: r.application_name,
    state: r.state,
    syncState: r.sync_state,
    replayLagMs: r.replay_lag_ms === null ? null : Math.round(Number(r.replay_lag_ms) * 100) / 100,
  }));
  return {
    role: self.standby ? 'standby' : 'primary',
    server: self.server,
    synchronousStandbyNames: self.sync_names,
    synchronousCommit: self.sync_commit,
    synchronous: self.sync_names !== '' && standbys.some((s) => s.syncState === 'sync' || s.syncState === 'quorum'),
    detailed: self.detailed,
    standbys,
  };
}
