/**
 * Why GET /verify/result/{transactionId} answers `outcome: null` (docs/verification.md). The
 * interface fixes that answer, HTTP 200 with `outcome: null`, for a pending transaction, a poll
 * without the resultToken and an unknown transaction alike, and Versioning 5 forbids changing the
 * status code of an existing outcome; an added optional field beside it is allowed, so a caller can
 * tell a wallet that has not answered yet from a poll that can never be answered
 * (docs/decisions/0022-the-interface-is-never-changed-by-us.md). None of them reveals the outcome.
 */
export const POLL_REASONS = [
  /** The right token, and the wallet has not answered yet: poll again. */
  'pending',
  /** No `Authorization: Bearer` was sent: nothing is looked up. */
  'result_token_required',
  /** The bearer is not this transaction's resultToken. */
  'wrong_result_token',
  /** No live transaction has this id: never made, expired, or evicted. */
  'unknown_transaction',
  /** A wallet on the same device answered: the outcome needs the Response-Code its browser brought back. */
  'response_code_required',
  /** The Response-Code is not the one this transaction handed its wallet. */
  'wrong_response_code',
] as const;

export type PollReason = (typeof POLL_REASONS)[number];

/** A poll's answer: the outcome, or null with the reason it is null. */
export type PollAnswer = { outcome: Record<string, unknown> } | { outcome: null; reason: PollReason };
