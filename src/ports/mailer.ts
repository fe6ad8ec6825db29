/**
 * Outgoing mail (domain model, Onboarding): SMTP when OPENRAIL_SMTP_URL is set, otherwise a
 * development outbox of files under the data folder. A message is plain text to one recipient.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends the message, or throws; what it sent is not kept. */
  send(message: MailMessage): Promise<void>;
}
