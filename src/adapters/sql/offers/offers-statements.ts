import type { Redemption } from '../../../ports/access-token-store.ts';
import { Statement } from '../statement.ts';
import type { GuardedWrite } from '../write-batch.ts';

/*
 * The offers module's parts of other owners' statements (docs/architecture.md, "Tables, owners
 * and views"): the writes to an offer that the issuance module's hot paths send in one statement
 * with their own (write-batch.ts; docs/scaling.md): the token request spends the offer's code as
 * it grants the access token, the credential request erases the offer's subject as it records the
 * credential.
 */

const spendCode = new Statement(
  'update offers set redeemed_at = ?, erase_after = ? ' +
    'where id = ? and tenant = ? and redeemed_at is null and expires_at > ? and subject is not null',
);

const eraseSubject = new Statement(
  'update offers set subject = null, collected_at = ? where id = ? and tenant = ? and collected_at is null and subject is not null',
);

/**
 * Spends the offer's pre-authorized code (once: a redeemed, expired or erased offer changes
 * nothing, and the batch answers `refusal`), keeping its subject until the token's expiry.
 */
export const spendCodeWrite = (r: Redemption, refusal: string): GuardedWrite => ({
  statement: spendCode,
  params: [r.now, r.eraseAfter, r.offer.id, r.offer.tenant, r.now],
  expect: 1,
  refusal,
});

/** Erases the subject of the offer whose credential is collected (once: a second collection changes nothing). */
export const eraseSubjectWrite = (offer: { id: string; tenant: string }, now: number, refusal: string): GuardedWrite => ({
  statement: eraseSubject,
  params: [now, offer.id, offer.tenant],
  expect: 1,
  refusal,
});
