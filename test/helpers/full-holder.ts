import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { accountOf, type HolderKey, holderJws } from './holder.ts';
import { createOffer, issueOne, registerType } from './issuance.ts';
import { owner, PUBLIC_URL, type TestRail } from './rail.ts';

/**
 * A holder with something in every place the service keeps of an account — memberships in two
 * programmes with coins, a vote, a deposit accepted and shared over a channel, an offer made out
 * to it, a credential, a directory listing — made through the service's own operations. The
 * erasure and the data-subject lookup are tested on it.
 */

/** The directory pepper the rail must be started with (OPENRAIL_DIRECTORY_PEPPER). */
export const FULL_HOLDER_PEPPER = 'erasure-test-pepper-0123456789abcdef';
const HOUR = 60 * 60 * 1000;

const unique = (what: string) => `${what}-${randomBytes(6).toString('hex')}`;
const ok = (res: LightMyRequestResponse, status = 200) => {
  assert.equal(res.statusCode, status, res.body);
  return res.json();
};

export type FullHolder = Awaited<ReturnType<ReturnType<typeof fullHolders>['make']>>;

/**
 * Prepares the rail (tenant `alpha` with an approved bill product and a credential type; the
 * rail's clock reads `now()`), and answers `make`, which makes one such holder each call.
 */
export function fullHolders(rail: () => TestRail, now: () => number) {
  let typeId: string | undefined;
  const post = (url: string, payload?: unknown, headers: Record<string, string> = owner) =>
    rail().app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const asHolder = async (key: HolderKey, aud = PUBLIC_URL) => ({
    authorization: `Holder ${await holderJws({ aud, iat: Math.floor(now() / 1000) }, { key })}`,
  });

  async function prepare(): Promise<void> {
    ok(await post('/api/tenants', { name: 'Alpha' }), 201);
    const made = ok(await post('/api/products', { tenant: 'alpha', kind: 'bill', name: 'Water bill' }), 201);
    ok(await post(`/api/products/${made.productId}/approve`));
    typeId = (await registerType(rail().app, 'alpha', 'Erasure pass', ['holder_name'])).typeId;
  }

  async function make() {
    if (typeId === undefined) throw new Error('fullHolders: prepare() first');
    const app = rail().app;
    const marks = {
      name: unique('Grace'),
      reason: unique('Spring dinner'),
      title: unique('Water bill'),
      listed: unique('Grace H'),
      offered: unique('Offered'),
      email: `${unique('grace')}@example.org`,
    };
    const { credential, key } = await issueOne(app, 'alpha', typeId, { holder_name: 'Grace' });
    const accountId = accountOf(key);
    ok(await post('/api/members/enroll', { tenant: 'alpha', accountId, displayName: marks.name, tier: 'gold' }), 201);
    ok(await post('/api/members/enroll', { tenant: 'demo-transit', accountId, displayName: marks.name }), 201);
    for (const [delta, reason] of [
      [50, 'Welcome'],
      [-20, marks.reason],
    ] as const) {
      ok(
        await post('/api/members/update', { tenant: 'alpha', accountId, coins: { delta, reason, idempotencyKey: unique('k') } }),
      );
    }

    const proposal = ok(
      await post('/api/proposals', {
        tenant: 'alpha',
        action: 'create',
        title: 'Clubhouse colour',
        options: ['Green', 'Blue'],
        opensAt: new Date(now() - HOUR).toISOString(),
        closesAt: new Date(now() + HOUR).toISOString(),
      }),
      201,
    );
    ok(await post('/api/proposals', { tenant: 'alpha', action: 'open', proposalId: proposal.proposalId }));
    ok(await post('/member/vote', { proposalId: proposal.proposalId, option: 'Green' }, await asHolder(key)), 201);

    const bill = {
      contractVersion: '0.3.0',
      depositId: unique('bill'),
      accountId,
      kind: 'bill',
      title: marks.title,
      issuedAt: '2026-11-01T08:00:00Z',
      amount: { value: 4215, currency: 'EUR' },
    };
    const billItem = ok(await post('/api/tenants/alpha/bills', bill), 201).itemId as string;
    const itemUrl = (itemId: string, what: string) => `/api/wallet/${accountId}/items/${itemId}/${what}`;
    ok(await post(itemUrl(billItem, 'accept'), { decision: 'accept' }, await asHolder(key)));
    const asked = ok(await post('/api/org-channels/request', { tenant: 'alpha', accountId, elements: ['amount'] }), 201);
    ok(await post(itemUrl(asked.itemId, 'accept'), { decision: 'accept' }, await asHolder(key)));
    ok(await post(itemUrl(billItem, 'sharing'), { shares: [{ tenant: 'alpha', elements: ['amount'] }] }, await asHolder(key)));

    const offer = await createOffer(app, { tenant: 'alpha', typeId, accountId, subject: { holder_name: marks.offered } });

    ok(
      await post(
        '/directory/listing',
        { displayName: marks.listed, community: 'alpha', contacts: [{ kind: 'email', value: marks.email }] },
        await asHolder(key),
      ),
      201,
    );
    return {
      key,
      accountId,
      credential,
      marks,
      bill,
      offerId: offer.offerId as string,
      proposalId: proposal.proposalId as string,
    };
  }

  return { prepare, make, asHolder };
}

/** The rows that name `accountId`, per table whose column holds it. */
export async function rowsNaming(rail: TestRail, accountId: string): Promise<Record<string, number>> {
  const count = async (table: string, column: string) => {
    const rows = await rail.db
      .selectFrom(table as 'members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(column as 'account_id', '=', accountId)
      .execute();
    return Number(rows[0]?.n);
  };
  return {
    members: await count('members', 'account_id'),
    coin_entries: await count('coin_entries', 'account_id'),
    votes: await count('votes', 'account_id'),
    wallet_items: await count('wallet_items', 'account_id'),
    deposits: await count('deposits', 'account_id'),
    channels: await count('channels', 'account_id'),
    share_settings: await count('share_settings', 'account_id'),
    sharing_log: await count('sharing_log', 'account_id'),
    directory_listings: await count('directory_listings', 'account_id'),
    directory_contacts: await count('directory_contacts', 'account_id'),
    account_sessions: await count('account_sessions', 'account_id'),
    issued_credentials: await count('issued_credentials', 'holder_thumbprint'),
    signin_tickets: await count('signin_tickets', 'approved_account'),
    compliance_requests: await count('compliance_requests', 'account_id'),
  };
}
