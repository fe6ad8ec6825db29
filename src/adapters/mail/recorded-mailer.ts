import type { Clock } from '../../core/clock.ts';
import type { Ids } from '../../core/ids.ts';
import type { MailOutcomeLog } from '../../ports/mail-outcomes.ts';
import type { Mailer, MailMessage } from '../../ports/mailer.ts';
import type { Meter } from '../../ports/meter.ts';

/**
 * The deployment's one mailer: sends through its transport and records each outcome (the log the
 * comms health reads, the meter) without the address, the subject or the body. A failure to
 * record never changes what the send answered.
 */
export class RecordedMailer implements Mailer {
  constructor(
    private readonly inner: Mailer,
    private readonly transport: 'smtp' | 'outbox',
    private readonly log: MailOutcomeLog,
    private readonly meter: Meter,
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {}

  async send(message: MailMessage): Promise<void> {
    let failure: string | null = null;
    try {
      await this.inner.send(message);
    } catch (err) {
      failure = failureClass(err);
      throw err;
    } finally {
      this.meter.mail(failure === null);
      await this.log
        .record({
          id: this.ids.mint('mailOutcome'),
          at: this.clock.now(),
          transport: this.transport,
          ok: failure === null,
          failure,
        })
        .catch(() => {});
    }
  }
}

/**
 * What kind of failure, in a word a log may keep: nodemailer's SMTP reply code (`550`) or error
 * code (`ECONNECTION`, `EAUTH`, `EENVELOPE`); an error message may name the recipient, so it is
 * never kept.
 */
export function failureClass(err: unknown): string {
  const e = err as { responseCode?: unknown; code?: unknown };
  if (typeof e?.responseCode === 'number' && Number.isInteger(e.responseCode)) return String(e.responseCode);
  if (typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]{0,31}$/.test(e.code)) return e.code;
  return 'ERROR';
}
