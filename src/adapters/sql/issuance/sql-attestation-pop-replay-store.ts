import type { AttestationPopReplayStore } from '../../../ports/attestation-pop-replay-store.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';

export class SqlAttestationPopReplayStore implements AttestationPopReplayStore {
  constructor(private readonly db: Db) {}

  async burn(tenant: string, jtiHash: string, expiresAt: number, now: number): Promise<boolean> {
    // An expired mark for the same pair may still be present (not yet pruned): drop it first. Its
    // proof is outside the freshness window anyway, so this never reopens a live jti.
    await this.db
      .deleteFrom('attestation_pop_jti')
      .where('tenant', '=', tenant)
      .where('jti_hash', '=', jtiHash)
      .where('expires_at', '<=', now)
      .execute();
    return insertOnce(this.db, 'attestation_pop_jti', { tenant, jti_hash: jtiHash, expires_at: expiresAt });
  }

  async prune(now: number): Promise<number> {
    const result = await this.db.deleteFrom('attestation_pop_jti').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
