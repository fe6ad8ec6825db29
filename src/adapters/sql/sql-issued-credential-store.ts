import type { Selectable } from 'kysely';
import type {
  Collection,
  CollectionResult,
  IssuedCredentialRecord,
  IssuedCredentialStore,
  Revocation,
  RevocationTarget,
  StatusAllocation,
} from '../../ports/issued-credential-store.ts';
import type { Db } from './connect.ts';
import type { IssuedCredentialsTable } from './schema.ts';
import { atomically } from './sql-unit-of-work.ts';

/** Rolls the collection back without treating it as a failure of the service. */
class Refused extends Error {
  constructor(readonly reason: 'nonce' | 'token') {
    super(reason);
  }
}

const toRecord = (row: Selectable<IssuedCredentialsTable>): IssuedCredentialRecord => ({
  id: row.id,
  tenant: row.tenant,
  typeId: row.type_id,
  offerId: row.offer_id,
  listSeq: row.list_seq,
  idx: row.idx,
  holderThumbprint: row.holder_thumbprint,
  issuedAt: row.issued_at,
  revokedAt: row.revoked_at,
});

/** Random picks collide rarely below capacity; this bounds the retries of one pick. */
const MAX_PICKS = 64;

export class SqlIssuedCredentialStore implements IssuedCredentialStore {
  constructor(private readonly db: Db) {}

  async collect<T>(c: Collection, finish: (slots: StatusAllocation[]) => Promise<T>): Promise<CollectionResult<T>> {
    try {
      const value = await atomically(this.db, async (trx) => {
        for (const nonce of c.nonces) {
          const spent = await trx
            .insertInto('spent_nonces')
            .values({ nonce_hash: nonce.hash, tenant: c.tenant, expires_at: nonce.expiresAt, spent_at: c.now })
            .onConflict((oc) => oc.column('nonce_hash').doNothing())
            .executeTakeFirst();
          if (Number(spent.numInsertedOrUpdatedRows) !== 1) throw new Refused('nonce');
        }
        const spent = await trx
          .updateTable('access_tokens')
          .set({ spent_at: c.now })
          .where('token_hash', '=', c.tokenHash)
          .where('tenant', '=', c.tenant)
          // The token collects the offer it was granted for, and nothing else.
          .where('grant_id', '=', c.offerId)
          .where('spent_at', 'is', null)
          .where('expires_at', '>', c.now)
          .executeTakeFirst();
        if (Number(spent.numUpdatedRows) !== 1) throw new Refused('token');
        const collected = await trx
          .updateTable('offers')
          .set({ subject: null, collected_at: c.now })
          .where('id', '=', c.offerId)
          .where('tenant', '=', c.tenant)
          .where('collected_at', 'is', null)
          .where('subject', 'is not', null)
          .executeTakeFirst();
        if (Number(collected.numUpdatedRows) !== 1) throw new Refused('token');
        const slots: StatusAllocation[] = [];
        for (const holderThumbprint of c.holderThumbprints) slots.push(await this.allocate(trx, c, holderThumbprint));
        return finish(slots);
      });
      return { ok: true, value };
    } catch (err) {
      if (err instanceof Refused) return { ok: false, reason: err.reason };
      throw err;
    }
  }

  /**
   * A fresh, random, never reused index (Token Status List §13.2, HAIP): the tenant's newest list
   * while it has capacity, else a new list. The credential row is written with its slot; the
   * unique (tenant, list, idx) key settles races.
   */
  private async allocate(trx: Db, c: Collection, holderThumbprint: string): Promise<StatusAllocation> {
    for (;;) {
      const list = await trx
        .updateTable('status_lists')
        .set((eb) => ({ allocated: eb('allocated', '+', 1) }))
        .where('tenant', '=', c.tenant)
        .where((eb) => eb('allocated', '<', eb.ref('capacity')))
        .where('seq', '=', (eb) =>
          eb
            .selectFrom('status_lists')
            .select((e) => e.fn.max('seq').as('seq'))
            .where('tenant', '=', c.tenant),
        )
        .returning(['seq', 'size'])
        .executeTakeFirst();
      if (!list) {
        await this.openList(trx, c);
        continue;
      }
      for (let pick = 0; pick < MAX_PICKS; pick++) {
        const slot = { credentialId: c.newCredentialId(), listSeq: list.seq, idx: c.randomIndex(list.size) };
        const inserted = await trx
          .insertInto('issued_credentials')
          .values({
            id: slot.credentialId,
            tenant: c.tenant,
            type_id: c.typeId,
            offer_id: c.offerId,
            list_seq: slot.listSeq,
            idx: slot.idx,
            holder_thumbprint: holderThumbprint,
            issued_at: c.now,
            revoked_at: null,
          })
          // Only a taken index is skipped; any other conflict (a duplicate id) still fails.
          .onConflict((oc) => oc.columns(['tenant', 'list_seq', 'idx']).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows) === 1) return slot;
      }
      throw new Error(`no free status index found in list ${list.seq} of ${c.tenant}`);
    }
  }

  private async openList(trx: Db, c: Collection): Promise<void> {
    const newest = await trx
      .selectFrom('status_lists')
      .select((e) => e.fn.max('seq').as('seq'))
      .where('tenant', '=', c.tenant)
      .executeTakeFirst();
    await trx
      .insertInto('status_lists')
      .values({
        tenant: c.tenant,
        seq: Number(newest?.seq ?? 0) + 1,
        size: c.listSize,
        capacity: c.listCapacity,
        allocated: 0,
        created_at: c.now,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async list(tenant: string, seq: number): Promise<{ size: number } | undefined> {
    return this.db
      .selectFrom('status_lists')
      .select('size')
      .where('tenant', '=', tenant)
      .where('seq', '=', seq)
      .executeTakeFirst();
  }

  async revokedIndices(tenant: string, seq: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select('idx')
      .where('tenant', '=', tenant)
      .where('list_seq', '=', seq)
      .where('revoked_at', 'is not', null)
      .execute();
    return rows.map((r) => r.idx);
  }

  async revoke(tenant: string, target: RevocationTarget, now: number): Promise<Revocation> {
    return atomically(this.db, async (trx) => {
      let update = trx
        .updateTable('issued_credentials')
        .set({ revoked_at: now })
        .where('tenant', '=', tenant)
        .where('revoked_at', 'is', null);
      let select = trx.selectFrom('issued_credentials').selectAll().where('tenant', '=', tenant);
      if (target.by === 'status') {
        update = update.where('list_seq', '=', target.listSeq).where('idx', '=', target.idx);
        select = select.where('list_seq', '=', target.listSeq).where('idx', '=', target.idx);
      } else if (target.by === 'credential') {
        update = update.where('id', '=', target.id);
        select = select.where('id', '=', target.id);
      } else {
        update = update.where('offer_id', '=', target.offerId);
        select = select.where('offer_id', '=', target.offerId);
      }
      const newly = await update.returning('id').execute();
      const matched = (await select.orderBy('issued_at').orderBy('id').execute()).map(toRecord);
      return { matched, newlyRevoked: newly.map((r) => r.id).sort() };
    });
  }

  async pruneSpentNonces(now: number): Promise<void> {
    await this.db.deleteFrom('spent_nonces').where('expires_at', '<=', now).execute();
  }
}
