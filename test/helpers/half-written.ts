/**
 * One query over an issuance's tables that counts what a failure may have left half-written:
 * every redeemed offer has its one access token, every collected one its credential and its
 * event (test/storage/outage.test.ts, test/cluster/). PostgreSQL.
 */
export const HALF_WRITTEN = `select
    (select count(*)::int from offers o where o.redeemed_at is not null
       and not exists (select 1 from access_tokens a where a.grant_id = o.id)) as "redeemedWithoutToken",
    (select count(*)::int from access_tokens a join offers o on o.id = a.grant_id
       where o.redeemed_at is null) as "tokenWithoutRedemption",
    (select count(*)::int from offers o where o.collected_at is not null
       and not exists (select 1 from issued_credentials c where c.offer_id = o.id)) as "collectedWithoutCredential",
    (select count(*)::int from access_tokens a join offers o on o.id = a.grant_id
       where a.spent_at is not null and o.collected_at is null) as "spentWithoutCollection",
    (select count(*)::int from issued_credentials c where not exists
       (select 1 from outbox e where e.type = 'credential.issued' and e.data like '%' || c.id || '%')) as "credentialsWithoutEvent"`;

/** What HALF_WRITTEN answers when nothing is half-written. */
export const NONE_HALF_WRITTEN = {
  redeemedWithoutToken: 0,
  tokenWithoutRedemption: 0,
  collectedWithoutCredential: 0,
  spentWithoutCollection: 0,
  credentialsWithoutEvent: 0,
};
