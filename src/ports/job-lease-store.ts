/**
 * Leases for background jobs (docs/architecture.md, "Background jobs"), shared by every process
 * on the database, so that each job runs once per period however many processes there are.
 */
export interface JobLeaseStore {
  /**
   * Takes the job's lease until `until` when no lease is held or the last one has ended: one
   * conditional write, so of several processes trying at once exactly one gets it.
   */
  acquire(job: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Records the end of a run (its error, if any) for operators. */
  finished(job: string, holder: string, now: number, error: string | null): Promise<void>;
}
