import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import {
  type CredentialRow,
  type Subject,
  TIMELINE_SOURCES,
  type TimelineCursor,
  type TimelineEntry,
  type TimelineSource,
} from '../../../ports/backoffice-views.ts';
import type { Db } from '../connect.ts';
import { ACCOUNT_COLUMNS } from '../holder-data.ts';
import { inTenant } from '../windowed.ts';
import { CREDENTIAL_COLUMNS, json, mentions, num, OFFER_COLUMNS, toCredential, toOffer } from './sql-backoffice-rows.ts';

/**
 * A subject's timeline (docs/backoffice/views.md, "GET /api/admin/support/timeline/{subject}"):
 * every source that names an account, a credential or an offer, each read in its own order after
 * the cursor and merged by time. One reader per source (SOURCES); an account's sources are the
 * ones the holder-data registry gives its columns (holder-data.ts).
 */

const rankOf = (source: TimelineSource) => TIMELINE_SOURCES.indexOf(source);

/**
 * Rows of one source after the cursor, in the order (at, rank, id): a source ranked before the
 * cursor's starts after its millisecond, one ranked after it at that millisecond, and the
 * cursor's own source after its id within the millisecond.
 */
function after(at: string, id: string, source: TimelineSource, cursor: TimelineCursor | undefined): Expression<SqlBool> {
  if (!cursor) return sql<SqlBool>`1 = 1`;
  const rank = rankOf(source);
  if (rank < cursor.rank) return sql<SqlBool>`${sql.ref(at)} > ${cursor.at}`;
  if (rank > cursor.rank) return sql<SqlBool>`${sql.ref(at)} >= ${cursor.at}`;
  return sql<SqlBool>`(${sql.ref(at)} > ${cursor.at} or (${sql.ref(at)} = ${cursor.at} and ${sql.ref(id)} > ${cursor.id}))`;
}

/** A source's rows after the cursor in its own (at, id) order, one page of them. */
function inOrder<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  at: string,
  id: string,
  source: TimelineSource,
  r: Read,
): Promise<O[]> {
  return query
    .where(after(at, id, source, r.cursor))
    .orderBy(sql.ref(at))
    .orderBy(sql.ref(id))
    .limit(r.limit)
    .execute();
}

