/** One message handed to the mail transport (docs/operations.md, "Comms health"): never an address, subject or body. */
export interface MailOutcome {
  id: string;
  at: number;
  transport: 'smtp' | 'outbox';
  ok: boolean;
  /** An SMTP reply code or a transport error code; null when the message was taken. */
  failure: string | null;
}

/** The kernel's record of mail outcomes, shared by every process. */
export interface MailOutcomeLog {
  record(outcome: MailOutcome): Promise<void>;
  /** Deletes outcomes older than `before`; answers how many. */
  prune(before: number): Promise<number>;
}
