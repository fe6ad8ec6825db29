import { isIdLike } from '../../../core/ids.ts';
import type { CredentialRow } from '../../../ports/issuance-views.ts';
import type { FinderSources } from '../credentials/sources.ts';

/** One thing a caller can name, found by the lookup. */
export interface LookupMatch {
  kind: 'holder' | 'credential' | 'offer' | 'deposit' | 'transaction' | 'item';
  id: string;
  tenant: string;
  accountId: string | null;
  typeId: string | null;
  state: string | null;
  at: number | null;
}

const STATUS_INDEX = /^(?:([1-9][0-9]{0,8}):)?([0-9]{1,9})$/;
const ACCOUNT_ID = /^[A-Za-z0-9_-]{43}$/;
const DEPOSIT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const credentialMatch = (c: CredentialRow): LookupMatch => ({
  kind: 'credential',
  id: c.id,
  tenant: c.tenant,
  accountId: c.accountId,
  typeId: c.typeId,
  state: c.revokedAt === null ? 'valid' : 'revoked',
  at: c.issuedAt,
});

/**
 * Everything an exact identifier names (docs/backoffice/views.md, "GET /api/admin/support/lookup"):
 * a credential, an offer and the credentials collected on it, a wallet item, a presentation
 * transaction, an account in each tenant that holds something of it, the credentials at a status
 * index, the deposits under a deposit id; in that order, each asked of its owner's view, at most `cap`.
 */
export async function lookup(s: FinderSources, q: string, tenant: string | null, cap: number): Promise<LookupMatch[]> {
  const status = STATUS_INDEX.exec(q);
  const [credential, offer, item, transaction, holderTenants, atStatus, deposits] = await Promise.all([
    isIdLike('credential', q) ? s.credentials.credential(q, tenant) : undefined,
    isIdLike('offer', q) ? s.offers.offer(q, tenant) : undefined,
    isIdLike('item', q) ? s.wallet.item(q, tenant) : undefined,
    isIdLike('transaction', q) ? s.transactions.transaction(q, tenant) : undefined,
    ACCOUNT_ID.test(q) ? accountTenants(s, q, tenant) : [],
    status
      ? s.credentials.byStatus({ idx: Number(status[2]), ...(status[1] ? { listSeq: Number(status[1]) } : {}) }, tenant, cap)
      : [],
    DEPOSIT_ID.test(q) ? s.deposits.byDepositId(q, tenant, cap) : [],
  ]);
  const matches: LookupMatch[] = [];
  if (credential) matches.push(credentialMatch(credential));
  if (offer) {
    matches.push({
      kind: 'offer',
      id: offer.id,
      tenant: offer.tenant,
      accountId: null,
      typeId: offer.typeId,
      state: offer.collectedAt !== null ? 'collected' : offer.redeemedAt !== null ? 'redeemed' : 'open',
      at: offer.createdAt,
    });
    const issued = await s.credentials.credentialsOf({ offerId: q }, tenant, 'issued', { limit: cap });
    matches.push(...issued.map(credentialMatch));
  }
  if (item) {
    const state = `${item.kind}:${item.state}`;
    matches.push({
      kind: 'item',
      id: item.id,
      tenant: item.tenant,
      accountId: item.accountId,
      typeId: null,
      state,
      at: item.createdAt,
    });
  }
  if (transaction) {
    matches.push({
      kind: 'transaction',
      id: transaction.id,
      tenant: transaction.tenant,
      accountId: transaction.accountId,
      typeId: transaction.typeId,
      state: transaction.completedAt === null ? 'open' : 'completed',
      at: transaction.createdAt,
    });
  }
  for (const t of holderTenants) {
    matches.push({ kind: 'holder', id: q, tenant: t, accountId: q, typeId: null, state: null, at: null });
  }
  matches.push(...atStatus.map(credentialMatch));
  for (const d of deposits) {
    matches.push({
      kind: 'deposit',
      id: d.depositId,
      tenant: d.tenant,
      accountId: d.accountId,
      typeId: null,
      state: d.erasedAt === null ? 'kept' : 'erased',
      at: d.createdAt,
    });
  }
  return matches.slice(0, cap);
}

/** The tenants that hold something of an account: a membership, an item, a channel, a deposit, a credential. */
async function accountTenants(s: FinderSources, accountId: string, tenant: string | null): Promise<string[]> {
  const held = await Promise.all([
    s.members.memberships([accountId], tenant),
    s.wallet.itemCounts([accountId], tenant),
    s.wallet.channelsByTenant(accountId, tenant),
    s.deposits.countsOf(accountId, tenant),
    s.credentials.countsOfHolder(accountId, tenant),
  ]);
  return [...new Set(held.flat().map((r) => r.tenant))].sort();
}
