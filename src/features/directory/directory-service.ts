import type { Static } from '@sinclair/typebox';
import type { Clock } from '../../core/clock.ts';
import { contactEntry, directoryBudgetKey, nameKey, normaliseContact, pepperId } from '../../core/directory-entry.ts';
import { ServiceError } from '../../core/errors.ts';
import type { RatePolicy } from '../../core/integration-scopes.ts';
import { consumeBudget } from '../../http/auth/rate-limit.ts';
import { cursorOf, decodeCursor, page } from '../../http/list.ts';
import type { DirectoryStore, FoundListing } from '../../ports/directory-store.ts';
import type { RateBudget } from '../../ports/integration-token-store.ts';
import type { MemberRecord } from '../../ports/membership-store.ts';
import type { Contact } from './routes.ts';

/** Contacts one listing may carry. */
export const MAX_CONTACTS = 5;
export const SEARCH_PAGE_DEFAULT = 20;
export const SEARCH_PAGE_MAX = 50;
/** Listings a lookup answers. */
export const LOOKUP_MAX = 10;
/** Descriptors and lookups per account and hour: each tells whether a contact is listed. */
export const ORACLE_POLICY: RatePolicy = { name: 'directory', quota: 60, windowSeconds: 3600 };

export type ContactInput = Static<typeof Contact>;

type Row = FoundListing & { nameKey: string };

/**
 * The holder directory (docs/directory.md): opt-in listings of enrolled holders, found by a
 * contact's keyed hash, by community, or by name prefix. Built only with a pepper; without one the
 * routes answer 503 directory_unconfigured.
 */
export class DirectoryService {
  private readonly pepperId: string;

  constructor(
    private readonly pepper: string,
    private readonly store: DirectoryStore,
    /** The membership module's service: the account's memberships. */
    private readonly members: { membershipsOf(accountId: string): Promise<MemberRecord[]> },
    private readonly budget: RateBudget,
    private readonly clock: Clock,
  ) {
    this.pepperId = pepperId(pepper);
  }

  /** The communities (tenants) the account is an active member of; refused when there is none. */
  private async communities(accountId: string): Promise<string[]> {
    const active = (await this.members.membershipsOf(accountId)).filter((m) => m.status === 'active').map((m) => m.tenant);
    if (active.length === 0) throw new ServiceError('not_enrolled', 'The directory is for holders enrolled in a programme.');
    return active;
  }

  /**
   * The one scope of every read of other holders' listings (lookup, both searches): the communities
   * the caller is an active member of, or only the one it names, which must be among them. A read
   * never widens this itself: it hands this scope to the store, which filters by it in the query,
   * so listings outside it are neither answered nor counted against a page or a limit.
   */
  private async readable(accountId: string, community?: string): Promise<string[]> {
    const own = await this.communities(accountId);
    if (community === undefined) return own;
    if (!own.includes(community)) {
      throw new ServiceError('not_enrolled', `Only active members of ${community} search its directory.`);
    }
    return [community];
  }

  private oracle(accountId: string): Promise<Record<string, string>> {
    const refusal = `The directory answers ${ORACLE_POLICY.quota} descriptors and lookups per hour and account.`;
    return consumeBudget(this.budget, directoryBudgetKey(accountId), ORACLE_POLICY, this.clock.now(), refusal);
  }

  private entryOf(c: ContactInput) {
    return { kind: c.kind, entry: contactEntry(this.pepper, c.kind, normaliseContact(c.kind, c.value)), pepperId: this.pepperId };
  }

  /** The entry a contact is listed and looked up under: what a holder passes on instead of the contact. */
  async descriptor(accountId: string, contact: ContactInput) {
    await this.communities(accountId);
    const headers = await this.oracle(accountId);
    const { kind, entry } = this.entryOf(contact);
    return { body: { kind, entry }, headers };
  }

  async put(accountId: string, input: { displayName: string; community: string; contacts: ContactInput[] }) {
    if (!(await this.communities(accountId)).includes(input.community)) {
      throw new ServiceError(
        'not_enrolled',
        `The holder is not an active member of ${input.community}; list in one of your own communities.`,
      );
    }
    const entries = [...new Map(input.contacts.map((c) => this.entryOf(c)).map((e) => [e.entry, e])).values()];
    const now = this.clock.now();
    const existing = await this.store.mine(accountId);
    await this.store.put(
      {
        accountId,
        community: input.community,
        displayName: input.displayName,
        createdAt: existing?.listing.createdAt ?? now,
        updatedAt: now,
      },
      entries,
    );
    return { created: existing === undefined, listing: await this.me(accountId) };
  }

  async remove(accountId: string): Promise<void> {
    if (!(await this.store.remove(accountId))) throw new ServiceError('unknown_listing', 'The holder has no directory listing.');
  }

  async me(accountId: string) {
    const mine = await this.store.mine(accountId);
    if (!mine) throw new ServiceError('unknown_listing', 'The holder has no directory listing.');
    return {
      accountId,
      community: mine.listing.community,
      displayName: mine.listing.displayName,
      contacts: mine.contacts.map((c) => ({ kind: c.kind, entry: c.entry, current: c.pepperId === this.pepperId })),
      createdAt: new Date(mine.listing.createdAt).toISOString(),
      updatedAt: new Date(mine.listing.updatedAt).toISOString(),
    };
  }

  async lookup(accountId: string, entry: string) {
    const scope = await this.readable(accountId);
    const headers = await this.oracle(accountId);
    return { body: { listings: await this.store.lookup(entry, this.pepperId, scope, LOOKUP_MAX) }, headers };
  }

  async byCommunity(accountId: string, community: string, limit: number, cursor: string | undefined) {
    const scope = await this.readable(accountId, community);
    return this.page(await this.store.byCommunity(scope, { limit: limit + 1, ...this.after(cursor) }), limit);
  }

  async byName(accountId: string, query: string, community: string | undefined, limit: number, cursor: string | undefined) {
    const scope = await this.readable(accountId, community);
    const prefix = nameKey(query);
    if (prefix.length < 2) throw new ServiceError('invalid_request', 'A name search needs at least 2 characters.');
    return this.page(await this.store.byName(prefix, scope, { limit: limit + 1, ...this.after(cursor) }), limit);
  }

  /** The cursor of a search: the last listing answered, [nameKey, accountId]. */
  private after(cursor: string | undefined) {
    const after = cursor === undefined ? undefined : cursorOf(decodeCursor(cursor), ['string', 'string'] as const);
    return after ? { after: { nameKey: after[0], accountId: after[1] } } : {};
  }

  private page(rows: Row[], limit: number) {
    const shown = page(
      rows,
      limit,
      (r) => [r.nameKey, r.accountId],
      ({ nameKey: _key, ...listing }) => listing,
    );
    return { listings: shown.rows, nextCursor: shown.nextCursor };
  }
}
