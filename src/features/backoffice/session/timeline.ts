import {
  type Subject,
  TIMELINE_SOURCES,
  type TimelineCursor,
  type TimelineEntry,
  type TimelineSource,
} from '../../../ports/backoffice-views.ts';
import type { DepositsViews } from '../../../ports/deposits-views.ts';
import type { CredentialsOf, IssuanceViews } from '../../../ports/issuance-views.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { MembershipViews } from '../../../ports/membership-views.ts';
import type { OffersViews } from '../../../ports/offers-views.ts';
import type { SourcePage, SourceStart } from '../../../ports/timeline-page.ts';
import type { WalletViews } from '../../../ports/wallet-views.ts';

/**
 * A subject's timeline (docs/backoffice/views.md, "GET /api/admin/support/timeline/{subject}"):
 * every source that names an account, a credential or an offer, each read from its owner's view in
 * its own order after the cursor (one query per source, the account's offers two) and merged by
 * time. An account's sources are the ones the holder-data registry gives its columns.
 */

/** The owners' views the timeline reads, and the sources an account has. */
export interface TimelineReads {
  kernel: Pick<KernelViews, 'auditNaming' | 'eventsNaming'>;
  issuance: Pick<IssuanceViews, 'credential' | 'credentialsOf'>;
  offers: Pick<OffersViews, 'offersIn'>;
  wallet: Pick<WalletViews, 'offersAddressedTo' | 'itemsOf' | 'channelsOf'>;
  membership: Pick<MembershipViews, 'membershipsOf'>;
  deposits: Pick<DepositsViews, 'depositsOf'>;
  /** An account's sources: those the holder-data registry names for the columns that hold it. */
  accountSources: ReadonlySet<TimelineSource>;
}

/** Sources that read a credential or an offer by its id, whatever the registry says of accounts. */
const OBJECT_SOURCES: ReadonlySet<TimelineSource> = new Set(['audit', 'event', 'offer', 'credential', 'revocation', 'item']);

const rankOf = (source: TimelineSource) => TIMELINE_SOURCES.indexOf(source);

/**
 * Where a source's rows start after the cursor, in the order (at, rank, key): a source ranked before
 * the cursor's starts after its millisecond, one ranked after it at that millisecond, and the
 * cursor's own source after its key within the millisecond.
 */
function startOf(source: TimelineSource, cursor: TimelineCursor | undefined): SourceStart | undefined {
  if (!cursor) return undefined;
  const rank = rankOf(source);
  if (rank < cursor.rank) return { at: cursor.at, sameAt: 'none' };
  if (rank > cursor.rank) return { at: cursor.at, sameAt: 'all' };
  return { at: cursor.at, sameAt: 'past', key: cursor.id };
}

/** What every reader is given: the subject, its key, the offer it leads to, the tenant shown. */
interface Read {
  subject: Subject;
  key: string;
  /** The offer of an offer subject, or the one a credential came from. */
  offerId: string | undefined;
  tenant: string | null;
}

type Entry = Omit<TimelineEntry, 'source'>;
/** A source's reader: its entries of the page, or undefined when the source says nothing of this subject. */
type Reader = (r: Read, page: SourcePage) => Promise<Entry[]> | undefined;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const objectOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const credentialsOf = (r: Read): CredentialsOf =>
  r.subject.kind === 'account' ? { holder: r.key } : r.subject.kind === 'credential' ? { id: r.key } : { offerId: r.key };

