import { type Expression, type Selectable, type SqlBool, sql } from 'kysely';
import type {
  CompletionExtras,
  PresentationTransactionRecord,
  PresentationTransactionStore,
} from '../../../ports/presentation-transaction-store.ts';
import type { Db } from '../connect.ts';
import { outboxWrite, wakeDelivery } from '../kernel/kernel-statements.ts';
import { asIs, col, json, rowCodec } from '../row-codec.ts';
import type { PresentationTransactionsTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { Statement } from '../statement.ts';
import { applyAll } from '../write-batch.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

const transactions = rowCodec<PresentationTransactionRecord, PresentationTransactionsTable>()(
  'id state nonce resultTokenHash callerAud typeTenant typeId vct requestedBy createdAt expiresAt completedAt enrolledAt issuerDid profile responseKey dcOrigin redirectUri responseCodeHash',
  { claims: json, outcome: json, verifierChain: json, holder: col('holder_thumbprint', asIs), format: asIs },
);
/** A transaction as read: `format` only where it is not the default SD-JWT VC (ports/presentation-transaction-store.ts). */
const toRecord = (row: Selectable<PresentationTransactionsTable>): PresentationTransactionRecord => {
  const { format, ...record } = transactions.record(row);
  return format === 'mso_mdoc' ? { ...record, format } : record;
};

// Any unique conflict (on either engine) writes nothing and leaves the transaction usable.
const insert = new Statement(
  'insert into presentation_transactions (id, state, nonce, result_token_hash, caller_aud, type_tenant, type_id, vct, ' +
    'claims, requested_by, created_at, expires_at, completed_at, outcome, issuer_did, profile, response_key, dc_origin, ' +
    'verifier_chain, redirect_uri, format) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing',
);
const byId = new Statement<Selectable<PresentationTransactionsTable>>('select * from presentation_transactions where id = ?');
const byState = new Statement<Selectable<PresentationTransactionsTable>>(
  'select * from presentation_transactions where state = ?',
);
const completeOnce = new Statement(
  'update presentation_transactions set outcome = ?, completed_at = ?, expires_at = ?, holder_thumbprint = ?, ' +
    'response_code_hash = ?, response_key = null ' +
    'where id = ? and completed_at is null and expires_at > ?',
);

export class SqlPresentationTransactionStore implements PresentationTransactionStore {
  constructor(private readonly db: Db) {}

  async create(t: PresentationTransactionRecord): Promise<boolean> {
    const inserted = await insert.changes(this.db, [
      t.id,
      t.state,
      t.nonce,
      t.resultTokenHash,
      t.callerAud,
      t.typeTenant,
      t.typeId,
      t.vct,
      JSON.stringify(t.claims),
      t.requestedBy,
      t.createdAt,
      t.expiresAt,
      t.completedAt,
      t.outcome ? JSON.stringify(t.outcome) : null,
      t.issuerDid,
      t.profile,
      t.responseKey,
      t.dcOrigin,
      t.verifierChain ? JSON.stringify(t.verifierChain) : null,
      t.redirectUri,
      t.format ?? 'dc+sd-jwt',
    ]);
    return inserted === 1;
  }

  async get(id: string): Promise<PresentationTransactionRecord | undefined> {
    const row = await byId.first(this.db, [id]);
    return row ? toRecord(row) : undefined;
  }

  async findByState(state: string): Promise<PresentationTransactionRecord | undefined> {
    const row = await byState.first(this.db, [state]);
    return row ? toRecord(row) : undefined;
  }

  async complete(
    id: string,
    outcome: Record<string, unknown>,
    now: number,
    keepUntil: number,
    extras: CompletionExtras = {},
  ): Promise<boolean> {
    const values = [JSON.stringify(outcome), now, keepUntil, extras.holder ?? null, extras.responseCodeHash ?? null, id, now];
    if (!extras.event) return (await completeOnce.changes(this.db, values)) === 1;
    // With its event: one statement on PostgreSQL (write-batch.ts).
    const refused = await applyAll(this.db, [
      { statement: completeOnce, params: values, expect: 1, refusal: 'complete' },
      outboxWrite(extras.event, now),
    ]);
    if (refused === undefined && !this.db.isTransaction) wakeDelivery();
    return refused === undefined;
  }

  async sweep(now: number): Promise<void> {
    await atomically(this.db, async (trx) => {
      await rollUp(trx, sql`expires_at <= ${now}`);
      await trx.deleteFrom('presentation_transactions').where('expires_at', '<=', now).execute();
    });
  }

  async evictBeyond(cap: number): Promise<number> {
    // The newest `cap` transactions stay; the one just past them marks where eviction starts.
    const edge = await this.db
      .selectFrom('presentation_transactions')
      .select(['created_at', 'id'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .offset(cap)
      .executeTakeFirst();
    if (!edge) return 0;
    const evicted = sql<SqlBool>`(created_at < ${edge.created_at} or (created_at = ${edge.created_at} and id <= ${edge.id}))`;
    return atomically(this.db, async (trx) => {
      await rollUp(trx, evicted);
      const result = await trx.deleteFrom('presentation_transactions').where(evicted).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
}

/**
 * Adds the transactions `where` selects to the daily counts (docs/operations.md, "Wire
 * funnels"), in the transaction that deletes them. An outcome is stored as the JSON its record
 * is written as, `ok` its first member (sql-presentation-transaction-store's `complete`).
 */
function rollUp(db: Db, where: Expression<SqlBool>) {
  return sql`
    insert into verification_counts (day, tenant, type_id, requests, responses, accepted)
    select created_at - (created_at % ${DAY_MS}), type_tenant, type_id, count(*), count(completed_at),
           sum(case when substr(outcome, 1, 10) = '{"ok":true' then 1 else 0 end)
    from presentation_transactions where ${where}
    group by 1, 2, 3
    on conflict (day, tenant, type_id) do update set
      requests = verification_counts.requests + excluded.requests,
      responses = verification_counts.responses + excluded.responses,
      accepted = verification_counts.accepted + excluded.accepted`.execute(db);
}
