import type { Db } from '../connect.ts';
import { Statement } from '../statement.ts';

/*
 * The verification module's parts of other owners' statements (docs/architecture.md, "Tables,
 * owners and views"): the spend of a hosted-verification transaction that the membership module's
 * enrolment makes in its own transaction, with the member it creates, without the verification
 * module being built (it may be unmounted while membership is served).
 */

const markEnrolled = new Statement(
  'update presentation_transactions set enrolled_at = ? ' +
    'where id = ? and enrolled_at is null and completed_at is not null and expires_at > ?',
);

/**
 * Spends a live, completed transaction for one membership enrolment: one conditional write, so of
 * two racing enrolments exactly one succeeds. False when it is gone, pending or already spent.
 */
export async function spendForEnrolment(db: Db, transactionId: string, now: number): Promise<boolean> {
  return (await markEnrolled.changes(db, [now, transactionId, now])) === 1;
}
