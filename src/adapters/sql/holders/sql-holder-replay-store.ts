import type { HolderReplayStore } from '../../../ports/holder-replay-store.ts';
import type { Db } from '../connect.ts';
import { burnMark, pruneMarks } from '../replay-marks.ts';

export class SqlHolderReplayStore implements HolderReplayStore {
  constructor(private readonly db: Db) {}

  burn(accountId: string, jti: string, expiresAt: number, now: number): Promise<boolean> {
    return burnMark(this.db, 'holder_jti', { account_id: accountId, jti }, expiresAt, now);
  }

  prune(now: number): Promise<number> {
    return pruneMarks(this.db, 'holder_jti', now);
  }
}