function readers(v: TimelineReads): Record<TimelineSource, Reader> {
  return {
    audit: async (r, page) =>
      (await v.kernel.auditNaming(r.key, r.tenant, page)).map((e) => ({
        at: e.at,
        what: e.action,
        tenant: e.tenant,
        ref: String(e.seq),
        actor: e.actor,
        detail: { target: e.target, ...objectOf(e.detail) },
        key: e.seq,
      })),

    event: async (r, page) =>
      (await v.kernel.eventsNaming(r.key, r.tenant, page)).map((e) => ({
        at: e.createdAt,
        what: e.type,
        tenant: e.tenant,
        ref: e.id,
        actor: null,
        detail: objectOf(e.data),
        key: e.id,
      })),

    // Offers: the subject's own, a credential's, or those addressed to the account's wallet.
    offer: (r, page) => {
      if (r.subject.kind !== 'account' && r.offerId === undefined) return undefined;
      return (async () => {
        const ids = r.subject.kind === 'account' ? await v.wallet.offersAddressedTo(r.key, r.tenant) : [r.offerId as string];
        return (await v.offers.offersIn(ids, r.tenant, page)).map((o) => ({
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
        }));
      })();
    },

    credential: async (r, page) =>
      (await v.issuance.credentialsOf(credentialsOf(r), r.tenant, 'issued', page)).map((c) => ({
        at: c.issuedAt,
        what: 'credential.issued',
        tenant: c.tenant,
        ref: c.id,
        actor: null,
        detail: { typeId: c.typeId, offerId: c.offerId, list: c.listSeq, idx: c.idx, accountId: c.accountId },
        key: c.id,
      })),

    revocation: async (r, page) =>
      (await v.issuance.credentialsOf(credentialsOf(r), r.tenant, 'revoked', page)).map((c) => ({
        at: c.revokedAt as number,
        what: 'credential.revoked',
        tenant: c.tenant,
        ref: c.id,
        actor: null,
        detail: { typeId: c.typeId, list: c.listSeq, idx: c.idx },
        key: c.id,
      })),

    item: (r, page) => {
      if (r.subject.kind !== 'account' && r.offerId === undefined) return undefined;
      const of = r.subject.kind === 'account' ? { accountId: r.key } : { offerId: r.offerId as string };
      return v.wallet.itemsOf(of, r.tenant, page).then((items) =>
        items.map((i) => ({
          at: i.createdAt,
          what: 'item.created',
          tenant: i.tenant,
          ref: i.id,
          actor: null,
          detail: { kind: i.kind, ref: i.ref, state: i.state, accountId: i.accountId, updatedAt: iso(i.updatedAt) },
          key: i.id,
        })),
      );
    },

    membership: async (r, page) =>
      (await v.membership.membershipsOf(r.key, r.tenant, page)).map((m) => ({
        at: m.joinedAt,
        what: 'member.joined',
        tenant: m.tenant,
        ref: m.tenant,
        actor: null,
        detail: { tier: m.tier, status: m.status },
        key: m.tenant,
      })),

    deposit: async (r, page) =>
      (await v.deposits.depositsOf(r.key, r.tenant, page)).map((d) => ({
        at: d.createdAt,
        what: 'deposit.delivered',
        tenant: d.tenant,
        ref: d.depositId,
        actor: null,
        detail: { depositId: d.depositId, itemId: d.itemId, productId: d.productId },
        key: d.itemId,
      })),

    channel: async (r, page) =>
      (await v.wallet.channelsOf(r.key, r.tenant, page)).map((c) => ({
        at: c.createdAt,
        what: 'channel.created',
        tenant: c.tenant,
        ref: c.tenant,
        actor: null,
        detail: { state: c.state, elements: c.elements, requestedBy: c.requestedBy, updatedAt: iso(c.updatedAt) },
        key: c.tenant,
      })),
  };
}

export class SubjectTimeline {
  private readonly sources: Record<TimelineSource, Reader>;

  constructor(private readonly views: TimelineReads) {
    this.sources = readers(views);
  }

  /** The subject's entries after the cursor, within the tenant shown (null: every tenant), at most `limit`. */
  async read(
    subject: Subject,
    tenant: string | null,
    cursor: TimelineCursor | undefined,
    limit: number,
  ): Promise<TimelineEntry[]> {
    const key = subject.kind === 'account' ? subject.accountId : subject.id;
    // The offer a credential came from, so that its offer and wallet item join its timeline.
    const offerId =
      subject.kind === 'offer'
        ? subject.id
        : subject.kind === 'credential'
          ? (await this.views.issuance.credential(subject.id, tenant))?.offerId
          : undefined;
    const read: Read = { subject, key, offerId, tenant };
    const sources = subject.kind === 'account' ? this.views.accountSources : OBJECT_SOURCES;
    const answered = await Promise.all(
      TIMELINE_SOURCES.filter((source) => sources.has(source)).map(async (source) => {
        const start = startOf(source, cursor);
        const rows = (await this.sources[source](read, { ...(start ? { start } : {}), limit })) ?? [];
        return rows.map((row) => ({ ...row, source }));
      }),
    );
    // Each source answered in its own (at, key) order; merge by (at, rank), keeping that order.
    const merged = answered.flatMap((rows) => rows.map((row, position) => ({ row, position })));
    merged.sort((a, b) => a.row.at - b.row.at || rankOf(a.row.source) - rankOf(b.row.source) || a.position - b.position);
    return merged.slice(0, limit).map(({ row }) => row);
  }
}
