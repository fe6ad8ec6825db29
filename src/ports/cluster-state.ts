/** The PostgreSQL cluster as one node sees it (docs/high-availability.md, "Watching the cluster"). */
export interface ClusterState {
  /** What this node's connection reaches: the primary, or a standby (then it cannot write). */
  role: 'primary' | 'standby';
  /** The server's address and port as PostgreSQL reports it (null over a Unix socket). */
  server: string | null;
  /** PostgreSQL's `synchronous_standby_names` (Patroni sets it in synchronous mode); empty when commits wait for no standby. */
  synchronousStandbyNames: string;
  synchronousCommit: string;
  /** A standby acknowledges commits now: an acknowledged write is on two nodes. */
  synchronous: boolean;
  /** Whether the role sees the standbys' details (pg_monitor); without it their fields are null. */
  detailed: boolean;
  /** The standbys streaming from the primary (none seen from a standby). */
  standbys: { name: string | null; state: string | null; syncState: string | null; replayLagMs: number | null }[];
}
