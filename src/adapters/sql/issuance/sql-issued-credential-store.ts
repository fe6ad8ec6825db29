import { PostgresAdapter } from 'kysely';
import type {
  Collection,
  CollectionResult,
  IssuedCredentialRecord,
  IssuedCredentialStore,
  ListRef,
  ListShape,
  Revocation,
  RevocationTarget,
  StatusAllocation,
  StatusReservation,
} from '../../../ports/issued-credential-store.ts';
import type { Db } from '../connect.ts';
import { outboxWrite, wakeDelivery } from '../kernel/kernel-statements.ts';
import { eraseSubjectWrite } from '../offers/offers-statements.ts';
import { rowCodec } from '../row-codec.ts';
import type { IssuedCredentialsTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { Statement } from '../statement.ts';
import { applyAll, batchesInOneStatement, type GuardedWrite } from '../write-batch.ts';

/** Rolls the collection back without treating it as a failure of the service. */
class Refused extends Error {
  constructor(readonly reason: 'nonce' | 'token') {
    super(reason);
  }
}

const credentials = rowCodec<IssuedCredentialRecord, IssuedCredentialsTable>()(
  'id tenant typeId offerId listSeq idx holderThumbprint issuedAt revokedAt expiresAt',
  {},
);
const toRecord = credentials.record;

/** Random picks collide rarely below capacity; this bounds the retries of one pick. */
const MAX_PICKS = 64;
/** Concurrent reservations retry their optimistic write; this bounds the rounds. */
const MAX_RESERVE_ROUNDS = 100;

const spendNonce = new Statement(
  'insert into spent_nonces (nonce_hash, tenant, expires_at, spent_at) values (?, ?, ?, ?) on conflict (nonce_hash) do nothing',
);
// The token collects the offer it was granted for, and nothing else.
const spendToken = new Statement(
  'update access_tokens set spent_at = ? where token_hash = ? and tenant = ? and grant_id = ? and spent_at is null and expires_at > ?',
);
// Only a taken index is skipped; any other conflict (a duplicate id) still fails.
const recordCredential = new Statement(
  'insert into issued_credentials (id, tenant, type_id, offer_id, list_seq, idx, holder_thumbprint, issued_at, revoked_at, expires_at) ' +
    'values (?, ?, ?, ?, ?, ?, ?, ?, null, ?) on conflict (tenant, list_seq, idx) do nothing',
);
/** recordCredential's values for `slot` of collection `c`, bound to the holder key `holderThumbprint`. */
const credentialRow = (c: Collection, slot: StatusAllocation, holderThumbprint: string) => [
  slot.credentialId,
  c.tenant,
  c.typeId,
  c.offerId,
  slot.listSeq,
  slot.idx,
  holderThumbprint,
  c.now,
  c.expiresAt,
];
const newestList = new Statement<{ seq: number; size: number; capacity: number; allocated: number }>(
  'select seq, size, capacity, allocated from status_lists where tenant = ? order by seq desc limit 1',
);
// Concurrent openers of the same next list meet on the primary key.
const openList = new Statement(
  'insert into status_lists (tenant, seq, size, capacity, allocated, created_at) values (?, ?, ?, ?, 0, ?) on conflict do nothing',
);
// Optimistic: granted only if nobody reserved since the count was read.
const grantSlots = new Statement(
  'update status_lists set allocated = allocated + ? where tenant = ? and seq = ? and allocated = ?',
);
const listOf = new Statement<{ size: number; revision: number }>(
  'select size, revision from status_lists where tenant = ? and seq = ?',
);
const raiseRevision = new Statement('update status_lists set revision = revision + 1 where tenant = ? and seq = ?');
const revokedOf = new Statement<{ idx: number }>(
  'select idx from issued_credentials where tenant = ? and list_seq = ? and revoked_at is not null',
);

type Matched = IssuedCredentialsTable & { newly: boolean };
/** What selects the target's credentials, by the kind of target (`c.`: the table's alias, or none). */
const REVOCATION_TARGETS: { [K in RevocationTarget['by']]: (c: string) => string } = {
  status: (c) => `${c}list_seq = ? and ${c}idx = ?`,
  credential: (c) => `${c}id = ?`,
  credentials: (c) => `${c}id = any(?)`,
  offer: (c) => `${c}offer_id = ?`,
};
const revocations = new Map<RevocationTarget['by'], Statement<Matched>>();

/**
 * PostgreSQL: a revocation in one statement (one round trip, atomic on its own). The credentials
 * still unrevoked are revoked, the revision of each list they are on raised, and every credential
 * the target matches answered as it is now: the closing select reads the statement's snapshot,
 * from before its updates, so a credential it revoked takes `now` from the update's own rows.
 */
function revocationStatement(target: RevocationTarget): { statement: Statement<Matched>; params: unknown[] } {
  let statement = revocations.get(target.by);
  if (!statement) {
    const where = REVOCATION_TARGETS[target.by];
    const columns = credentials.columns.map((c) =>
      c === 'revoked_at' ? 'case when n.id is null then c.revoked_at else ? end as revoked_at' : `c.${c}`,
    );
    statement = new Statement<Matched>(
      `with newly as (
         update issued_credentials set revoked_at = ? where tenant = ? and revoked_at is null and ${where('')}
         returning id, list_seq),
       raised as (
         update status_lists set revision = revision + 1
         where tenant = ? and seq in (select list_seq from newly) returning 1)
       select ${columns.join(', ')}, n.id is not null as newly
       from issued_credentials c left join newly n on n.id = c.id
       where c.tenant = ? and ${where('c.')}
       order by c.issued_at, c.id`,
    );
    revocations.set(target.by, statement);
  }
  const params =
    target.by === 'status'
      ? [target.listSeq, target.idx]
      : target.by === 'credential'
        ? [target.id]
        : target.by === 'credentials'
          ? [[...target.ids]]
          : [target.offerId];
  return { statement, params };
}

export class SqlIssuedCredentialStore implements IssuedCredentialStore {
  constructor(private readonly db: Db) {}

  async collect<T>(c: Collection, finish: (slots: StatusAllocation[]) => Promise<T>): Promise<CollectionResult<T>> {
    if (c.lists.length !== c.holderThumbprints.length) throw new Error('one reserved list per holder key');
    if (batchesInOneStatement(this.db)) return this.collectInOneStatement(c, finish);
    let evented = false;
    try {
      const value = await atomically(this.db, async (trx) => {
        for (const nonce of c.nonces) {
          const spent = await spendNonce.changes(trx, [nonce.hash, c.tenant, nonce.expiresAt, c.now]);
          if (spent !== 1) throw new Refused('nonce');
        }
        if ((await spendToken.changes(trx, [c.now, c.tokenHash, c.tenant, c.offerId, c.now])) !== 1) throw new Refused('token');
        const erase = eraseSubjectWrite({ id: c.offerId, tenant: c.tenant }, c.now, 'token');
        if ((await erase.statement.changes(trx, erase.params)) !== 1) throw new Refused('token');
        const slots: StatusAllocation[] = [];
        for (const [i, holder] of c.holderThumbprints.entries())
          slots.push(await this.draw(trx, c, holder, c.lists[i] as ListRef));
        const value = await finish(slots);
        for (const event of c.events?.(slots) ?? []) {
          const row = outboxWrite(event, c.now);
          await row.statement.changes(trx, row.params);
          evented = true;
        }
        return value;
      });
      if (evented && !this.db.isTransaction) wakeDelivery();
      return { ok: true, value };
    } catch (err) {
      if (err instanceof Refused) return { ok: false, reason: err.reason };
      throw err;
    }
  }

  /**
   * PostgreSQL outside a transaction: the slots are drawn first and `finish` run on them, then every
   * write goes out as one statement (write-batch.ts; docs/scaling.md). An index another collection
   * took meanwhile refuses the statement, which is made again with that slot drawn anew.
   */
  private async collectInOneStatement<T>(
    c: Collection,
    finish: (slots: StatusAllocation[]) => Promise<T>,
  ): Promise<CollectionResult<T>> {
    const draw = (list: ListRef) => ({ credentialId: c.newCredentialId(), listSeq: list.listSeq, idx: c.randomIndex(list.size) });
    const slots = c.lists.map(draw);
    for (let round = 0; round < MAX_PICKS * Math.max(1, slots.length); round++) {
      // Two slots of one batch on one entry: the later draws again before anything is written.
      const clash = slots.findIndex((x, i) => slots.findIndex((y) => y.listSeq === x.listSeq && y.idx === x.idx) !== i);
      if (clash >= 0) {
        slots[clash] = draw(c.lists[clash] as ListRef);
        continue;
      }
      const value = await finish(slots);
      const events = c.events?.(slots) ?? [];
      const writes: GuardedWrite[] = [
        ...c.nonces.map((n) => ({
          statement: spendNonce,
          params: [n.hash, c.tenant, n.expiresAt, c.now],
          expect: 1,
          refusal: 'nonce',
        })),
        { statement: spendToken, params: [c.now, c.tokenHash, c.tenant, c.offerId, c.now], expect: 1, refusal: 'token' },
        eraseSubjectWrite({ id: c.offerId, tenant: c.tenant }, c.now, 'token'),
        ...slots.map((slot, i) => ({
          statement: recordCredential,
          params: credentialRow(c, slot, c.holderThumbprints[i] as string),
          expect: 1,
          refusal: `taken:${i}`,
        })),
        ...events.map((event) => outboxWrite(event, c.now)),
      ];
      const refused = await applyAll(this.db, writes);
      if (refused === undefined) {
        if (events.length > 0) wakeDelivery();
        return { ok: true, value };
      }
      const taken = /^taken:(\d+)$/.exec(refused);
      if (!taken) return { ok: false, reason: refused === 'nonce' ? 'nonce' : 'token' };
      // That entry went to another collection meanwhile: this slot alone draws again.
      const i = Number(taken[1]);
      slots[i] = draw(c.lists[i] as ListRef);
    }
    throw new Error(`no free status index found in the reserved lists of ${c.tenant}`);
  }

  /**
   * A fresh, random, never reused index of a reserved list (Token Status List §13.2, HAIP). The
   * credential row is written with its slot; the unique (tenant, list, idx) key settles races,
   * and a taken index is simply drawn again.
   */
  private async draw(trx: Db, c: Collection, holderThumbprint: string, list: ListRef): Promise<StatusAllocation> {
    for (let pick = 0; pick < MAX_PICKS; pick++) {
      const slot = { credentialId: c.newCredentialId(), listSeq: list.listSeq, idx: c.randomIndex(list.size) };
      const inserted = await recordCredential.changes(trx, credentialRow(c, slot, holderThumbprint));
      if (inserted === 1) return slot;
    }
    throw new Error(`no free status index found in list ${list.listSeq} of ${c.tenant}`);
  }

  async reserveSlots(tenant: string, want: number, shape: ListShape, now: number): Promise<StatusReservation> {
    for (let round = 0; round < MAX_RESERVE_ROUNDS; round++) {
      const list = await newestList.first(this.db, [tenant]);
      if (!list || list.allocated >= list.capacity) {
        await openList.changes(this.db, [tenant, (list?.seq ?? 0) + 1, shape.size, shape.capacity, now]);
        continue;
      }
      const granted = Math.min(want, list.capacity - list.allocated);
      if ((await grantSlots.changes(this.db, [granted, tenant, list.seq, list.allocated])) === 1) {
        return { listSeq: list.seq, size: list.size, granted };
      }
    }
    throw new Error(`could not reserve status entries of ${tenant}: too many concurrent reservations`);
  }

  async list(tenant: string, seq: number): Promise<{ size: number; revision: number } | undefined> {
    const row = await listOf.first(this.db, [tenant, seq]);
    return row ? { size: row.size, revision: row.revision } : undefined;
  }

  async touchLists(tenant: string): Promise<number> {
    const result = await this.db
      .updateTable('status_lists')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('tenant', '=', tenant)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async revokedIndices(tenant: string, seq: number): Promise<number[]> {
    return (await revokedOf.rows(this.db, [tenant, seq])).map((r) => r.idx);
  }

  async revoke(tenant: string, target: RevocationTarget, now: number): Promise<Revocation> {
    if (this.db.getExecutor().adapter instanceof PostgresAdapter) {
      const { statement, params } = revocationStatement(target);
      const rows = await statement.rows(this.db, [now, tenant, ...params, tenant, now, tenant, ...params]);
      return {
        matched: rows.map(toRecord),
        newlyRevoked: rows
          .filter((r) => r.newly)
          .map((r) => r.id)
          .sort(),
      };
    }
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
      } else if (target.by === 'credentials') {
        update = update.where('id', 'in', [...target.ids]);
        select = select.where('id', 'in', [...target.ids]);
      } else {
        update = update.where('offer_id', '=', target.offerId);
        select = select.where('offer_id', '=', target.offerId);
      }
      const newly = await update.returning(['id', 'list_seq']).execute();
      for (const seq of new Set(newly.map((r) => r.list_seq))) await raiseRevision.changes(trx, [tenant, seq]);
      const matched = (await select.orderBy('issued_at').orderBy('id').execute()).map(toRecord);
      return { matched, newlyRevoked: newly.map((r) => r.id).sort() };
    });
  }

  async pruneSpentNonces(now: number): Promise<void> {
    await this.db.deleteFrom('spent_nonces').where('expires_at', '<=', now).execute();
  }
}