/** What every reader is given: the subject, its key, the offer it leads to, the tenant shown, the page. */
interface Read {
  db: Db;
  subject: Subject;
  key: string;
  /** The offer of an offer subject, or the one a credential came from. */
  offerId: string | undefined;
  tenant: string | null;
  cursor: TimelineCursor | undefined;
  limit: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A source's reader: its entries after the cursor, or undefined when the source says nothing of this subject. */
type Reader = (r: Read) => Promise<Omit<TimelineEntry, 'source'>[]> | undefined;

function credentials(r: Read) {
  const base = r.db.selectFrom('issued_credentials').select(CREDENTIAL_COLUMNS).where(inTenant(r.tenant));
  if (r.subject.kind === 'account') return base.where('holder_thumbprint', '=', r.key);
  if (r.subject.kind === 'credential') return base.where('id', '=', r.key);
  return base.where('offer_id', '=', r.key);
}

const SOURCES: Record<TimelineSource, Reader> = {
  audit: (r) =>
    r.db
      .selectFrom('audit_log')
      .select(['seq', 'at', 'actor', 'action', 'tenant', 'target', 'detail'])
      .where((eb) => eb.or([eb('target', '=', r.key), mentions('detail', r.key)]))
      .where(inTenant(r.tenant))
      .$call((q) => inOrder(q, 'at', 'seq', 'audit', r))
      .then((rows) =>
        rows.map((row) => ({
          at: num(row.at),
          what: row.action,
          tenant: row.tenant,
          ref: String(num(row.seq)),
          actor: row.actor,
          detail: { target: row.target, ...json(row.detail) },
          key: num(row.seq),
        })),
      ),

  event: (r) =>
    r.db
      .selectFrom('outbox')
      .select(['id', 'type', 'tenant', 'created_at', 'data'])
      .where(mentions('data', r.key))
      .where(inTenant(r.tenant))
      .$call((q) => inOrder(q, 'created_at', 'id', 'event', r))
      .then((rows) =>
        rows.map((row) => ({
          at: num(row.created_at),
          what: row.type,
          tenant: row.tenant,
          ref: row.id,
          actor: null,
          detail: json(row.data),
          key: row.id,
        })),
      ),

  // Offers: the subject's own, a credential's, or those addressed to the account's wallet.
  offer: (r) => {
    if (r.subject.kind !== 'account' && r.offerId === undefined) return undefined;
    return r.db
      .selectFrom('offers')
      .select(OFFER_COLUMNS)
      .where(inTenant(r.tenant))
      .$if(r.subject.kind !== 'account', (qb) => qb.where('id', '=', r.offerId as string))
      .$if(r.subject.kind === 'account', (qb) =>
        qb.where('id', 'in', (eb) =>
          eb.selectFrom('wallet_items').select('ref').where('account_id', '=', r.key).where('kind', '=', 'offer'),
        ),
      )
      .$call((q) => inOrder(q, 'created_at', 'id', 'offer', r))
      .then((rows) =>
        rows.map(toOffer).map((o) => ({
          at: o.createdAt,
          what: 'offer.created',
          tenant: o.tenant,
          ref: o.id,
          actor: null,
          detail: {
            typeId: o.typeId,
            expiresAt: iso(o.expiresAt),
            redeemedAt: iso(o.redeemedAt),
            collectedAt: iso(o.collectedAt),
          },
          key: o.id,
        })),
      );
  },

  credential: (r) =>
    credentials(r)
      .$call((q) => inOrder(q, 'issued_at', 'id', 'credential', r))
      .then((rows) =>
        rows.map(toCredential).map((c) => ({
          at: c.issuedAt,
          what: 'credential.issued',
          tenant: c.tenant,
          ref: c.id,
          actor: null,
          detail: { typeId: c.typeId, offerId: c.offerId, list: c.listSeq, idx: c.idx, accountId: c.accountId },
          key: c.id,
        })),
      ),

  revocation: (r) =>
    credentials(r)
      .where('revoked_at', 'is not', null)
      .$call((q) => inOrder(q, 'revoked_at', 'id', 'revocation', r))
      .then((rows) =>
        rows.map(toCredential).map((c) => ({
          at: c.revokedAt as number,
          what: 'credential.revoked',
          tenant: c.tenant,
          ref: c.id,
          actor: null,
          detail: { typeId: c.typeId, list: c.listSeq, idx: c.idx },
          key: c.id,
        })),
      ),

  item: (r) => {
    if (r.subject.kind !== 'account' && r.offerId === undefined) return undefined;
    return r.db
      .selectFrom('wallet_items')
      .select(['id', 'tenant', 'account_id', 'kind', 'ref', 'state', 'created_at', 'updated_at'])
      .where(inTenant(r.tenant))
      .$if(r.subject.kind === 'account', (qb) => qb.where('account_id', '=', r.key))
      .$if(r.subject.kind !== 'account', (qb) => qb.where('kind', '=', 'offer').where('ref', '=', r.offerId as string))
      .$call((q) => inOrder(q, 'created_at', 'id', 'item', r))
      .then((rows) =>
        rows.map((row) => ({
          at: num(row.created_at),
          what: 'item.created',
          tenant: row.tenant,
          ref: row.id,
          actor: null,
          detail: {
            kind: row.kind,
            ref: row.ref,
            state: row.state,
            accountId: row.account_id,
            updatedAt: iso(num(row.updated_at)),
          },
          key: row.id,
        })),
      );
  },

  membership: (r) =>
    r.db
      .selectFrom('members')
      .select(['tenant', 'tier', 'status', 'joined_at'])
      .where('account_id', '=', r.key)
      .where(inTenant(r.tenant))
      .$call((q) => inOrder(q, 'joined_at', 'tenant', 'membership', r))
      .then((rows) =>
        rows.map((row) => ({
          at: num(row.joined_at),
          what: 'member.joined',
          tenant: row.tenant,
          ref: row.tenant,
          actor: null,
          detail: { tier: row.tier, status: row.status },
          key: row.tenant,
        })),
      ),

  deposit: (r) =>
    r.db
      .selectFrom('deposits')
      .select(['tenant', 'deposit_id', 'item_id', 'product_id', 'created_at', 'erased_at'])
      .where('account_id', '=', r.key)
      .where(inTenant(r.tenant))
      .$call((q) => inOrder(q, 'created_at', 'item_id', 'deposit', r))
      .then((rows) =>
        rows.map((row) => ({
          at: num(row.created_at),
          what: 'deposit.delivered',
          tenant: row.tenant,
          ref: row.deposit_id,
          actor: null,
          detail: { depositId: row.deposit_id, itemId: row.item_id, productId: row.product_id },
          key: row.item_id,
        })),
      ),

  channel: (r) =>
    r.db
      .selectFrom('channels')
      .select(['tenant', 'state', 'elements', 'requested_by', 'created_at', 'updated_at'])
      .where('account_id', '=', r.key)
      .where(inTenant(r.tenant))
      .$call((q) => inOrder(q, 'created_at', 'tenant', 'channel', r))
      .then((rows) =>
        rows.map((row) => ({
          at: num(row.created_at),
          what: 'channel.created',
          tenant: row.tenant,
          ref: row.tenant,
          actor: null,
          detail: {
            state: row.state,
            elements: JSON.parse(row.elements) as string[],
            requestedBy: row.requested_by,
            updatedAt: iso(num(row.updated_at)),
          },
          key: row.tenant,
        })),
      ),
};

/** An account's sources: those the holder-data registry names for the columns that hold it. */
export const ACCOUNT_SOURCES: ReadonlySet<TimelineSource> = new Set(ACCOUNT_COLUMNS.flatMap((c) => c.timeline ?? []));
/** Sources that read a credential or an offer by its id, whatever the registry says of accounts. */
const OBJECT_SOURCES: ReadonlySet<TimelineSource> = new Set(['audit', 'event', 'offer', 'credential', 'revocation', 'item']);

/** `credential` reads one credential within the tenant shown (for the offer it came from). */
export async function readTimeline(
  db: Db,
  subject: Subject,
  tenant: string | null,
  cursor: TimelineCursor | undefined,
  limit: number,
  credential: (id: string) => Promise<CredentialRow | undefined>,
): Promise<TimelineEntry[]> {
  const key = subject.kind === 'account' ? subject.accountId : subject.id;
  // The offer a credential came from, so that its offer and wallet item join its timeline.
  const offerId =
    subject.kind === 'offer' ? subject.id : subject.kind === 'credential' ? (await credential(subject.id))?.offerId : undefined;
  const read: Read = { db, subject, key, offerId, tenant, cursor, limit };
  const sources = subject.kind === 'account' ? ACCOUNT_SOURCES : OBJECT_SOURCES;
  const answered = await Promise.all(
    TIMELINE_SOURCES.filter((source) => sources.has(source)).map(
      async (source) => ((await SOURCES[source](read)) ?? []).map((row) => ({ ...row, source })) as TimelineEntry[],
    ),
  );
  // Each source answered in its own (at, id) order; merge by (at, rank), keeping that order.
  const merged = answered.flatMap((rows) => rows.map((row, position) => ({ row, position })));
  merged.sort((a, b) => a.row.at - b.row.at || rankOf(a.row.source) - rankOf(b.row.source) || a.position - b.position);
  return merged.slice(0, limit).map(({ row }) => row);
}
