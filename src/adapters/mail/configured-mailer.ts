import { join } from 'node:path';
import type { Config } from '../../config/config.ts';
import type { Mailer } from '../../ports/mailer.ts';
import { OutboxMailer } from './outbox-mailer.ts';
import { SmtpMailer } from './smtp-mailer.ts';

/**
 * The deployment's mail (README, environment): SMTP when OPENRAIL_SMTP_URL is set, otherwise the
 * development outbox under the data folder, whose files are named in the log.
 */
export function configuredMailer(config: Config, wrote: (path: string) => void): Mailer {
  return config.smtpUrl
    ? new SmtpMailer(config.smtpUrl, config.mailFrom)
    : new OutboxMailer(join(config.dataDir, 'mail-outbox'), config.mailFrom, wrote);
}
