import { type Expression, type SqlBool, sql } from 'kysely';
import type { CredentialRow, Subject, TimelineCursor, TimelineEntry } from '../../ports/backoffice-views.ts';
import type { Db } from './connect.ts';
import { CREDENTIAL_COLUMNS, json, mentions, num, OFFER_COLUMNS, toCredential, toOffer } from './sql-backoffice-rows.ts';

/**
 * A subject's timeline (docs/backoffice/views.md, "GET /api/admin/support/timeline/{subject}"):
 * every source that names an account, a credential or an offer, each read in its own order after
 * the cursor and merged by time.
 */

/** The timeline's sources, in the order entries of the same millisecond are shown. */
const RANKS = {
  audit: 0,
  event: 1,
  offer: 2,
  credential: 3,
  revocation: 4,
  item: 5,
  membership: 6,
  deposit: 7,
  channel: 8,
} as const;

/**
 * Rows of one source after the cursor, in the order (at, rank, id): a source ranked before the
 * cursor's starts after its millisecond, one ranked after it at that millisecond, and the
 * cursor's own source after its id within the millisecond.
 */
function after(at: string, id: string, rank: number, cursor: TimelineCursor | undefined): Expression<SqlBool> {
  if (!cursor) return sql<SqlBool>`1 = 1`;
  if (rank < cursor.rank) return sql<SqlBool>`${sql.ref(at)} > ${cursor.at}`;
  if (rank > cursor.rank) return sql<SqlBool>`${sql.ref(at)} >= ${cursor.at}`;
  return sql<SqlBool>`(${sql.ref(at)} > ${cursor.at} or (${sql.ref(at)} = ${cursor.at} and ${sql.ref(id)} > ${cursor.id}))`;
}

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

  const reads: Promise<TimelineEntry[]>[] = [];

  reads.push(
    db
      .selectFrom('audit_log')
      .select(['seq', 'at', 'actor', 'action', 'tenant', 'target', 'detail'])
      .where((eb) => eb.or([eb('target', '=', key), mentions('detail', key)]))
      .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string))
      .where(after('at', 'seq', RANKS.audit, cursor))
      .orderBy('at')
      .orderBy('seq')
      .limit(limit)
      .execute()
      .then((rows) =>
        rows.map((r) => ({
          at: num(r.at),
          source: 'audit' as const,
          what: r.action,
          tenant: r.tenant,
          ref: String(num(r.seq)),
          actor: r.actor,
          detail: { target: r.target, ...json(r.detail) },
          key: num(r.seq),
        })),
      ),
  );

  reads.push(
    db
      .selectFrom('outbox')
      .select(['id', 'type', 'tenant', 'created_at', 'data'])
      .where(mentions('data', key))
      .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string))
      .where(after('created_at', 'id', RANKS.event, cursor))
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute()
      .then((rows) =>
        rows.map((r) => ({
          at: num(r.created_at),
          source: 'event' as const,
          what: r.type,
          tenant: r.tenant,
          ref: r.id,
          actor: null,
          detail: json(r.data),
          key: r.id,
        })),
      ),
  );

  // Offers: the subject's own, a credential's, or those addressed to the account's wallet.
  if (subject.kind !== 'account' ? offerId !== undefined : true) {
    reads.push(
      db
        .selectFrom('offers')
        .select(OFFER_COLUMNS)
        .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string))
        .$if(subject.kind !== 'account', (qb) => qb.where('id', '=', offerId as string))
        .$if(subject.kind === 'account', (qb) =>
          qb.where('id', 'in', (eb) =>
            eb.selectFrom('wallet_items').select('ref').where('account_id', '=', key).where('kind', '=', 'offer'),
          ),
        )
        .where(after('created_at', 'id', RANKS.offer, cursor))
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute()
        .then((rows) =>
          rows.map(toOffer).map((o) => ({
            at: o.createdAt,
            source: 'offer' as const,
            what: 'offer.created',
            tenant: o.tenant,
            ref: o.id,
            actor: null,
            detail: {
              typeId: o.typeId,
              expiresAt: new Date(o.expiresAt).toISOString(),
              redeemedAt: o.redeemedAt === null ? null : new Date(o.redeemedAt).toISOString(),
              collectedAt: o.collectedAt === null ? null : new Date(o.collectedAt).toISOString(),
            },
            key: o.id,
          })),
        ),
    );
  }

  const credentials = () => {
    const base = db
      .selectFrom('issued_credentials')
      .select(CREDENTIAL_COLUMNS)
      .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string));
    if (subject.kind === 'account') return base.where('holder_thumbprint', '=', key);
    if (subject.kind === 'credential') return base.where('id', '=', key);
    return base.where('offer_id', '=', key);
  };
  reads.push(
    credentials()
      .where(after('issued_at', 'id', RANKS.credential, cursor))
      .orderBy('issued_at')
      .orderBy('id')
      .limit(limit)
      .execute()
      .then((rows) =>
        rows.map(toCredential).map((c) => ({
          at: c.issuedAt,
          source: 'credential' as const,
          what: 'credential.issued',
          tenant: c.tenant,
          ref: c.id,
          actor: null,
          detail: { typeId: c.typeId, offerId: c.offerId, list: c.listSeq, idx: c.idx, accountId: c.accountId },
          key: c.id,
        })),
      ),
  );
  reads.push(
    credentials()
      .where('revoked_at', 'is not', null)
      .where(after('revoked_at', 'id', RANKS.revocation, cursor))
      .orderBy('revoked_at')
      .orderBy('id')
      .limit(limit)
      .execute()
      .then((rows) =>
        rows.map(toCredential).map((c) => ({
          at: c.revokedAt as number,
          source: 'revocation' as const,
          what: 'credential.revoked',
          tenant: c.tenant,
          ref: c.id,
          actor: null,
          detail: { typeId: c.typeId, list: c.listSeq, idx: c.idx },
          key: c.id,
        })),
      ),
  );

  if (subject.kind === 'account' || offerId !== undefined) {
    reads.push(
      db
        .selectFrom('wallet_items')
        .select(['id', 'tenant', 'account_id', 'kind', 'ref', 'state', 'created_at', 'updated_at'])
        .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string))
        .$if(subject.kind === 'account', (qb) => qb.where('account_id', '=', key))
        .$if(subject.kind !== 'account', (qb) => qb.where('kind', '=', 'offer').where('ref', '=', offerId as string))
        .where(after('created_at', 'id', RANKS.item, cursor))
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute()
        .then((rows) =>
          rows.map((r) => ({
            at: num(r.created_at),
            source: 'item' as const,
            what: 'item.created',
            tenant: r.tenant,
            ref: r.id,
            actor: null,
            detail: {
              kind: r.kind,
              ref: r.ref,
              state: r.state,
              accountId: r.account_id,
              updatedAt: new Date(num(r.updated_at)).toISOString(),
            },
            key: r.id,
          })),
        ),
    );
  }

  if (subject.kind === 'account') {
    reads.push(
      db
        .selectFrom('members')
        .select(['tenant', 'tier', 'status', 'joined_at'])
        .where('account_id', '=', key)
        .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string))
        .where(after('joined_at', 'tenant', RANKS.membership, cursor))
        .orderBy('joined_at')
        .orderBy('tenant')
        .limit(limit)
        .execute()
        .then((rows) =>
          rows.map((r) => ({
            at: num(r.joined_at),
            source: 'membership' as const,
            what: 'member.joined',
            tenant: r.tenant,
            ref: r.tenant,
            actor: null,
            detail: { tier: r.tier, status: r.status },
            key: r.tenant,
          })),
        ),
    );
    reads.push(
      db
        .selectFrom('deposits')
        .select(['tenant', 'deposit_id', 'item_id', 'product_id', 'created_at', 'erased_at'])
        .where('account_id', '=', key)
        .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string))
        .where(after('created_at', 'item_id', RANKS.deposit, cursor))
        .orderBy('created_at')
        .orderBy('item_id')
        .limit(limit)
        .execute()
        .then((rows) =>
          rows.map((r) => ({
            at: num(r.created_at),
            source: 'deposit' as const,
            what: 'deposit.delivered',
            tenant: r.tenant,
            ref: r.deposit_id,
            actor: null,
            detail: { depositId: r.deposit_id, itemId: r.item_id, productId: r.product_id },
            key: r.item_id,
          })),
        ),
    );
    reads.push(
      db
        .selectFrom('channels')
        .select(['tenant', 'state', 'elements', 'requested_by', 'created_at', 'updated_at'])
        .where('account_id', '=', key)
        .$if(tenant !== null, (qb) => qb.where('tenant', '=', tenant as string))
        .where(after('created_at', 'tenant', RANKS.channel, cursor))
        .orderBy('created_at')
        .orderBy('tenant')
        .limit(limit)
        .execute()
        .then((rows) =>
          rows.map((r) => ({
            at: num(r.created_at),
            source: 'channel' as const,
            what: 'channel.created',
            tenant: r.tenant,
            ref: r.tenant,
            actor: null,
            detail: {
              state: r.state,
              elements: JSON.parse(r.elements) as string[],
              requestedBy: r.requested_by,
              updatedAt: new Date(num(r.updated_at)).toISOString(),
            },
            key: r.tenant,
          })),
        ),
    );
  }

  // Each source answered in its own (at, id) order; merge by (at, rank), keeping that order.
  const sources = await Promise.all(reads);
  const merged = sources.flatMap((rows) => rows.map((row, position) => ({ row, position })));
  merged.sort((a, b) => a.row.at - b.row.at || RANKS[a.row.source] - RANKS[b.row.source] || a.position - b.position);
  return merged.slice(0, limit).map(({ row }) => row);
}
