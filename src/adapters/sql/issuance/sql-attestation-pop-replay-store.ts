import type { AttestationPopReplayStore } from '../../../ports/attestation-pop-replay-store.ts';
import type { Db } from '../connect.ts';
import { burnMark, pruneMarks } from '../replay-marks.ts';

export class SqlAttestationPopReplayStore implements AttestationPopReplayStore {
  constructor(private readonly db: Db) {}

  burn(tenant: string, jtiHash: string, expiresAt: number, now: number): Promise<boolean> {
    return burnMark(this.db, 'attestation_pop_jti', { tenant, jti_hash: jtiHash }, expiresAt, now);
  }

  prune(now: number): Promise<number> {
    return pruneMarks(this.db, 'attestation_pop_jti', now);
  }
}
